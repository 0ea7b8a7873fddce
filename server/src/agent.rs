//! The [`Agent`] trait: what a user implements to put an agent on A2A.
//!
//! An agent receives a [`RequestContext`] (the message, the task and context ids, the
//! session and request ids, what the platform passed, and a cancellation signal) and emits events through an
//! [`EventSink`] as it works: either one direct [`Message`] reply, or task status and
//! artifact updates. The engine turns those events into tasks, stored and streamed in
//! whichever protocol version the client speaks; an agent never sees the protocol.
//!
//! ```
//! use a2a_server::agent::{Agent, AgentError, EventSink, RequestContext};
//! use a2a_core::card::{AgentCard, Skill};
//!
//! struct Shout;
//!
//! #[a2a_server::async_trait]
//! impl Agent for Shout {
//!     fn card(&self) -> AgentCard {
//!         AgentCard::new("Shout", "Answers in capitals.", "1.0.0")
//!             .with_skill(Skill::new("shout", "Shout", "Upper-cases the input.", ["text"]))
//!     }
//!
//!     async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
//!         let text = context.message.joined_text().to_uppercase();
//!         events.artifact_text("answer", text, false, true).await?;
//!         events.complete(None).await?;
//!         Ok(())
//!     }
//! }
//! ```

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use a2a_core::card::AgentCard;
use a2a_core::model::{Artifact, Message, Role, Task, TaskState};

/// What an agent returns when it fails. The detail is logged, never sent to the caller.
pub type AgentError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything an agent knows about the request it serves.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The message the client sent.
    pub message: Message,
    /// The task this work belongs to (new, or continued by the message's `taskId`).
    pub task_id: String,
    /// The conversation.
    pub context_id: String,
    /// The task as stored before this message, when the message continues a task
    /// (shared with the store: not copied).
    pub previous: Option<Arc<Task>>,
    /// The platform session (AgentCore's session header), when there is one.
    pub session_id: Option<String>,
    /// The id the host gave this request, for logs.
    pub request_id: String,
    /// Who is calling, as the platform vouches for it (anonymous without authentication).
    /// The task belongs to it.
    pub owner: crate::owner::Owner,
    /// Fires when the client cancels the task; an agent should stop soon after.
    pub cancellation: CancellationToken,
    /// What the platform passed with the request under AgentCore's header names: its
    /// request id, the workload access token, the user id, and the caller's headers the
    /// runtime's allowlist let through (empty where there are none).
    pub platform: crate::platform::Platform,
}

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

/// The sink closed: the engine stopped listening (the task was canceled or ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the task is no longer accepting events")]
pub struct SinkClosed;

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

/// Where an agent sends its events. Cheap to clone.
#[derive(Debug, Clone)]
pub struct EventSink {
    // Boxed in the queue: a queue block holds 32 pointers instead of 32 events (~6 KB
    // allocated for every task, however few events it has).
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
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn send(
        &self,
        event: AgentEvent,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        // Not an `async fn` layered over the others: each layer would keep its own room
        // for the event in the agent's future.
        let sent = self.sender.send(Box::new(event));
        async move { sent.await.map_err(|_| SinkClosed) }
    }

    /// An agent message bound to this task and context.
    pub fn agent_message(&self, text: impl Into<String>) -> Message {
        let mut message = Message::text(Role::Agent, a2a_core::model::new_id(), text);
        message.task_id = Some(self.task_id.clone());
        message.context_id = Some(self.context_id.clone());
        message
    }

    /// Replies with a direct message; no task is created.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn reply(
        &self,
        text: impl Into<String>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        let mut message = self.agent_message(text);
        message.task_id = None;
        self.send(AgentEvent::Message(message))
    }

    /// Moves the task to `state`, with an optional agent message.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn status(
        &self,
        state: TaskState,
        text: Option<&str>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        let message = text.map(|text| self.agent_message(text));
        self.send(AgentEvent::Status { state, message })
    }

    /// Marks the task working.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn working(
        &self,
        text: Option<&str>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Working, text)
    }

    /// Completes the task.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn complete(
        &self,
        text: Option<&str>,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.status(TaskState::Completed, text)
    }

    /// Sends an artifact (or chunk) with one text part.
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn artifact_text(
        &self,
        artifact_id: &str,
        text: impl Into<String>,
        append: bool,
        last_chunk: bool,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.artifact(Artifact::text(artifact_id, text), append, last_chunk)
    }

    /// Sends an artifact (or chunk).
    ///
    /// # Errors
    /// [`SinkClosed`] when the engine no longer listens.
    pub fn artifact(
        &self,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> impl Future<Output = Result<(), SinkClosed>> + Send + '_ {
        self.send(AgentEvent::Artifact {
            artifact,
            append,
            last_chunk,
        })
    }
}

/// An A2A agent. Implement this; the hosts do the protocol.
#[async_trait::async_trait]
pub trait Agent: Send + Sync + 'static {
    /// The agent's card configuration. Hosts render it for the client's version and may
    /// lower capabilities they cannot honour.
    fn card(&self) -> AgentCard;

    /// Serves one message. Emit events through `events`; return when done.
    ///
    /// Returning `Ok` without a final state completes the task. An `Err` fails it: the
    /// error is logged with the request id and the caller sees a generic message.
    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError>;
}

/// What a host takes as its agent: any [`Agent`], or one already shared as
/// `Arc<dyn Agent>` (the built-in agents, an agent a factory made).
pub trait IntoAgent {
    /// The agent, shared.
    fn into_agent(self) -> Arc<dyn Agent>;
}

impl<A: Agent> IntoAgent for A {
    fn into_agent(self) -> Arc<dyn Agent> {
        Arc::new(self)
    }
}

impl IntoAgent for Arc<dyn Agent> {
    fn into_agent(self) -> Arc<dyn Agent> {
        self
    }
}
