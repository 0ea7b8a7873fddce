//! "Calling agents": the client library against the emulator: a stream read event by
//! event, a task got and canceled.

use std::time::Duration;

use a2a_guide_samples::agents::SlowCount;
use a2a_lambda_emulator::Emulator;

// ANCHOR: stream
use a2a_lambda_client::model::{PartContent, StreamEvent, TaskState};
use a2a_lambda_client::{Client, RetryPolicy, text_params};
use futures_util::StreamExt as _;

async fn count(url: &str) -> Result<String, a2a_lambda_client::Error> {
    let client = Client::builder(url)
        .retry(RetryPolicy::default().with_max_attempts(8))
        .connect() // reads the card, picks A2A 1.0 or 0.3 and the binding
        .await?;
    let mut events = client.stream(&text_params("go")).await?;
    let mut numbers = String::new();
    while let Some(event) = events.next().await {
        match event? {
            StreamEvent::ArtifactUpdate(update) => {
                for part in &update.artifact.parts {
                    if let PartContent::Text(text) = &part.content {
                        numbers.push_str(text);
                    }
                }
            }
            StreamEvent::StatusUpdate(update) => assert_ne!(update.status.state, TaskState::Failed),
            StreamEvent::Task(_) | StreamEvent::Message(_) => {}
        }
    }
    Ok(numbers)
}
// ANCHOR_END: stream

#[tokio::test]
async fn streams_every_number() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(SlowCount).start().await?;
    assert_eq!(count(emulator.url()).await?, "1 2 3 4 5 6 7 8 9 10 ");
    Ok(())
}

// ANCHOR: cancel
#[tokio::test]
async fn cancels_a_running_task() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(SlowCount).start().await?;
    let client = Client::connect(emulator.url()).await?;
    let mut events = client.stream(&text_params("go")).await?;
    let Some(Ok(StreamEvent::Task(task))) = events.next().await else {
        panic!("no task")
    };

    let canceled = client.cancel_task(&task.id).await?;
    assert_eq!(canceled.status.state, TaskState::Canceled);
    let stored = client.get_task(&task.id, Some(0)).await?;
    assert_eq!(stored.status.state, TaskState::Canceled);
    Ok(())
}
// ANCHOR_END: cancel

#[tokio::test]
async fn a_stream_ends_within_its_agents_time() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(SlowCount).start().await?;
    let counted = tokio::time::timeout(Duration::from_secs(10), count(emulator.url())).await??;
    assert!(counted.ends_with("10 "));
    Ok(())
}
