//! Agents of the tests' own, shared by the hosts' tests (the container, the Lambda
//! function, the emulator's front).
//!
//! - [`Ticker`]: works, sends chunks of one artifact a gap apart, then completes.
//! - [`Gated`]: works, waits for a gate, then answers and completes.
//! - [`SaysWhoCalls`]: asks for input, saying who the host said calls.
//! - [`Behaving`]: does what its message's text says (sleeps, ticks, floods).

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_server::agent::{Agent, AgentError, AgentEvent, EventSink, RequestContext};
use a2a_lambda_server::agents::ConformanceAgent;
use a2a_lambda_server::card::{AgentCard, Capabilities, Skill};
use a2a_lambda_server::model::Artifact;
use tokio::sync::Notify;

/// A card for a test agent that streams, with one skill.
fn streaming_card(name: &str, description: &str, skill: Skill) -> AgentCard {
    let mut card = AgentCard::new(name, description, "1.0.0").with_skill(skill);
    card.capabilities = Capabilities {
        streaming: true,
        ..Capabilities::default()
    };
    card
}

/// Works, then sends `chunks` chunks of one artifact (`ticks`: `tick 0 `, `tick 1 `, …)
/// `gap` apart, each as it is made, then completes (with the message `done` when given).
#[derive(Debug, Clone, Copy)]
pub struct Ticker {
    /// How many chunks.
    pub chunks: usize,
    /// The wait before each chunk.
    pub gap: Duration,
    /// The text of the completing status message, if any.
    pub done: Option<&'static str>,
}

impl Agent for Ticker {
    fn card(&self) -> AgentCard {
        streaming_card(
            "Ticker",
            "Ticks.",
            Skill::new("tick", "Tick", "Ticks.", ["test"]),
        )
    }

    async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        for index in 0..self.chunks {
            tokio::time::sleep(self.gap).await;
            // Each tick goes out as it is made (a writer would hold it until the next).
            events
                .send(AgentEvent::Artifact {
                    artifact: Artifact::text("ticks", format!("tick {index} ")),
                    append: index > 0,
                    last_chunk: index + 1 == self.chunks,
                })
                .await?;
        }
        match self.done {
            Some(text) => events.complete_with(text).await?,
            None => events.complete().await?,
        }
        Ok(())
    }
}

/// Says it works, waits until the gate opens, then sends an artifact (`out`: `late`) and
/// completes.
pub struct Gated(pub Arc<Notify>);

impl Agent for Gated {
    fn card(&self) -> AgentCard {
        streaming_card(
            "Gated",
            "Completes when told.",
            Skill::new("gate", "Gate", "Waits.", ["test"]),
        )
    }

    async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        self.0.notified().await;
        events.artifact(Artifact::text("out", "late")).await?;
        events.complete().await?;
        Ok(())
    }
}

/// Asks for input, saying who it was told calls: every task stays open (cancelable), and
/// its status message shows the owner the host gave the agent. Its card is the
/// conformance agent's.
#[derive(Debug, Clone, Copy, Default)]
pub struct SaysWhoCalls;

impl Agent for SaysWhoCalls {
    fn card(&self) -> AgentCard {
        ConformanceAgent::default().card()
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.owner.to_string();
        events.ask(&text).await?;
        Ok(())
    }
}

/// Picks its behaviour from the message text:
/// - `sleep:MS`: completes after MS milliseconds, artifact `slept`;
/// - `tick:MS`: a `working` status every MS milliseconds (at most 400), then completes;
/// - `firehose`: a 16 KiB `working` status message every 2 ms (8 MB/s, at most 2,500);
/// - anything else: completes at once, echoing the text.
#[derive(Debug, Clone, Copy, Default)]
pub struct Behaving;

impl Agent for Behaving {
    fn card(&self) -> AgentCard {
        streaming_card(
            "Behaving",
            "Does what the text says.",
            Skill::new("behave", "Behave", "Does what the text says.", ["test"]),
        )
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.message.joined_text();
        let cancel = context.cancellation.clone();
        events.working().await?;
        if let Some(ms) = text.strip_prefix("sleep:") {
            let ms = ms.parse().unwrap_or(0);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                () = cancel.cancelled() => return Ok(()),
            }
            events.artifact(Artifact::text("out", "slept")).await?;
        } else if let Some(ms) = text.strip_prefix("tick:") {
            let every = Duration::from_millis(ms.parse().unwrap_or(50));
            for tick in 0..400 {
                tokio::select! {
                    () = tokio::time::sleep(every) => {}
                    () = cancel.cancelled() => return Ok(()),
                }
                events.working_with(&format!("tick {tick}")).await?;
            }
        } else if text == "firehose" {
            let chunk = "x".repeat(16 * 1024);
            for chunk_number in 0..2500 {
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(2)) => {}
                    () = cancel.cancelled() => return Ok(()),
                }
                events
                    .working_with(&format!("{chunk_number} {chunk}"))
                    .await?;
            }
        } else {
            events.artifact(Artifact::text("out", text)).await?;
        }
        events.complete().await?;
        Ok(())
    }
}
