//! A cancel of a task at rest (waiting for input, no runner at work) reaches the stream
//! that follows the task on the function, which then ends (A2A v1.0.1 §3.1.6, §3.5.2):
//! one instance (one app, its in-memory store) in `RESPONSE_STREAM` mode, fed Function
//! URL events, for JSON-RPC v0.3 and v1.0 and for HTTP+JSON. Each event of the stream, and
//! its end, must come within a bound, so that a stream left open fails the test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;
use std::time::Duration;

use a2a_lambda::{App, Config};
use a2a_test_support::sse::SseReader;
use axum::body::BodyDataStream;
use axum::http::{StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::{Service as _, ServiceExt as _};

/// A Function URL event (`POST /`), edited to each request below.
const FURL_STREAM: &str = include_str!("fixtures/function_url_stream_v0_3.json");

/// How long each event, and the end of a stream, may take.
const STEP: Duration = Duration::from_secs(5);

fn app() -> App {
    let vars: HashMap<String, String> = [("A2A_STREAMING", "true")]
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    let config = Config::from_lookup(|name| vars.get(name).cloned()).expect("valid configuration");
    let (app, _) = a2a_lambda::Lambda::new(a2a_lambda_server::agents::ConformanceAgent::default())
        .config(config)
        .into_app()
        .expect("app");
    app
}

/// The Function URL event of one request: `version_1_0` sends `A2A-Version: 1.0`;
/// `sse` asks for an event stream.
fn event(method: &str, path: &str, version_1_0: bool, sse: bool, body: Option<&Value>) -> String {
    let mut event: Value = serde_json::from_str(FURL_STREAM).expect("fixture is JSON");
    event["rawPath"] = json!(path);
    event["requestContext"]["http"]["path"] = json!(path);
    event["requestContext"]["http"]["method"] = json!(method);
    if version_1_0 {
        event["headers"]["a2a-version"] = json!("1.0");
    }
    if !sse {
        event["headers"]["accept"] = json!("application/json");
    }
    match body {
        Some(body) => event["body"] = json!(body.to_string()),
        None => {
            event.as_object_mut().unwrap().remove("body");
            event["headers"]
                .as_object_mut()
                .unwrap()
                .remove("content-type");
        }
    }
    event.to_string()
}

async fn respond(app: &mut App, event: &str) -> axum::response::Response {
    let request = lambda_http::request::from_str(event).expect("the event deserializes");
    app.ready()
        .await
        .expect("ready")
        .call(request)
        .await
        .expect("the app answers")
}

async fn json_of(app: &mut App, event: &str) -> Value {
    let response = respond(app, event).await;
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    serde_json::from_slice(&bytes).expect("a JSON answer")
}

/// Waits until `/ping` says no task runs: the task rests in the store alone.
async fn idle(app: &mut App) {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let ping = json_of(app, &event("GET", "/ping", false, false, None)).await;
        if ping["status"] == "Healthy" {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "busy: {ping}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// An SSE body, read one event at a time.
struct Sse(SseReader<BodyDataStream>);

impl Sse {
    async fn open(app: &mut App, event: &str) -> Self {
        let response = respond(app, event).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers().get(header::CONTENT_TYPE).unwrap(),
            "text/event-stream"
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

fn rpc(id: &str, method: &str, params: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn json_rpc_v0_3_a_subscriber_sees_the_cancel_of_a_task_waiting_for_input_then_the_end() {
    let mut app = app();
    let send = rpc(
        "send",
        "message/send",
        &json!({"message": {"kind": "message", "messageId": "tck-input-required-v03",
            "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}),
    );
    let task =
        json_of(&mut app, &event("POST", "/", false, false, Some(&send))).await["result"].clone();
    assert_eq!(task["status"]["state"], "input-required", "{task}");
    let id = task["id"].as_str().unwrap();
    idle(&mut app).await;

    let subscribe = rpc("sub", "tasks/resubscribe", &json!({"id": id}));
    let mut stream = Sse::open(&mut app, &event("POST", "/", false, true, Some(&subscribe))).await;
    assert_eq!(
        stream.next().await,
        Some(json!({"jsonrpc": "2.0", "id": "sub", "result": task}))
    );
    let cancel = rpc("cancel", "tasks/cancel", &json!({"id": id}));
    let canceled =
        json_of(&mut app, &event("POST", "/", false, false, Some(&cancel))).await["result"].clone();
    assert_eq!(canceled["status"]["state"], "canceled", "{canceled}");
    assert_eq!(
        stream.next().await,
        Some(json!({"jsonrpc": "2.0", "id": "sub", "result": {
            "kind": "status-update", "taskId": id, "contextId": task["contextId"],
            "status": canceled["status"], "final": true}}))
    );
    assert_eq!(stream.next().await, None, "the stream ends");
}

#[tokio::test]
async fn json_rpc_v1_0_a_subscriber_sees_the_cancel_of_a_task_waiting_for_input_then_the_end() {
    let mut app = app();
    let send = rpc(
        "send",
        "SendMessage",
        &json!({"message": {"messageId": "tck-input-required-v10", "role": "ROLE_USER",
            "parts": [{"text": "hi"}]}}),
    );
    let task =
        json_of(&mut app, &event("POST", "/", true, false, Some(&send))).await["result"]["task"]
            .clone();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let id = task["id"].as_str().unwrap();
    idle(&mut app).await;

    let subscribe = rpc("sub", "SubscribeToTask", &json!({"id": id}));
    let mut stream = Sse::open(&mut app, &event("POST", "/", true, true, Some(&subscribe))).await;
    assert_eq!(
        stream.next().await,
        Some(json!({"jsonrpc": "2.0", "id": "sub", "result": {"task": task}}))
    );
    let cancel = rpc("cancel", "CancelTask", &json!({"id": id}));
    let canceled =
        json_of(&mut app, &event("POST", "/", true, false, Some(&cancel))).await["result"].clone();
    assert_eq!(
        canceled["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert_eq!(
        stream.next().await,
        Some(
            json!({"jsonrpc": "2.0", "id": "sub", "result": {"statusUpdate": {
            "taskId": id, "contextId": task["contextId"], "status": canceled["status"]}}})
        )
    );
    assert_eq!(stream.next().await, None, "the stream ends");
}

#[tokio::test]
async fn http_json_a_subscriber_sees_the_cancel_of_a_task_waiting_for_input_then_the_end() {
    let mut app = app();
    let send = json!({"message": {"messageId": "tck-input-required-rest", "role": "ROLE_USER",
        "parts": [{"text": "hi"}]}});
    let task = json_of(
        &mut app,
        &event("POST", "/message:send", true, false, Some(&send)),
    )
    .await["task"]
        .clone();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let id = task["id"].as_str().unwrap();
    idle(&mut app).await;

    let path = format!("/tasks/{id}:subscribe");
    let mut stream = Sse::open(&mut app, &event("GET", &path, true, true, None)).await;
    assert_eq!(stream.next().await, Some(json!({"task": task})));
    let path = format!("/tasks/{id}:cancel");
    let canceled = json_of(&mut app, &event("POST", &path, true, false, None)).await;
    assert_eq!(
        canceled["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
    assert_eq!(
        stream.next().await,
        Some(json!({"statusUpdate": {
            "taskId": id, "contextId": task["contextId"], "status": canceled["status"]}}))
    );
    assert_eq!(stream.next().await, None, "the stream ends");
}
