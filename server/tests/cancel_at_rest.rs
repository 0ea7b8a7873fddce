//! A cancel of a task at rest (waiting for input, no runner at work) reaches every stream
//! that follows the task, which then ends: A2A v1.0.1 §3.1.6 (a stream ends at a terminal
//! state) and §3.5.2 (every stream receives the task's events).
//!
//! Through the shared router, in-process with `oneshot`, for each binding: JSON-RPC in
//! v0.3 (`tasks/resubscribe`, `tasks/cancel`) and v1.0 (`SubscribeToTask`, `CancelTask`),
//! and HTTP+JSON (`GET /tasks/{id}:subscribe`, `POST /tasks/{id}:cancel`). Each stream
//! is read event by event, each event (and the end) within a bound, so that a stream
//! left open fails the test rather than hanging it.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::card::Bindings;
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::{Engine, EngineConfig};
use a2a_lambda_server::host::http::{RouterOptions, router};
use a2a_lambda_server::tasks::InMemoryTaskStore;
use a2a_test_support::sse::SseReader;
use axum::Router;
use axum::body::{Body, BodyDataStream};
use axum::http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// How long each event, and the end of a stream, may take.
const STEP: Duration = Duration::from_secs(5);

/// The conformance agent (its `tck-input-required` messages leave the task waiting for
/// input) on an in-memory store, both bindings served; the engine too, to see when its
/// runners are gone.
fn app() -> (Router, Arc<Engine>) {
    let engine = Engine::new(
        BuiltIn::Conformance.agent(),
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: "http://127.0.0.1:9000/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
            background_work: true,
        },
    )
    .expect("valid engine")
    .with_bindings(Bindings::both());
    let engine = Arc::new(engine);
    (
        router(Arc::clone(&engine), RouterOptions::default()),
        engine,
    )
}

/// How a test speaks to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    RpcV0_3,
    RpcV1_0,
    HttpJson,
}

impl Binding {
    const ALL: [Self; 3] = [Self::RpcV0_3, Self::RpcV1_0, Self::HttpJson];

    /// A JSON-RPC request of `method` (v1.0 says so in its header).
    fn rpc(self, id: &str, method: &str, params: &Value) -> Request<Body> {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let builder = Request::post("/").header(header::CONTENT_TYPE, "application/json");
        let builder = match self {
            Self::RpcV1_0 => builder.header("A2A-Version", "1.0"),
            _ => builder,
        };
        builder.body(Body::from(body.to_string())).unwrap()
    }

    fn rest(method: Method, path: &str, body: Option<&Value>) -> Request<Body> {
        let builder = Request::builder()
            .method(method)
            .uri(path)
            .header("A2A-Version", "1.0");
        match body {
            Some(body) => builder
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body.to_string())),
            None => builder.body(Body::empty()),
        }
        .unwrap()
    }

    /// A blocking send of `message_id`: the task it made.
    async fn send(self, app: &Router, message_id: &str) -> Value {
        let request = match self {
            Self::RpcV0_3 => self.rpc(
                "send",
                "message/send",
                &json!({"message": {"kind": "message", "messageId": message_id,
                    "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}),
            ),
            Self::RpcV1_0 => self.rpc(
                "send",
                "SendMessage",
                &json!({"message": {"messageId": message_id, "role": "ROLE_USER",
                    "parts": [{"text": "hi"}]}}),
            ),
            Self::HttpJson => Self::rest(
                Method::POST,
                "/message:send",
                Some(
                    &json!({"message": {"messageId": message_id, "role": "ROLE_USER",
                    "parts": [{"text": "hi"}]}}),
                ),
            ),
        };
        let answer = json_of(app, request).await;
        match self {
            Self::RpcV0_3 => answer["result"].clone(),
            Self::RpcV1_0 => answer["result"]["task"].clone(),
            Self::HttpJson => answer["task"].clone(),
        }
    }

    fn subscribe(self, task_id: &str) -> Request<Body> {
        let params = json!({"id": task_id});
        match self {
            Self::RpcV0_3 => self.rpc("sub", "tasks/resubscribe", &params),
            Self::RpcV1_0 => self.rpc("sub", "SubscribeToTask", &params),
            Self::HttpJson => Self::rest(Method::GET, &format!("/tasks/{task_id}:subscribe"), None),
        }
    }

    /// Cancels the task: the task as the cancel answers it.
    async fn cancel(self, app: &Router, task_id: &str) -> Value {
        let params = json!({"id": task_id});
        let request = match self {
            Self::RpcV0_3 => self.rpc("cancel", "tasks/cancel", &params),
            Self::RpcV1_0 => self.rpc("cancel", "CancelTask", &params),
            Self::HttpJson => Self::rest(Method::POST, &format!("/tasks/{task_id}:cancel"), None),
        };
        let answer = json_of(app, request).await;
        match self {
            Self::HttpJson => answer,
            _ => answer["result"].clone(),
        }
    }

    fn state(self, state: &str) -> String {
        match self {
            Self::RpcV0_3 => state.to_owned(),
            _ => format!(
                "TASK_STATE_{}",
                state.replace('-', "_").to_ascii_uppercase()
            ),
        }
    }

    /// The task a stream's first event opens with.
    fn task_in(self, event: &Value) -> Value {
        match self {
            Self::RpcV0_3 => event["result"].clone(),
            Self::RpcV1_0 => event["result"]["task"].clone(),
            Self::HttpJson => event["task"].clone(),
        }
    }

    /// The exact event that tells a stream the task is `task` now, and ends it.
    fn final_status(self, task: &Value) -> Value {
        let (task_id, context_id, status) = (&task["id"], &task["contextId"], &task["status"]);
        match self {
            Self::RpcV0_3 => json!({"jsonrpc": "2.0", "id": "sub", "result": {
                "kind": "status-update", "taskId": task_id, "contextId": context_id,
                "status": status, "final": true}}),
            Self::RpcV1_0 => json!({"jsonrpc": "2.0", "id": "sub", "result": {"statusUpdate": {
                "taskId": task_id, "contextId": context_id, "status": status}}}),
            Self::HttpJson => json!({"statusUpdate": {
                "taskId": task_id, "contextId": context_id, "status": status}}),
        }
    }
}

async fn json_of(app: &Router, request: Request<Body>) -> Value {
    let response = app.clone().oneshot(request).await.expect("router answers");
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    serde_json::from_slice(&bytes).expect("a JSON answer")
}

/// An SSE body, read one event at a time.
struct Sse(SseReader<BodyDataStream>);

impl Sse {
    async fn open(app: &Router, request: Request<Body>) -> Self {
        let response = app.clone().oneshot(request).await.expect("router answers");
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Self(SseReader::new(
            response.into_body().into_data_stream(),
            STEP,
        ))
    }

    /// The JSON of the next event; `None` when the body ends. Either within [`STEP`].
    async fn next(&mut self) -> Option<Value> {
        self.0.next_json().await
    }
}

/// Waits until no runner is at work: the task rests in the store alone.
async fn runners_gone(engine: &Engine) {
    let deadline = tokio::time::Instant::now() + STEP;
    while engine.running_tasks() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a runner kept running"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_subscriber_to_a_task_waiting_for_input_sees_its_cancel_then_the_end() {
    for binding in Binding::ALL {
        let (app, engine) = app();
        let task = binding
            .send(&app, &format!("tck-input-required-{binding:?}"))
            .await;
        assert_eq!(
            task["status"]["state"],
            binding.state("input-required"),
            "{task}"
        );
        let task_id = task["id"].as_str().unwrap().to_owned();
        runners_gone(&engine).await;

        let mut stream = Sse::open(&app, binding.subscribe(&task_id)).await;
        let first = stream.next().await.expect("the task as it stands");
        assert_eq!(binding.task_in(&first), task, "{binding:?}");

        let canceled = binding.cancel(&app, &task_id).await;
        assert_eq!(
            canceled["status"]["state"],
            binding.state("canceled"),
            "{canceled}"
        );
        let told = stream.next().await;
        assert_eq!(
            told,
            Some(binding.final_status(&canceled)),
            "{binding:?}: the subscriber is told of the cancel"
        );
        assert_eq!(
            stream.next().await,
            None,
            "{binding:?}: then its stream ends"
        );
    }
}

#[tokio::test]
async fn two_subscribers_to_a_task_waiting_for_input_both_see_its_cancel() {
    let (app, engine) = app();
    let binding = Binding::RpcV1_0;
    let task = binding.send(&app, "tck-input-required-two").await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    runners_gone(&engine).await;
    let mut streams = Vec::new();
    for opening in [Binding::RpcV0_3, Binding::HttpJson] {
        let mut stream = Sse::open(&app, opening.subscribe(&task_id)).await;
        assert!(stream.next().await.is_some(), "{opening:?}: the snapshot");
        streams.push((opening, stream));
    }
    let canceled = binding.cancel(&app, &task_id).await;
    for (opening, mut stream) in streams {
        let mut told = stream.next().await.expect("the cancel");
        // The two versions write the same status each their own way.
        let state = if opening == Binding::RpcV0_3 {
            told["result"]["status"]["state"].take()
        } else {
            told["statusUpdate"]["status"]["state"].take()
        };
        assert_eq!(state, opening.state("canceled"), "{opening:?}");
        assert_eq!(stream.next().await, None, "{opening:?}");
    }
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
}
