//! "Writing agents": each sample agent run alone (`a2a_lambda_server::testing`), as the
//! guide shows it.

use std::time::Duration;

use a2a_guide_samples::agents::{Coffee, Divide, Report, Shout, SlowCount, WordCount};
use a2a_lambda_server::model::{PartContent, Task, TaskState, TaskStatus};
use a2a_lambda_server::{AgentEvent, RequestContext, testing};

#[tokio::test]
async fn a_reply_is_a_message_without_a_task() {
    let run = testing::run(&Shout, RequestContext::text("hello")).await;
    assert_eq!(run.reply_text().as_deref(), Some("HELLO"));
    assert_eq!(run.state(), None);
}

#[tokio::test]
async fn a_task_reports_progress_an_artifact_and_metadata() {
    let run = testing::run(&WordCount, RequestContext::text("one two three")).await;
    assert_eq!(run.state(), Some(TaskState::Completed));
    assert_eq!(run.artifact_text("count"), "3 words");
    let Some(AgentEvent::Status {
        task_metadata: Some(metadata),
        ..
    }) = run.events.last()
    else {
        panic!("no metadata: {:?}", run.events);
    };
    assert_eq!(metadata["words"], 3);

    let empty = testing::run(&WordCount, RequestContext::text("  ")).await;
    assert_eq!(empty.state(), Some(TaskState::Rejected));
}

#[tokio::test]
async fn fail_shows_a_message_and_an_error_fails_the_run() {
    let half = testing::run(&Divide, RequestContext::text("1 2")).await;
    assert_eq!(half.artifact_text("quotient"), "0.5");
    let zero = testing::run(&Divide, RequestContext::text("1 0")).await;
    assert_eq!(zero.state(), Some(TaskState::Failed));
    let words = testing::run(&Divide, RequestContext::text("one two")).await;
    assert!(words.outcome.is_err());
}

// ANCHOR: multi_turn_test
#[tokio::test]
async fn asks_until_the_answer_is_a_size() {
    let first = testing::run(&Coffee, RequestContext::text("a coffee, please")).await;
    assert_eq!(first.state(), Some(TaskState::InputRequired));

    // The follow-up continues the task the question left waiting.
    let waiting = Task {
        id: "t-1".to_owned(),
        context_id: "c-1".to_owned(),
        status: TaskStatus::new(TaskState::InputRequired),
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    };
    let unknown = RequestContext::text("huge").continuing(waiting.clone());
    assert_eq!(
        testing::run(&Coffee, unknown).await.state(),
        Some(TaskState::InputRequired)
    );
    let known = RequestContext::text("Large").continuing(waiting);
    let done = testing::run(&Coffee, known).await;
    assert_eq!(done.state(), Some(TaskState::Completed));
    assert_eq!(done.artifact_text("order"), "One large coffee.");
}
// ANCHOR_END: multi_turn_test

// ANCHOR: cancel_test
#[tokio::test]
async fn stops_soon_after_a_cancel() {
    let after = Duration::from_millis(250); // cancel once it has counted to 2
    let within = Duration::from_secs(1); // how long to wait for it to return
    let canceled = testing::cancel(&SlowCount, RequestContext::text("go"), after, within).await;
    assert!(
        canceled.stopped_within(Duration::from_millis(50)),
        "{canceled:?}"
    );
    assert!(matches!(canceled.outcome, Some(Ok(()))));
    // Returning dropped the artifact writer, which sent the chunk it held ("2 ") as the
    // last one; a host ignores it, the task being canceled already.
    assert_eq!(canceled.after_cancel.len(), 1);
}
// ANCHOR_END: cancel_test

// ANCHOR: streaming_test
#[tokio::test]
async fn streams_the_report_in_chunks() {
    let run = testing::run(&Report, RequestContext::text("the harbour")).await;
    assert_eq!(
        run.artifact_text("report"),
        "Summary: all is well with the harbour."
    );
    let flags: Vec<(bool, bool)> = run
        .events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::Artifact {
                artifact,
                append,
                last_chunk,
            } if artifact.artifact_id == "report" => Some((*append, *last_chunk)),
            _ => None,
        })
        .collect();
    // The first chunk opens the artifact, the others extend it, the last says so.
    assert_eq!(
        flags,
        [
            (false, false),
            (true, false),
            (true, false),
            (true, false),
            (true, true)
        ]
    );
}
// ANCHOR_END: streaming_test

#[tokio::test]
async fn the_data_artifact_holds_json() {
    let run = testing::run(&Report, RequestContext::text("tides")).await;
    let data = run.events.iter().find_map(|event| match event {
        AgentEvent::Artifact { artifact, .. } if artifact.artifact_id == "facts" => {
            match &artifact.parts[0].content {
                PartContent::Data(value) => Some(value.clone()),
                _ => None,
            }
        }
        _ => None,
    });
    assert_eq!(
        data,
        Some(serde_json::json!({"topic": "tides", "words": 5}))
    );
}
