//! The front's routing refusals echo the request's id (found by the fuzzer: they said
//! `"id": null` although the payload's id was readable, unlike the front's other
//! refusals and AgentCore's table, where every error echoes it).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_emulator::Emulator;
use a2a_server::agents::EchoAgent;
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt as _;
use tower::ServiceExt as _;

const ARN: &str =
    "arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fa-AbCdEf1234";
const NOT_FOUND: &str = r#""error":{"code":-32051,"message":"Resource not found - Requested resource does not exist"}}"#;

async fn post(path: &str, body: &str) -> (u16, String) {
    let front = Emulator::new(EchoAgent)
        .rate_limit(0)
        .into_service(([127, 0, 0, 1], 9000).into())
        .unwrap();
    let request = Request::post(path)
        .header("content-type", "application/json")
        .header(
            "x-amzn-bedrock-agentcore-runtime-session-id",
            "s".repeat(40),
        )
        .body(Body::from(body.to_owned()))
        .unwrap();
    let response = front.oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

#[tokio::test]
async fn another_qualifier_is_refused_with_the_requests_id() {
    let path = format!("/runtimes/{ARN}/invocations?qualifier=OTHER");
    let body = r#"{"jsonrpc":"2.0","id":"q-1","method":"tasks/get","params":{"id":"t"}}"#;
    assert_eq!(
        post(&path, body).await,
        (404, format!(r#"{{"jsonrpc":"2.0","id":"q-1",{NOT_FOUND}"#))
    );
}

#[tokio::test]
async fn a_malformed_runtime_is_refused_with_the_requests_id() {
    let body = r#"{"jsonrpc":"2.0","id":42,"method":"tasks/get","params":{"id":"t"}}"#;
    assert_eq!(
        post("/runtimes/not%an%arn/invocations", body).await,
        (404, format!(r#"{{"jsonrpc":"2.0","id":42,{NOT_FOUND}"#))
    );
}

#[tokio::test]
async fn an_unreadable_payload_is_refused_with_a_null_id() {
    let path = format!("/runtimes/{ARN}/invocations?qualifier=OTHER");
    assert_eq!(
        post(&path, "{not json").await,
        (404, format!(r#"{{"jsonrpc":"2.0","id":null,{NOT_FOUND}"#))
    );
}
