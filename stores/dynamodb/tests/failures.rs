//! What a caller gets when DynamoDB fails: wiremock stands in for DynamoDB (the store's
//! endpoint points at it) and throttles, fails with 5xx, or says nothing at all. Every
//! time, the JSON-RPC answer is a clear -32603 — the task store is unavailable, retry
//! later — and it comes within the store's timeouts, retries included.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_server::owner::Owner;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_lambda_core::model::{Task, TaskState, TaskStatus};
use a2a_lambda_dynamodb::{
    DynamoSettings, DynamoTaskStore, MAX_ATTEMPTS, OPERATION_ATTEMPT_TIMEOUT, OPERATION_TIMEOUT,
};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::Engine;
use a2a_lambda_server::tasks::{StoreError, TaskStore};
use a2a_test_support::lambda::engine_on;
use a2a_test_support::lambda::rpc;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Credentials;
use serde_json::{Value, json};
use wiremock::matchers::{header, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

const UNAVAILABLE: &str = "Internal error: the task store is unavailable; retry later";
const THROTTLED: &str = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException";
/// Retries of a failing (not silent) DynamoDB take well under this.
const QUICK: Duration = Duration::from_secs(3);

/// A stand-in for DynamoDB answering every call with `response`.
async fn dynamodb(response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

/// A DynamoDB error answer, as the service sends it.
fn error(status: u16, kind: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("content-type", "application/x-amz-json-1.0")
        .set_body_string(json!({"__type": kind, "message": "simulated"}).to_string())
}

fn store(server: &MockServer) -> DynamoTaskStore {
    let settings = DynamoSettings {
        endpoint: Some(server.uri()),
        ..DynamoSettings::new("tasks", "us-east-1")
    };
    let config = settings
        .client_config()
        .credentials_provider(Credentials::new("testing", "testing", None, None, "tests"))
        .build();
    DynamoTaskStore::with_client(Client::from_conf(config), &settings)
}

fn engine(server: &MockServer) -> Engine {
    engine_on(BuiltIn::Echo, Arc::new(store(server)))
}

fn send() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": "m-1", "role": "user",
        "parts": [{"kind": "text", "text": "hi"}]}}})
}

fn get() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": "t-1"}})
}

fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": 3, "method": "ListTasks", "params": {"contextId": "c-1"}})
}

/// Calls the engine and checks the answer is the store's -32603, within `bound`.
async fn assert_unavailable(
    engine: &Engine,
    version: Option<&str>,
    request: Value,
    bound: Duration,
) {
    let started = Instant::now();
    let answer = rpc(engine, version, request.clone()).await;
    let took = started.elapsed();
    assert_eq!(answer["error"]["code"], -32603, "{request} → {answer}");
    assert_eq!(
        answer["error"]["message"], UNAVAILABLE,
        "{request} → {answer}"
    );
    assert!(took < bound, "{request} took {took:?}, more than {bound:?}");
}

/// How many calls of `operation` the stand-in received.
async fn calls(server: &MockServer, operation: &str) -> usize {
    let target = format!("DynamoDB_20120810.{operation}");
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .filter(|request| {
            request
                .headers
                .get("x-amz-target")
                .is_some_and(|value| value.as_bytes() == target.as_bytes())
        })
        .count()
}

#[tokio::test]
async fn throttling_is_retried_then_answered_with_a_clear_error() {
    let server = dynamodb(error(400, THROTTLED)).await;
    let engine = engine(&server);
    assert_unavailable(&engine, None, get(), QUICK).await;
    assert_eq!(
        calls(&server, "GetItem").await,
        MAX_ATTEMPTS as usize,
        "retried"
    );
    assert_unavailable(&engine, None, send(), QUICK).await;
    assert_eq!(
        calls(&server, "PutItem").await,
        MAX_ATTEMPTS as usize,
        "retried"
    );
    assert_unavailable(&engine, Some("1.0"), list(), QUICK).await;
    assert_eq!(
        calls(&server, "Query").await,
        MAX_ATTEMPTS as usize,
        "retried"
    );

    // The store says what happened, for the log.
    let detail = store(&server).get("t-1").await.unwrap_err().to_string();
    assert!(
        detail.contains("GetItem on table tasks")
            && detail.contains("ProvisionedThroughputExceededException"),
        "{detail}"
    );
}

#[tokio::test]
async fn server_errors_are_retried_then_answered_with_a_clear_error() {
    let answers = [
        error(500, "com.amazonaws.dynamodb.v20120810#InternalServerError"),
        ResponseTemplate::new(503),
    ];
    for answer in answers {
        let server = dynamodb(answer).await;
        let engine = engine(&server);
        assert_unavailable(&engine, None, get(), QUICK).await;
        assert_unavailable(&engine, Some("1.0"), send(), QUICK).await;
        assert_eq!(calls(&server, "GetItem").await, MAX_ATTEMPTS as usize);
        assert_eq!(calls(&server, "PutItem").await, MAX_ATTEMPTS as usize);
    }
}

#[tokio::test]
async fn a_silent_dynamodb_costs_at_most_the_operation_timeout() {
    let server = dynamodb(ResponseTemplate::new(200).set_delay(Duration::from_secs(30))).await;
    let engine = engine(&server);
    let bound = OPERATION_TIMEOUT + Duration::from_secs(2);
    let started = Instant::now();
    tokio::join!(
        assert_unavailable(&engine, None, get(), bound),
        assert_unavailable(&engine, None, send(), bound),
    );
    assert!(
        started.elapsed() >= OPERATION_ATTEMPT_TIMEOUT,
        "the calls waited for DynamoDB before giving up"
    );
    assert!(
        calls(&server, "GetItem").await >= 2,
        "a timed-out attempt is retried"
    );
}

#[tokio::test]
async fn a_lost_race_is_a_conflict_and_a_broken_item_an_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("x-amz-target", "DynamoDB_20120810.PutItem"))
        .respond_with(error(
            400,
            "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        ))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(header("x-amz-target", "DynamoDB_20120810.GetItem"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-type", "application/x-amz-json-1.0")
                .set_body_string(
                    json!({"Item": {
                        "id": {"S": "t-1"}, "version": {"N": "1"}, "task": {"S": "not JSON"}
                    }})
                    .to_string(),
                ),
        )
        .mount(&server)
        .await;
    let store = store(&server);
    let task = Task {
        id: "t-1".into(),
        context_id: "c-1".into(),
        status: TaskStatus {
            state: TaskState::Working,
            message: None,
            timestamp: None,
        },
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    };
    assert!(matches!(
        store.put(&task, &Owner::anonymous(), Some(1)).await,
        Err(StoreError::Conflict(id)) if id == "t-1"
    ));
    assert_eq!(
        calls(&server, "PutItem").await,
        1,
        "a conflict is not retried"
    );
    let broken = store.get("t-1").await.unwrap_err().to_string();
    assert!(broken.contains("holds no A2A v1.0 task"), "{broken}");
    assert_unavailable(&engine(&server), None, get(), QUICK).await;
}
