//! Borrowed views of model objects, written exactly as their owned wire types write them
//! ([`Task`](super::Task), [`TaskStatus`](super::TaskStatus), [`Message`](super::Message),
//! [`Artifact`](super::Artifact), [`Part`](super::Part)) but without copying a string: an
//! answer is written straight from the stored task.
//!
//! The owned types stay the reference: a test writes many model objects both ways and
//! compares the bytes.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::enums::{Role, TaskState};
use super::parts::Base64Text;
use crate::model::{self, Metadata};
use crate::wire::Each;

/// A task, as [`Task`](super::Task) writes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskView<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    context_id: &'a str,
    status: StatusView<'a>,
    #[serde(skip_serializing_if = "Each::is_empty")]
    artifacts: Each<'a, model::Artifact, ArtifactView<'a>>,
    #[serde(skip_serializing_if = "Each::is_empty")]
    history: Each<'a, model::Message, MessageView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
}

impl<'a> From<&'a model::Task> for TaskView<'a> {
    fn from(task: &'a model::Task) -> Self {
        Self {
            id: &task.id,
            context_id: &task.context_id,
            status: (&task.status).into(),
            artifacts: Each(&task.artifacts, ArtifactView::from),
            history: Each(&task.history, MessageView::from),
            metadata: task.metadata.as_ref(),
        }
    }
}

/// A task's status, as [`TaskStatus`](super::TaskStatus) writes it.
#[derive(Serialize)]
pub struct StatusView<'a> {
    state: TaskState,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<MessageView<'a>>,
    #[serde(skip_serializing_if = "unset")]
    timestamp: Option<&'a str>,
}

impl<'a> From<&'a model::TaskStatus> for StatusView<'a> {
    fn from(status: &'a model::TaskStatus) -> Self {
        Self {
            state: status.state.into(),
            message: status.message.as_ref().map(MessageView::from),
            timestamp: status.timestamp.as_deref(),
        }
    }
}

/// A message, as [`Message`](super::Message) writes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView<'a> {
    message_id: &'a str,
    #[serde(skip_serializing_if = "unset")]
    context_id: Option<&'a str>,
    #[serde(skip_serializing_if = "unset")]
    task_id: Option<&'a str>,
    role: Role,
    parts: Each<'a, model::Part, PartView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    extensions: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    reference_task_ids: &'a [String],
}

impl<'a> From<&'a model::Message> for MessageView<'a> {
    fn from(message: &'a model::Message) -> Self {
        Self {
            message_id: &message.message_id,
            context_id: message.context_id.as_deref(),
            task_id: message.task_id.as_deref(),
            role: message.role.into(),
            parts: Each(&message.parts, PartView),
            metadata: message.metadata.as_ref(),
            extensions: &message.extensions,
            reference_task_ids: &message.reference_task_ids,
        }
    }
}

/// An artifact, as [`Artifact`](super::Artifact) writes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactView<'a> {
    artifact_id: &'a str,
    #[serde(skip_serializing_if = "unset")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "unset")]
    description: Option<&'a str>,
    parts: Each<'a, model::Part, PartView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    extensions: &'a [String],
}

impl<'a> From<&'a model::Artifact> for ArtifactView<'a> {
    fn from(artifact: &'a model::Artifact) -> Self {
        Self {
            artifact_id: &artifact.artifact_id,
            name: artifact.name.as_deref(),
            description: artifact.description.as_deref(),
            parts: Each(&artifact.parts, PartView),
            metadata: artifact.metadata.as_ref(),
            extensions: &artifact.extensions,
        }
    }
}

/// A part, as [`Part`](super::Part) writes it: its content member, then `metadata`,
/// `filename` and `mediaType`.
pub struct PartView<'a>(&'a model::Part);

impl Serialize for PartView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let part = self.0;
        let mut map = serializer.serialize_map(None)?;
        match &part.content {
            model::PartContent::Text(text) => map.serialize_entry("text", text)?,
            model::PartContent::Bytes(bytes) => map.serialize_entry("raw", &Base64Text(bytes))?,
            model::PartContent::Url(url) => map.serialize_entry("url", url)?,
            model::PartContent::Data(data) => map.serialize_entry("data", data)?,
        }
        if let Some(metadata) = &part.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        if !unset(&part.filename.as_deref()) {
            map.serialize_entry("filename", &part.filename)?;
        }
        if !unset(&part.media_type.as_deref()) {
            map.serialize_entry("mediaType", &part.media_type)?;
        }
        map.end()
    }
}

/// For `skip_serializing_if`: an absent or empty string is not written.
fn unset(value: &Option<&str>) -> bool {
    value.is_none_or(str::is_empty)
}
