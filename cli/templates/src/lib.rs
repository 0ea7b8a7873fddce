//! {{name}}: an A2A agent. It sends back the text it is given, streamed word by word as an
//! artifact, then completes the task; an empty message is rejected. Replace `execute` with
//! your agent's work: `events` reports its progress, its artifacts and how the task ends.

use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_lambda_server::{AgentError, EventSink, RequestContext};

/// The agent. `src/main.rs` serves it on AWS Lambda or as an AgentCore container.
pub struct Agent;

impl a2a_lambda_server::Agent for Agent {
    /// The agent card: what clients read at `/.well-known/agent-card.json`.
    fn card(&self) -> AgentCard {
        AgentCard::new(
            "{{name}}",
            "Sends your text back, word by word.",
            env!("CARGO_PKG_VERSION"),
        )
        .with_skill(Skill::new(
            "echo",
            "Echo",
            "Streams the text of your message back to you.",
            ["echo"],
        ))
        .with_streaming(true)
    }

    /// One message, one task: called with the client's message and a sink for the task's
    /// events. Returning ends the agent's turn (a task still working is completed).
    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.message.joined_text();
        if text.trim().is_empty() {
            events.reject("Send some text to echo.").await?;
            return Ok(());
        }
        events.working_with("Echoing your message.").await?;
        // Each write is one artifact-update event: streamed to the client as it happens.
        let mut echo = events.artifact_writer("echo");
        for (index, word) in text.split_whitespace().enumerate() {
            // The client canceled the task: stop (what follows would be ignored).
            if context.cancellation.is_cancelled() {
                return Ok(());
            }
            let chunk = if index == 0 {
                word.to_owned()
            } else {
                format!(" {word}")
            };
            echo.write(chunk).await?;
        }
        echo.finish().await?;
        events.complete().await?;
        Ok(())
    }
}
