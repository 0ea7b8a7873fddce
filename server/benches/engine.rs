//! What one `message/send` / `SendMessage` to the echo agent costs in-process, without
//! sockets: `cargo bench -p a2a-lambda-server --bench engine`.
//!
//! Three layers of the same request: the engine alone (`Engine::handle`), the whole router
//! (`tower::ServiceExt::oneshot`, with every layer), and a minimal axum + serde_json echo
//! as the floor (what `scripts/load.py` calls the ceiling, minus the kernel). And the same
//! send over the HTTP+JSON binding (`POST /message:send`), through the engine
//! (`Engine::handle_operation`) and the router.

use std::hint::black_box;
use std::sync::Arc;

use a2a_lambda_core::card::Bindings;
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_core::version::Operation;
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, EngineConfig};
use a2a_lambda_server::host::http::{RouterOptions, router};
use a2a_lambda_server::tasks::InMemoryTaskStore;
use axum::body::{Body, Bytes};
use axum::http::{Request, header};
use axum::routing::post;
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::BodyExt as _;
use serde_json::value::RawValue;
use tower::ServiceExt as _;

const V0_3: &str = r#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"load-1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}"#;
const V1_0: &str = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"load-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}"#;
const REST: &str =
    r#"{"message":{"messageId":"load-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}"#;

fn engine() -> Arc<Engine> {
    let config = EngineConfig {
        public_url: "http://127.0.0.1:9000/".to_owned(),
        error_profile: ErrorProfile::Spec,
        host_can_stream: true,
        security: None,
        background_work: true,
    };
    match Engine::new(
        Arc::new(EchoAgent),
        Arc::new(InMemoryTaskStore::new()),
        config,
    ) {
        Ok(engine) => Arc::new(engine.with_bindings(Bindings::both())),
        Err(error) => panic!("the echo engine must build: {error}"),
    }
}

fn request(body: &'static str, version: Option<&str>) -> Request<Body> {
    request_to("/", body, version)
}

fn request_to(path: &str, body: &'static str, version: Option<&str>) -> Request<Body> {
    let mut builder = Request::post(path).header(header::CONTENT_TYPE, "application/json");
    if let Some(version) = version {
        builder = builder.header("A2A-Version", version);
    }
    match builder.body(Body::from(body)) {
        Ok(request) => request,
        Err(error) => panic!("a fixed request must build: {error}"),
    }
}

async fn ceiling(body: Bytes) -> Vec<u8> {
    let answer = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(request) => {
            serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": request["params"]})
        }
        Err(_) => serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700}}),
    };
    serde_json::to_vec(&answer).unwrap_or_default()
}

/// The body of the router's answer to `request`.
async fn through(app: &axum::Router, request: Request<Body>) -> Option<Bytes> {
    match app.clone().oneshot(request).await {
        Ok(response) => response
            .into_body()
            .collect()
            .await
            .ok()
            .map(|b| b.to_bytes()),
        Err(never) => match never {},
    }
}

fn send(c: &mut Criterion) {
    // One thread, as each worker is under load: a spawned runner runs where it was
    // spawned, and the figure is CPU time, not a hop between threads.
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(error) => panic!("a runtime must start: {error}"),
    };
    let engine = engine();
    let app = router(Arc::clone(&engine), RouterOptions::default());
    let floor = axum::Router::new().route("/", post(ceiling));
    for (name, body, version) in [("v0.3", V0_3, None), ("v1.0", V1_0, Some("1.0"))] {
        let call = CallContext {
            version_header: version.map(str::to_owned),
            request_id: "bench".to_owned(),
            ..CallContext::default()
        };
        c.bench_function(&format!("engine {name} send"), |b| {
            b.iter(|| runtime.block_on(engine.handle(black_box(body.as_bytes()), &call)))
        });
        c.bench_function(&format!("router {name} send"), |b| {
            b.iter(|| runtime.block_on(through(&app, request(body, version))))
        });
    }
    let call = CallContext {
        version_header: Some("1.0".to_owned()),
        request_id: "bench".to_owned(),
        ..CallContext::default()
    };
    let params: Box<RawValue> = match RawValue::from_string(REST.to_owned()) {
        Ok(params) => params,
        Err(error) => panic!("a fixed body must be JSON: {error}"),
    };
    c.bench_function("engine v1.0 REST send", |b| {
        b.iter(|| {
            runtime.block_on(engine.handle_operation(
                Operation::Send,
                Some(black_box(&params)),
                &call,
            ))
        })
    });
    c.bench_function("router v1.0 REST message:send", |b| {
        b.iter(|| {
            runtime.block_on(through(
                &app,
                request_to("/message:send", REST, Some("1.0")),
            ))
        })
    });
    c.bench_function("floor (axum + serde_json echo)", |b| {
        b.iter(|| runtime.block_on(through(&floor, request(V1_0, None))))
    });
}

criterion_group!(benches, send);
criterion_main!(benches);
