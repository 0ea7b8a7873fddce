//! The agent alone, without a host (`a2a_lambda_server::testing`): exactly what it sends,
//! event by event, in milliseconds.

use a2a_lambda_server::model::TaskState;
use a2a_lambda_server::{AgentEvent, RequestContext, testing};

use {{crate}}::Agent;

#[tokio::test]
async fn echoes_the_text_word_by_word_then_completes() {
    let run = testing::run(&Agent, RequestContext::text("hello  A2A world")).await;
    assert!(run.outcome.is_ok(), "{:?}", run.outcome);
    assert_eq!(run.state(), Some(TaskState::Completed));
    assert_eq!(run.artifact_text("echo"), "hello A2A world");

    // Working first, then one artifact chunk a word (the writer marks the last one), then
    // completed.
    let chunks: Vec<(bool, bool)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Artifact {
                append, last_chunk, ..
            } => Some((*append, *last_chunk)),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, [(false, false), (true, false), (true, true)]);
    let states: Vec<TaskState> = run
        .events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Status { state, .. } => Some(*state),
            _ => None,
        })
        .collect();
    assert_eq!(states, [TaskState::Working, TaskState::Completed]);
}

#[tokio::test]
async fn rejects_an_empty_message() {
    let run = testing::run(&Agent, RequestContext::text("  ")).await;
    assert!(run.outcome.is_ok(), "{:?}", run.outcome);
    assert_eq!(run.state(), Some(TaskState::Rejected));
    let [
        AgentEvent::Status {
            message: Some(reason),
            ..
        },
    ] = run.events.as_slice()
    else {
        panic!("expected one rejection: {:?}", run.events);
    };
    assert_eq!(reason.joined_text(), "Send some text to echo.");
}
