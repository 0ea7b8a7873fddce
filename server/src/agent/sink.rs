//! [`EventSink`]: where an agent reports, and the [`AgentEvent`]s it sends.

use tokio::sync::mpsc;

use a2a_lambda_core::model::{Artifact, Message, Metadata, Role, TaskState};
use serde_json::Value;

use super::artifact::ArtifactWriter;

/// One thing an agent reports while it works.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentEvent {
    /// A direct reply: no task is created. Only valid as the first and only event.
    Message(Message),
    /// The task's state changed, optionally with a message from the agent.
    Status {
        /// New state.
        state: TaskState,
        /// Message explaining it.
        message: Option<Message>,
        /// Keys merged into the task's own metadata (a model's token usage, say); the
        /// status update event carries them as its metadata.
        task_metadata: Option<Metadata>,
    },
    /// An artifact, or a chunk of one.
    Artifact {
        /// The artifact (or chunk).
        artifact: Artifact,
        /// The parts extend an artifact already sent with the same id.
        append: bool,
        /// This is the artifact's last chunk.
        last_chunk: bool,
    },
}

impl AgentEvent {
    /// A change of state, with an optional message and nothing merged into the task's
    /// metadata.
    pub fn status(state: TaskState, message: Option<Message>) -> Self {
        Self::Status {
            state,
            message,
            task_metadata: None,
        }
    }
}

/// The sink closed: the engine stopped listening (the task was canceled or ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the task is no longer accepting events")]
pub struct SinkClosed;

/// What goes with a change of state: the agent's message, if any, and keys merged into
/// the task's metadata. Made from a text (`"Done"`), a [`Message`], or built up.
///
/// ```
/// use a2a_lambda_server::StatusNote;
/// use serde_json::json;
///
/// let note = StatusNote::text("Done").task_metadata("usage", json!({"outputTokens": 42}));
/// let plain: StatusNote = "What is your name?".into();
/// # let _ = (note, plain);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StatusNote {
    text: Option<String>,
    message: Option<Message>,
    task_metadata: Option<Metadata>,
}

impl StatusNote {
    /// No message, no metadata.
    pub fn none() -> Self {
        Self::default()
    }

    /// An agent message of one text part.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// The agent's own message (its task and context ids are set to the task's).
    pub fn message(message: Message) -> Self {
        Self {
            message: Some(message),
            ..Self::default()
        }
    }

    /// Also sets `key` to `value` in the task's metadata.
    #[must_use]
    pub fn task_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.task_metadata
            .get_or_insert_with(Metadata::new)
            .insert(key.into(), value);
        self
    }
}

impl From<&str> for StatusNote {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

impl From<String> for StatusNote {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<&String> for StatusNote {
    fn from(text: &String) -> Self {
        Self::text(text.as_str())
    }
}

impl From<Message> for StatusNote {
    fn from(message: Message) -> Self {
        Self::message(message)
    }
}

/// The engine's end of an [`EventSink`]: the agent's events, in the order it sent them.
/// At most 64 wait; a sink's send waits while the queue is full.
#[derive(Debug)]
pub struct EventReceiver {
    receiver: mpsc::Receiver<Box<AgentEvent>>,
}

impl EventReceiver {
    /// The next event, waiting for it; `None` once every sink is gone and nothing waits.
    /// Cancel-safe: dropping the future loses no event.
    pub async fn recv(&mut self) -> Option<AgentEvent> {
        self.receiver.recv().await.map(|event| *event)
    }

    /// The next event if one waits now.
    pub fn try_recv(&mut self) -> Option<AgentEvent> {
        self.receiver.try_recv().ok().map(|event| *event)
    }
}

/// Where an agent reports. Cheap to clone.
///
/// Named calls for each change of state ([`working`](Self::working),
/// [`complete`](Self::complete), [`ask`](Self::ask), [`fail`](Self::fail),
/// [`reject`](Self::reject), each with a `_with` or note form), whole artifacts with
/// [`artifact`](Self::artifact), streamed ones with [`artifact_writer`](Self::artifact_writer),
/// and any [`AgentEvent`] with [`send`](Self::send).
///
/// Every call fails with [`SinkClosed`] once the engine has stopped listening (the task was
/// canceled or ended): `?` it and the agent returns.
#[derive(Debug, Clone)]
pub struct EventSink {
    // Boxed in the queue: a queue block holds 32 pointers instead of 32 events.
    sender: mpsc::Sender<Box<AgentEvent>>,
    task_id: String,
    context_id: String,
}

impl EventSink {
    /// A sink for one task, and the receiving end the engine reads.
    pub fn channel(
        task_id: impl Into<String>,
        context_id: impl Into<String>,
    ) -> (Self, EventReceiver) {
        let (sender, receiver) = mpsc::channel(64);
        (
            Self {
                sender,
                task_id: task_id.into(),
                context_id: context_id.into(),
            },
            EventReceiver { receiver },
        )
    }

    /// Sends any event.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn send(
        &self,
        event: AgentEvent,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        // Not an `async fn` layered under the others: each layer would keep its own room
        // for the event in the agent's future.
        let sent = self.sender.send(Box::new(event));
        async move { sent.await.map_err(|_| SinkClosed) }
    }

    /// An agent message bound to this task and context.
    pub fn agent_message(&self, text: impl Into<String>) -> Message {
        let mut message = Message::text(Role::Agent, a2a_lambda_core::model::new_id(), text);
        message.task_id = Some(self.task_id.clone());
        message.context_id = Some(self.context_id.clone());
        message
    }

    /// Replies with a direct message; no task is created. Only as the first and only
    /// thing an agent sends.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn reply(
        &self,
        text: impl Into<String>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        let mut message = self.agent_message(text);
        message.task_id = None;
        self.send(AgentEvent::Message(message))
    }

    /// Moves the task to `state`, with what `note` carries (`StatusNote::none()`: nothing).
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn status(
        &self,
        state: TaskState,
        note: impl Into<StatusNote>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        let StatusNote {
            text,
            message,
            task_metadata,
        } = note.into();
        let message = match (message, text) {
            (Some(mut message), _) => {
                message.task_id = Some(self.task_id.clone());
                message.context_id = Some(self.context_id.clone());
                Some(message)
            }
            (None, Some(text)) => Some(self.agent_message(text)),
            (None, None) => None,
        };
        self.send(AgentEvent::Status {
            state,
            message,
            task_metadata,
        })
    }

    /// Marks the task working.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn working(&self) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Working, StatusNote::none())
    }

    /// Marks the task working, with a progress message (or note).
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn working_with(
        &self,
        note: impl Into<StatusNote>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Working, note)
    }

    /// Completes the task.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn complete(&self) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Completed, StatusNote::none())
    }

    /// Completes the task with a final message, and with whatever the note merges into the
    /// task's metadata.
    ///
    /// ```
    /// # async fn run(events: a2a_lambda_server::EventSink) -> Result<(), a2a_lambda_server::AgentError> {
    /// use a2a_lambda_server::StatusNote;
    /// events
    ///     .complete_with(StatusNote::text("Done").task_metadata("usage", serde_json::json!({"outputTokens": 7})))
    ///     .await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn complete_with(
        &self,
        note: impl Into<StatusNote>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Completed, note)
    }

    /// Asks the client for more input: the task waits in `input-required` once the agent
    /// returns, and the client's next message on it runs the agent again (with
    /// [`RequestContext::previous`](super::RequestContext::previous) set).
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn ask(
        &self,
        question: impl Into<StatusNote>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::InputRequired, question)
    }

    /// Fails the task with a message the client sees (unlike an `Err` from `execute`,
    /// whose detail is only logged).
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn fail(
        &self,
        reason: impl Into<StatusNote>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Failed, reason)
    }

    /// Rejects the task: the agent will not do it.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn reject(
        &self,
        reason: impl Into<StatusNote>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Rejected, reason)
    }

    /// Sends a whole artifact, in one event (a later artifact with the same id replaces
    /// it).
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine has stopped listening.
    pub fn artifact(
        &self,
        artifact: Artifact,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.send(AgentEvent::Artifact {
            artifact,
            append: false,
            last_chunk: true,
        })
    }

    /// A writer that streams the artifact `artifact_id` chunk by chunk, and says which
    /// chunk extends the artifact and which is the last one itself.
    pub fn artifact_writer(&self, artifact_id: impl Into<String>) -> ArtifactWriter {
        ArtifactWriter::new(self.clone(), artifact_id.into())
    }

    /// Sends an event without waiting: `false` when the queue is full or closed.
    pub(crate) fn try_send(&self, event: AgentEvent) -> bool {
        self.sender.try_send(Box::new(event)).is_ok()
    }
}
