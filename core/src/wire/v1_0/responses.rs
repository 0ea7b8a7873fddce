//! Results: `SendMessageResponse`, `StreamResponse` (member-presence oneofs) and
//! `ListTasksResponse`.

use serde::{Deserialize, Serialize};

use super::de as helpers;
use super::objects::{Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent};
use crate::model;

/// The result of `SendMessage`: `{"task": …}` or `{"message": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "SendMessageResponseFields")]
pub enum SendMessageResponse {
    /// `task`: a task was created or continued.
    Task(Task),
    /// `message`: a direct reply.
    Message(Message),
}

#[derive(Deserialize)]
struct SendMessageResponseFields {
    #[serde(default)]
    task: Option<Task>,
    #[serde(default)]
    message: Option<Message>,
}

impl TryFrom<SendMessageResponseFields> for SendMessageResponse {
    type Error = String;

    fn try_from(fields: SendMessageResponseFields) -> Result<Self, String> {
        match (fields.task, fields.message) {
            (Some(task), None) => Ok(Self::Task(task)),
            (None, Some(message)) => Ok(Self::Message(message)),
            (task, message) => {
                let found: Vec<&str> = [
                    task.is_some().then_some("task"),
                    message.is_some().then_some("message"),
                ]
                .into_iter()
                .flatten()
                .collect();
                Err(format!(
                    "a send-message response must carry exactly one of task, message (found {})",
                    helpers::list_found(&found)
                ))
            }
        }
    }
}

impl From<SendMessageResponse> for model::SendResult {
    fn from(response: SendMessageResponse) -> Self {
        match response {
            SendMessageResponse::Task(task) => Self::Task(task.into()),
            SendMessageResponse::Message(message) => Self::Message(message.into()),
        }
    }
}

impl From<&model::SendResult> for SendMessageResponse {
    fn from(result: &model::SendResult) -> Self {
        match result {
            model::SendResult::Task(task) => Self::Task(task.into()),
            model::SendResult::Message(message) => Self::Message(message.into()),
        }
    }
}

/// One event of a stream, and the body of a push notification: exactly one of `task`,
/// `message`, `statusUpdate`, `artifactUpdate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "StreamResponseFields")]
pub enum StreamResponse {
    /// `task`: the task as it stands.
    Task(Task),
    /// `message`: a direct reply.
    Message(Message),
    /// `statusUpdate`: a status change.
    StatusUpdate(TaskStatusUpdateEvent),
    /// `artifactUpdate`: an artifact chunk.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StreamResponseFields {
    #[serde(default)]
    task: Option<Task>,
    #[serde(default)]
    message: Option<Message>,
    #[serde(default, alias = "status_update")]
    status_update: Option<TaskStatusUpdateEvent>,
    #[serde(default, alias = "artifact_update")]
    artifact_update: Option<TaskArtifactUpdateEvent>,
}

impl TryFrom<StreamResponseFields> for StreamResponse {
    type Error = String;

    fn try_from(fields: StreamResponseFields) -> Result<Self, String> {
        let StreamResponseFields {
            task,
            message,
            status_update,
            artifact_update,
        } = fields;
        match (task, message, status_update, artifact_update) {
            (Some(task), None, None, None) => Ok(Self::Task(task)),
            (None, Some(message), None, None) => Ok(Self::Message(message)),
            (None, None, Some(event), None) => Ok(Self::StatusUpdate(event)),
            (None, None, None, Some(event)) => Ok(Self::ArtifactUpdate(event)),
            (task, message, status_update, artifact_update) => {
                let found: Vec<&str> = [
                    task.is_some().then_some("task"),
                    message.is_some().then_some("message"),
                    status_update.is_some().then_some("statusUpdate"),
                    artifact_update.is_some().then_some("artifactUpdate"),
                ]
                .into_iter()
                .flatten()
                .collect();
                Err(format!(
                    "a stream response must carry exactly one of task, message, statusUpdate, \
                     artifactUpdate (found {})",
                    helpers::list_found(&found)
                ))
            }
        }
    }
}

impl From<StreamResponse> for model::StreamEvent {
    fn from(response: StreamResponse) -> Self {
        match response {
            StreamResponse::Task(task) => Self::Task(task.into()),
            StreamResponse::Message(message) => Self::Message(message.into()),
            StreamResponse::StatusUpdate(event) => Self::StatusUpdate(event.into()),
            StreamResponse::ArtifactUpdate(event) => Self::ArtifactUpdate(event.into()),
        }
    }
}

impl From<&model::StreamEvent> for StreamResponse {
    fn from(event: &model::StreamEvent) -> Self {
        match event {
            model::StreamEvent::Task(task) => Self::Task(task.into()),
            model::StreamEvent::Message(message) => Self::Message(message.into()),
            model::StreamEvent::StatusUpdate(event) => Self::StatusUpdate(event.into()),
            model::StreamEvent::ArtifactUpdate(event) => Self::ArtifactUpdate(event.into()),
        }
    }
}

/// One page of `ListTasks`. All four members are always written (the specification
/// requires them, `nextPageToken` is `""` on the last page); reading tolerates their
/// absence, as a ProtoJSON writer omits empty and zero values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksResponse {
    /// `tasks`.
    #[serde(default, deserialize_with = "helpers::null_as_default")]
    pub tasks: Vec<Task>,
    /// `nextPageToken`: empty on the last page.
    #[serde(
        default,
        alias = "next_page_token",
        deserialize_with = "helpers::null_as_default"
    )]
    pub next_page_token: String,
    /// `pageSize`: the page size used.
    #[serde(
        default,
        alias = "page_size",
        deserialize_with = "helpers::int32_or_zero"
    )]
    pub page_size: u32,
    /// `totalSize`: how many tasks match in all.
    #[serde(
        default,
        alias = "total_size",
        deserialize_with = "helpers::int32_or_zero"
    )]
    pub total_size: u32,
}

impl From<ListTasksResponse> for model::ListTasksResult {
    fn from(response: ListTasksResponse) -> Self {
        Self {
            tasks: response.tasks.into_iter().map(Into::into).collect(),
            next_page_token: response.next_page_token,
            page_size: response.page_size,
            total_size: response.total_size,
        }
    }
}

impl From<&model::ListTasksResult> for ListTasksResponse {
    fn from(result: &model::ListTasksResult) -> Self {
        Self {
            tasks: result.tasks.iter().map(Into::into).collect(),
            next_page_token: result.next_page_token.clone(),
            page_size: result.page_size,
            total_size: result.total_size,
        }
    }
}
