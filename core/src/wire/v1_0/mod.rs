//! A2A v1.0 wire types: the JSON-RPC binding's params and results in ProtoJSON form
//! (lowerCamelCase members, `ROLE_*` / `TASK_STATE_*` enum names, oneofs told apart by
//! which member is present; no `kind` anywhere), with lossless conversion to and from
//! [`crate::model`].
//!
//! # What is written
//!
//! Canonical ProtoJSON: lowerCamelCase names, enum names, int32 as numbers, bytes as
//! standard padded base64. Optional members that are absent, empty strings, empty lists
//! and `false` are left out. The members the specification requires are always written:
//! a task's `status`, an event's `contextId`, the four members of a list response.
//!
//! # What is read, beyond that
//!
//! ProtoJSON parsers accept more than they write, and so do these types:
//!
//! - member names in the proto's snake_case (`message_id`) as well as lowerCamelCase;
//! - enum values as their numbers (`1` for `ROLE_USER`, `3` for `TASK_STATE_COMPLETED`);
//! - int32 members (`historyLength`, `pageSize`) as a number or a numeric string;
//! - `null` for any optional member, meaning unset; `""` for an optional string, likewise;
//! - bytes in the standard or URL-safe base64 alphabet, padded or not;
//! - members we do not know, which are ignored.
//!
//! Tolerances for spellings the v1.0 specification's own examples still use, from
//! pre-release drafts:
//!
//! - `configuration.blocking`: read as `returnImmediately = !blocking`, and only when
//!   `returnImmediately` is absent;
//! - `configuration.pushNotificationConfig` for `taskPushNotificationConfig`;
//! - `authentication.schemes: ["Bearer"]` when `authentication.scheme` is absent.
//!
//! # What the model does not carry
//!
//! - `tenant`, on every request, is read and dropped: the model has no tenant.
//! - A task status update has no `final` member in v1.0 (the stream ends instead). Read
//!   events get `is_final = status.state.ends_stream()`; written events drop it.
//! - A task without `contextId` (not required in v1.0.0) reads as an empty context id,
//!   and an empty context id is not written.
//! - A `ListTasks` filter of `TASK_STATE_UNSPECIFIED` means no filter.
//! - The `taskId` and `tenant` of a send's `taskPushNotificationConfig` are dropped (the
//!   model's send configuration holds a bare push configuration).
//!
//! # Refusals
//!
//! Every refusal is a -32602 whose detail names the offending member, rooted at `params`:
//! `params.message.parts[1]: a part must carry exactly one of text, raw, url, data (found
//! text and url)`. Required ids (`messageId`, `id`, `taskId`, `artifactId`, `url`) must not
//! be empty; `parts` must not be empty; `ROLE_UNSPECIFIED` is refused; int32 members must be
//! non-negative and `pageSize` between 1 and 100.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::model;

mod de;
mod enums;
mod objects;
mod params;
mod parts;
mod push;
mod responses;
mod views;

pub use enums::{Role, TaskState};
pub use objects::{
    Artifact, Message, Task, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent,
};
pub use params::{
    CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageConfiguration,
    SendMessageRequest, SubscribeToTaskRequest,
};
pub use parts::{Part, PartContent};
pub use push::{
    AuthenticationInfo, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig,
    TaskPushNotificationConfigRequest,
};
pub use responses::{ListTasksResponse, SendMessageResponse, StreamResponse};
pub use views::{ArtifactView, MessageView, PartView, StatusView, TaskView};

/// Parses the params of `SendMessage` and `SendStreamingMessage` (a `SendMessageRequest`).
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_send_params(params: Option<&RawValue>) -> Result<model::SendMessageParams, Error> {
    parse::<SendMessageRequest>(params).map(Into::into)
}

/// Parses the params of `GetTask` (a `GetTaskRequest`).
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_get_task_params(params: Option<&RawValue>) -> Result<model::GetTaskParams, Error> {
    parse::<GetTaskRequest>(params).map(Into::into)
}

/// Parses the params of `CancelTask` or `SubscribeToTask`.
///
/// Both are read as a `CancelTaskRequest` (`id` and optional `metadata`), so a subscribe
/// request that carries `metadata` keeps it.
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_task_id_params(params: Option<&RawValue>) -> Result<model::TaskIdParams, Error> {
    parse::<CancelTaskRequest>(params).map(Into::into)
}

/// Parses the params of `ListTasks` (a `ListTasksRequest`).
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_list_tasks_params(params: Option<&RawValue>) -> Result<model::ListTasksParams, Error> {
    parse::<ListTasksRequest>(params).map(Into::into)
}

/// Parses the params of `CreateTaskPushNotificationConfig`: a flat
/// `TaskPushNotificationConfig` whose `taskId` is required.
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_task_push_config_params(
    params: Option<&RawValue>,
) -> Result<model::TaskPushNotificationConfig, Error> {
    parse::<CreateTaskPushNotificationConfig>(params).map(|create| create.0.into())
}

/// Parses the params of `GetTaskPushNotificationConfig` and
/// `DeleteTaskPushNotificationConfig`: `{taskId, id}`.
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_push_config_id_params(
    params: Option<&RawValue>,
) -> Result<model::PushConfigId, Error> {
    parse::<TaskPushNotificationConfigRequest>(params).map(Into::into)
}

/// Parses the params of `ListTaskPushNotificationConfigs`.
///
/// # Errors
/// -32602 naming the offending member.
pub fn parse_list_push_configs_params(
    params: Option<&RawValue>,
) -> Result<model::ListPushConfigsParams, Error> {
    parse::<ListTaskPushNotificationConfigsRequest>(params).map(Into::into)
}

/// Deserializes params into `T`: first without tracking the path (the common, valid
/// case, and the faster parse), then, only if that fails, again through
/// [`super::parse_params`] for an error that names the offending member.
fn parse<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    if let Some(raw) = params
        && let Ok(parsed) = serde_json::from_str::<T>(raw.get())
    {
        return Ok(parsed);
    }
    super::parse_params::<T>(params)
}

/// A `TaskPushNotificationConfig` as the params of a create: `taskId` must be there.
#[derive(Deserialize)]
#[serde(try_from = "TaskPushNotificationConfig")]
struct CreateTaskPushNotificationConfig(TaskPushNotificationConfig);

impl TryFrom<TaskPushNotificationConfig> for CreateTaskPushNotificationConfig {
    type Error = &'static str;

    fn try_from(config: TaskPushNotificationConfig) -> Result<Self, Self::Error> {
        if config.task_id.is_none() {
            return Err("missing or empty `taskId` (the task the configuration is for)");
        }
        Ok(Self(config))
    }
}

/// The result of `SendMessage`.
pub fn send_result(result: &model::SendResult) -> SendMessageResponse {
    result.into()
}

/// One event of `SendStreamingMessage` or `SubscribeToTask` (also a push-notification body).
pub fn stream_event(event: &model::StreamEvent) -> StreamResponse {
    event.into()
}

/// The result of `GetTask` and `CancelTask`: a bare task.
pub fn task(task: &model::Task) -> Task {
    task.into()
}

/// A task to write, borrowed: what [`task`] writes, without a copy.
pub fn task_view(task: &model::Task) -> TaskView<'_> {
    task.into()
}

/// The result of a `SendMessage` that made or continued a task (`{"task": …}`, as
/// [`send_result`] writes it), borrowed.
pub fn send_task_view(task: &model::Task) -> SendTaskView<'_> {
    SendTaskView { task: task.into() }
}

/// `{"task": …}`: see [`send_task_view`].
#[derive(serde::Serialize)]
pub struct SendTaskView<'a> {
    task: TaskView<'a>,
}

/// The result of `ListTasks`.
pub fn list_tasks_result(result: &model::ListTasksResult) -> ListTasksResponse {
    result.into()
}

/// The result of `CreateTaskPushNotificationConfig` and `GetTaskPushNotificationConfig`.
pub fn task_push_config(config: &model::TaskPushNotificationConfig) -> TaskPushNotificationConfig {
    config.into()
}

/// The result of `ListTaskPushNotificationConfigs`.
pub fn push_config_list(
    result: &model::ListPushConfigsResult,
) -> ListTaskPushNotificationConfigsResponse {
    result.into()
}

/// The body of a push notification: a `StreamResponse` holding the task as it stands
/// (`{"task": …}`, specification §4.3.3), borrowed.
pub fn push_payload(task: &model::Task) -> SendTaskView<'_> {
    send_task_view(task)
}
