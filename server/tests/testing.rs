//! `a2a_lambda_server::testing`: an agent run alone, its events collected, and a cancel that
//! tells an agent honouring its token from one ignoring it (no host involved).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_lambda_server::card::AgentCard;
use a2a_lambda_server::model::{Artifact, Task, TaskState, TaskStatus};
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext, testing};

/// Works for an hour, whatever it is told.
struct Stubborn;

impl Agent for Stubborn {
    fn card(&self) -> AgentCard {
        AgentCard::new("Stubborn", "Ignores cancels.", "1.0.0")
    }

    async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        tokio::time::sleep(Duration::from_secs(3600)).await;
        events.complete().await?;
        Ok(())
    }
}

/// Works for an hour unless canceled, and stops within 10 ms of a cancel.
struct Polite;

impl Agent for Polite {
    fn card(&self) -> AgentCard {
        AgentCard::new("Polite", "Honours cancels.", "1.0.0")
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(3600)) => events.complete().await?,
            () = context.cancellation.cancelled() => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        Ok(())
    }
}

/// Asks for a name, then greets in three chunks and completes with metadata.
struct Greeter;

impl Agent for Greeter {
    fn card(&self) -> AgentCard {
        AgentCard::new("Greeter", "Greets.", "1.0.0")
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        if context.previous.is_none() {
            events.ask("Your name?").await?;
            return Ok(());
        }
        let mut greeting = events.artifact_writer("greeting");
        for chunk in ["Hello", ", ", &context.message.joined_text()] {
            greeting.write(chunk).await?;
        }
        greeting.finish().await?;
        events
            .complete_with(
                a2a_lambda_server::StatusNote::text("done")
                    .task_metadata("usage", serde_json::json!({"outputTokens": 3})),
            )
            .await?;
        Ok(())
    }
}

#[tokio::test(start_paused = true)]
async fn an_agent_that_ignores_its_cancellation_token_is_caught() {
    let canceled = testing::cancel(
        &Stubborn,
        RequestContext::text("go"),
        Duration::from_millis(50),
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(canceled.stopped_after, None, "it never stopped");
    assert!(!canceled.stopped_within(Duration::from_secs(5)));
    assert!(canceled.outcome.is_none());
    assert_eq!(canceled.events.len(), 1, "it said it was working");
}

#[tokio::test(start_paused = true)]
async fn an_agent_that_honours_its_cancellation_token_passes() {
    let canceled = testing::cancel(
        &Polite,
        RequestContext::text("go"),
        Duration::from_millis(50),
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(canceled.stopped_after, Some(Duration::from_millis(10)));
    assert!(canceled.stopped_within(Duration::from_millis(100)));
    assert!(matches!(canceled.outcome, Some(Ok(()))));
    assert!(
        canceled.after_cancel.is_empty(),
        "{:?}",
        canceled.after_cancel
    );
}

#[tokio::test]
async fn a_run_collects_every_event_and_a_continuation_sees_its_task() {
    let first = testing::run(&Greeter, RequestContext::text("hi")).await;
    assert!(first.outcome.is_ok());
    assert_eq!(first.state(), Some(TaskState::InputRequired));

    let waiting = Task {
        id: "t-1".to_owned(),
        context_id: "c-1".to_owned(),
        status: TaskStatus::new(TaskState::InputRequired),
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    };
    let second = testing::run(&Greeter, RequestContext::text("Ada").continuing(waiting)).await;
    assert_eq!(second.state(), Some(TaskState::Completed));
    assert_eq!(second.artifact_text("greeting"), "Hello, Ada");
    let chunks: Vec<(bool, bool)> = second
        .events
        .iter()
        .filter_map(|event| match event {
            a2a_lambda_server::AgentEvent::Artifact {
                append, last_chunk, ..
            } => Some((*append, *last_chunk)),
            _ => None,
        })
        .collect();
    assert_eq!(chunks, [(false, false), (true, false), (true, true)]);
    let a2a_lambda_server::AgentEvent::Status { task_metadata, .. } = second.events.last().unwrap()
    else {
        panic!("the last event completes the task");
    };
    assert_eq!(
        task_metadata.as_ref().unwrap()["usage"],
        serde_json::json!({"outputTokens": 3})
    );
}

#[tokio::test]
async fn a_panicking_agent_is_an_error_not_a_crash() {
    struct Panics;
    impl Agent for Panics {
        fn card(&self) -> AgentCard {
            AgentCard::new("Panics", "Panics.", "1.0.0")
        }
        async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
            events.artifact(Artifact::text("a", "before")).await?;
            panic!("boom");
        }
    }
    let run = testing::run(&Panics, RequestContext::text("x")).await;
    assert_eq!(run.events.len(), 1);
    assert_eq!(run.outcome.unwrap_err().to_string(), "the agent panicked");
}
