//! "Your first agent", step 2: the greeter tested alone, then behind the AgentCore
//! emulator and called by the client as a client of AgentCore would call it.

use a2a_guide_samples::first_agent as greeter;

// ANCHOR: tests
use a2a_lambda_client::Client;
use a2a_lambda_client::model::{Part, SendResult, TaskState};
use a2a_lambda_emulator::Emulator;
use a2a_lambda_server::{RequestContext, testing};

#[tokio::test]
async fn asks_for_a_name_alone() {
    let run = testing::run(&greeter::Greeter, RequestContext::text("hi")).await;
    assert_eq!(run.state(), Some(TaskState::InputRequired));
}

#[tokio::test]
async fn greets_behind_agentcore() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(greeter::Greeter).start().await?;
    let client = Client::connect(emulator.url()).await?;

    let SendResult::Task(task) = client.send_text("hi").await? else {
        panic!("no task")
    };
    assert_eq!(task.status.state, TaskState::InputRequired);

    let SendResult::Task(task) = client.reply(&task, "Ada").await? else {
        panic!("no task")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    let greeting = [Part::text("Hello, "), Part::text("Ada"), Part::text("!")];
    assert_eq!(task.artifacts[0].parts, greeting);
    Ok(())
}
// ANCHOR_END: tests
