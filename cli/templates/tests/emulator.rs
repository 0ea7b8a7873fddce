//! The agent behind the AgentCore emulator (`a2a_lambda_emulator::Emulator`: AgentCore's
//! paths, sessions and errors on a local port), called by `a2a_lambda_client` as any A2A
//! client of AgentCore would, in A2A 0.3 and 1.0.
#![allow(clippy::unwrap_used)]

use a2a_lambda_client::model::{Part, PartContent, SendResult, StreamEvent, Task, TaskState};
use a2a_lambda_client::{Client, ProtocolVersion};
use a2a_lambda_emulator::Emulator;

use {{crate}}::Agent;

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

#[tokio::test]
async fn echoes_in_both_protocol_versions() {
    let emulator = Emulator::new(Agent).start().await.unwrap();
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let client = Client::builder(emulator.url())
            .version(version)
            .connect()
            .await
            .unwrap();
        assert_eq!(client.card().unwrap().name, env!("CARGO_PKG_NAME"));

        let echoed = task(client.send_text("hello there").await.unwrap());
        assert_eq!(echoed.status.state, TaskState::Completed, "{version}");
        assert_eq!(text(&echoed.artifacts[0].parts), "hello there", "{version}");

        let refused = task(client.send_text("").await.unwrap());
        assert_eq!(refused.status.state, TaskState::Rejected, "{version}");
    }
    emulator.shutdown().await.unwrap();
}

#[tokio::test]
async fn streams_the_echo_word_by_word() {
    let emulator = Emulator::new(Agent).start().await.unwrap();
    let client = Client::connect(emulator.url()).await.unwrap();

    let mut stream = client
        .stream(&a2a_lambda_client::text_params("one two three"))
        .await
        .unwrap();
    let mut chunks = Vec::new();
    let mut last = None;
    while let Some(event) = stream.next_event().await {
        match event.unwrap() {
            StreamEvent::ArtifactUpdate(update) => chunks.push(text(&update.artifact.parts)),
            StreamEvent::StatusUpdate(update) => last = Some(update.status.state),
            StreamEvent::Task(_) | StreamEvent::Message(_) => {}
        }
    }
    assert_eq!(chunks, ["one", " two", " three"]);
    assert_eq!(last, Some(TaskState::Completed));
    emulator.shutdown().await.unwrap();
}
