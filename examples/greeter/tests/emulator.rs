//! The greeter behind the AgentCore emulator, called by `a2a-lambda-client` as a real client of
//! AgentCore would: send, stream, multi-turn, and throttling retried.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_lambda_client::model::{Part, PartContent, Role, SendResult, StreamEvent, Task, TaskState};
use a2a_lambda_client::{Client, ProtocolVersion, RetryPolicy, text_params};
use a2a_lambda_emulator::{Emulator, FaultSpec};
use greeter::Greeter;

/// The task a send answered with.
fn task(result: SendResult) -> Task {
    match result {
        SendResult::Task(task) => task,
        SendResult::Message(message) => panic!("expected a task, got {message:?}"),
    }
}

/// The text of some parts, joined.
fn text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The name, as a follow-up message on `task`.
fn answer(task: &Task, text: &str) -> a2a_lambda_client::model::SendMessageParams {
    let mut params = text_params(text);
    params.message.task_id = Some(task.id.clone());
    params.message.context_id = Some(task.context_id.clone());
    params
}

#[tokio::test]
async fn asks_for_a_name_then_greets_in_both_versions() {
    let emulator = Emulator::new(Greeter).start().await.unwrap();
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let client = Client::builder(emulator.url())
            .version(version)
            .connect()
            .await
            .unwrap();
        assert_eq!(client.card().unwrap().name, "Greeter");

        let asked = task(client.send_text("hi").await.unwrap());
        assert_eq!(asked.status.state, TaskState::InputRequired, "{version}");
        let question = asked.status.message.as_ref().unwrap();
        assert_eq!(
            (question.role, question.joined_text().as_str()),
            (Role::Agent, "What is your name?")
        );

        let greeted = task(client.send(&answer(&asked, "Ada")).await.unwrap());
        assert_eq!(greeted.id, asked.id);
        assert_eq!(greeted.status.state, TaskState::Completed);
        assert_eq!(
            text(&greeted.artifacts[0].parts),
            "Hello, Ada! Nice to meet you."
        );
    }
    emulator.shutdown().await.unwrap();
}

#[tokio::test]
async fn streams_the_greeting_word_by_word() {
    let emulator = Emulator::new(Greeter).start().await.unwrap();
    let client = Client::connect(emulator.url()).await.unwrap();
    let asked = task(client.send_text("hi").await.unwrap());

    let mut stream = client.stream(&answer(&asked, "Grace")).await.unwrap();
    let mut chunks = Vec::new();
    let mut last = None;
    while let Some(event) = stream.next_event().await {
        match event.unwrap() {
            StreamEvent::ArtifactUpdate(update) => {
                chunks.push(text(&update.artifact.parts));
            }
            StreamEvent::StatusUpdate(update) => last = Some(update.status.state),
            StreamEvent::Task(_) | StreamEvent::Message(_) => {}
        }
    }
    assert_eq!(
        chunks,
        ["Hello,", " Grace!", " Nice", " to", " meet", " you."]
    );
    assert_eq!(last, Some(TaskState::Completed));
}

#[tokio::test]
async fn sessions_do_not_see_each_others_tasks() {
    let emulator = Emulator::new(Greeter).start().await.unwrap();
    let first = Client::connect(emulator.url()).await.unwrap();
    let second = Client::connect(emulator.url()).await.unwrap();
    assert_ne!(first.session_id(), second.session_id());

    let asked = task(first.send_text("hi").await.unwrap());
    let error = second.get_task(&asked.id, None).await.unwrap_err();
    assert_eq!(
        error.rpc().map(|rpc| rpc.code.code()),
        Some(-32001),
        "{error}"
    );
}

#[tokio::test]
async fn throttling_is_retried_by_the_client() {
    // Half of all invocations are throttled (429, -32053), reproducibly.
    let faults: FaultSpec = "throttle=0.5".parse().unwrap();
    let emulator = Emulator::new(Greeter)
        .faults(faults)
        .seed(7)
        .start()
        .await
        .unwrap();
    let retrying = RetryPolicy::default()
        .with_max_attempts(10)
        .with_initial_backoff(Duration::from_millis(5));
    let patient = Client::builder(emulator.url())
        .retry(retrying)
        .connect()
        .await
        .unwrap();
    let impatient = Client::builder(emulator.url())
        .retry(RetryPolicy::none())
        .connect()
        .await
        .unwrap();

    let mut throttled = 0;
    for _ in 0..10 {
        assert_eq!(
            task(patient.send_text("hi").await.unwrap()).status.state,
            TaskState::InputRequired
        );
        if let Err(error) = impatient.send_text("hi").await {
            assert_eq!(
                error.rpc().map(|rpc| rpc.code.code()),
                Some(-32053),
                "{error}"
            );
            throttled += 1;
        }
    }
    assert!(throttled > 0, "no send of ten was throttled at 50%");
}
