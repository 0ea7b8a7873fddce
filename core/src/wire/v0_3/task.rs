//! The v0.3 task, its status and its artifacts.

use serde::{Deserialize, Serialize};

use super::de::{Kind, TaskKind, non_empty};
use super::message::Message;
use super::parts::Part;
use crate::model::{self, Metadata};

/// The lifecycle state of a task, as v0.3 spells it (`"input-required"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TaskState {
    /// `"submitted"`.
    Submitted,
    /// `"working"`.
    Working,
    /// `"input-required"`.
    InputRequired,
    /// `"completed"`.
    Completed,
    /// `"canceled"`.
    Canceled,
    /// `"failed"`.
    Failed,
    /// `"rejected"`.
    Rejected,
    /// `"auth-required"`.
    AuthRequired,
    /// `"unknown"`.
    Unknown,
}

/// The current status of a task: `{state, message?, timestamp?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    /// Lifecycle state.
    pub state: TaskState,
    /// A message from the agent about this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the status was set (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

/// A task: `{"kind":"task","id","contextId","status",…}`.
///
/// `kind` is required on input. `artifacts` and `history` are emitted only when non-empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename = "task",
    rename_all = "camelCase",
    from = "RawTask"
)]
pub struct Task {
    /// Unique task id.
    pub id: String,
    /// Conversation the task belongs to.
    pub context_id: String,
    /// Current status.
    pub status: TaskStatus,
    /// Outputs produced so far.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// Messages exchanged for this task.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTask {
    #[serde(rename = "kind")]
    _kind: Kind<TaskKind>,
    #[serde(deserialize_with = "non_empty")]
    id: String,
    #[serde(deserialize_with = "non_empty")]
    context_id: String,
    status: TaskStatus,
    #[serde(default)]
    artifacts: Vec<Artifact>,
    #[serde(default)]
    history: Vec<Message>,
    metadata: Option<Metadata>,
}

impl From<RawTask> for Task {
    fn from(raw: RawTask) -> Self {
        Self {
            id: raw.id,
            context_id: raw.context_id,
            status: raw.status,
            artifacts: raw.artifacts,
            history: raw.history,
            metadata: raw.metadata,
        }
    }
}

/// An output of a task: `{artifactId, name?, description?, parts, metadata?, extensions?}`.
///
/// `artifactId` must not be empty; `parts` is required but may be empty (a client reading
/// an artifact chunk should not fail on it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Unique id within the task.
    #[serde(deserialize_with = "non_empty")]
    pub artifact_id: String,
    /// Human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Content.
    pub parts: Vec<Part>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions this artifact uses (omitted when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

impl From<TaskState> for model::TaskState {
    fn from(state: TaskState) -> Self {
        match state {
            TaskState::Submitted => Self::Submitted,
            TaskState::Working => Self::Working,
            TaskState::InputRequired => Self::InputRequired,
            TaskState::Completed => Self::Completed,
            TaskState::Canceled => Self::Canceled,
            TaskState::Failed => Self::Failed,
            TaskState::Rejected => Self::Rejected,
            TaskState::AuthRequired => Self::AuthRequired,
            TaskState::Unknown => Self::Unknown,
        }
    }
}

impl From<model::TaskState> for TaskState {
    fn from(state: model::TaskState) -> Self {
        match state {
            model::TaskState::Submitted => Self::Submitted,
            model::TaskState::Working => Self::Working,
            model::TaskState::InputRequired => Self::InputRequired,
            model::TaskState::Completed => Self::Completed,
            model::TaskState::Canceled => Self::Canceled,
            model::TaskState::Failed => Self::Failed,
            model::TaskState::Rejected => Self::Rejected,
            model::TaskState::AuthRequired => Self::AuthRequired,
            model::TaskState::Unknown => Self::Unknown,
        }
    }
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
