//! The shared router, called in-process with `oneshot`: routes, headers, refusals, and
//! agents that fail or panic.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use a2a_lambda_core::card::{AgentCard, Skill};
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::{Engine, EngineConfig};
use a2a_lambda_server::host::http::{RouterOptions, router};
use a2a_lambda_server::tasks::InMemoryTaskStore;
use a2a_test_support::sse;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

const URL: &str = "http://127.0.0.1:9000/";

fn app_for(
    agent: impl a2a_lambda_server::IntoAgent,
    host_can_stream: bool,
    max_body_bytes: usize,
) -> Router {
    let engine = Engine::new(
        agent,
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: URL.to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream,
            security: None,
            background_work: true,
        },
    )
    .expect("valid engine");
    router(
        Arc::new(engine),
        RouterOptions {
            max_body_bytes,
            ..RouterOptions::default()
        },
    )
}

fn app() -> Router {
    app_for(BuiltIn::Echo.agent(), true, 1 << 20)
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }

    /// The JSON documents of an SSE body, in order.
    fn events(&self) -> Vec<Value> {
        sse::json(&self.body)
    }
}

async fn call(app: &Router, request: Request<Body>) -> Answer {
    let response = app.clone().oneshot(request).await.expect("router answers");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8(bytes.to_vec()).expect("utf-8"),
    }
}

fn post(path: &str, body: &str) -> Request<Body> {
    Request::post(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

fn post_v1(body: &str) -> Request<Body> {
    Request::post("/")
        .header(header::CONTENT_TYPE, "application/json")
        .header("A2A-Version", "1.0")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

const SEND_V0_3: &str = r#"{"jsonrpc":"2.0","id":"r1","method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hello"}]}}}"#;

#[tokio::test]
async fn card_is_hybrid_with_cache_headers_and_304() {
    let app = app();
    let answer = call(
        &app,
        Request::get("/.well-known/agent-card.json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    let card = answer.json();
    assert_eq!(card["url"], URL);
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    assert_eq!(answer.headers[header::CACHE_CONTROL], "public, max-age=300");
    assert!(answer.headers.contains_key(header::LAST_MODIFIED));
    let etag = answer.headers[header::ETAG].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'));

    let again = call(
        &app,
        Request::get("/.well-known/agent-card.json")
            .header(header::IF_NONE_MATCH, etag.as_str())
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());
    assert_eq!(again.headers[header::ETAG], etag.as_str());

    let other = call(
        &app,
        Request::get("/.well-known/agent-card.json")
            .header(header::IF_NONE_MATCH, "\"other\"")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(other.status, StatusCode::OK);
}

#[tokio::test]
async fn a_host_that_cannot_stream_says_so_and_refuses_streams() {
    let app = app_for(BuiltIn::Echo.agent(), false, 1 << 20);
    let card = call(
        &app,
        Request::get("/.well-known/agent-card.json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(card.json()["capabilities"]["streaming"], false);
    let body = SEND_V0_3.replace("message/send", "message/stream");
    let answer = call(&app, post("/", &body)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["error"]["code"], -32004);
    assert_eq!(
        answer.json()["error"]["message"],
        "This operation is not supported: message/stream: this agent does not stream (capabilities.streaming is false)"
    );
}

#[tokio::test]
async fn ping_is_healthy_when_idle() {
    let answer = call(&app(), Request::get("/ping").body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::OK);
    let ping = answer.json();
    assert_eq!(ping["status"], "Healthy");
    assert!(ping["time_of_last_update"].as_u64().unwrap() > 1_600_000_000);
}

#[tokio::test]
async fn echo_send_completes_with_the_text_as_artifact_v0_3() {
    let answer = call(&app(), post("/", SEND_V0_3)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        answer.headers.contains_key("x-request-id"),
        "request id returned"
    );
    let result = &answer.json()["result"];
    assert_eq!(answer.json()["id"], "r1");
    assert_eq!(result["kind"], "task");
    assert_eq!(result["status"]["state"], "completed");
    assert_eq!(
        result["artifacts"][0]["parts"][0],
        json!({"kind": "text", "text": "hello"})
    );
    assert_eq!(result["history"][0]["messageId"], "m1");
}

#[tokio::test]
async fn echo_send_message_v1_0_is_wrapped() {
    let body = r#"{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
    let answer = call(&app(), post_v1(body)).await;
    let result = &answer.json()["result"];
    assert_eq!(result["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(
        result["task"]["artifacts"][0]["parts"][0],
        json!({"text": "hi"})
    );
}

#[tokio::test]
async fn the_interface_path_serves_json_rpc_with_and_without_slash() {
    let engine = Engine::new(
        BuiltIn::Echo.agent(),
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: "https://agents.example.com/a2a/v1/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
            background_work: true,
        },
    )
    .unwrap();
    let app = router(Arc::new(engine), RouterOptions::default());
    for path in ["/a2a/v1/", "/a2a/v1", "/"] {
        let answer = call(&app, post(path, SEND_V0_3)).await;
        assert_eq!(
            answer.json()["result"]["status"]["state"],
            "completed",
            "{path}"
        );
    }
}

#[tokio::test]
async fn wrong_content_type_is_32005() {
    let request = Request::post("/")
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from(SEND_V0_3))
        .unwrap();
    let answer = call(&app(), request).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["error"]["code"], -32005);
    assert_eq!(
        answer.json()["error"]["message"],
        "Incompatible content types: Content-Type \"text/plain\" is not supported; send application/json"
    );
}

#[tokio::test]
async fn get_on_the_rpc_path_is_405_with_a_json_rpc_body() {
    let answer = call(&app(), Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.headers[header::ALLOW], "POST");
    assert_eq!(answer.json()["error"]["code"], -32600);
}

#[tokio::test]
async fn unknown_route_is_404_with_a_json_rpc_body() {
    let answer = call(&app(), Request::get("/nope").body(Body::empty()).unwrap()).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["error"]["code"], -32601);
}

#[tokio::test]
async fn oversize_body_is_a_json_rpc_error() {
    let app = app_for(BuiltIn::Echo.agent(), true, 64);
    let answer = call(&app, post("/", SEND_V0_3)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json()["error"]["code"], -32600);
    assert_eq!(
        answer.json()["error"]["message"],
        "Request payload validation error: the body is larger than 64 bytes"
    );
}

#[tokio::test]
async fn a_content_type_refusal_echoes_the_id_of_a_readable_body() {
    let request = Request::post("/")
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from(
            r#"{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"t"}}"#,
        ))
        .unwrap();
    let answer = call(&app(), request).await;
    assert_eq!(answer.json()["id"], 7);
    assert_eq!(answer.json()["error"]["code"], -32005);
}

#[tokio::test]
async fn a_request_without_an_id_is_answered_with_a_null_id_and_not_run() {
    let body = r#"{"jsonrpc":"2.0","method":"message/send","params":{"message":{"kind":"message","messageId":"n1","role":"user","parts":[{"kind":"text","text":"x"}]}}}"#;
    let app = app();
    let answer = call(&app, post("/", body)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": -32600,
            "message": "Request payload validation error: message/send: the request has no \"id\"; A2A defines no notifications, so the request was not run: send it with an id to get its result",
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": "message/send: the request has no \"id\"; A2A defines no notifications, so the request was not run: send it with an id to get its result"},
                "reason": "INVALID_REQUEST"
            }]
        }})
    );
    // Its params are checked first: a bad one gets its own error.
    let bad = r#"{"jsonrpc":"2.0","method":"message/send","params":{"message":{}}}"#;
    let answer = call(&app, post("/", bad)).await;
    assert_eq!(answer.json()["id"], Value::Null);
    assert_eq!(answer.json()["error"]["code"], -32602);
    let unknown = r#"{"jsonrpc":"2.0","method":"tasks/nope"}"#;
    let answer = call(&app, post("/", unknown)).await;
    assert_eq!(answer.json()["id"], Value::Null);
    assert_eq!(answer.json()["error"]["code"], -32601);
}

#[tokio::test]
async fn a_v0_3_stream_refused_after_its_params_is_one_error_event_v1_0_plain_json() {
    let app = app();
    let resubscribe = r#"{"jsonrpc":"2.0","id":"r-1","method":"tasks/resubscribe","params":{"id":"no-such-task"}}"#;
    let answer = call(&app, post("/", resubscribe)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.headers.get("content-type").unwrap(),
        "text/event-stream"
    );
    let text = answer.body.clone();
    let events = sse::events(&text);
    assert_eq!(events.len(), 1, "{text}");
    assert_eq!(events[0].lines.len(), 1, "one data line: {text}");
    let event: Value = events[0].json();
    assert_eq!(event["id"], "r-1");
    assert_eq!(event["error"]["code"], -32001, "{event}");
    // Invalid params are refused before the stream: plain JSON.
    let bad = r#"{"jsonrpc":"2.0","id":"r-2","method":"tasks/resubscribe","params":{"id":5}}"#;
    let answer = call(&app, post("/", bad)).await;
    assert_eq!(
        answer.headers.get("content-type").unwrap(),
        "application/json"
    );
    assert_eq!(answer.json()["error"]["code"], -32602);
    // v1.0 refuses before the stream too.
    let v1 =
        r#"{"jsonrpc":"2.0","id":"r-3","method":"SubscribeToTask","params":{"id":"no-such-task"}}"#;
    let answer = call(&app, post_v1(v1)).await;
    assert_eq!(
        answer.headers.get("content-type").unwrap(),
        "application/json"
    );
    assert_eq!(answer.json()["id"], "r-3");
    assert_eq!(answer.json()["error"]["code"], -32001);
}

#[tokio::test]
async fn stream_frames_each_event_as_one_json_rpc_response() {
    let body = SEND_V0_3.replace("message/send", "message/stream");
    let answer = call(&app(), post("/", &body)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        answer.headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = answer.events();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["result"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"]
    );
    assert!(
        events
            .iter()
            .all(|e| e["id"] == "r1" && e["jsonrpc"] == "2.0")
    );
    assert_eq!(events[3]["result"]["final"], true);
    assert_eq!(events[1]["result"]["final"], false);
}

/// An agent that fails after starting, or panics.
struct Broken {
    panic: bool,
}

impl Agent for Broken {
    fn card(&self) -> AgentCard {
        let mut card = AgentCard::new("Broken", "Fails.", "1.0.0").with_skill(Skill::new(
            "fail",
            "Fail",
            "Fails.",
            ["test"],
        ));
        card.capabilities.streaming = true;
        card
    }

    async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        if self.panic {
            panic!("SECRET-PANIC-DETAIL");
        }
        Err("SECRET-AGENT-DETAIL: database password rejected".into())
    }
}

#[tokio::test]
async fn agent_errors_and_panics_are_generic_32603() {
    for panic in [false, true] {
        let app = app_for(Arc::new(Broken { panic }), true, 1 << 20);
        let answer = call(&app, post("/", SEND_V0_3)).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json()["id"], "r1");
        assert_eq!(answer.json()["error"]["code"], -32603);
        assert_eq!(answer.json()["error"]["message"], "Internal error");
        assert!(
            !answer.body.contains("SECRET"),
            "detail leaked: {}",
            answer.body
        );

        let body = SEND_V0_3.replace("message/send", "message/stream");
        let answer = call(&app, post("/", &body)).await;
        let events = answer.events();
        let last = events.last().unwrap();
        assert_eq!(
            last["error"]["code"], -32603,
            "stream ends with the error: {events:?}"
        );
        assert!(!answer.body.contains("SECRET"));
    }
}

#[tokio::test]
async fn list_tasks_takes_no_params() {
    let app = app();
    call(&app, post("/", SEND_V0_3)).await;
    let answer = call(
        &app,
        post_v1(r#"{"jsonrpc":"2.0","id":9,"method":"ListTasks"}"#),
    )
    .await;
    let result = &answer.json()["result"];
    assert_eq!(result["totalSize"], 1, "{}", answer.body);
    assert_eq!(result["pageSize"], 50);
    assert_eq!(result["nextPageToken"], "");
    assert_eq!(
        result["tasks"][0]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}
