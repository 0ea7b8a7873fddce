//! `echo`: completes a task whose artifact echoes the input text.

use std::pin::Pin;

use crate::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_core::card::{AgentCard, Capabilities, Skill};

/// Echoes the text of every message back as an artifact named `echo`.
#[derive(Debug, Clone, Copy, Default)]
pub struct EchoAgent;

#[async_trait::async_trait]
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

    // Written as `#[async_trait]` writes an `async fn`, except that the text is taken
    // before the future is made: the future then holds only the sink and the text (about
    // 300 bytes), where the `async fn` would hold the whole request context twice (over
    // 1 KiB, a slower allocation for every request).
    fn execute<'agent, 'future>(
        &'agent self,
        context: RequestContext,
        events: EventSink,
    ) -> Pin<Box<dyn Future<Output = Result<(), AgentError>> + Send + 'future>>
    where
        'agent: 'future,
        Self: 'future,
    {
        let text = context.message.joined_text();
        Box::pin(async move {
            events.working(None).await?;
            events.artifact_text("echo", text, false, true).await?;
            events.complete(None).await?;
            Ok(())
        })
    }
}
