//! `echo`: completes a task whose artifact echoes the input text.

use crate::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_core::card::{AgentCard, Capabilities, Skill};
use a2a_lambda_core::model::Artifact;

/// Echoes the text of every message back as an artifact named `echo`.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoAgent;

impl Agent for EchoAgent {
    fn card(&self) -> AgentCard {
        let mut skill = Skill::new(
            "echo",
            "Echo",
            "Returns the text of your message as an artifact.",
            ["echo", "test"],
        );
        skill.examples = vec!["hello".to_owned()];
        let mut card = AgentCard::new(
            "Echo Agent",
            "Echoes every message back. The built-in agent of a2a-lambda, for trying clients and hosts.",
            env!("CARGO_PKG_VERSION"),
        )
        .with_skill(skill);
        card.capabilities = Capabilities {
            streaming: true,
            ..Capabilities::default()
        };
        card
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = context.message.joined_text();
        events.working().await?;
        events.artifact(Artifact::text("echo", text)).await?;
        events.complete().await?;
        Ok(())
    }
}
