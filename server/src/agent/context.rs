//! [`RequestContext`]: everything an agent knows about the request it serves.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use a2a_lambda_core::model::{Message, Role, Task};

use crate::owner::Owner;
use crate::platform::Platform;

/// Everything an agent knows about the request it serves.
///
/// Hosts make it; a test of an agent alone makes one with [`RequestContext::new`] (or
/// [`crate::testing`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
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
    pub owner: Owner,
    /// Fires when the client cancels the task; an agent should stop soon after.
    pub cancellation: CancellationToken,
    /// What the platform passed with the request under AgentCore's header names: its
    /// request id, the workload access token, the user id, and the caller's headers the
    /// runtime's allowlist let through (empty where there are none).
    pub platform: Platform,
}

impl RequestContext {
    /// The context of `message` starting a new task: fresh task and request ids, the
    /// message's context id (or a fresh one), no session, an anonymous owner, no
    /// platform values, and a cancellation token of its own.
    ///
    /// ```
    /// use a2a_lambda_server::RequestContext;
    /// use a2a_lambda_server::model::{Message, Role};
    ///
    /// let context = RequestContext::new(Message::text(Role::User, "m-1", "hello"));
    /// assert_eq!(context.message.joined_text(), "hello");
    /// assert!(context.previous.is_none());
    /// ```
    pub fn new(message: Message) -> Self {
        let context_id = message
            .context_id
            .clone()
            .unwrap_or_else(a2a_lambda_core::model::new_id);
        Self {
            message,
            task_id: a2a_lambda_core::model::new_id(),
            context_id,
            previous: None,
            session_id: None,
            request_id: a2a_lambda_core::model::new_id(),
            owner: Owner::anonymous(),
            cancellation: CancellationToken::new(),
            platform: Platform::default(),
        }
    }

    /// The context of a user message of one text part starting a new task.
    ///
    /// ```
    /// let context = a2a_lambda_server::RequestContext::text("hello");
    /// assert_eq!(context.message.joined_text(), "hello");
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(Message::text(
            Role::User,
            a2a_lambda_core::model::new_id(),
            text,
        ))
    }

    /// The message continues `task`: its ids become the task's, and `previous` the task.
    ///
    /// ```
    /// use a2a_lambda_server::RequestContext;
    /// use a2a_lambda_server::model::{Task, TaskState, TaskStatus};
    ///
    /// let waiting = Task {
    ///     id: "t-1".into(),
    ///     context_id: "c-1".into(),
    ///     status: TaskStatus::new(TaskState::InputRequired),
    ///     artifacts: vec![],
    ///     history: vec![],
    ///     metadata: None,
    /// };
    /// let context = RequestContext::text("Ada").continuing(waiting);
    /// assert_eq!((context.task_id.as_str(), context.context_id.as_str()), ("t-1", "c-1"));
    /// assert!(context.previous.is_some());
    /// ```
    #[must_use]
    pub fn continuing(mut self, task: impl Into<Arc<Task>>) -> Self {
        let task = task.into();
        self.task_id.clone_from(&task.id);
        self.context_id.clone_from(&task.context_id);
        self.message.task_id = Some(task.id.clone());
        self.message.context_id = Some(task.context_id.clone());
        self.previous = Some(task);
        self
    }

    /// The request comes in platform session `session_id`.
    #[must_use]
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// The request comes from `owner`.
    #[must_use]
    pub fn with_owner(mut self, owner: Owner) -> Self {
        self.owner = owner;
        self
    }

    /// The platform passed `platform` with the request.
    #[must_use]
    pub fn with_platform(mut self, platform: Platform) -> Self {
        self.platform = platform;
        self
    }
}
