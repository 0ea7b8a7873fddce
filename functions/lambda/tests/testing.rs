//! `a2a_lambda::testing`: events built as the platform sends them reach the function's
//! routes, and a cloned test function serves invocations at once.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda::Lambda;
use a2a_lambda::testing::{FunctionUrlEvent, TestFunction};
use a2a_lambda_server::agents::EchoAgent;
use serde_json::{Value, json};

fn send(text: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": {"message": {"kind": "message", "role": "user", "messageId": "m-1",
            "parts": [{"kind": "text", "text": text}]}}
    })
}

#[tokio::test]
async fn a_function_url_event_reaches_json_rpc_and_the_card() {
    let function = TestFunction::new(Lambda::new(EchoAgent)).unwrap();
    let answer = function
        .invoke(FunctionUrlEvent::post("/", send("hi")))
        .await
        .unwrap();
    assert_eq!(answer.status, 200, "{}", answer.text());
    let body = answer.json().unwrap();
    assert_eq!(body["result"]["artifacts"][0]["parts"][0]["text"], "hi");

    let card = function
        .invoke(FunctionUrlEvent::get("/.well-known/agent-card.json"))
        .await
        .unwrap();
    assert_eq!(card.status, 200);
    assert_eq!(
        card.json().unwrap()["url"],
        "https://function.lambda-url.us-east-1.on.aws/"
    );
}

#[tokio::test]
async fn an_api_gateway_stage_event_is_served_and_the_card_names_the_stage() {
    let function = TestFunction::new(Lambda::new(EchoAgent)).unwrap();
    let card = function
        .invoke(
            FunctionUrlEvent::get("/.well-known/agent-card.json")
                .header("host", "api.example.test")
                .api_gateway("prod"),
        )
        .await
        .unwrap();
    assert_eq!(card.status, 200, "{}", card.text());
    assert_eq!(
        card.json().unwrap()["url"],
        "https://api.example.test/prod/"
    );

    let answer = function
        .invoke(FunctionUrlEvent::post("/", send("staged")).api_gateway("prod"))
        .await
        .unwrap();
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(
        answer.json().unwrap()["result"]["artifacts"][0]["parts"][0]["text"],
        "staged"
    );
}

#[tokio::test]
async fn clones_invoke_at_once_and_a_bad_event_is_a_clear_error() {
    let function = TestFunction::new(Lambda::new(EchoAgent)).unwrap();
    let calls = (0..4).map(|n| {
        let function = function.clone();
        tokio::spawn(async move {
            function
                .invoke(FunctionUrlEvent::post("/", send(&format!("n{n}"))))
                .await
                .unwrap()
                .status
        })
    });
    for call in calls {
        assert_eq!(call.await.unwrap(), 200);
    }
    let error = function
        .invoke(json!({"not": "an event"}))
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("the event is not a Lambda HTTP event"),
        "{error}"
    );
}
