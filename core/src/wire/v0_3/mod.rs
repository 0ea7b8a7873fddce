//! A2A v0.3 wire types: JSON-RPC params and results as the v0.3 specification writes
//! them, with `kind`-tagged messages, parts, tasks and events.
//!
//! Every type converts to and from [`crate::model`] with `From`; conversion never fails
//! because every rule is checked while deserializing, so a refusal names the offending
//! member (`params.message.parts[1].file: must carry exactly one of …`).
//!
//! # Input rules
//!
//! - Unknown members are ignored. Params must be an object (by-position params are refused).
//! - A message's `kind` may be missing (the specification's own example request omits
//!   it); any value other than `"message"` is refused. Tasks, events and parts require
//!   their `kind`.
//! - Required ids (`messageId`, a task's `id` and `contextId`, `artifactId`, an event's
//!   `taskId` and `contextId`, params' `id` and `taskId`) must not be empty.
//! - A message must contain at least one part. An artifact's `parts` is required but may
//!   be empty.
//! - A file carries exactly one of `bytes` (base64: standard or URL-safe, padded or not)
//!   and `uri`. A data part's `data` must be a JSON object.
//! - `historyLength` is a non-negative integer.
//! - In a result union ([`SendResult`], [`StreamEvent`]) `kind` is required on every
//!   member, messages included, since it is what tells them apart.
//!
//! # Where v0.3 cannot say everything the model says
//!
//! - Text and data parts have no media type or file name in v0.3: a model part's
//!   `media_type` and `filename` are dropped when it becomes a text or data part (file
//!   parts carry them as `mimeType` and `name`).
//! - A model data value that is not a JSON object is emitted as it is, although v0.3
//!   readers (this module included) refuse it.
//! - Output is canonical: absent optionals and empty lists (`artifacts`, `history`,
//!   `extensions`, `referenceTaskIds`, `acceptedOutputModes`) are omitted; a message is
//!   always emitted with `"kind":"message"`; `final`, `append`, `lastChunk` and a send
//!   configuration's `blocking` are always emitted. So `"extensions": []` or a missing
//!   `blocking` on input comes back as no `extensions` and `"blocking": true`.

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::parse_params;
use crate::error::Error;
use crate::model;

mod de;
mod events;
mod message;
mod params;
mod parts;
mod push;
mod task;
mod views;

pub use events::{SendResult, StreamEvent, TaskArtifactUpdateEvent, TaskStatusUpdateEvent};
pub use message::{Message, Role};
pub use params::{
    MessageSendConfiguration, MessageSendParams, PushNotificationAuthenticationInfo,
    PushNotificationConfig, TaskIdParams, TaskPushNotificationConfig, TaskQueryParams,
};
pub use parts::{DataPart, File, FilePart, FileWithBytes, FileWithUri, Part, TextPart};
pub use push::{
    DeleteTaskPushNotificationConfigParams, GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
};
pub use task::{Artifact, Task, TaskState, TaskStatus};
pub use views::{ArtifactView, MessageView, PartView, StatusView, TaskView};

/// Parses the params of `message/send` and `message/stream`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_send_params(params: Option<&RawValue>) -> Result<model::SendMessageParams, Error> {
    parse::<MessageSendParams>(params).map(Into::into)
}

/// Parses the params of `tasks/get`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_get_task_params(params: Option<&RawValue>) -> Result<model::GetTaskParams, Error> {
    parse::<TaskQueryParams>(params).map(Into::into)
}

/// Parses the params of `tasks/cancel` and `tasks/resubscribe`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_task_id_params(params: Option<&RawValue>) -> Result<model::TaskIdParams, Error> {
    parse::<TaskIdParams>(params).map(Into::into)
}

/// Parses the params of `tasks/pushNotificationConfig/set`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_task_push_config_params(
    params: Option<&RawValue>,
) -> Result<model::TaskPushNotificationConfig, Error> {
    parse::<TaskPushNotificationConfig>(params).map(Into::into)
}

/// Parses the params of `tasks/pushNotificationConfig/get`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_get_push_config_params(
    params: Option<&RawValue>,
) -> Result<model::PushConfigId, Error> {
    parse::<GetTaskPushNotificationConfigParams>(params).map(Into::into)
}

/// Parses the params of `tasks/pushNotificationConfig/list`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_list_push_configs_params(
    params: Option<&RawValue>,
) -> Result<model::ListPushConfigsParams, Error> {
    parse::<ListTaskPushNotificationConfigParams>(params).map(Into::into)
}

/// Parses the params of `tasks/pushNotificationConfig/delete`.
///
/// # Errors
/// -32602 naming the offending member when params are missing or malformed.
pub fn parse_delete_push_config_params(
    params: Option<&RawValue>,
) -> Result<model::PushConfigId, Error> {
    parse::<DeleteTaskPushNotificationConfigParams>(params).map(Into::into)
}

/// [`parse_params`] with a fast path: plain serde_json first, and only when that fails a
/// second, path-tracking pass that names the offending member. Tracking the path costs
/// about as much as the parse itself, and valid requests are the common case.
///
/// By-position params (a JSON array), which JSON-RPC allows but A2A never uses, are
/// refused: serde would otherwise read them as the struct's fields in declaration order.
fn parse<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    let Some(raw) = params else {
        return parse_params(params);
    };
    if raw.get().starts_with('[') {
        return Err(Error::invalid_params(
            "params: must be an object, found an array",
        ));
    }
    serde_json::from_str(raw.get()).or_else(|_| parse_params(params))
}

/// The `result` of `message/send`: a bare task or message.
pub fn send_result(result: &model::SendResult) -> SendResult {
    result.into()
}

/// The `result` of one stream event (`message/stream`, `tasks/resubscribe`).
pub fn stream_event(event: &model::StreamEvent) -> StreamEvent {
    event.into()
}

/// The `result` of `tasks/get` and `tasks/cancel`.
pub fn task(task: &model::Task) -> Task {
    task.into()
}

/// A task to write, borrowed: what [`task`] writes (and [`send_result`] for a task),
/// without a copy.
pub fn task_view(task: &model::Task) -> TaskView<'_> {
    task.into()
}

/// The `result` of `tasks/pushNotificationConfig/set` and `…/get`.
pub fn task_push_config(config: &model::TaskPushNotificationConfig) -> TaskPushNotificationConfig {
    config.into()
}

/// The `result` of `tasks/pushNotificationConfig/list`: a bare array of configurations
/// (v0.3 lists have no pages).
pub fn push_config_list(result: &model::ListPushConfigsResult) -> Vec<TaskPushNotificationConfig> {
    result.configs.iter().map(Into::into).collect()
}

/// The body of a push notification: the task as it stands, as `tasks/get` writes it
/// (a2a-sdk 0.3 POSTs the whole task), borrowed.
pub fn push_payload(task: &model::Task) -> TaskView<'_> {
    task.into()
}
