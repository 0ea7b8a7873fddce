//! The HTTP+JSON binding through the shared router, in-process with `oneshot`: every
//! route's status, headers and exact body, in success and refusal, and the SSE framing of
//! stream and subscribe.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use a2a_lambda_core::card::Bindings;
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::{Engine, EngineConfig};
use a2a_lambda_server::host::http::{RouterOptions, router};
use a2a_lambda_server::push::delivery::{DeliveryPolicy, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use a2a_lambda_server::push::{InMemoryPushConfigs, Push};
use a2a_lambda_server::tasks::InMemoryTaskStore;
use a2a_test_support::agents::Gated;
use a2a_test_support::sse;
use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

fn app_at(url: &str, bindings: Bindings, push: bool) -> Router {
    let engine = Engine::new(
        BuiltIn::Echo.agent(),
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: url.to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
            background_work: true,
        },
    )
    .expect("valid engine")
    .with_bindings(bindings);
    let engine = if push {
        let webhooks = Webhooks::new(TargetPolicy::Loopback, DeliveryPolicy::default())
            .expect("webhook client");
        engine.with_push(Push::new(Arc::new(InMemoryPushConfigs::new()), webhooks))
    } else {
        engine
    };
    router(
        Arc::new(engine),
        RouterOptions {
            max_body_bytes: 1 << 16,
            ..RouterOptions::default()
        },
    )
}

fn app() -> Router {
    app_at("http://127.0.0.1:9000/", Bindings::both(), true)
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

    fn header(&self, name: header::HeaderName) -> &str {
        self.headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
    }

    /// The (event name, JSON) of each SSE frame, in order.
    fn events(&self) -> Vec<(Option<String>, Value)> {
        sse::events(&self.body)
            .into_iter()
            .filter(|event| event.data.is_some())
            .map(|event| {
                let data = event.lines.iter().filter(|line| line.starts_with("data:"));
                assert_eq!(data.count(), 1, "one data line an event: {:?}", event.lines);
                (event.event.clone(), event.json())
            })
            .collect()
    }

    /// The google.rpc.Status `(code, status, reason)`.
    fn refusal(&self) -> (u64, String, String) {
        let body = self.json();
        let error = &body["error"];
        let info = error["details"]
            .as_array()
            .and_then(|details| {
                details
                    .iter()
                    .find(|detail| detail["@type"] == "type.googleapis.com/google.rpc.ErrorInfo")
            })
            .unwrap_or_else(|| panic!("an ErrorInfo: {body}"));
        assert_eq!(info["domain"], "a2a-protocol.org", "{body}");
        (
            error["code"].as_u64().unwrap(),
            error["status"].as_str().unwrap().to_owned(),
            info["reason"].as_str().unwrap().to_owned(),
        )
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
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn request(method: Method, path: &str, body: Option<Value>) -> Request<Body> {
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

fn send_body(text: &str) -> Value {
    json!({"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}})
}

/// Sends `text` and returns the completed task.
async fn sent(app: &Router, text: &str) -> Value {
    let answer = call(
        app,
        request(Method::POST, "/message:send", Some(send_body(text))),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    answer.json()["task"].clone()
}

#[tokio::test]
async fn send_answers_the_bare_send_message_response() {
    let app = app();
    let answer = call(
        &app,
        request(Method::POST, "/message:send", Some(send_body("hi"))),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.header(header::CONTENT_TYPE), "application/json");
    let body = answer.json();
    assert!(
        body.get("jsonrpc").is_none(),
        "no JSON-RPC envelope: {body}"
    );
    let task = &body["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "hi");
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
}

#[tokio::test]
async fn a2a_json_is_answered_to_a_client_that_accepts_it() {
    let app = app();
    let mut asking = request(Method::POST, "/message:send", Some(send_body("hi")));
    asking.headers_mut().insert(
        header::ACCEPT,
        "application/a2a+json, application/json".parse().unwrap(),
    );
    *asking.headers_mut().get_mut(header::CONTENT_TYPE).unwrap() =
        "application/a2a+json".parse().unwrap();
    let answer = call(&app, asking).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.header(header::CONTENT_TYPE), "application/a2a+json");
}

#[tokio::test]
async fn get_returns_the_task_and_honours_history_length() {
    let app = app();
    let task = sent(&app, "one").await;
    let id = task["id"].as_str().unwrap();
    let answer = call(&app, request(Method::GET, &format!("/tasks/{id}"), None)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(answer.json()["id"], id);
    assert_eq!(answer.json()["status"]["state"], "TASK_STATE_COMPLETED");
    let trimmed = call(
        &app,
        request(Method::GET, &format!("/tasks/{id}?historyLength=0"), None),
    )
    .await;
    assert_eq!(trimmed.status, StatusCode::OK, "{}", trimmed.body);
    assert!(trimmed.json().get("history").is_none(), "{}", trimmed.body);
}

#[tokio::test]
async fn an_unknown_task_is_404_task_not_found_with_its_id() {
    let app = app();
    let answer = call(&app, request(Method::GET, "/tasks/nope", None)).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.header(header::CONTENT_TYPE), "application/json");
    assert_eq!(
        answer.json(),
        json!({"error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "Task not found: no task with id \"nope\"",
            "details": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": "no task with id \"nope\"", "taskId": "nope"},
            }],
        }})
    );
}

#[tokio::test]
async fn list_reads_its_filters_from_the_query() {
    let app = app();
    let task = sent(&app, "listed").await;
    let context = task["contextId"].as_str().unwrap();
    let answer = call(
        &app,
        request(
            Method::GET,
            &format!("/tasks?contextId={context}&pageSize=5&includeArtifacts=true"),
            None,
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let page = answer.json();
    assert_eq!(page["tasks"].as_array().map(Vec::len), Some(1), "{page}");
    assert_eq!(
        page["tasks"][0]["artifacts"][0]["parts"][0]["text"],
        "listed"
    );
    assert_eq!(page["pageSize"], 5);
    let bad = call(&app, request(Method::GET, "/tasks?page_size=5", None)).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        bad.refusal(),
        (400, "INVALID_ARGUMENT".into(), "INVALID_PARAMS".into())
    );
    assert!(
        bad.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("page_size")
    );
    let range = call(&app, request(Method::GET, "/tasks?pageSize=0", None)).await;
    assert_eq!(range.status, StatusCode::BAD_REQUEST, "{}", range.body);
}

#[tokio::test]
async fn cancel_of_a_finished_task_is_400_task_not_cancelable() {
    let app = app();
    let task = sent(&app, "done").await;
    let id = task["id"].as_str().unwrap();
    // As the JS client and the TCK send it: no body, a JSON content type.
    let mut bodyless = request(Method::POST, &format!("/tasks/{id}:cancel"), None);
    bodyless
        .headers_mut()
        .insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
    let answer = call(&app, bodyless).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
    assert_eq!(
        answer.refusal(),
        (
            400,
            "FAILED_PRECONDITION".into(),
            "TASK_NOT_CANCELABLE".into()
        )
    );
    // As the Python client sends it: the whole CancelTaskRequest; another id is refused.
    let other = call(
        &app,
        request(
            Method::POST,
            &format!("/tasks/{id}:cancel"),
            Some(json!({"id": "x"})),
        ),
    )
    .await;
    assert_eq!(other.status, StatusCode::BAD_REQUEST);
    assert_eq!(other.refusal().2, "INVALID_PARAMS");
}

#[tokio::test]
async fn stream_sends_one_data_line_per_stream_response() {
    let app = app();
    let answer = call(
        &app,
        request(Method::POST, "/message:stream", Some(send_body("s"))),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(
        answer
            .header(header::CONTENT_TYPE)
            .starts_with("text/event-stream")
    );
    let events = answer.events();
    assert!(
        events.iter().all(|(name, _)| name.is_none()),
        "{}",
        answer.body
    );
    let kinds: Vec<&str> = events
        .iter()
        .map(|(_, event)| {
            event
                .as_object()
                .and_then(|object| object.keys().next())
                .map_or("", String::as_str)
        })
        .collect();
    assert_eq!(kinds.first(), Some(&"task"), "{}", answer.body);
    assert!(kinds.contains(&"artifactUpdate"), "{}", answer.body);
    let last = &events.last().unwrap().1;
    assert_eq!(
        last["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn subscribe_to_a_finished_task_is_refused_before_any_stream() {
    let app = app();
    let task = sent(&app, "over").await;
    let id = task["id"].as_str().unwrap();
    for method in [Method::GET, Method::POST] {
        let answer = call(
            &app,
            request(method, &format!("/tasks/{id}:subscribe"), None),
        )
        .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
        assert_eq!(answer.header(header::CONTENT_TYPE), "application/json");
        assert_eq!(answer.refusal().2, "UNSUPPORTED_OPERATION");
    }
    let unknown = call(&app, request(Method::POST, "/tasks/nope:subscribe", None)).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted() {
    let app = app();
    let task = sent(&app, "push").await;
    let id = task["id"].as_str().unwrap();
    let configs = format!("/tasks/{id}/pushNotificationConfigs");
    let created = call(
        &app,
        request(
            Method::POST,
            &configs,
            Some(json!({"id": "c-1", "url": "http://127.0.0.1:9/hook", "token": "t"})),
        ),
    )
    .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    assert_eq!(
        created.json(),
        json!({"taskId": id, "id": "c-1", "url": "http://127.0.0.1:9/hook", "token": "t"})
    );
    let got = call(&app, request(Method::GET, &format!("{configs}/c-1"), None)).await;
    assert_eq!(got.json(), created.json());
    let listed = call(&app, request(Method::GET, &configs, None)).await;
    assert_eq!(listed.json()["configs"][0]["id"], "c-1", "{}", listed.body);
    for _ in 0..2 {
        let deleted = call(
            &app,
            request(Method::DELETE, &format!("{configs}/c-1"), None),
        )
        .await;
        assert_eq!(
            (deleted.status, deleted.json()),
            (StatusCode::OK, json!({}))
        );
    }
    let gone = call(&app, request(Method::GET, &format!("{configs}/c-1"), None)).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    let contradicting = call(
        &app,
        request(
            Method::POST,
            &configs,
            Some(json!({"taskId": "other", "url": "http://127.0.0.1:9/hook"})),
        ),
    )
    .await;
    assert_eq!(contradicting.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn without_push_the_config_routes_are_400_push_not_supported() {
    let app = app_at("http://127.0.0.1:9000/", Bindings::both(), false);
    let task = sent(&app, "x").await;
    let id = task["id"].as_str().unwrap();
    let answer = call(
        &app,
        request(
            Method::GET,
            &format!("/tasks/{id}/pushNotificationConfigs"),
            None,
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.refusal(),
        (
            400,
            "FAILED_PRECONDITION".into(),
            "PUSH_NOTIFICATION_NOT_SUPPORTED".into()
        )
    );
}

#[tokio::test]
async fn the_extended_card_is_400_unsupported_operation() {
    let answer = call(&app(), request(Method::GET, "/extendedAgentCard", None)).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.refusal().2, "UNSUPPORTED_OPERATION");
}

#[tokio::test]
async fn a_request_without_version_1_0_is_400_version_not_supported() {
    let app = app();
    let bare = Request::post("/message:send")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(send_body("x").to_string()))
        .unwrap();
    let answer = call(&app, bare).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.refusal(),
        (
            400,
            "FAILED_PRECONDITION".into(),
            "VERSION_NOT_SUPPORTED".into()
        )
    );
    assert!(answer.body.contains("A2A-Version: 1.0"), "{}", answer.body);
    let mut future = request(Method::GET, "/tasks", None);
    future
        .headers_mut()
        .insert("A2A-Version", "99.0".parse().unwrap());
    assert_eq!(
        call(&app, future).await.refusal().2,
        "VERSION_NOT_SUPPORTED"
    );
    // The version may travel in the query instead (§3.2.6).
    let query = Request::get("/tasks?A2A-Version=1.0")
        .body(Body::empty())
        .unwrap();
    assert_eq!(call(&app, query).await.status, StatusCode::OK);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415_and_bad_json_400() {
    let app = app();
    let mut text = request(Method::POST, "/message:send", None);
    text.headers_mut()
        .insert(header::CONTENT_TYPE, "text/plain".parse().unwrap());
    *text.body_mut() = Body::from(send_body("x").to_string());
    let answer = call(&app, text).await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(answer.refusal().2, "CONTENT_TYPE_NOT_SUPPORTED");
    let mut broken = request(Method::POST, "/message:send", None);
    *broken.body_mut() = Body::from("{\"message\":");
    let answer = call(&app, broken).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.refusal(),
        (400, "INVALID_ARGUMENT".into(), "JSON_PARSE".into())
    );
    let empty = call(&app, request(Method::POST, "/message:send", None)).await;
    assert_eq!(empty.refusal().2, "INVALID_PARAMS");
    let big = call(
        &app,
        request(
            Method::POST,
            "/message:send",
            Some(send_body(&"x".repeat(1 << 17))),
        ),
    )
    .await;
    assert_eq!(big.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", big.body);
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow() {
    let answer = call(&app(), request(Method::GET, "/message:send", None)).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.header(header::ALLOW), "POST");
    assert_eq!(
        answer.refusal(),
        (405, "UNIMPLEMENTED".into(), "METHOD_NOT_FOUND".into())
    );
    assert!(
        answer.json()["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with(
                "Method not found: GET is not allowed on \"/message:send\"; allowed: POST"
            ),
        "{}",
        answer.body
    );
    let config = call(
        &app(),
        request(Method::PUT, "/tasks/t/pushNotificationConfigs/c", None),
    )
    .await;
    assert_eq!(config.header(header::ALLOW), "GET, DELETE");
}

#[tokio::test]
async fn tenant_and_interface_path_prefixes_reach_the_same_routes() {
    let app = app_at("https://agents.example.com/a2a/v1/", Bindings::both(), true);
    let answer = call(
        &app,
        request(
            Method::POST,
            "/a2a/v1/acme/message:send",
            Some(send_body("t")),
        ),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let id = answer.json()["task"]["id"].as_str().unwrap().to_owned();
    let got = call(
        &app,
        request(Method::GET, &format!("/a2a/v1/tasks/{id}"), None),
    )
    .await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    // JSON-RPC is still served at the interface path, and sees the same task.
    let rpc = Request::post("/a2a/v1/")
        .header(header::CONTENT_TYPE, "application/json")
        .header("A2A-Version", "1.0")
        .body(Body::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": id}})
                .to_string(),
        ))
        .unwrap();
    assert_eq!(call(&app, rpc).await.json()["result"]["id"], id.as_str());
}

#[tokio::test]
async fn the_card_lists_http_json_after_json_rpc_and_only_when_served() {
    let card = |app: Router| async move {
        call(
            &app,
            Request::get("/.well-known/agent-card.json")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .json()["supportedInterfaces"]
            .clone()
    };
    assert_eq!(
        card(app()).await,
        json!([
            {"url": "http://127.0.0.1:9000/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:9000", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:9000/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ])
    );
    let rest_first = "http+json,jsonrpc".parse().unwrap();
    let listed = card(app_at("http://127.0.0.1:9000/", rest_first, false)).await;
    assert_eq!(listed[0]["protocolBinding"], "HTTP+JSON");
    let only_rpc = app_at("http://127.0.0.1:9000/", Bindings::default(), false);
    let listed = card(only_rpc.clone()).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
    // And its routes are not served.
    let answer = call(
        &only_rpc,
        request(Method::POST, "/message:send", Some(send_body("x"))),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["error"]["code"], -32601);
}

#[tokio::test]
async fn subscribe_streams_a_working_task_to_its_end_with_resumable_ids() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let engine = Engine::new(
        Arc::new(Gated(Arc::clone(&gate))),
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
    let app = router(Arc::new(engine), RouterOptions::default());
    let mut body = send_body("wait");
    body["configuration"] = json!({"returnImmediately": true});
    let started = call(&app, request(Method::POST, "/message:send", Some(body))).await;
    assert_eq!(started.status, StatusCode::OK, "{}", started.body);
    let id = started.json()["task"]["id"].as_str().unwrap().to_owned();
    let opener = Arc::clone(&gate);
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        opener.notify_one();
    });
    let answer = call(
        &app,
        request(Method::POST, &format!("/tasks/{id}:subscribe"), None),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert!(
        answer
            .header(header::CONTENT_TYPE)
            .starts_with("text/event-stream")
    );
    let events = answer.events();
    assert_eq!(
        events[0].1["task"]["status"]["state"], "TASK_STATE_WORKING",
        "{}",
        answer.body
    );
    assert_eq!(
        events.last().unwrap().1["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{}",
        answer.body
    );
    assert!(
        events
            .iter()
            .any(|(_, event)| event["artifactUpdate"]["artifact"]["parts"][0]["text"] == "late"),
        "{}",
        answer.body
    );
    // Every event names its place in the task's history, to resume after it.
    let ids = answer
        .body
        .lines()
        .filter(|line| line.starts_with("id: "))
        .count();
    assert_eq!(ids, events.len(), "{}", answer.body);
}
