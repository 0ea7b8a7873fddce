//! "Your first agent": the greeter, which asks for your name once (the task waits in
//! `input-required`), then streams a greeting and completes. The README shows the same
//! code; `scripts/check_book.py` checks that it still matches this file.

// ANCHOR: agent
use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext};

/// Asks for your name, then greets you.
pub struct Greeter;

impl Agent for Greeter {
    fn card(&self) -> AgentCard {
        AgentCard::new("Greeter", "Asks your name, then greets you.", "0.1.0")
            .with_skill(Skill::new(
                "greet",
                "Greet",
                "Greets you by name.",
                ["greeting"],
            ))
            .with_streaming(true)
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        if context.previous.is_none() {
            events.ask("What is your name?").await?; // the task waits in input-required
            return Ok(());
        }
        let name = context.message.joined_text();
        let mut greeting = events.artifact_writer("greeting");
        for chunk in ["Hello, ", name.trim(), "!"] {
            greeting.write(chunk).await?; // streamed as it is written
        }
        greeting.finish().await?;
        events.complete().await?;
        Ok(())
    }
}
// ANCHOR_END: agent
