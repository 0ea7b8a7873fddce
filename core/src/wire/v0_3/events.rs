//! v0.3 stream events and the two result unions (`message/send` and stream events), each
//! member told apart by its `kind`.

use serde::{Deserialize, Deserializer, Serialize};

use super::de::{
    ArtifactUpdateKind, Kind, StatusUpdateKind, from_tagged, non_empty, read_tagged, unknown_kind,
};
use super::message::Message;
use super::task::{Artifact, Task, TaskStatus};
use crate::model::{self, Metadata};

/// A task's status changed: `{"kind":"status-update",taskId,contextId,status,final}`.
///
/// `final` is required on input and always emitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename = "status-update",
    rename_all = "camelCase",
    from = "RawStatusUpdate"
)]
pub struct TaskStatusUpdateEvent {
    /// The task.
    pub task_id: String,
    /// The task's context.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// This is the last event of the stream.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawStatusUpdate {
    #[serde(rename = "kind")]
    _kind: Kind<StatusUpdateKind>,
    #[serde(deserialize_with = "non_empty")]
    task_id: String,
    #[serde(deserialize_with = "non_empty")]
    context_id: String,
    status: TaskStatus,
    #[serde(rename = "final")]
    is_final: bool,
    metadata: Option<Metadata>,
}

impl From<RawStatusUpdate> for TaskStatusUpdateEvent {
    fn from(raw: RawStatusUpdate) -> Self {
        Self {
            task_id: raw.task_id,
            context_id: raw.context_id,
            status: raw.status,
            is_final: raw.is_final,
            metadata: raw.metadata,
        }
    }
}

/// A task produced or extended an artifact:
/// `{"kind":"artifact-update",taskId,contextId,artifact,append,lastChunk}`.
///
/// On input a missing `append` or `lastChunk` means false; both are always emitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename = "artifact-update",
    rename_all = "camelCase",
    from = "RawArtifactUpdate"
)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawArtifactUpdate {
    #[serde(rename = "kind")]
    _kind: Kind<ArtifactUpdateKind>,
    #[serde(deserialize_with = "non_empty")]
    task_id: String,
    #[serde(deserialize_with = "non_empty")]
    context_id: String,
    artifact: Artifact,
    #[serde(default)]
    append: bool,
    #[serde(default)]
    last_chunk: bool,
    metadata: Option<Metadata>,
}

impl From<RawArtifactUpdate> for TaskArtifactUpdateEvent {
    fn from(raw: RawArtifactUpdate) -> Self {
        Self {
            task_id: raw.task_id,
            context_id: raw.context_id,
            artifact: raw.artifact,
            append: raw.append,
            last_chunk: raw.last_chunk,
            metadata: raw.metadata,
        }
    }
}

/// The result of `message/send`: a bare task or message, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SendResult {
    /// `{"kind":"task",…}`.
    Task(Task),
    /// `{"kind":"message",…}`.
    Message(Message),
}

const SEND_RESULT_KINDS: &str = "\"task\" or \"message\"";

/// Reads the whole result as a JSON value first (only clients read results), then the
/// member its `kind` names. Here `kind` is required on a message too.
impl<'de> Deserialize<'de> for SendResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (kind, value) = read_tagged(deserializer, SEND_RESULT_KINDS)?;
        match kind.as_str() {
            "task" => from_tagged(value).map(Self::Task),
            "message" => from_tagged(value).map(Self::Message),
            other => Err(unknown_kind(other, SEND_RESULT_KINDS)),
        }
    }
}

/// One event of `message/stream` or `tasks/resubscribe`, told apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum StreamEvent {
    /// `{"kind":"task",…}`.
    Task(Task),
    /// `{"kind":"message",…}`.
    Message(Message),
    /// `{"kind":"status-update",…}`.
    StatusUpdate(TaskStatusUpdateEvent),
    /// `{"kind":"artifact-update",…}`.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

const STREAM_EVENT_KINDS: &str = "\"task\", \"message\", \"status-update\" or \"artifact-update\"";

/// Reads the whole event as a JSON value first, then the member its `kind` names.
impl<'de> Deserialize<'de> for StreamEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (kind, value) = read_tagged(deserializer, STREAM_EVENT_KINDS)?;
        match kind.as_str() {
            "task" => from_tagged(value).map(Self::Task),
            "message" => from_tagged(value).map(Self::Message),
            "status-update" => from_tagged(value).map(Self::StatusUpdate),
            "artifact-update" => from_tagged(value).map(Self::ArtifactUpdate),
            other => Err(unknown_kind(other, STREAM_EVENT_KINDS)),
        }
    }
}

impl From<TaskStatusUpdateEvent> for model::TaskStatusUpdateEvent {
    fn from(event: TaskStatusUpdateEvent) -> Self {
        Self {
            task_id: event.task_id,
            context_id: event.context_id,
            status: event.status.into(),
            is_final: event.is_final,
            metadata: event.metadata,
        }
    }
}

impl From<&model::TaskStatusUpdateEvent> for TaskStatusUpdateEvent {
    fn from(event: &model::TaskStatusUpdateEvent) -> Self {
        Self {
            task_id: event.task_id.clone(),
            context_id: event.context_id.clone(),
            status: (&event.status).into(),
            is_final: event.is_final,
            metadata: event.metadata.clone(),
        }
    }
}

impl From<TaskArtifactUpdateEvent> for model::TaskArtifactUpdateEvent {
    fn from(event: TaskArtifactUpdateEvent) -> Self {
        Self {
            task_id: event.task_id,
            context_id: event.context_id,
            artifact: event.artifact.into(),
            append: event.append,
            last_chunk: event.last_chunk,
            metadata: event.metadata,
        }
    }
}

impl From<&model::TaskArtifactUpdateEvent> for TaskArtifactUpdateEvent {
    fn from(event: &model::TaskArtifactUpdateEvent) -> Self {
        Self {
            task_id: event.task_id.clone(),
            context_id: event.context_id.clone(),
            artifact: (&event.artifact).into(),
            append: event.append,
            last_chunk: event.last_chunk,
            metadata: event.metadata.clone(),
        }
    }
}

impl From<SendResult> for model::SendResult {
    fn from(result: SendResult) -> Self {
        match result {
            SendResult::Task(task) => Self::Task(task.into()),
            SendResult::Message(message) => Self::Message(message.into()),
        }
    }
}

impl From<&model::SendResult> for SendResult {
    fn from(result: &model::SendResult) -> Self {
        match result {
            model::SendResult::Task(task) => Self::Task(task.into()),
            model::SendResult::Message(message) => Self::Message(message.into()),
        }
    }
}

impl From<StreamEvent> for model::StreamEvent {
    fn from(event: StreamEvent) -> Self {
        match event {
            StreamEvent::Task(task) => Self::Task(task.into()),
            StreamEvent::Message(message) => Self::Message(message.into()),
            StreamEvent::StatusUpdate(update) => Self::StatusUpdate(update.into()),
            StreamEvent::ArtifactUpdate(update) => Self::ArtifactUpdate(update.into()),
        }
    }
}

impl From<&model::StreamEvent> for StreamEvent {
    fn from(event: &model::StreamEvent) -> Self {
        match event {
            model::StreamEvent::Task(task) => Self::Task(task.into()),
            model::StreamEvent::Message(message) => Self::Message(message.into()),
            model::StreamEvent::StatusUpdate(update) => Self::StatusUpdate(update.into()),
            model::StreamEvent::ArtifactUpdate(update) => Self::ArtifactUpdate(update.into()),
        }
    }
}
