//! The HTTP+JSON binding of A2A v1.0 behind each front the function supports, fed real
//! event shapes: a Function URL (buffered, and `A2A_STREAMING=true` for `RESPONSE_STREAM`),
//! API Gateway REST (v1) with its `prod` stage, API Gateway HTTP API (v2) with a named
//! stage, an ALB, and `cargo lambda watch`'s `/lambda-url/{function}` prefix. Each JSON
//! fixture becomes a request through `lambda_http::request::from_str`, as the runtime
//! builds it, and one app (one instance's memory) answers a test's requests in turn.
//! Responses are asserted whole: status, content type, body.
//!
//! The routes are those of the specification's §11.3 (`POST /message:send`,
//! `GET /tasks/{id}`, …), below the URL the card advertises for the binding.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;

use a2a_lambda::{App, Config};
use a2a_test_support::lambda::{FUNCTION_URL_HOST, echo_card, echo_send_v1_0, ids, redact};
use a2a_test_support::sse::{self, SseEvent, SseParser};
use axum::http::{HeaderMap, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::{Service as _, ServiceExt as _};

const FURL_SEND: &str = include_str!("fixtures/function_url_rest_send.json");
const FURL_GET_TASK: &str = include_str!("fixtures/function_url_rest_get_task.json");
const FURL_GET_UNKNOWN_TASK: &str =
    include_str!("fixtures/function_url_rest_get_unknown_task.json");
const FURL_LIST_TASKS: &str = include_str!("fixtures/function_url_rest_list_tasks.json");
const FURL_CANCEL: &str = include_str!("fixtures/function_url_rest_cancel.json");
const FURL_STREAM: &str = include_str!("fixtures/function_url_rest_stream.json");
const FURL_SUBSCRIBE: &str = include_str!("fixtures/function_url_rest_subscribe.json");
const FURL_CREATE_PUSH: &str = include_str!("fixtures/function_url_rest_create_push_config.json");
const FURL_GET_PUSH: &str = include_str!("fixtures/function_url_rest_get_push_config.json");
const FURL_DELETE_PUSH: &str = include_str!("fixtures/function_url_rest_delete_push_config.json");
const FURL_WRONG_METHOD: &str = include_str!("fixtures/function_url_rest_wrong_method.json");
const FURL_CARD: &str = include_str!("fixtures/function_url_get_card.json");
const REST_PROD_SEND: &str = include_str!("fixtures/apigw_v1_prod_rest_send.json");
const REST_PROD_GET_TASK: &str = include_str!("fixtures/apigw_v1_prod_rest_get_task.json");
const REST_PROD_CARD: &str = include_str!("fixtures/apigw_v1_prod_get_card.json");
const HTTP_API_STAGE_CARD: &str = include_str!("fixtures/apigw_v2_stage_get_card.json");
const ALB_CARD: &str = include_str!("fixtures/alb_get_card.json");
const WATCH_CARD: &str = include_str!("fixtures/cargo_lambda_watch_get_card.json");
const WATCH_SEND_V1_0: &str = include_str!("fixtures/cargo_lambda_watch_send_v1_0.json");

const REST_HOST: &str = "k9l8m7n6o5.execute-api.us-east-1.amazonaws.com";
const HTTP_API_HOST: &str = "r2d2c3po4e.execute-api.eu-west-1.amazonaws.com";
const ALB_HOST: &str = "a2a-alb-1234567890.us-east-1.elb.amazonaws.com";

fn config(vars: &[(&str, &str)]) -> Config {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    Config::from_lookup(|name| vars.get(name).cloned()).expect("valid configuration")
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).map(|value| value.to_str().unwrap())
    }

    /// A JSON answer: the status, `application/json`, and the body.
    fn json(&self, status: u16) -> Value {
        assert_eq!(self.status.as_u16(), status, "{}", self.body);
        assert_eq!(
            self.header(header::CONTENT_TYPE),
            Some("application/json"),
            "{}",
            self.body
        );
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }

    /// The SSE frames of a `text/event-stream` answer.
    fn frames(&self) -> Vec<SseEvent> {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        assert_eq!(
            self.header(header::CONTENT_TYPE),
            Some("text/event-stream"),
            "{}",
            self.body
        );
        assert!(self.body.ends_with("\n\n"), "whole frames: {:?}", self.body);
        sse::events(&self.body)
    }
}

/// One function instance: its app answers every request of a test, so a task made by one
/// request is there for the next.
struct Function {
    app: App,
}

impl Function {
    fn new(vars: &[(&str, &str)], agent: a2a_lambda_server::agents::BuiltIn) -> Self {
        let (app, _) = a2a_lambda::Lambda::new(agent.agent())
            .config(config(vars))
            .into_app()
            .expect("app");
        Self { app }
    }

    fn echo(vars: &[(&str, &str)]) -> Self {
        Self::new(vars, a2a_lambda_server::agents::BuiltIn::Echo)
    }

    /// The response to `event`, its body not yet read.
    async fn respond(&mut self, event: &str) -> axum::response::Response {
        let request = lambda_http::request::from_str(event).expect("the event deserializes");
        self.app
            .ready()
            .await
            .expect("ready")
            .call(request)
            .await
            .expect("the app answers")
    }

    async fn call(&mut self, event: &str) -> Answer {
        let request = lambda_http::request::from_str(event).expect("the event deserializes");
        let response = self
            .app
            .ready()
            .await
            .expect("ready")
            .call(request)
            .await
            .expect("the app answers");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        Answer {
            status,
            headers,
            body: String::from_utf8(bytes.to_vec()).expect("UTF-8 body"),
        }
    }

    /// Sends `event` (a `message:send`) and returns the task it made.
    async fn sent(&mut self, event: &str) -> Value {
        self.call(event).await.json(200)["task"].clone()
    }
}

/// The fixture with `edit` applied to its JSON.
fn edited(fixture: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut event: Value = serde_json::from_str(fixture).expect("fixture is JSON");
    edit(&mut event);
    event.to_string()
}

/// An HTTP API v2 (or Function URL) event at another path and method, with a body.
fn v2_at(fixture: &str, method: &str, path: &str, body: Option<&Value>) -> String {
    edited(fixture, |event| {
        event["rawPath"] = json!(path);
        event["requestContext"]["http"]["path"] = json!(path);
        event["requestContext"]["http"]["method"] = json!(method);
        event["headers"]["a2a-version"] = json!("1.0");
        match body {
            Some(body) => {
                event["body"] = json!(body.to_string());
                event["headers"]["content-type"] = json!("application/json");
            }
            None => {
                event.as_object_mut().unwrap().remove("body");
            }
        }
    })
}

/// The echo agent's completed task, as `message:send` and `GET /tasks/{id}` answer it.
fn echo_task(task: &Value, message_id: &str, text: &str) -> Value {
    echo_send_v1_0(
        json!(null),
        &json!({"result": {"task": task}}),
        message_id,
        text,
    )["result"]["task"]
        .clone()
}

/// A google.rpc.Status error body with its one ErrorInfo.
fn status_body(code: u16, status: &str, message: &str, reason: &str, metadata: Value) -> Value {
    json!({"error": {
        "code": code,
        "status": status,
        "message": message,
        "details": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": "a2a-protocol.org",
            "metadata": metadata,
        }],
    }})
}

fn send_body(message_id: &str, text: &str) -> Value {
    json!({"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": text}]}})
}

// ---- Lambda Function URL (buffered) ----

#[tokio::test]
async fn function_url_send_answers_the_bare_send_message_response() {
    let mut function = Function::echo(&[]);
    let answer = function.call(FURL_SEND).await;
    let body = answer.json(200);
    assert!(answer.headers.contains_key("x-request-id"));
    assert_eq!(
        redact(&body),
        json!({"task": echo_task(&body["task"], "rest-send-1", "hello over rest")})
    );
}

#[tokio::test]
async fn function_url_get_task_with_history_length_and_the_404_of_an_unknown_task() {
    let mut function = Function::echo(&[]);
    let task = function.sent(FURL_SEND).await;
    let id = task["id"].as_str().unwrap();
    let got = function
        .call(&FURL_GET_TASK.replace("TASK-ID", id))
        .await
        .json(200);
    // `historyLength=0`: the task without its history.
    let mut expected = echo_task(&task, "rest-send-1", "hello over rest");
    expected.as_object_mut().unwrap().remove("history");
    assert_eq!(redact(&got), expected);

    let unknown = function.call(FURL_GET_UNKNOWN_TASK).await;
    assert_eq!(
        unknown.json(404),
        status_body(
            404,
            "NOT_FOUND",
            "Task not found: no task with id \"no-such-task\"",
            "TASK_NOT_FOUND",
            json!({"detail": "no task with id \"no-such-task\"", "taskId": "no-such-task"}),
        )
    );
}

#[tokio::test]
async fn function_url_list_tasks_reads_its_filters_from_the_query() {
    let mut function = Function::echo(&[]);
    let task = function.sent(FURL_SEND).await;
    // Another context's task, which the contextId filter leaves out.
    function.sent(FURL_SEND).await;
    let context = task["contextId"].as_str().unwrap();
    let listed = function
        .call(&FURL_LIST_TASKS.replace("CONTEXT-ID", context))
        .await
        .json(200);
    assert_eq!(
        redact(&listed),
        json!({
            "tasks": [echo_task(&task, "rest-send-1", "hello over rest")],
            "nextPageToken": "",
            "pageSize": 5,
            "totalSize": 1,
        })
    );
}

#[tokio::test]
async fn function_url_bodyless_cancel_of_a_finished_task_is_400_task_not_cancelable() {
    let mut function = Function::echo(&[]);
    let task = function.sent(FURL_SEND).await;
    let id = task["id"].as_str().unwrap();
    let answer = function.call(&FURL_CANCEL.replace("TASK-ID", id)).await;
    let detail = format!("task {id} is already completed");
    assert_eq!(
        answer.json(400),
        status_body(
            400,
            "FAILED_PRECONDITION",
            &format!("Task cannot be canceled: {detail}"),
            "TASK_NOT_CANCELABLE",
            json!({"detail": detail, "taskId": id}),
        )
    );
}

#[tokio::test]
async fn function_url_push_config_is_created_read_and_deleted() {
    let mut function = Function::echo(&[]);
    let task = function.sent(FURL_SEND).await;
    let id = task["id"].as_str().unwrap();
    let stored = json!({
        "taskId": id,
        "id": "hook-1",
        "url": "https://93.184.215.14/a2a?agent=echo",
        "token": "tok-1",
        "authentication": {"scheme": "Bearer", "credentials": "secret-1"},
    });
    let created = function
        .call(&FURL_CREATE_PUSH.replace("TASK-ID", id))
        .await;
    assert_eq!(created.json(200), stored);
    let got = function.call(&FURL_GET_PUSH.replace("TASK-ID", id)).await;
    assert_eq!(got.json(200), stored);
    let deleted = function
        .call(&FURL_DELETE_PUSH.replace("TASK-ID", id))
        .await;
    assert_eq!(deleted.json(200), json!({}));
    let gone = function.call(&FURL_GET_PUSH.replace("TASK-ID", id)).await;
    assert_eq!(
        gone.json(404)["error"]["status"],
        "NOT_FOUND",
        "{}",
        gone.body
    );
}

#[tokio::test]
async fn function_url_wrong_method_is_405_with_allow_and_a_status_body() {
    let mut function = Function::echo(&[]);
    let answer = function.call(FURL_WRONG_METHOD).await;
    assert_eq!(answer.header(header::ALLOW), Some("POST"));
    assert_eq!(
        answer.json(405),
        status_body(
            405,
            "UNIMPLEMENTED",
            "Method not found: PUT is not allowed on \"/message:send\"; allowed: POST",
            "METHOD_NOT_FOUND",
            json!({"detail": "PUT is not allowed on \"/message:send\"; allowed: POST"}),
        )
    );
}

#[tokio::test]
async fn function_url_without_the_version_header_is_400_version_not_supported() {
    let mut function = Function::echo(&[]);
    let bare = edited(FURL_SEND, |event| {
        event["headers"]
            .as_object_mut()
            .unwrap()
            .remove("a2a-version");
    });
    let answer = function.call(&bare).await;
    let body = answer.json(400);
    assert_eq!(body["error"]["status"], "FAILED_PRECONDITION", "{body}");
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );
}

#[tokio::test]
async fn buffered_function_url_refuses_stream_and_subscribe_as_unsupported() {
    let mut function = Function::echo(&[]);
    let card = function.call(FURL_CARD).await.json(200);
    assert_eq!(card["capabilities"]["streaming"], false);
    let task = function.sent(FURL_SEND).await;
    let id = task["id"].as_str().unwrap();
    for event in [
        FURL_STREAM.to_owned(),
        FURL_SUBSCRIBE.replace("TASK-ID", id),
    ] {
        let answer = function.call(&event).await;
        let body = answer.json(400);
        assert_eq!(body["error"]["status"], "FAILED_PRECONDITION", "{body}");
        assert_eq!(
            body["error"]["details"][0]["reason"], "UNSUPPORTED_OPERATION",
            "{body}"
        );
    }
}

// ---- Lambda Function URL in RESPONSE_STREAM mode (`A2A_STREAMING=true`) ----

#[tokio::test]
async fn streaming_function_url_message_stream_is_one_data_line_per_stream_response() {
    let mut function = Function::echo(&[("A2A_STREAMING", "true")]);
    let answer = function.call(FURL_STREAM).await;
    let frames = answer.frames();
    let data: Vec<Value> = frames
        .iter()
        .map(|frame| {
            let lines = &frame.lines;
            let data = lines.iter().filter(|line| line.starts_with("data:"));
            assert_eq!(data.count(), 1, "one data line a frame: {lines:?}");
            assert!(
                lines.iter().all(|line| !line.starts_with("event:")),
                "no event names: {lines:?}"
            );
            frame.json()
        })
        .collect();
    let task = &data[0]["task"];
    let (task_id, context_id) = ids(task);
    // Each frame: its data line, then the id a client resumes after (`Last-Event-ID`).
    for (at, frame) in frames.iter().enumerate() {
        let lines = &frame.lines;
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[1], format!("id: {task_id}:1.{at}"), "{lines:?}");
    }
    let message = json!({
        "messageId": "rest-stream-1", "contextId": context_id, "taskId": task_id,
        "role": "ROLE_USER", "parts": [{"text": "stream over rest"}],
    });
    assert_eq!(
        redact(&Value::Array(data)),
        json!([
            {"task": {"id": task_id, "contextId": context_id,
                      "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": "<timestamp>"},
                      "history": [message]}},
            {"statusUpdate": {"taskId": task_id, "contextId": context_id,
                              "status": {"state": "TASK_STATE_WORKING", "timestamp": "<timestamp>"}}},
            {"artifactUpdate": {"taskId": task_id, "contextId": context_id,
                                "artifact": {"artifactId": "echo", "parts": [{"text": "stream over rest"}]},
                                "lastChunk": true}},
            {"statusUpdate": {"taskId": task_id, "contextId": context_id,
                              "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "<timestamp>"}}},
        ])
    );
}

#[tokio::test]
async fn streaming_function_url_subscribe_streams_a_working_task_until_it_is_canceled() {
    let mut function = Function::new(
        &[("A2A_STREAMING", "true")],
        a2a_lambda_server::agents::BuiltIn::Conformance,
    );
    // `slow-` works until canceled: the stream stays open after its first events.
    let slow = edited(FURL_STREAM, |event| {
        event["body"] = json!(send_body("slow-rest-1", "take your time").to_string());
    });
    let streaming = function.respond(&slow).await;
    assert_eq!(streaming.status(), StatusCode::OK);
    let mut first = streaming.into_body();
    let opening = next_frame(&mut first).await;
    let task_id = opening["task"]["id"].as_str().unwrap().to_owned();

    let subscribed = function
        .respond(&FURL_SUBSCRIBE.replace("TASK-ID", &task_id))
        .await;
    assert_eq!(subscribed.status(), StatusCode::OK);
    assert_eq!(
        subscribed.headers().get(header::CONTENT_TYPE).unwrap(),
        "text/event-stream"
    );
    let mut resumed = subscribed.into_body();
    let snapshot = next_frame(&mut resumed).await;
    assert_eq!(snapshot["task"]["id"], task_id.as_str(), "{snapshot}");
    assert_eq!(snapshot["task"]["status"]["state"], "TASK_STATE_WORKING");

    let canceled = function
        .call(&FURL_CANCEL.replace("TASK-ID", &task_id))
        .await;
    assert_eq!(
        canceled.json(200)["status"]["state"],
        "TASK_STATE_CANCELED",
        "{}",
        canceled.body
    );
    // Both streams end with the canceled status.
    for body in [&mut first, &mut resumed] {
        let mut last = Value::Null;
        while let Some(frame) = try_next_frame(body).await {
            last = frame;
        }
        assert_eq!(
            last["statusUpdate"]["status"]["state"], "TASK_STATE_CANCELED",
            "{last}"
        );
    }
}

/// Reads `body` to the end of its next SSE frame with a `data:` line (keep-alive comments
/// skipped); `None` at the end of the stream. Bounded: a stuck stream fails the test.
async fn try_next_frame(body: &mut axum::body::Body) -> Option<Value> {
    let mut parser = SseParser::default();
    loop {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(10), body.frame())
            .await
            .expect("the stream moves within 10 s")?
            .expect("a body frame");
        if let Ok(data) = chunk.into_data() {
            let frames = parser.push(&data);
            if let Some(at) = frames.iter().position(|frame| frame.data.is_some()) {
                assert!(
                    at + 1 == frames.len() && parser.is_between_events(),
                    "one frame a chunk: {frames:?}"
                );
                return Some(frames[at].json());
            }
        }
    }
}

async fn next_frame(body: &mut axum::body::Body) -> Value {
    try_next_frame(body).await.expect("an SSE frame")
}

// ---- API Gateway REST API (v1), `prod` stage ----

#[tokio::test]
async fn rest_v1_prod_stage_send_and_get_route_without_the_stage() {
    let mut function = Function::echo(&[]);
    let answer = function.call(REST_PROD_SEND).await;
    let sent = answer.json(200);
    let task = &sent["task"];
    assert_eq!(
        redact(&sent),
        json!({"task": echo_task(task, "rest-prod-1", "rest through the prod stage")})
    );
    let id = task["id"].as_str().unwrap();
    let got = function
        .call(&REST_PROD_GET_TASK.replace("TASK-ID", id))
        .await
        .json(200);
    let mut expected = echo_task(task, "rest-prod-1", "rest through the prod stage");
    expected.as_object_mut().unwrap().remove("history");
    assert_eq!(redact(&got), expected);
}

#[tokio::test]
async fn rest_v1_prod_stage_card_lists_the_http_json_url_with_the_stage() {
    let mut function = Function::echo(&[]);
    let card = function.call(REST_PROD_CARD).await.json(200);
    let url = format!("https://{REST_HOST}/prod/");
    assert_eq!(
        card["supportedInterfaces"],
        echo_card(&url, false)["supportedInterfaces"]
    );
    assert_eq!(
        card["supportedInterfaces"][1],
        json!({"url": format!("https://{REST_HOST}/prod"), "protocolBinding": "HTTP+JSON",
               "protocolVersion": "1.0"})
    );
}

// ---- The other fronts: HTTP API v2 with a stage, ALB, cargo lambda watch ----

#[tokio::test]
async fn http_api_v2_named_stage_serves_the_routes_below_the_stage() {
    let mut function = Function::echo(&[]);
    let card = function.call(HTTP_API_STAGE_CARD).await.json(200);
    assert_eq!(
        card["supportedInterfaces"][1]["url"],
        format!("https://{HTTP_API_HOST}/dev")
    );
    // HTTP API v2 keeps the stage in `rawPath`.
    let send = v2_at(
        HTTP_API_STAGE_CARD,
        "POST",
        "/dev/message:send",
        Some(&send_body("v2-1", "through the dev stage")),
    );
    let sent = function.call(&send).await.json(200);
    assert_eq!(
        redact(&sent),
        json!({"task": echo_task(&sent["task"], "v2-1", "through the dev stage")})
    );
}

#[tokio::test]
async fn alb_serves_the_routes_at_the_root() {
    let mut function = Function::echo(&[]);
    let card = function.call(ALB_CARD).await.json(200);
    assert_eq!(
        card["supportedInterfaces"][1]["url"],
        format!("http://{ALB_HOST}")
    );
    let send = edited(ALB_CARD, |event| {
        event["httpMethod"] = json!("POST");
        event["path"] = json!("/message:send");
        event["headers"]["a2a-version"] = json!("1.0");
        event["headers"]["content-type"] = json!("application/json");
        event["body"] = json!(send_body("alb-1", "through the balancer").to_string());
        event["isBase64Encoded"] = json!(false);
    });
    let sent = function.call(&send).await.json(200);
    assert_eq!(
        redact(&sent),
        json!({"task": echo_task(&sent["task"], "alb-1", "through the balancer")})
    );
}

#[tokio::test]
async fn cargo_lambda_watch_card_lists_the_prefixed_url_and_the_routes_answer() {
    let mut function = Function::echo(&[]);
    let card = function.call(WATCH_CARD).await.json(200);
    assert_eq!(
        card["supportedInterfaces"][1]["url"],
        "http://127.0.0.1:9001/lambda-url/a2a-agent"
    );
    // cargo lambda watch removes `/lambda-url/a2a-agent` from the event's path.
    let send = v2_at(
        WATCH_SEND_V1_0,
        "POST",
        "/message:send",
        Some(&send_body("watch-1", "locally")),
    );
    let sent = function.call(&send).await.json(200);
    let id = sent["task"]["id"].as_str().unwrap();
    let get = v2_at(WATCH_SEND_V1_0, "GET", &format!("/tasks/{id}"), None);
    let got = function.call(&get).await.json(200);
    assert_eq!(redact(&got), echo_task(&sent["task"], "watch-1", "locally"));
}

#[tokio::test]
async fn jsonrpc_only_function_lists_one_binding_and_does_not_route_http_json() {
    let mut function = Function::echo(&[("A2A_BINDINGS", "jsonrpc")]);
    let card = function.call(FURL_CARD).await.json(200);
    let url = format!("https://{FUNCTION_URL_HOST}/");
    assert_eq!(
        card["supportedInterfaces"],
        json!([
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ])
    );
    let answer = function.call(FURL_SEND).await;
    assert_eq!(answer.json(404)["error"]["code"], -32601, "{}", answer.body);
}

// ---- `A2A_AUTH=api-key` ----

#[tokio::test]
async fn api_key_refusal_on_a_route_of_the_binding_is_a_401_status_body() {
    let key = "s3cret-key-0123456789";
    let mut function = Function::echo(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", key)]);
    let refused = function.call(FURL_SEND).await;
    assert_eq!(
        refused.header(header::WWW_AUTHENTICATE),
        Some("ApiKey header=\"X-API-Key\"")
    );
    assert_eq!(
        refused.json(401),
        json!({"error": {"code": 401, "status": "UNAUTHENTICATED",
                         "message": "Unauthorized: send a valid X-API-Key header"}})
    );
    let keyed = edited(FURL_SEND, |event| {
        event["headers"]["x-api-key"] = json!(key)
    });
    let sent = function.call(&keyed).await.json(200);
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn public_url_with_a_path_serves_the_routes_below_it() {
    // A custom domain whose base path `a2a` maps to the API: API Gateway keeps the base
    // path in the event's `path`, and there is no stage in it.
    let mut function = Function::echo(&[("A2A_PUBLIC_URL", "https://agents.example.com/a2a/")]);
    let card = function.call(REST_PROD_CARD).await.json(200);
    assert_eq!(
        card["supportedInterfaces"][1],
        json!({"url": "https://agents.example.com/a2a", "protocolBinding": "HTTP+JSON",
               "protocolVersion": "1.0"})
    );
    let send = edited(REST_PROD_SEND, |event| {
        event["path"] = json!("/a2a/message:send");
        event["requestContext"]["path"] = json!("/a2a/message:send");
        event["headers"]["Host"] = json!("agents.example.com");
        event["multiValueHeaders"]["Host"] = json!(["agents.example.com"]);
    });
    let sent = function.call(&send).await.json(200);
    assert_eq!(
        redact(&sent),
        json!({"task": echo_task(&sent["task"], "rest-prod-1", "rest through the prod stage")})
    );
}
