//! Your own agent on A2A: it streams its answer word by word as it works.
//!
//! Run it with `cargo run -p a2a-core --example streaming_agent`, then:
//!
//! ```sh
//! curl -N http://127.0.0.1:9100/ -H 'Content-Type: application/json' -d '{
//!   "jsonrpc": "2.0", "id": 1, "method": "message/stream",
//!   "params": {"message": {"kind": "message", "messageId": "m1", "role": "user",
//!     "parts": [{"kind": "text", "text": "stream me a sentence"}]}}}'
//! ```
//!
//! The agent never sees JSON-RPC, versions or SSE: it emits events and the engine speaks
//! whichever protocol version the client asked for.

use std::sync::Arc;
use std::time::Duration;

use a2a_core::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_core::card::{AgentCard, Capabilities, Skill};
use a2a_core::engine::{Engine, EngineConfig};
use a2a_core::error::ErrorProfile;
use a2a_core::http::{RouterOptions, router};
use a2a_core::tasks::InMemoryTaskStore;

/// Answers by repeating the request back, one word at a time.
struct WordByWord;

#[async_trait::async_trait]
impl Agent for WordByWord {
    fn card(&self) -> AgentCard {
        let mut card = AgentCard::new(
            "Word by word",
            "Streams its answer one word at a time.",
            "1.0.0",
        )
        .with_skill(Skill::new(
            "repeat",
            "Repeat",
            "Repeats your words back, streamed.",
            ["demo"],
        ));
        card.capabilities = Capabilities {
            streaming: true,
            ..Capabilities::default()
        };
        card
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working(Some("Thinking…")).await?;
        let text = context.message.joined_text();
        let words: Vec<&str> = text.split_whitespace().collect();
        for (index, word) in words.iter().enumerate() {
            tokio::select! {
                () = context.cancellation.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
            let chunk = if index == 0 {
                (*word).to_owned()
            } else {
                format!(" {word}")
            };
            events
                .artifact_text("answer", chunk, index > 0, index + 1 == words.len())
                .await?;
        }
        events.complete(None).await?;
        Ok(())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = "127.0.0.1:9100";
    let engine = Engine::new(
        Arc::new(WordByWord),
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: format!("http://{address}/"),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
        },
    )?;
    let listener = tokio::net::TcpListener::bind(address).await?;
    println!("serving on http://{address}/");
    axum::serve(listener, router(Arc::new(engine), RouterOptions::default())).await?;
    Ok(())
}
