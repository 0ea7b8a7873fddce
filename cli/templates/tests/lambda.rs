//! The agent as the Lambda function serves it: a Function URL event in, the JSON-RPC answer
//! out, in-process (`Lambda::into_app`), without AWS.
#![allow(clippy::unwrap_used)]

use a2a_lambda::{Config, Lambda};
use http_body_util::BodyExt as _;
use serde_json::Value;
use tower::ServiceExt as _;

use {{crate}}::Agent;

#[tokio::test]
async fn a_function_url_send_is_echoed() {
    // No variables: tasks in memory, answers buffered (A2A_STREAMING unset).
    let config = Config::from_lookup(|_| None).unwrap();
    let (app, _) = Lambda::new(Agent).config(config).into_app().unwrap();
    let event =
        lambda_http::request::from_str(include_str!("fixtures/function_url_send.json")).unwrap();

    let response = app.oneshot(event).await.unwrap();
    assert_eq!(response.status(), 200);
    let body: Value =
        serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["kind"], "task");
    assert_eq!(body["result"]["status"]["state"], "completed");
    assert_eq!(body["result"]["artifacts"][0]["parts"][0]["text"], "hi");
}
