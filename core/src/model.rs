//! The canonical model: one set of types that both wire versions convert to and from.
//!
//! The model carries every field either version can carry, so that a v0.3 document and a
//! v1.0 document each survive `wire → model → wire` unchanged. It has no serde impls of
//! its own: what goes on the wire is decided by [`crate::wire::v0_3`] and
//! [`crate::wire::v1_0`].

use serde_json::{Map, Value};

/// Free-form metadata attached to messages, parts, tasks, artifacts and events.
pub type Metadata = Map<String, Value>;

/// Who sent a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The client (v0.3 `user`, v1.0 `ROLE_USER`).
    User,
    /// The agent (v0.3 `agent`, v1.0 `ROLE_AGENT`).
    Agent,
}

/// A new random id (a UUID v4, hyphenated, lower case), as the engine gives tasks,
/// contexts and its own messages.
pub fn new_id() -> String {
    let mut buffer = uuid::Uuid::encode_buffer();
    uuid::Uuid::new_v4()
        .hyphenated()
        .encode_lower(&mut buffer)
        .to_owned()
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Unique id chosen by the sender.
    pub message_id: String,
    /// Conversation the message belongs to.
    pub context_id: Option<String>,
    /// Task the message belongs to, if any.
    pub task_id: Option<String>,
    /// Sender.
    pub role: Role,
    /// Content; never empty on the wire.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
    /// URIs of the extensions this message uses.
    pub extensions: Vec<String>,
    /// Other tasks this message refers to.
    pub reference_task_ids: Vec<String>,
}

impl Message {
    /// A message with one text part and nothing else set.
    pub fn text(role: Role, message_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            message_id: message_id.into(),
            context_id: None,
            task_id: None,
            role,
            parts: vec![Part::text(text)],
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
        }
    }

    /// The message's text parts joined with newlines.
    pub fn joined_text(&self) -> String {
        let texts: Vec<&str> = self
            .parts
            .iter()
            .filter_map(|part| match &part.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// One piece of content of a message or artifact.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// What the part holds.
    pub content: PartContent,
    /// Media type of the content (v0.3 carries it on file parts only, as `mimeType`).
    pub media_type: Option<String>,
    /// File name (v0.3 carries it on file parts only, as `name`).
    pub filename: Option<String>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

impl Part {
    /// A text part with nothing else set.
    pub fn text(text: impl Into<String>) -> Self {
        Self::from_content(PartContent::Text(text.into()))
    }

    /// A structured-data part with nothing else set.
    pub fn data(data: Value) -> Self {
        Self::from_content(PartContent::Data(data))
    }

    /// A part with the given content and no media type, file name or metadata.
    pub fn from_content(content: PartContent) -> Self {
        Self {
            content,
            media_type: None,
            filename: None,
            metadata: None,
        }
    }
}

/// The content of a [`Part`]: exactly one kind.
#[derive(Debug, Clone, PartialEq)]
pub enum PartContent {
    /// Plain text.
    Text(String),
    /// File content carried inline (base64 on the wire).
    Bytes(Vec<u8>),
    /// File content referenced by URL.
    Url(String),
    /// Structured JSON data.
    Data(Value),
}

/// The lifecycle state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskState {
    /// Received, not yet started.
    Submitted,
    /// Being worked on.
    Working,
    /// Waiting for more input from the client (interrupted).
    InputRequired,
    /// Waiting for authentication (interrupted).
    AuthRequired,
    /// Finished successfully (terminal).
    Completed,
    /// Canceled by the client (terminal).
    Canceled,
    /// Finished with an error (terminal).
    Failed,
    /// The agent refused the task (terminal).
    Rejected,
    /// The state cannot be told (v0.3 `unknown`, v1.0 `TASK_STATE_UNSPECIFIED`).
    Unknown,
}

impl TaskState {
    /// Completed, canceled, failed or rejected: nothing more will happen to the task.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Canceled | Self::Failed | Self::Rejected
        )
    }

    /// Input-required or auth-required: the task waits for the client.
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    /// A stream about a task in this state ends after sending it.
    pub fn ends_stream(self) -> bool {
        self.is_terminal() || self.is_interrupted()
    }

    /// The state as A2A v0.3 spells it (kebab case), also the name used in messages.
    ///
    /// ```
    /// use a2a_lambda_core::model::TaskState;
    ///
    /// assert_eq!(TaskState::InputRequired.v0_3_name(), "input-required");
    /// assert_eq!(TaskState::Unknown.v0_3_name(), "unknown");
    /// ```
    pub fn v0_3_name(self) -> &'static str {
        match self {
            Self::Submitted => "submitted",
            Self::Working => "working",
            Self::InputRequired => "input-required",
            Self::AuthRequired => "auth-required",
            Self::Completed => "completed",
            Self::Canceled => "canceled",
            Self::Failed => "failed",
            Self::Rejected => "rejected",
            Self::Unknown => "unknown",
        }
    }

    /// The state as A2A v1.0 spells it (its ProtoJSON `TASK_STATE_*` name).
    ///
    /// ```
    /// use a2a_lambda_core::model::TaskState;
    ///
    /// assert_eq!(TaskState::InputRequired.v1_0_name(), "TASK_STATE_INPUT_REQUIRED");
    /// assert_eq!(TaskState::Unknown.v1_0_name(), "TASK_STATE_UNSPECIFIED");
    /// ```
    pub fn v1_0_name(self) -> &'static str {
        crate::wire::v1_0::TaskState::from(self).as_str()
    }
}

/// The current status of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus {
    /// Lifecycle state.
    pub state: TaskState,
    /// A message from the agent about this status.
    pub message: Option<Message>,
    /// When the status was set, as an RFC 3339 / ISO 8601 timestamp.
    pub timestamp: Option<String>,
}

impl TaskStatus {
    /// A status with only its state set.
    pub fn new(state: TaskState) -> Self {
        Self {
            state,
            message: None,
            timestamp: None,
        }
    }
}

/// A unit of work the agent does for a client.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Unique task id, chosen by the agent.
    pub id: String,
    /// Conversation the task belongs to.
    pub context_id: String,
    /// Current status.
    pub status: TaskStatus,
    /// Outputs produced so far.
    pub artifacts: Vec<Artifact>,
    /// Messages exchanged for this task.
    pub history: Vec<Message>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    /// Unique id within the task.
    pub artifact_id: String,
    /// Human-readable name.
    pub name: Option<String>,
    /// Human-readable description.
    pub description: Option<String>,
    /// Content; never empty on the wire.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
    /// URIs of the extensions this artifact uses.
    pub extensions: Vec<String>,
}

impl Artifact {
    /// An artifact of `parts`, with nothing else set. An artifact goes on the wire with at
    /// least one part.
    ///
    /// ```
    /// use a2a_lambda_core::model::{Artifact, Part};
    ///
    /// let chart = Artifact::new("chart", [Part::text("Sales by month"), Part::data(serde_json::json!([3, 5, 8]))])
    ///     .with_name("Sales");
    /// assert_eq!(chart.parts.len(), 2);
    /// assert_eq!(chart.name.as_deref(), Some("Sales"));
    /// ```
    pub fn new(artifact_id: impl Into<String>, parts: impl IntoIterator<Item = Part>) -> Self {
        Self {
            artifact_id: artifact_id.into(),
            name: None,
            description: None,
            parts: parts.into_iter().collect(),
            metadata: None,
            extensions: Vec::new(),
        }
    }

    /// An artifact of one text part, with nothing else set.
    ///
    /// ```
    /// let answer = a2a_lambda_core::model::Artifact::text("answer", "42");
    /// assert_eq!(answer.parts, [a2a_lambda_core::model::Part::text("42")]);
    /// ```
    pub fn text(artifact_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(artifact_id, [Part::text(text)])
    }

    /// An artifact of one structured-data part (JSON), with nothing else set.
    ///
    /// ```
    /// let usage = a2a_lambda_core::model::Artifact::data("usage", serde_json::json!({"inputTokens": 12}));
    /// assert_eq!(usage.parts, [a2a_lambda_core::model::Part::data(serde_json::json!({"inputTokens": 12}))]);
    /// ```
    pub fn data(artifact_id: impl Into<String>, data: Value) -> Self {
        Self::new(artifact_id, [Part::data(data)])
    }

    /// The artifact with a human-readable name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The artifact with a human-readable description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The artifact with `key` set to `value` in its metadata.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.metadata
            .get_or_insert_with(Metadata::new)
            .insert(key.into(), value);
        self
    }
}

/// A task's status changed (a streaming event).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatusUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// v0.3 only: this is the last event of the stream. v1.0 ends the stream instead.
    pub is_final: bool,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

/// A task produced or extended an artifact (a streaming event).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The artifact, or the chunk of it.
    pub artifact: Artifact,
    /// The parts extend an artifact sent before with the same id.
    pub append: bool,
    /// This is the artifact's last chunk.
    pub last_chunk: bool,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

/// The result of a send: the agent answered with a task or directly with a message.
#[derive(Debug, Clone, PartialEq)]
pub enum SendResult {
    /// A task was created or continued.
    Task(Task),
    /// A direct reply, no task.
    Message(Message),
}

/// One event of a stream (`message/stream`, `SendStreamingMessage`, resubscribe).
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// The task as it stands (the first event of a task stream).
    Task(Task),
    /// A direct reply (the only event of a message stream).
    Message(Message),
    /// A status change.
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact chunk.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

/// Which kind of stream an event belongs to: they end differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    /// `message/stream` / `SendStreamingMessage`: ends when the task ends or waits for the
    /// client.
    Send,
    /// `tasks/resubscribe` / `SubscribeToTask`: stays open across input-required until the
    /// task ends.
    Subscription,
}

impl StreamEvent {
    /// The state the event reports, if it reports one.
    pub fn state(&self) -> Option<TaskState> {
        match self {
            Self::Task(task) => Some(task.status.state),
            Self::StatusUpdate(update) => Some(update.status.state),
            Self::Message(_) | Self::ArtifactUpdate(_) => None,
        }
    }

    /// True when a stream of `kind` is over after this event: a message; a task or status
    /// in a terminal state; for a send stream, also a status update that is interrupted or
    /// marked final. A task snapshot in an interrupted state does not end a send stream: a
    /// follow-up message reopens an input-required task, whose first snapshot still says so.
    /// The one rule for both ends: the engine closes streams by it, clients stop reading.
    pub fn ends(&self, kind: StreamKind) -> bool {
        match self {
            Self::Message(_) => true,
            Self::Task(task) => task.status.state.is_terminal(),
            Self::StatusUpdate(update) => {
                update.status.state.is_terminal()
                    || (kind == StreamKind::Send
                        && (update.is_final || update.status.state.is_interrupted()))
            }
            Self::ArtifactUpdate(_) => false,
        }
    }
}

/// How a send should be handled.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendConfiguration {
    /// Media types the client accepts in the answer.
    pub accepted_output_modes: Vec<String>,
    /// How many history messages to return with the task (`None`: all).
    pub history_length: Option<u32>,
    /// Return as soon as the task exists instead of waiting for a terminal or interrupted
    /// state (v0.3 `blocking: false`, v1.0 `returnImmediately: true`).
    pub return_immediately: bool,
    /// Where to push updates for the task, if the client asked for push notifications.
    pub push_notification_config: Option<PushNotificationConfig>,
}

/// Parameters of a send or stream request.
#[derive(Debug, Clone, PartialEq)]
pub struct SendMessageParams {
    /// The message sent.
    pub message: Message,
    /// How to handle it.
    pub configuration: Option<SendConfiguration>,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

/// Parameters of a get-task request.
#[derive(Debug, Clone, PartialEq)]
pub struct GetTaskParams {
    /// The task id.
    pub id: String,
    /// How many history messages to return (`None`: all).
    pub history_length: Option<u32>,
    /// Free-form metadata (v0.3).
    pub metadata: Option<Metadata>,
}

/// Parameters naming one task: cancel and resubscribe/subscribe.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskIdParams {
    /// The task id.
    pub id: String,
    /// Free-form metadata.
    pub metadata: Option<Metadata>,
}

/// Parameters of a list-tasks request (v1.0 only).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListTasksParams {
    /// Only tasks of this context.
    pub context_id: Option<String>,
    /// Only tasks in this state.
    pub status: Option<TaskState>,
    /// Most tasks to return in one page.
    pub page_size: Option<u32>,
    /// Where to continue, from a previous page's `next_page_token`.
    pub page_token: Option<String>,
    /// How many history messages to return per task.
    pub history_length: Option<u32>,
    /// Only tasks whose status changed after this RFC 3339 timestamp.
    pub status_timestamp_after: Option<String>,
    /// Include artifacts in the returned tasks.
    pub include_artifacts: bool,
}

/// One page of tasks (v1.0 only).
#[derive(Debug, Clone, PartialEq)]
pub struct ListTasksResult {
    /// The tasks of this page.
    pub tasks: Vec<Task>,
    /// Token of the next page; empty when this is the last one.
    pub next_page_token: String,
    /// The page size used.
    pub page_size: u32,
    /// How many tasks match in all.
    pub total_size: u32,
}

/// Where and how the agent pushes task updates to the client.
#[derive(Debug, Clone, PartialEq)]
pub struct PushNotificationConfig {
    /// Id of this configuration.
    pub id: Option<String>,
    /// The client's webhook URL.
    pub url: String,
    /// A token the client uses to check the notification.
    pub token: Option<String>,
    /// How the agent authenticates to the webhook.
    pub authentication: Option<PushAuthentication>,
}

/// How the agent authenticates to a push-notification webhook.
#[derive(Debug, Clone, PartialEq)]
pub struct PushAuthentication {
    /// Authentication schemes (for example `Bearer`).
    pub schemes: Vec<String>,
    /// Credentials, if any.
    pub credentials: Option<String>,
}

/// A push-notification configuration bound to a task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPushNotificationConfig {
    /// The task.
    pub task_id: String,
    /// The configuration.
    pub config: PushNotificationConfig,
}

/// Names one push-notification configuration of a task: the params of a get or a delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushConfigId {
    /// The task.
    pub task_id: String,
    /// The configuration's id. `None` only in a v0.3 get, which may leave it out (and
    /// then names the task's configuration whose id is the task id, else its first).
    pub config_id: Option<String>,
}

/// Parameters of a list of a task's push-notification configurations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListPushConfigsParams {
    /// The task.
    pub task_id: String,
    /// Most configurations to return in one page (v1.0; `None`: all).
    pub page_size: Option<u32>,
    /// Where to continue, from a previous page's `next_page_token` (v1.0).
    pub page_token: Option<String>,
}

/// One page of a task's push-notification configurations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListPushConfigsResult {
    /// The configurations of this page, oldest first.
    pub configs: Vec<TaskPushNotificationConfig>,
    /// Token of the next page; empty when this is the last one.
    pub next_page_token: String,
}

#[cfg(test)]
mod tests {
    use super::TaskState;
    use crate::wire::{v0_3, v1_0};

    const EVERY_STATE: [(TaskState, &str, &str); 9] = [
        (TaskState::Submitted, "submitted", "TASK_STATE_SUBMITTED"),
        (TaskState::Working, "working", "TASK_STATE_WORKING"),
        (
            TaskState::InputRequired,
            "input-required",
            "TASK_STATE_INPUT_REQUIRED",
        ),
        (
            TaskState::AuthRequired,
            "auth-required",
            "TASK_STATE_AUTH_REQUIRED",
        ),
        (TaskState::Completed, "completed", "TASK_STATE_COMPLETED"),
        (TaskState::Canceled, "canceled", "TASK_STATE_CANCELED"),
        (TaskState::Failed, "failed", "TASK_STATE_FAILED"),
        (TaskState::Rejected, "rejected", "TASK_STATE_REJECTED"),
        (TaskState::Unknown, "unknown", "TASK_STATE_UNSPECIFIED"),
    ];

    #[test]
    fn every_state_has_its_names_and_they_match_the_wire() {
        for (state, v0_3_name, v1_0_name) in EVERY_STATE {
            assert_eq!(state.v0_3_name(), v0_3_name);
            assert_eq!(state.v1_0_name(), v1_0_name);
            assert_eq!(
                serde_json::to_value(v0_3::TaskState::from(state)).ok(),
                Some(serde_json::Value::from(v0_3_name)),
                "{state:?}"
            );
            assert_eq!(
                serde_json::to_value(v1_0::TaskState::from(state)).ok(),
                Some(serde_json::Value::from(v1_0_name)),
                "{state:?}"
            );
        }
    }
}
