//! The agent as the Lambda function serves it: Function URL events in, answers out,
//! in-process (`a2a_lambda::testing`), without AWS.
#![allow(clippy::unwrap_used)]

use a2a_lambda::Lambda;
use a2a_lambda::testing::{FunctionUrlEvent, TestFunction};
use serde_json::json;

use {{crate}}::Agent;

#[tokio::test]
async fn a_function_url_send_is_echoed() {
    // The configuration is the defaults (tasks in memory, answers buffered), not the
    // environment's.
    let function = TestFunction::new(Lambda::new(Agent)).unwrap();
    let send = json!({
        "jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": {"message": {"kind": "message", "role": "user", "messageId": "m-1",
                               "parts": [{"kind": "text", "text": "hello Lambda"}]}}
    });
    let answer = function
        .invoke(FunctionUrlEvent::post("/", send))
        .await
        .unwrap();
    assert_eq!(answer.status, 200);
    let body = answer.json().unwrap();
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");
    // One part a chunk, as the agent wrote them.
    let parts = &body["result"]["artifacts"][0]["parts"];
    assert_eq!(parts[0]["text"], "hello", "{body}");
    assert_eq!(parts[1]["text"], " Lambda", "{body}");
}

#[tokio::test]
async fn the_card_is_served() {
    let function = TestFunction::new(Lambda::new(Agent)).unwrap();
    let card = function
        .invoke(FunctionUrlEvent::get("/.well-known/agent-card.json"))
        .await
        .unwrap();
    assert_eq!(card.status, 200);
    assert_eq!(card.json().unwrap()["name"], env!("CARGO_PKG_NAME"));
}
