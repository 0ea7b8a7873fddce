//! Testing an agent alone, without a host: run it on a message and look at what it sent
//! ([`run`]), or cancel it and see whether, and how soon, it stopped ([`cancel`]).
//!
//! A test through a host cannot tell an agent that ignores its cancellation token from
//! one that honours it: the engine answers the cancel and drops what the agent sends
//! afterwards either way. Here the agent's own behaviour shows.
//!
//! ```
//! use std::time::Duration;
//! use a2a_lambda_server::{testing, RequestContext};
//! use a2a_lambda_server::agents::EchoAgent;
//! use a2a_lambda_server::model::TaskState;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let run = testing::run(&EchoAgent, RequestContext::text("hello")).await;
//! assert!(run.outcome.is_ok());
//! assert_eq!(run.state(), Some(TaskState::Completed));
//! assert_eq!(run.artifact_text("echo"), "hello");
//!
//! // An agent that finishes at once has nothing to stop, and stops at once.
//! let canceled = testing::cancel(&EchoAgent, RequestContext::text("hi"), Duration::ZERO, Duration::from_secs(1)).await;
//! assert!(canceled.stopped_after.is_some());
//! # }
//! ```

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures_util::FutureExt as _;
use tokio::time::Instant;

use crate::agent::{Agent, AgentError, AgentEvent, EventReceiver, EventSink, RequestContext};
use a2a_lambda_core::model::{PartContent, TaskState};

/// What an agent did on one message.
#[derive(Debug)]
#[non_exhaustive]
pub struct Run {
    /// Every event it sent, in order.
    pub events: Vec<AgentEvent>,
    /// What `execute` returned (a panic is an `Err` saying so).
    pub outcome: Result<(), AgentError>,
}

impl Run {
    /// The last state the agent set (`None`: it set none; a host completes such a task).
    pub fn state(&self) -> Option<TaskState> {
        last_state(&self.events)
    }

    /// The text of every part of the artifact `artifact_id`, chunks joined in order.
    pub fn artifact_text(&self, artifact_id: &str) -> String {
        self.events
            .iter()
            .filter_map(|event| match event {
                AgentEvent::Artifact { artifact, .. } if artifact.artifact_id == artifact_id => {
                    Some(&artifact.parts)
                }
                _ => None,
            })
            .flatten()
            .filter_map(|part| match &part.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The text of the direct reply, when the agent replied with a message.
    pub fn reply_text(&self) -> Option<String> {
        self.events.iter().find_map(|event| match event {
            AgentEvent::Message(message) => Some(message.joined_text()),
            _ => None,
        })
    }
}

/// Runs `agent` on `context` to the end, collecting its events.
pub async fn run(agent: &impl Agent, context: RequestContext) -> Run {
    let (sink, mut receiver) = EventSink::channel(&context.task_id, &context.context_id);
    let mut events = Vec::new();
    let execution = execute(agent, context, sink);
    let outcome = collect_until(execution, &mut receiver, &mut events).await;
    drain(&mut receiver, &mut events);
    Run { events, outcome }
}

/// How an agent took a cancel.
#[derive(Debug)]
#[non_exhaustive]
pub struct Canceled {
    /// What it sent before the cancel.
    pub events: Vec<AgentEvent>,
    /// What it sent after the cancel (a host drops these: the task is canceled).
    pub after_cancel: Vec<AgentEvent>,
    /// How long after the cancel `execute` returned: `None` when it had not within the
    /// time allowed (it ignores its cancellation token).
    pub stopped_after: Option<Duration>,
    /// What `execute` returned, when it did.
    pub outcome: Option<Result<(), AgentError>>,
}

impl Canceled {
    /// Whether the agent returned within `limit` of the cancel.
    pub fn stopped_within(&self, limit: Duration) -> bool {
        self.stopped_after.is_some_and(|after| after <= limit)
    }
}

/// Runs `agent` on `context`, fires its cancellation token `after` the start, and waits
/// at most `within` for `execute` to return. The sink stays open, as a host's does until
/// the agent returns, so an agent that stops only because sending failed is not mistaken
/// for one that honours the token.
pub async fn cancel(
    agent: &impl Agent,
    context: RequestContext,
    after: Duration,
    within: Duration,
) -> Canceled {
    let token = context.cancellation.clone();
    let (sink, mut receiver) = EventSink::channel(&context.task_id, &context.context_id);
    let mut execution = std::pin::pin!(execute(agent, context, sink));
    let mut events = Vec::new();
    let before = collect_until(
        async {
            tokio::select! {
                outcome = &mut execution => Some(outcome),
                () = tokio::time::sleep(after) => None,
            }
        },
        &mut receiver,
        &mut events,
    )
    .await;
    drain(&mut receiver, &mut events);
    token.cancel();
    let canceled_at = Instant::now();
    let mut after_cancel = Vec::new();
    let (outcome, stopped_after) = match before {
        Some(outcome) => (Some(outcome), Some(Duration::ZERO)),
        None => {
            let outcome = collect_until(
                async {
                    tokio::select! {
                        outcome = &mut execution => Some(outcome),
                        () = tokio::time::sleep(within) => None,
                    }
                },
                &mut receiver,
                &mut after_cancel,
            )
            .await;
            let stopped_after = outcome.as_ref().map(|_| canceled_at.elapsed());
            (outcome, stopped_after)
        }
    };
    drain(&mut receiver, &mut after_cancel);
    Canceled {
        events,
        after_cancel,
        stopped_after,
        outcome,
    }
}

/// `execute`, a panic caught as an error.
async fn execute(
    agent: &impl Agent,
    context: RequestContext,
    sink: EventSink,
) -> Result<(), AgentError> {
    match AssertUnwindSafe(agent.execute(context, sink))
        .catch_unwind()
        .await
    {
        Ok(outcome) => outcome,
        Err(_) => Err("the agent panicked".into()),
    }
}

/// Awaits `work` while reading the agent's events into `events` (so an agent that sends
/// more than the sink's queue holds is not stalled).
async fn collect_until<T>(
    work: impl Future<Output = T>,
    receiver: &mut EventReceiver,
    events: &mut Vec<AgentEvent>,
) -> T {
    let mut work = std::pin::pin!(work);
    loop {
        tokio::select! {
            biased;
            Some(event) = receiver.recv() => events.push(event),
            done = &mut work => return done,
        }
    }
}

fn drain(receiver: &mut EventReceiver, events: &mut Vec<AgentEvent>) {
    while let Some(event) = receiver.try_recv() {
        events.push(event);
    }
}

fn last_state(events: &[AgentEvent]) -> Option<TaskState> {
    events.iter().rev().find_map(|event| match event {
        AgentEvent::Status { state, .. } => Some(*state),
        _ => None,
    })
}
