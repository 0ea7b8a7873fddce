//! What the engine tests share: an agent that waits for a gate, and an engine over a store.

#![allow(dead_code, clippy::expect_used)]

use std::sync::Arc;

use a2a_core::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_core::card::{AgentCard, Capabilities, Skill};
use a2a_core::engine::{Engine, EngineConfig};
use a2a_core::error::ErrorProfile;
use a2a_core::tasks::TaskStore;
use tokio::sync::Notify;

/// Says it works, waits until the gate opens, then sends an artifact (`late`) and
/// completes.
pub struct Gated(pub Arc<Notify>);

#[async_trait::async_trait]
impl Agent for Gated {
    fn card(&self) -> AgentCard {
        let mut card = AgentCard::new("Gated", "Completes when told.", "1.0.0")
            .with_skill(Skill::new("gate", "Gate", "Waits.", ["test"]));
        card.capabilities = Capabilities {
            streaming: true,
            ..Capabilities::default()
        };
        card
    }

    async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working(None).await?;
        self.0.notified().await;
        events.artifact_text("out", "late", false, true).await?;
        events.complete(None).await?;
        Ok(())
    }
}

/// An engine for `agent` over `store`, under the spec's error profile.
pub fn engine(agent: Arc<dyn Agent>, store: Arc<dyn TaskStore>) -> Engine {
    Engine::new(
        agent,
        store,
        EngineConfig {
            public_url: "http://127.0.0.1:9000/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
        },
    )
    .expect("a test engine builds")
}
