//! An agent's events reach the engine's end in order, and a sink knows when nobody listens.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_core::model::TaskState;
use a2a_server::agent::{AgentEvent, EventSink, SinkClosed};

#[tokio::test]
async fn events_arrive_in_order_and_end_when_every_sink_is_gone() {
    let (sink, mut events) = EventSink::channel("t1", "c1");
    assert_eq!(events.try_recv(), None, "nothing sent yet");

    sink.working(Some("reading")).await.unwrap();
    sink.artifact_text("out", "hello", false, true)
        .await
        .unwrap();
    let clone = sink.clone();
    drop(sink);
    clone.complete(None).await.unwrap();

    match events.recv().await {
        Some(AgentEvent::Status {
            state: TaskState::Working,
            message: Some(message),
        }) => {
            assert_eq!(message.joined_text(), "reading");
            assert_eq!(message.task_id.as_deref(), Some("t1"));
            assert_eq!(message.context_id.as_deref(), Some("c1"));
        }
        other => panic!("expected working with a message, got {other:?}"),
    }
    match events.try_recv() {
        Some(AgentEvent::Artifact {
            artifact,
            append: false,
            last_chunk: true,
        }) => assert_eq!(artifact.artifact_id, "out"),
        other => panic!("expected the artifact, got {other:?}"),
    }
    assert!(matches!(
        events.recv().await,
        Some(AgentEvent::Status {
            state: TaskState::Completed,
            message: None
        })
    ));
    drop(clone);
    assert_eq!(events.recv().await, None, "every sink is gone");
}

#[tokio::test]
async fn a_sink_whose_receiver_is_gone_is_closed() {
    let (sink, events) = EventSink::channel("t1", "c1");
    drop(events);
    assert_eq!(sink.reply("too late").await, Err(SinkClosed));
}
