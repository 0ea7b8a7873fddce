//! The greeter: asks for your name once (the task waits in `input-required`), then streams
//! a greeting word by word as artifact chunks and completes.

use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext};

/// The agent. `src/main.rs` serves it on Lambda or as an AgentCore container.
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
            events.ask("What is your name?").await?;
            return Ok(());
        }
        let name = context.message.joined_text();
        let greeting = format!("Hello, {}! Nice to meet you.", name.trim());
        let mut artifact = events.artifact_writer("greeting");
        for (index, word) in greeting.split(' ').enumerate() {
            let chunk = if index == 0 {
                word.to_owned()
            } else {
                format!(" {word}")
            };
            artifact.write(chunk).await?;
        }
        artifact.finish().await?;
        events.complete().await?;
        Ok(())
    }
}
