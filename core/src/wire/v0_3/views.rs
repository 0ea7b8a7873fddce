//! Borrowed views of model objects, written exactly as their owned wire types write them
//! ([`Task`](super::Task), [`TaskStatus`](super::TaskStatus), [`Message`](super::Message),
//! [`Artifact`](super::Artifact), [`Part`](super::Part)) but without copying a string: an
//! answer is written straight from the stored task.
//!
//! The owned types stay the reference: a test writes many model objects both ways and
//! compares the bytes.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::de::serialize_base64;
use super::message::Role;
use super::task::TaskState;
use crate::model::{self, Metadata};
use crate::wire::Each;

/// A task, as [`Task`](super::Task) writes it (`"kind":"task"` first).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskView<'a> {
    kind: &'static str,
    id: &'a str,
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
            kind: "task",
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
    #[serde(skip_serializing_if = "Option::is_none")]
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

/// A message, as [`Message`](super::Message) writes it (`"kind":"message"` first).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView<'a> {
    kind: &'static str,
    message_id: &'a str,
    role: Role,
    parts: Each<'a, model::Part, PartView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<&'a str>,
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
            kind: "message",
            message_id: &message.message_id,
            role: message.role.into(),
            parts: Each(&message.parts, PartView),
            context_id: message.context_id.as_deref(),
            task_id: message.task_id.as_deref(),
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
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
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

/// A part, as [`Part`](super::Part) writes it: `kind`, its content (`text`, `file` with
/// bytes or uri, `data`), then `metadata`.
pub struct PartView<'a>(&'a model::Part);

impl Serialize for PartView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let part = self.0;
        let mut map = serializer.serialize_map(None)?;
        let file = |content| FileView {
            content,
            mime_type: part.media_type.as_deref(),
            name: part.filename.as_deref(),
        };
        match &part.content {
            model::PartContent::Text(text) => {
                map.serialize_entry("kind", "text")?;
                map.serialize_entry("text", text)?;
            }
            model::PartContent::Bytes(bytes) => {
                map.serialize_entry("kind", "file")?;
                map.serialize_entry("file", &file(FileContent::Bytes(bytes)))?;
            }
            model::PartContent::Url(uri) => {
                map.serialize_entry("kind", "file")?;
                map.serialize_entry("file", &file(FileContent::Uri(uri)))?;
            }
            model::PartContent::Data(data) => {
                map.serialize_entry("kind", "data")?;
                map.serialize_entry("data", data)?;
            }
        }
        if let Some(metadata) = &part.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        map.end()
    }
}

/// A file part's `file`, as [`File`](super::File) writes it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileView<'a> {
    #[serde(flatten)]
    content: FileContent<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

/// `bytes` (standard padded base64) or `uri`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum FileContent<'a> {
    Bytes(#[serde(serialize_with = "serialize_base64")] &'a [u8]),
    Uri(&'a str),
}
