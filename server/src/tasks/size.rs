//! What a task costs in memory, estimated from its contents: the bytes of its texts, data,
//! files and ids, plus a fixed overhead per message, part and artifact for their
//! allocations. The estimate reads lengths, never serialises, so it costs a walk over the
//! task's parts and data values, not over its bytes.

use a2a_lambda_core::model::{Artifact, Message, Metadata, Part, PartContent, StreamEvent, Task};
use serde_json::Value;

/// The allocations behind one message, part, artifact or JSON value besides its bytes.
const OVERHEAD: usize = 64;

/// The estimated bytes a task holds: its history, artifacts, status message and metadata.
///
/// ```
/// use a2a_lambda_core::model::{Message, Role, Task, TaskState, TaskStatus};
/// use a2a_lambda_server::tasks::estimated_bytes;
///
/// let mut task = Task {
///     id: "t-1".into(),
///     context_id: "c-1".into(),
///     status: TaskStatus::new(TaskState::Completed),
///     artifacts: vec![],
///     history: vec![],
///     metadata: None,
/// };
/// let small = estimated_bytes(&task);
/// task.history.push(Message::text(Role::User, "m-1", "x".repeat(1_000_000)));
/// assert!(estimated_bytes(&task) >= small + 1_000_000);
/// ```
pub fn estimated_bytes(task: &Task) -> usize {
    OVERHEAD
        + task.id.len()
        + task.context_id.len()
        + task.status.message.as_ref().map_or(0, message)
        + task.history.iter().map(message).sum::<usize>()
        + task.artifacts.iter().map(artifact).sum::<usize>()
        + metadata(task.metadata.as_ref())
}

/// The estimated bytes of one logged stream event.
pub(crate) fn event_bytes(event: &StreamEvent) -> usize {
    match event {
        StreamEvent::Task(task) => estimated_bytes(task),
        StreamEvent::Message(sent) => message(sent),
        StreamEvent::StatusUpdate(update) => {
            OVERHEAD
                + update.status.message.as_ref().map_or(0, message)
                + metadata(update.metadata.as_ref())
        }
        StreamEvent::ArtifactUpdate(update) => {
            OVERHEAD + artifact(&update.artifact) + metadata(update.metadata.as_ref())
        }
    }
}

fn message(message: &Message) -> usize {
    OVERHEAD
        + message.message_id.len()
        + message.parts.iter().map(part).sum::<usize>()
        + metadata(message.metadata.as_ref())
}

fn artifact(artifact: &Artifact) -> usize {
    OVERHEAD
        + artifact.artifact_id.len()
        + artifact.name.as_ref().map_or(0, String::len)
        + artifact.description.as_ref().map_or(0, String::len)
        + artifact.parts.iter().map(part).sum::<usize>()
        + metadata(artifact.metadata.as_ref())
}

fn part(part: &Part) -> usize {
    let content = match &part.content {
        PartContent::Text(text) | PartContent::Url(text) => text.len(),
        PartContent::Bytes(bytes) => bytes.len(),
        PartContent::Data(data) => value(data),
    };
    OVERHEAD
        + content
        + part.media_type.as_ref().map_or(0, String::len)
        + part.filename.as_ref().map_or(0, String::len)
        + metadata(part.metadata.as_ref())
}

fn metadata(metadata: Option<&Metadata>) -> usize {
    metadata.map_or(0, |map| {
        map.iter()
            .map(|(key, item)| key.len() + value(item))
            .sum::<usize>()
    })
}

fn value(item: &Value) -> usize {
    OVERHEAD
        + match item {
            Value::String(text) => text.len(),
            Value::Array(items) => items.iter().map(value).sum(),
            Value::Object(map) => map.iter().map(|(key, item)| key.len() + value(item)).sum(),
            Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_lambda_core::model::{Role, TaskArtifactUpdateEvent, TaskState, TaskStatus};

    #[test]
    fn texts_data_and_bytes_count_by_their_length() {
        let mut task = Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus::new(TaskState::Working),
            artifacts: vec![],
            history: vec![],
            metadata: None,
        };
        let empty = estimated_bytes(&task);
        task.history
            .push(Message::text(Role::User, "m", "a".repeat(10_000)));
        task.artifacts.push(Artifact {
            parts: vec![
                Part::data(serde_json::json!({"k": "b".repeat(5_000), "n": [1, 2, 3]})),
                Part::from_content(PartContent::Bytes(vec![0; 7_000])),
            ],
            ..Artifact::text("a", "")
        });
        let full = estimated_bytes(&task);
        assert!(full >= empty + 22_000, "{full}");
        // The overheads stay small next to the bytes.
        assert!(full < empty + 22_000 + 2_000, "{full}");
        let update = StreamEvent::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact::text("a", "d".repeat(4_000)),
            append: false,
            last_chunk: true,
            metadata: None,
        });
        assert!(event_bytes(&update) >= 4_000);
    }
}
