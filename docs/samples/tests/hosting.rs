//! "Hosting": the greeter as the Lambda function serves it (events in-process, no AWS),
//! and as a container on a free port, called over both bindings.

use a2a_guide_samples::first_agent as greeter;

// ANCHOR: lambda_test
use a2a_lambda::Lambda;
use a2a_lambda::testing::{FunctionUrlEvent, TestFunction};
use serde_json::json;

#[tokio::test]
async fn a_function_url_send_asks_for_the_name() -> Result<(), Box<dyn std::error::Error>> {
    let function = TestFunction::new(Lambda::new(greeter::Greeter))?;
    let send = FunctionUrlEvent::post(
        "/",
        json!({
            "jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": {"message": {"kind": "message", "role": "user", "messageId": "m-1",
                "parts": [{"kind": "text", "text": "hi"}]}}
        }),
    );
    let answer = function.invoke(send).await?;
    assert_eq!(answer.status, 200);
    let task = &answer.json()?["result"];
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "What is your name?"
    );
    Ok(())
}
// ANCHOR_END: lambda_test

#[tokio::test]
async fn an_api_gateway_stage_is_part_of_the_card_url() -> Result<(), Box<dyn std::error::Error>> {
    let function = TestFunction::new(Lambda::new(greeter::Greeter))?;
    let card = function
        .invoke(FunctionUrlEvent::get("/.well-known/agent-card.json").api_gateway("prod"))
        .await?;
    assert_eq!(card.status, 200);
    let url = card.json()?["url"].as_str().map(str::to_owned);
    assert!(url.is_some_and(|url| url.ends_with("/prod/")));
    Ok(())
}

// ANCHOR: container_test
use a2a_lambda_client::model::{SendResult, TaskState};
use a2a_lambda_client::{Binding, Client};
use a2a_lambda_server::serve::Container;

#[tokio::test]
async fn a_container_serves_both_bindings() -> Result<(), Box<dyn std::error::Error>> {
    let running = Container::new(greeter::Greeter)
        .address("127.0.0.1:0".parse()?) // a free port
        .bind()
        .await?;
    for binding in [Binding::JsonRpc, Binding::HttpJson] {
        let client = Client::builder(running.url())
            .binding(binding)
            .connect()
            .await?;
        let SendResult::Task(task) = client.send_text("hi").await? else {
            panic!("no task")
        };
        assert_eq!(task.status.state, TaskState::InputRequired);
    }
    running.shutdown().await?;
    Ok(())
}
// ANCHOR_END: container_test
