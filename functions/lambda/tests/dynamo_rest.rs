//! Both bindings over one DynamoDB table (moto, started by [`a2a_test_support::moto`]): two
//! instances of the function share it, and a task one makes over HTTP+JSON is read by the
//! other over JSON-RPC, and the other way round — the bindings are two fronts of the same
//! task store and the same owner rules.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use a2a_lambda::{App, Config};
use a2a_test_support::dynamo::{create_table, store};
use a2a_test_support::lambda::{echo_send_v1_0, redact};
use axum::http::{StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::{Service as _, ServiceExt as _};

const FURL_REST_SEND: &str = include_str!("fixtures/function_url_rest_send.json");
const FURL_REST_GET_TASK: &str = include_str!("fixtures/function_url_rest_get_task.json");
const FURL_RPC_SEND: &str = include_str!("fixtures/function_url_send_v1_0.json");

/// One instance of the function, with a store of its own on the shared table.
fn instance(settings: &a2a_lambda::dynamo::DynamoSettings) -> App {
    let config = Config::from_lookup(|_| None).expect("the default configuration");
    a2a_lambda::Lambda::new(a2a_lambda_server::agents::EchoAgent)
        .config(config)
        .task_store(Arc::new(store(settings)))
        .push_store(Arc::new(a2a_lambda_server::push::InMemoryPushConfigs::new()))
        .into_app()
        .expect("app")
        .0
}

/// The JSON body of `app`'s HTTP 200 `application/json` answer to `event`.
async fn answer(app: &mut App, event: &str) -> Value {
    let request = lambda_http::request::from_str(event).expect("the event deserializes");
    let response = app.ready().await.unwrap().call(request).await.unwrap();
    let status = response.status();
    let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(content_type.unwrap(), "application/json", "{text}");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
}

/// `event` carrying another body (the envelope, headers and context kept).
fn with_body(event: &str, body: &Value) -> String {
    let mut event: Value = serde_json::from_str(event).unwrap();
    event["body"] = Value::String(body.to_string());
    event.to_string()
}

fn rpc_get(id: &str) -> String {
    with_body(
        FURL_RPC_SEND,
        &json!({"jsonrpc": "2.0", "id": "get", "method": "GetTask",
                "params": {"id": id, "historyLength": 0}}),
    )
}

/// The echo agent's completed task without its history (`historyLength` 0).
fn without_history(task: &Value, message_id: &str, text: &str) -> Value {
    let mut task = echo_send_v1_0(
        json!(null),
        &json!({"result": {"task": task}}),
        message_id,
        text,
    )["result"]["task"]
        .clone();
    task.as_object_mut().unwrap().remove("history");
    task
}

#[tokio::test]
async fn a_task_sent_over_http_json_is_read_over_json_rpc_on_another_instance() {
    let settings = create_table("rest-to-rpc").await;
    let (mut first, mut second) = (instance(&settings), instance(&settings));
    let sent = answer(&mut first, FURL_REST_SEND).await;
    let task = &sent["task"];
    let id = task["id"].as_str().unwrap();
    let read = answer(&mut second, &rpc_get(id)).await;
    assert_eq!(
        redact(&read),
        json!({"jsonrpc": "2.0", "id": "get",
               "result": without_history(task, "rest-send-1", "hello over rest")})
    );
}

#[tokio::test]
async fn a_task_sent_over_json_rpc_is_read_over_http_json_on_another_instance() {
    let settings = create_table("rpc-to-rest").await;
    let (mut first, mut second) = (instance(&settings), instance(&settings));
    let sent = answer(&mut first, FURL_RPC_SEND).await;
    let task = &sent["result"]["task"];
    let id = task["id"].as_str().unwrap();
    let read = answer(&mut second, &FURL_REST_GET_TASK.replace("TASK-ID", id)).await;
    assert_eq!(
        redact(&read),
        without_history(task, "furl-send-2", "hello v1")
    );
}
