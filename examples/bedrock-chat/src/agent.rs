//! The chat agent: the conversation to the model, its answer back as A2A events.
//!
//! One message is one task: `working`, then the answer as artifact chunks while the
//! model writes (an [`ArtifactWriter`](a2a_lambda_server::ArtifactWriter): the first chunk with
//! `append: false`, the rest appended, the last marked `lastChunk`), then `completed` with
//! the whole answer as the status message (so the task's history holds the conversation,
//! which the next turn replays) and the token usage in the task's metadata (the final
//! status update carries it as its metadata). A model error fails the task with a message
//! fit for the person chatting; the detail goes to the logs.

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_lambda_server::model::{ListTasksParams, Task, TaskState};
use a2a_lambda_server::tasks::TaskStore;
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext, SinkClosed, StatusNote};
use serde_json::{Value, json};

use crate::config::{CardSettings, ChatConfig};
use crate::conversation::{self, MAX_EARLIER_TASKS};
use crate::model::{ChatModel, ModelError, ReplyEvent, Speaker, Turn, Usage};

/// The id of the answer's artifact.
pub const ANSWER_ARTIFACT: &str = "answer";

/// The key of a completed task's metadata that holds the tokens the answer used, under
/// Bedrock's names (the final status update carries it too, as its metadata).
pub const USAGE_KEY: &str = "usage";

/// The agent. `src/main.rs` serves it on Lambda or as an AgentCore container.
pub struct ChatAgent {
    model: Arc<dyn ChatModel>,
    card: CardSettings,
    /// Where the host keeps tasks: the context's earlier tasks are read from it. Without
    /// one, each task is a conversation of its own.
    store: Option<Arc<dyn TaskStore>>,
    idle_timeout: Duration,
    /// Kept for the card's internal settings (never rendered).
    model_id: String,
    system_prompt: Option<String>,
}

impl std::fmt::Debug for ChatAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatAgent")
            .field("card", &self.card.name)
            .field("history", &self.store.is_some())
            .field("idle_timeout", &self.idle_timeout)
            .finish_non_exhaustive()
    }
}

impl ChatAgent {
    /// An agent that answers with `model`, configured by `config`.
    pub fn new(model: Arc<dyn ChatModel>, config: &ChatConfig) -> Self {
        Self {
            model,
            card: config.card.clone(),
            store: None,
            idle_timeout: config.idle_timeout,
            model_id: config.model.model_id.clone(),
            system_prompt: config.model.system_prompt.clone(),
        }
    }

    /// Replays the context's earlier tasks from `store`, which must be the store the
    /// host keeps its tasks in.
    #[must_use]
    pub fn with_history(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// The context's earlier completed tasks, oldest first, at most
    /// [`MAX_EARLIER_TASKS`]; none when the store fails (logged): the answer then lacks
    /// context rather than failing.
    async fn earlier_tasks(&self, context: &RequestContext) -> Vec<Task> {
        let Some(store) = &self.store else {
            return Vec::new();
        };
        let params = ListTasksParams {
            context_id: Some(context.context_id.clone()),
            status: Some(TaskState::Completed),
            page_size: Some(MAX_EARLIER_TASKS),
            ..ListTasksParams::default()
        };
        match store.list(&params, &context.owner).await {
            Ok(page) => {
                // Newest first from the store.
                let mut tasks: Vec<Task> = page
                    .tasks
                    .into_iter()
                    .filter(|task| task.id != context.task_id)
                    .collect();
                tasks.reverse();
                tasks
            }
            Err(error) => {
                tracing::warn!(
                    request_id = context.request_id,
                    %error,
                    "the context's earlier tasks could not be read; answering without them"
                );
                Vec::new()
            }
        }
    }
}

impl Agent for ChatAgent {
    fn card(&self) -> AgentCard {
        let mut card = AgentCard::new(
            self.card.name.clone(),
            self.card.description.clone(),
            env!("CARGO_PKG_VERSION"),
        )
        .with_streaming(true);
        for skill in &self.card.skills {
            let mut entry = Skill::new(
                skill.id.clone(),
                skill.name.clone(),
                skill.description.clone(),
                skill.tags.clone(),
            );
            entry.examples.clone_from(&skill.examples);
            card = card.with_skill(entry);
        }
        // Internal: never rendered into a card.
        card.internal.model_id = Some(self.model_id.clone());
        card.internal.instructions.clone_from(&self.system_prompt);
        card
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        let earlier = self.earlier_tasks(&context).await;
        let turns = conversation::turns(&earlier, context.previous.as_deref(), &context.message);
        // The new message had no text: nothing for the model to answer.
        if turns
            .last()
            .is_none_or(|turn| turn.speaker != Speaker::User)
        {
            events
                .reject("Please send a text message to chat about.")
                .await?;
            return Ok(());
        }
        let answered = tokio::select! {
            answered = self.stream_answer(turns, &events) => answered,
            () = context.cancellation.cancelled() => {
                // The model's stream is dropped with the other branch: the connection
                // closes and the model stops.
                tracing::info!(request_id = context.request_id, "canceled; the model's stream is closed");
                return Ok(());
            }
        };
        match answered {
            Ok((answer, usage)) => {
                let mut note = StatusNote::text(answer);
                if let Some(usage) = usage {
                    note = note.task_metadata(USAGE_KEY, usage_json(usage));
                }
                events.complete_with(note).await?;
            }
            Err(Failure::Model(error)) => {
                tracing::warn!(request_id = context.request_id, %error, "the model failed");
                events.fail(error.user_message()).await?;
            }
            Err(Failure::Sink(closed)) => return Err(closed.into()),
        }
        Ok(())
    }
}

/// Why an answer ended early.
#[derive(Debug)]
enum Failure {
    /// The model failed (before or during the answer).
    Model(ModelError),
    /// The engine stopped listening.
    Sink(SinkClosed),
}

impl From<SinkClosed> for Failure {
    fn from(closed: SinkClosed) -> Self {
        Self::Sink(closed)
    }
}

impl ChatAgent {
    /// Streams the answer as artifact chunks; the whole text and the usage, when the model
    /// told it. What was written stays when the model fails or stalls midway: the failed
    /// task shows it.
    async fn stream_answer(
        &self,
        turns: Vec<Turn>,
        events: &EventSink,
    ) -> Result<(String, Option<Usage>), Failure> {
        let idle = self.idle_timeout;
        let mut reply = tokio::time::timeout(idle, self.model.answer(turns))
            .await
            .map_err(|_| Failure::Model(stalled(idle)))?
            .map_err(Failure::Model)?;
        let mut writer = events.artifact_writer(ANSWER_ARTIFACT);
        let mut answer = String::new();
        let mut usage = None;
        let ended = loop {
            let Ok(next) = tokio::time::timeout(idle, reply.next()).await else {
                break Err(stalled(idle));
            };
            match next {
                None => break Ok(()),
                Some(Err(error)) => break Err(error),
                Some(Ok(ReplyEvent::Text(text))) => {
                    answer.push_str(&text);
                    writer.write(text).await?;
                }
                Some(Ok(ReplyEvent::Usage(counted))) => usage = Some(counted),
                Some(Ok(ReplyEvent::Stopped(reason))) => {
                    tracing::debug!(stop_reason = reason, "the model stopped");
                }
            }
        };
        writer.finish().await?;
        ended.map_err(Failure::Model)?;
        if answer.is_empty() {
            return Err(Failure::Model(ModelError::Failed(
                "the model's answer held no text".to_owned(),
            )));
        }
        Ok((answer, usage))
    }
}

fn stalled(idle: Duration) -> ModelError {
    ModelError::Unavailable(format!("no event from the model for {} s", idle.as_secs()))
}

/// `{"inputTokens": …, "outputTokens": …, "totalTokens": …}`.
fn usage_json(usage: Usage) -> Value {
    json!({
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "totalTokens": usage.total_tokens,
    })
}

/// The usage a completed task carries in its metadata, if any.
pub fn usage_of(task: &Task) -> Option<&Value> {
    task.metadata.as_ref()?.get(USAGE_KEY)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use a2a_lambda_server::{AgentEvent, testing};
    use tokio::sync::oneshot;

    use super::*;
    use crate::config::ChatConfig;
    use crate::model::ReplyStream;

    /// A model that writes one chunk, then nothing, for ever; `dropped` fires when its
    /// stream is dropped.
    struct Endless(std::sync::Mutex<Option<oneshot::Sender<()>>>);

    struct EndlessStream {
        first: Option<String>,
        _dropped: oneshot::Sender<()>,
    }

    #[a2a_lambda_server::async_trait]
    impl ReplyStream for EndlessStream {
        async fn next(&mut self) -> Option<Result<ReplyEvent, ModelError>> {
            match self.first.take() {
                Some(text) => Some(Ok(ReplyEvent::Text(text))),
                None => std::future::pending().await,
            }
        }
    }

    #[a2a_lambda_server::async_trait]
    impl ChatModel for Endless {
        async fn answer(&self, _turns: Vec<Turn>) -> Result<Box<dyn ReplyStream>, ModelError> {
            let dropped = self.0.lock().unwrap().take().unwrap();
            Ok(Box::new(EndlessStream {
                first: Some("Once upon a time".to_owned()),
                _dropped: dropped,
            }))
        }
    }

    /// Time is paused: the agent's own timers (the model's 60 s idle timeout) would show in
    /// `stopped_after`, and an agent that ignored the cancel would still run after 5 s.
    #[tokio::test(start_paused = true)]
    async fn a_cancel_stops_the_answer_at_once_and_closes_the_model_stream() {
        let (dropped, closed) = oneshot::channel();
        let config = ChatConfig::from_lookup(|name| match name {
            "BEDROCK_MODEL_ID" => Some("amazon.nova-micro-v1:0".to_owned()),
            "BEDROCK_REGION" => Some("us-east-1".to_owned()),
            _ => None,
        })
        .unwrap();
        let agent = ChatAgent::new(
            Arc::new(Endless(std::sync::Mutex::new(Some(dropped)))),
            &config,
        );

        let canceled = testing::cancel(
            &agent,
            RequestContext::text("Tell a long story"),
            Duration::from_secs(1),
            Duration::from_secs(5),
        )
        .await;

        assert!(
            canceled.stopped_within(Duration::ZERO),
            "stopped after {:?}",
            canceled.stopped_after
        );
        assert!(canceled.outcome.unwrap().is_ok());
        assert_eq!(
            canceled.events,
            [AgentEvent::status(TaskState::Working, None)]
        );
        // Nothing after the cancel but the chunk the writer held, flushed as the last one
        // when the answer was dropped (a host drops it: the task is canceled); no state.
        assert!(
            canceled.after_cancel.iter().all(|event| matches!(
                event,
                AgentEvent::Artifact {
                    last_chunk: true,
                    ..
                }
            )),
            "{:?}",
            canceled.after_cancel
        );
        // The model's stream was dropped: a real model stops generating.
        closed.await.unwrap_err();
    }
}
