//! What the DynamoDB store tests share: moto ([`moto`]), and an engine on a store with
//! one JSON-RPC exchange at a time.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use a2a_core::card::SecurityMechanism;
use a2a_core::error::ErrorProfile;
use a2a_server::agents::BuiltIn;
use a2a_server::engine::{CallContext, Engine, EngineConfig, Reply};
use a2a_server::owner::Owner;
use a2a_server::tasks::TaskStore;
use serde_json::Value;

pub mod moto;

/// An engine for a built-in agent on `store`, as a2a-lambda builds one by default
/// (buffered, no auth, the placeholder URL).
pub fn engine_on(agent: BuiltIn, store: Arc<dyn TaskStore>) -> Engine {
    Engine::new(
        agent.agent(),
        store,
        EngineConfig {
            public_url: "https://localhost/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: false,
            security: Some(SecurityMechanism::None),
            background_work: true,
        },
    )
    .expect("engine")
}

/// Sends `request` to `engine` (with `A2A-Version: version` when given) and returns the
/// JSON body of its HTTP 200 answer (the DynamoDB store tests' one exchange).
pub async fn rpc(engine: &Engine, version: Option<&str>, request: Value) -> Value {
    rpc_as(engine, version, &Owner::anonymous(), request).await
}

/// [`rpc`] from a caller the host identified as `owner`.
pub async fn rpc_as(
    engine: &Engine,
    version: Option<&str>,
    owner: &Owner,
    request: Value,
) -> Value {
    let call = CallContext {
        version_header: version.map(str::to_owned),
        request_id: "test".to_owned(),
        owner: owner.clone(),
        ..CallContext::default()
    };
    match engine.handle(request.to_string().as_bytes(), &call).await {
        Reply::Json { status, body } => {
            assert_eq!(status, 200);
            serde_json::from_slice(&body).unwrap()
        }
        other => panic!("not a JSON reply: {other:?}"),
    }
}
