//! What the Lambda function's tests (the `a2a-lambda` host and the `a2a-agent` binary)
//! expect from the echo agent: its card, its completed tasks in each protocol version, and
//! the JSON-RPC errors, with generated values (ids, timestamps) checked and redacted; and
//! an engine as the function builds one, called in-process.

use std::sync::Arc;

use a2a_lambda_core::card::SecurityMechanism;
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::{CallContext, Engine, EngineConfig, Reply};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::TaskStore;
use serde_json::{Value, json};

pub use crate::values::{is_rfc3339_millis, is_uuid};

/// An engine for a built-in agent on `store`, as the function builds one by default
/// (buffered, no auth, the placeholder URL).
///
/// # Panics
/// When the engine cannot be built.
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

/// The Function URL host every `function_url_*` fixture is addressed to.
pub const FUNCTION_URL_HOST: &str = "abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws";

/// The echo agent's hybrid card, served at `url`.
pub fn echo_card(url: &str, streaming: bool) -> Value {
    json!({
        "name": "Echo Agent",
        "description": "Echoes every message back. The built-in agent of a2a-lambda, for trying clients and hosts.",
        // Both bindings, the function's default (`A2A_BINDINGS`): HTTP+JSON at the URL
        // without its trailing slash, where `{url}/message:send` is.
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url.trim_end_matches('/'), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": {"streaming": streaming, "pushNotifications": false, "extendedAgentCard": false},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{
            "id": "echo",
            "name": "Echo",
            "description": "Returns the text of your message as an artifact.",
            "tags": ["echo", "test"],
            "examples": ["hello"],
        }],
        "url": url,
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "supportsAuthenticatedExtendedCard": false,
    })
}

/// The same card publishing the `X-API-Key` scheme, in both versions' shapes.
pub fn with_api_key_scheme(mut card: Value) -> Value {
    card["securitySchemes"] = json!({"apiKey": {
        "type": "apiKey", "in": "header", "name": "X-API-Key",
        "apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"},
    }});
    card["security"] = json!([{"apiKey": []}]);
    card["securityRequirements"] = json!([{"schemes": {"apiKey": {"list": []}}}]);
    card
}

/// `value` with every `timestamp` checked (RFC 3339, milliseconds, UTC) and replaced by
/// `"<timestamp>"`; generated message ids stay (unlike the harness's `redact`).
///
/// # Panics
/// When a timestamp is malformed.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let item = match (key.as_str(), item) {
                        ("timestamp", Value::String(text)) => {
                            assert!(is_rfc3339_millis(text), "bad timestamp {text:?}");
                            json!("<timestamp>")
                        }
                        _ => redact(item),
                    };
                    (key.clone(), item)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

/// The task and context ids of a task (both generated UUIDs).
///
/// # Panics
/// When either is missing or not a UUID.
pub fn ids(task: &Value) -> (String, String) {
    let id = task["id"].as_str().expect("task id").to_owned();
    let context = task["contextId"].as_str().expect("context id").to_owned();
    assert!(is_uuid(&id), "task id {id:?}");
    assert!(is_uuid(&context), "context id {context:?}");
    (id, context)
}

/// The JSON-RPC answer of the echo agent to a v0.3 `message/send` (redacted), with the
/// ids it generated.
pub fn echo_send_v0_3(id: Value, answer: &Value, message_id: &str, text: &str) -> Value {
    let (task_id, context_id) = ids(&answer["result"]);
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "kind": "task",
        "id": task_id,
        "contextId": context_id,
        "status": {"state": "completed", "timestamp": "<timestamp>"},
        "artifacts": [{"artifactId": "echo", "parts": [{"kind": "text", "text": text}]}],
        "history": [{
            "kind": "message",
            "messageId": message_id,
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
            "contextId": context_id,
            "taskId": task_id,
        }],
    }})
}

/// The same for a v1.0 `SendMessage`.
pub fn echo_send_v1_0(id: Value, answer: &Value, message_id: &str, text: &str) -> Value {
    let (task_id, context_id) = ids(&answer["result"]["task"]);
    json!({"jsonrpc": "2.0", "id": id, "result": {"task": {
        "id": task_id,
        "contextId": context_id,
        "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "<timestamp>"},
        "artifacts": [{"artifactId": "echo", "parts": [{"text": text}]}],
        "history": [{
            "messageId": message_id,
            "contextId": context_id,
            "taskId": task_id,
            "role": "ROLE_USER",
            "parts": [{"text": text}],
        }],
    }}})
}

/// A spec-profile JSON-RPC error with its `google.rpc.ErrorInfo` detail.
pub fn rpc_error(id: Value, code: i64, title: &str, reason: &str, detail: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": code,
        "message": format!("{title}: {detail}"),
        "data": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "domain": "a2a-protocol.org",
            "metadata": {"detail": detail},
            "reason": reason,
        }],
    }})
}

/// -32601 for the `tasks/frobnicate` request of `function_url_unknown_method.json`.
pub fn unknown_method_error() -> Value {
    rpc_error(
        json!(7),
        -32601,
        "Method not found",
        "METHOD_NOT_FOUND",
        "no method named \"tasks/frobnicate\"",
    )
}

/// The body the API-key check answers with (no request id could be read).
pub fn unauthorized_body() -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {
        "code": -32600,
        "message": "Unauthorized: send a valid X-API-Key header",
    }})
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
