//! The greeter: asks for your name once (the task waits in `input-required`), then streams
//! a greeting word by word as artifact chunks and completes.

use a2a_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_server::card::{AgentCard, Skill};
use a2a_server::model::TaskState;

/// The agent. `src/main.rs` serves it on Lambda or as an AgentCore container.
pub struct Greeter;

#[a2a_server::async_trait]
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
            events
                .status(TaskState::InputRequired, Some("What is your name?"))
                .await?;
            return Ok(());
        }
        let greeting = format!(
            "Hello, {}! Nice to meet you.",
            context.message.joined_text().trim()
        );
        let words: Vec<&str> = greeting.split(' ').collect();
        for (index, word) in words.iter().enumerate() {
            let chunk = if index == 0 {
                (*word).to_owned()
            } else {
                format!(" {word}")
            };
            events
                .artifact_text("greeting", chunk, index > 0, index + 1 == words.len())
                .await?;
        }
        events.complete(None).await?;
        Ok(())
    }
}
