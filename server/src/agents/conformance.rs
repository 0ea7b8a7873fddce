//! `conformance`: the behaviours conformance suites drive, chosen by `messageId` prefix.
//!
//! | prefix | behaviour |
//! |---|---|
//! | `tck-complete-task` | completes, status message "Hello from TCK" |
//! | `tck-message-response` | replies with the message "Direct message response", no task |
//! | `tck-input-required` | the task goes to input-required |
//! | `tck-reject-task` | the task is rejected |
//! | `tck-artifact-text` | artifact "Generated text content" |
//! | `tck-artifact-file` | file artifact `output.txt`, `text/plain` |
//! | `tck-artifact-file-url` | file artifact at `https://example.com/output.txt` |
//! | `tck-artifact-data` | data artifact `{"key":"value","count":42}` |
//! | `tck-stream-` | working, three artifact chunks, completed |
//! | `tck-delayed-complete` | works for `TCK_STREAMING_TIMEOUT` seconds, then completes "Done after delay" |
//! | `test-resubscribe-message-id` | works for 2 × `TCK_STREAMING_TIMEOUT` seconds (default 2.0) |
//! | `slow-` | works until canceled |
//! | anything else | multi-turn: input-required until a follow-up says `done` |

use std::time::Duration;

use serde_json::json;

use crate::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_core::card::{AgentCard, Capabilities, Skill};
use a2a_lambda_core::model::{Artifact, Part, PartContent};

/// The agent conformance suites run against.
#[derive(Debug, Clone)]
pub struct ConformanceAgent {
    streaming_timeout: Duration,
}

impl Default for ConformanceAgent {
    fn default() -> Self {
        Self {
            streaming_timeout: Duration::from_secs(2),
        }
    }
}

impl ConformanceAgent {
    /// Reads `TCK_STREAMING_TIMEOUT` (seconds, default 2.0); an unreadable value keeps the
    /// default and is logged.
    pub fn from_env() -> Self {
        let seconds = match std::env::var("TCK_STREAMING_TIMEOUT") {
            Err(_) => 2.0,
            Ok(value) => match value.trim().parse::<f64>() {
                Ok(seconds) if seconds.is_finite() && seconds > 0.0 => seconds,
                _ => {
                    tracing::warn!(
                        value,
                        "TCK_STREAMING_TIMEOUT is not a positive number; using 2.0"
                    );
                    2.0
                }
            },
        };
        Self {
            streaming_timeout: Duration::from_secs_f64(seconds),
        }
    }
}

fn artifact(id: &str, part: Part) -> Artifact {
    Artifact {
        artifact_id: id.to_owned(),
        name: Some(id.to_owned()),
        description: None,
        parts: vec![part],
        metadata: None,
        extensions: Vec::new(),
    }
}

impl Agent for ConformanceAgent {
    fn card(&self) -> AgentCard {
        let mut card = AgentCard::new(
            "Conformance Agent",
            "Behaves as A2A conformance suites expect, chosen by the messageId prefix.",
            env!("CARGO_PKG_VERSION"),
        )
        .with_skill(Skill::new(
            "conformance",
            "Conformance behaviours",
            "Completes, rejects, asks for input, streams or produces artifacts by messageId prefix.",
            ["conformance", "tck"],
        ));
        card.capabilities = Capabilities {
            streaming: true,
            ..Capabilities::default()
        };
        card
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let id = context.message.message_id.as_str();
        if context.previous.is_some() && context.message.joined_text().trim() == "done" {
            return Ok(events.complete_with("Done").await?);
        }
        if id.starts_with("tck-message-response") {
            return Ok(events.reply("Direct message response").await?);
        }
        events.working().await?;
        if id.starts_with("tck-complete-task") {
            events.complete_with("Hello from TCK").await?;
        } else if id.starts_with("tck-input-required") {
            events.ask("Please provide more input").await?;
        } else if id.starts_with("tck-reject-task") {
            events.reject("Task rejected").await?;
        } else if id.starts_with("tck-artifact-text") {
            events
                .artifact(artifact("text", Part::text("Generated text content")))
                .await?;
            events.complete().await?;
        } else if id.starts_with("tck-artifact-file-url") {
            let mut part = Part::from_content(PartContent::Url(
                "https://example.com/output.txt".to_owned(),
            ));
            part.filename = Some("output.txt".to_owned());
            part.media_type = Some("text/plain".to_owned());
            events.artifact(artifact("file-url", part)).await?;
            events.complete().await?;
        } else if id.starts_with("tck-artifact-file") {
            let mut part =
                Part::from_content(PartContent::Bytes(b"Generated file content".to_vec()));
            part.filename = Some("output.txt".to_owned());
            part.media_type = Some("text/plain".to_owned());
            events.artifact(artifact("file", part)).await?;
            events.complete().await?;
        } else if id.starts_with("tck-artifact-data") {
            let part = Part::data(json!({"key": "value", "count": 42}));
            events.artifact(artifact("data", part)).await?;
            events.complete().await?;
        } else if id.starts_with("tck-stream-") {
            let mut stream = events.artifact_writer("stream");
            for chunk in ["Streaming ", "chunk ", "content"] {
                stream.write(chunk).await?;
            }
            stream.finish().await?;
            events.complete().await?;
        } else if id.starts_with("tck-delayed-complete") {
            tokio::select! {
                () = tokio::time::sleep(self.streaming_timeout) => {
                    events.complete_with("Done after delay").await?;
                }
                () = context.cancellation.cancelled() => {}
            }
        } else if id.starts_with("test-resubscribe-message-id") {
            tokio::select! {
                () = tokio::time::sleep(self.streaming_timeout * 2) => events.complete().await?,
                () = context.cancellation.cancelled() => {}
            }
        } else if id.starts_with("slow-") {
            context.cancellation.cancelled().await;
        } else {
            events
                .ask("Tell me more, or say \"done\" to finish.")
                .await?;
        }
        Ok(())
    }
}
