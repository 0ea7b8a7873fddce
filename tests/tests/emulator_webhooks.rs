//! The real binary serves the webhook sinks (`/_emulator/webhooks/{name}`) too, outside its
//! JWT auth. (The sinks in-process: `emulator/tests/emulator_webhooks.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use reqwest::StatusCode;
use serde_json::{Value, json};

async fn post(url: &str, body: &'static str, headers: &[(&str, &str)]) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().post(url).body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

async fn get(url: &str) -> (StatusCode, Value) {
    let response = reqwest::get(url).await.unwrap();
    let status = response.status();
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "{url}"
    );
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn the_binary_serves_the_sinks_too_with_jwt_auth_on() {
    let emulator = a2a_test_support::harness::Emulator::builder()
        .args(["--auth", "jwt"])
        .process()
        .start();
    let url = emulator.url("/_emulator/webhooks/from-binary");
    let (status, answer) = post(&url, r#"{"task":{"id":"t-9"}}"#, &[]).await;
    assert_eq!((status, answer), (StatusCode::OK, json!({"received": 1})));
    let (status, answer) = get(&url).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer["deliveries"][0]["body"],
        json!({"task": {"id": "t-9"}})
    );
    // The platform's own paths still want a token (401 without one).
    let refused = reqwest::Client::new()
        .post(emulator.url("/"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
}
