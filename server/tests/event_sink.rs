//! An agent's events reach the engine's end in order, each named call sends the event it
//! says, and a sink knows when nobody listens.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::model::{Artifact, TaskState};
use a2a_lambda_server::StatusNote;
use a2a_lambda_server::agent::{AgentEvent, EventSink, SinkClosed};
use serde_json::json;

#[tokio::test]
async fn events_arrive_in_order_and_end_when_every_sink_is_gone() {
    let (sink, mut events) = EventSink::channel("t1", "c1");
    assert_eq!(events.try_recv(), None, "nothing sent yet");

    sink.working_with("reading").await.unwrap();
    sink.artifact(Artifact::text("out", "hello")).await.unwrap();
    let clone = sink.clone();
    drop(sink);
    clone.complete().await.unwrap();

    match events.recv().await {
        Some(AgentEvent::Status {
            state: TaskState::Working,
            message: Some(message),
            task_metadata: None,
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
    assert_eq!(
        events.recv().await,
        Some(AgentEvent::status(TaskState::Completed, None))
    );
    drop(clone);
    assert_eq!(events.recv().await, None, "every sink is gone");
}

#[tokio::test]
async fn each_named_call_sends_its_state_and_note() {
    let (sink, mut events) = EventSink::channel("t1", "c1");
    sink.ask("Your name?").await.unwrap();
    sink.fail("The model is down").await.unwrap();
    sink.reject("Not my job").await.unwrap();
    sink.complete_with(StatusNote::text("Done").task_metadata("usage", json!({"outputTokens": 7})))
        .await
        .unwrap();
    drop(sink);
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        let AgentEvent::Status {
            state,
            message,
            task_metadata,
        } = event
        else {
            panic!("expected a status, got {event:?}");
        };
        let message = message.unwrap();
        assert_eq!(message.task_id.as_deref(), Some("t1"));
        seen.push((state, message.joined_text(), task_metadata));
    }
    let usage = json!({"usage": {"outputTokens": 7}});
    assert_eq!(
        seen,
        [
            (TaskState::InputRequired, "Your name?".to_owned(), None),
            (TaskState::Failed, "The model is down".to_owned(), None),
            (TaskState::Rejected, "Not my job".to_owned(), None),
            (
                TaskState::Completed,
                "Done".to_owned(),
                usage.as_object().cloned()
            ),
        ]
    );
}

#[tokio::test]
async fn a_sink_whose_receiver_is_gone_is_closed() {
    let (sink, events) = EventSink::channel("t1", "c1");
    drop(events);
    assert_eq!(sink.reply("too late").await, Err(SinkClosed));
    assert_eq!(sink.complete().await, Err(SinkClosed));
}
