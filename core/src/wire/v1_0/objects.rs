//! The core objects: `Message`, `Task`, `TaskStatus`, `Artifact` and the two stream events.

use serde::{Deserialize, Serialize};

use super::de as helpers;
use super::enums::{Role, TaskState};
use super::parts::{Part, non_empty_parts};
use crate::model::{self, Metadata};

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// `messageId` (required, not empty).
    #[serde(alias = "message_id", deserialize_with = "helpers::required_id")]
    pub message_id: String,
    /// `contextId`.
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub context_id: Option<String>,
    /// `taskId`.
    #[serde(
        default,
        alias = "task_id",
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub task_id: Option<String>,
    /// `role` (required).
    pub role: Role,
    /// `parts` (required, at least one).
    #[serde(deserialize_with = "non_empty_parts")]
    pub parts: Vec<Part>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// `extensions`: URIs of the extensions the message uses.
    #[serde(
        default,
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<String>,
    /// `referenceTaskIds`: other tasks the message refers to.
    #[serde(
        default,
        alias = "reference_task_ids",
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub reference_task_ids: Vec<String>,
}

impl From<Message> for model::Message {
    fn from(message: Message) -> Self {
        Self {
            message_id: message.message_id,
            context_id: message.context_id,
            task_id: message.task_id,
            role: message.role.into(),
            parts: message.parts.into_iter().map(Into::into).collect(),
            metadata: message.metadata,
            extensions: message.extensions,
            reference_task_ids: message.reference_task_ids,
        }
    }
}

impl From<&model::Message> for Message {
    fn from(message: &model::Message) -> Self {
        Self {
            message_id: message.message_id.clone(),
            context_id: message.context_id.clone(),
            task_id: message.task_id.clone(),
            role: message.role.into(),
            parts: message.parts.iter().map(Into::into).collect(),
            metadata: message.metadata.clone(),
            extensions: message.extensions.clone(),
            reference_task_ids: message.reference_task_ids.clone(),
        }
    }
}

/// The current status of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    /// `state` (required; `TASK_STATE_UNSPECIFIED` is accepted and means unknown).
    pub state: TaskState,
    /// `message`: what the agent says about this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// `timestamp`: when the status was set (RFC 3339, kept as sent).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub timestamp: Option<String>,
}

impl From<TaskStatus> for model::TaskStatus {
    fn from(status: TaskStatus) -> Self {
        Self {
            state: status.state.into(),
            message: status.message.map(Into::into),
            timestamp: status.timestamp,
        }
    }
}

impl From<&model::TaskStatus> for TaskStatus {
    fn from(status: &model::TaskStatus) -> Self {
        Self {
            state: status.state.into(),
            message: status.message.as_ref().map(Into::into),
            timestamp: status.timestamp.clone(),
        }
    }
}

/// A unit of work the agent does for a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// `id` (required, not empty).
    #[serde(deserialize_with = "helpers::required_id")]
    pub id: String,
    /// `contextId`: not required by v1.0.0, so an absent one reads as `""`; written only
    /// when not empty.
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub context_id: String,
    /// `status` (required).
    pub status: TaskStatus,
    /// `artifacts`.
    #[serde(
        default,
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub artifacts: Vec<Artifact>,
    /// `history`.
    #[serde(
        default,
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub history: Vec<Message>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl From<Task> for model::Task {
    fn from(task: Task) -> Self {
        Self {
            id: task.id,
            context_id: task.context_id,
            status: task.status.into(),
            artifacts: task.artifacts.into_iter().map(Into::into).collect(),
            history: task.history.into_iter().map(Into::into).collect(),
            metadata: task.metadata,
        }
    }
}

impl From<&model::Task> for Task {
    fn from(task: &model::Task) -> Self {
        Self {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: (&task.status).into(),
            artifacts: task.artifacts.iter().map(Into::into).collect(),
            history: task.history.iter().map(Into::into).collect(),
            metadata: task.metadata.clone(),
        }
    }
}

/// An output of a task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// `artifactId` (required, not empty).
    #[serde(alias = "artifact_id", deserialize_with = "helpers::required_id")]
    pub artifact_id: String,
    /// `name`.
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub name: Option<String>,
    /// `description`.
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub description: Option<String>,
    /// `parts` (required, at least one).
    #[serde(deserialize_with = "non_empty_parts")]
    pub parts: Vec<Part>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// `extensions`: URIs of the extensions the artifact uses.
    #[serde(
        default,
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub extensions: Vec<String>,
}

impl From<Artifact> for model::Artifact {
    fn from(artifact: Artifact) -> Self {
        Self {
            artifact_id: artifact.artifact_id,
            name: artifact.name,
            description: artifact.description,
            parts: artifact.parts.into_iter().map(Into::into).collect(),
            metadata: artifact.metadata,
            extensions: artifact.extensions,
        }
    }
}

impl From<&model::Artifact> for Artifact {
    fn from(artifact: &model::Artifact) -> Self {
        Self {
            artifact_id: artifact.artifact_id.clone(),
            name: artifact.name.clone(),
            description: artifact.description.clone(),
            parts: artifact.parts.iter().map(Into::into).collect(),
            metadata: artifact.metadata.clone(),
            extensions: artifact.extensions.clone(),
        }
    }
}

/// A task's status changed (`statusUpdate` of a stream response).
///
/// v1.0 has no `final` member: the stream simply ends. Reading sets the model's
/// [`is_final`](model::TaskStatusUpdateEvent::is_final) to
/// [`ends_stream`](model::TaskState::ends_stream) of the state (terminal or interrupted);
/// writing drops it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusUpdateEvent {
    /// `taskId` (required, not empty).
    #[serde(alias = "task_id", deserialize_with = "helpers::required_id")]
    pub task_id: String,
    /// `contextId` (required).
    #[serde(alias = "context_id")]
    pub context_id: String,
    /// `status` (required).
    pub status: TaskStatus,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl From<TaskStatusUpdateEvent> for model::TaskStatusUpdateEvent {
    fn from(event: TaskStatusUpdateEvent) -> Self {
        let status: model::TaskStatus = event.status.into();
        Self {
            task_id: event.task_id,
            context_id: event.context_id,
            is_final: status.state.ends_stream(),
            status,
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
            metadata: event.metadata.clone(),
        }
    }
}

/// A task produced or extended an artifact (`artifactUpdate` of a stream response).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskArtifactUpdateEvent {
    /// `taskId` (required, not empty).
    #[serde(alias = "task_id", deserialize_with = "helpers::required_id")]
    pub task_id: String,
    /// `contextId` (required).
    #[serde(alias = "context_id")]
    pub context_id: String,
    /// `artifact` (required).
    pub artifact: Artifact,
    /// `append`: the parts extend an artifact sent before (written only when true).
    #[serde(
        default,
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "helpers::is_false"
    )]
    pub append: bool,
    /// `lastChunk`: this is the artifact's last chunk (written only when true).
    #[serde(
        default,
        alias = "last_chunk",
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "helpers::is_false"
    )]
    pub last_chunk: bool,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
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
