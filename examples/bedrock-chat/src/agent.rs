//! The chat agent: the conversation to the model, its answer back as A2A events.
//!
//! One message is one task: `working`, then the answer as artifact chunks while the
//! model writes (the first with `append: false`, the rest appended, the last marked
//! `lastChunk`), then `completed` with the whole answer as the status message (so the
//! task's history holds the conversation, which the next turn replays) and the token
//! usage in that message's metadata. A model error fails the task with a message fit for
//! the person chatting; the detail goes to the logs.

use std::sync::Arc;
use std::time::Duration;

use a2a_server::agent::{Agent, AgentError, AgentEvent, EventSink, RequestContext};
use a2a_server::card::{AgentCard, Skill};
use a2a_server::model::{ListTasksParams, Metadata, Task, TaskState};
use a2a_server::tasks::TaskStore;
use serde_json::{Value, json};

use crate::config::{CardSettings, ChatConfig};
use crate::conversation::{self, MAX_EARLIER_TASKS};
use crate::model::{ChatModel, ModelError, ReplyEvent, Speaker, Turn, Usage};

/// The id of the answer's artifact.
pub const ANSWER_ARTIFACT: &str = "answer";

/// What a completed task's status message carries in its metadata: the tokens the
/// answer used, under Bedrock's names.
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

#[a2a_server::async_trait]
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
        events.working(None).await?;
        let earlier = self.earlier_tasks(&context).await;
        let turns = conversation::turns(&earlier, context.previous.as_deref(), &context.message);
        // The new message had no text: nothing for the model to answer.
        if turns
            .last()
            .is_none_or(|turn| turn.speaker != Speaker::User)
        {
            events
                .status(
                    TaskState::Rejected,
                    Some("Please send a text message to chat about."),
                )
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
                let mut message = events.agent_message(answer);
                message.metadata = usage.map(usage_metadata);
                events
                    .send(AgentEvent::Status {
                        state: TaskState::Completed,
                        message: Some(message),
                    })
                    .await?;
            }
            Err(Failure::Model(error)) => {
                tracing::warn!(request_id = context.request_id, %error, "the model failed");
                events
                    .status(TaskState::Failed, Some(error.user_message()))
                    .await?;
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
    Sink(a2a_server::agent::SinkClosed),
}

impl From<a2a_server::agent::SinkClosed> for Failure {
    fn from(closed: a2a_server::agent::SinkClosed) -> Self {
        Self::Sink(closed)
    }
}

impl ChatAgent {
    /// Streams the answer as artifact chunks; the whole text and the usage, when the model
    /// told it.
    ///
    /// Each delta is held until the next arrives, so that the last one goes out marked
    /// `lastChunk` (the stream's end is known only after it).
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
        let mut answer = String::new();
        let mut held: Option<String> = None;
        let mut sent = 0_usize;
        let mut usage = None;
        loop {
            let next = tokio::time::timeout(idle, reply.next())
                .await
                .map_err(|_| Failure::Model(stalled(idle)))?;
            match next {
                None => break,
                Some(Err(error)) => {
                    // What was written stays: the failed task shows it.
                    if let Some(chunk) = held.take() {
                        events
                            .artifact_text(ANSWER_ARTIFACT, chunk, sent > 0, true)
                            .await?;
                    }
                    return Err(Failure::Model(error));
                }
                Some(Ok(ReplyEvent::Text(text))) => {
                    answer.push_str(&text);
                    if let Some(chunk) = held.replace(text) {
                        events
                            .artifact_text(ANSWER_ARTIFACT, chunk, sent > 0, false)
                            .await?;
                        sent += 1;
                    }
                }
                Some(Ok(ReplyEvent::Usage(counted))) => usage = Some(counted),
                Some(Ok(ReplyEvent::Stopped(reason))) => {
                    tracing::debug!(stop_reason = reason, "the model stopped");
                }
            }
        }
        match held {
            Some(chunk) => {
                events
                    .artifact_text(ANSWER_ARTIFACT, chunk, sent > 0, true)
                    .await?;
            }
            None => {
                return Err(Failure::Model(ModelError::Failed(
                    "the model's answer held no text".to_owned(),
                )));
            }
        }
        Ok((answer, usage))
    }
}

fn stalled(idle: Duration) -> ModelError {
    ModelError::Unavailable(format!("no event from the model for {} s", idle.as_secs()))
}

/// `{"usage": {"inputTokens": …, "outputTokens": …, "totalTokens": …}}`.
fn usage_metadata(usage: Usage) -> Metadata {
    let mut metadata = Metadata::new();
    metadata.insert(
        USAGE_KEY.to_owned(),
        json!({
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
            "totalTokens": usage.total_tokens,
        }),
    );
    metadata
}

/// The usage a completed task's status message carries, if any.
pub fn usage_of(task: &Task) -> Option<&Value> {
    task.status
        .message
        .as_ref()?
        .metadata
        .as_ref()?
        .get(USAGE_KEY)
}
