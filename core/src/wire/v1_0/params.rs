//! Request params: `SendMessageRequest` and its configuration, `GetTaskRequest`,
//! `CancelTaskRequest`, `SubscribeToTaskRequest` and `ListTasksRequest`.
//!
//! Every request accepts a `tenant`; the model has no tenant, so it is read and dropped.

use serde::{Deserialize, Serialize};

use super::de as helpers;
use super::enums::TaskState;
use super::objects::Message;
use super::push::TaskPushNotificationConfig;
use crate::model::{self, Metadata};

/// Params of `SendMessage` and `SendStreamingMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SendMessageRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `message` (required).
    pub message: Message,
    /// `configuration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl From<SendMessageRequest> for model::SendMessageParams {
    fn from(request: SendMessageRequest) -> Self {
        Self {
            message: request.message.into(),
            configuration: request.configuration.map(Into::into),
            metadata: request.metadata,
        }
    }
}

impl From<&model::SendMessageParams> for SendMessageRequest {
    fn from(params: &model::SendMessageParams) -> Self {
        Self {
            tenant: None,
            message: (&params.message).into(),
            configuration: params.configuration.as_ref().map(Into::into),
            metadata: params.metadata.clone(),
        }
    }
}

/// How a send should be handled.
///
/// Besides the v1.0.0 members, reading tolerates two pre-release spellings that the
/// specification's own examples still use: `pushNotificationConfig` for
/// `taskPushNotificationConfig`, and `blocking` (meaning `returnImmediately = !blocking`,
/// used only when `returnImmediately` is absent).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "SendMessageConfigurationFields")]
pub struct SendMessageConfiguration {
    /// `acceptedOutputModes`: media types the client accepts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub accepted_output_modes: Vec<String>,
    /// `taskPushNotificationConfig`: where to push updates. Its `taskId` and `tenant`, if
    /// sent, are not carried to the model (the task does not exist yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_push_notification_config: Option<TaskPushNotificationConfig>,
    /// `historyLength`: how many history messages to return (absent: all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_length: Option<u32>,
    /// `returnImmediately`: answer once the task exists instead of waiting (written only
    /// when true).
    #[serde(skip_serializing_if = "helpers::is_false")]
    pub return_immediately: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendMessageConfigurationFields {
    #[serde(
        default,
        alias = "accepted_output_modes",
        deserialize_with = "helpers::null_as_default"
    )]
    accepted_output_modes: Vec<String>,
    #[serde(
        default,
        alias = "task_push_notification_config",
        alias = "pushNotificationConfig",
        alias = "push_notification_config"
    )]
    task_push_notification_config: Option<TaskPushNotificationConfig>,
    #[serde(default, alias = "history_length", deserialize_with = "helpers::int32")]
    history_length: Option<u32>,
    #[serde(default, alias = "return_immediately")]
    return_immediately: Option<bool>,
    #[serde(default)]
    blocking: Option<bool>,
}

impl From<SendMessageConfigurationFields> for SendMessageConfiguration {
    fn from(fields: SendMessageConfigurationFields) -> Self {
        Self {
            accepted_output_modes: fields.accepted_output_modes,
            task_push_notification_config: fields.task_push_notification_config,
            history_length: fields.history_length,
            return_immediately: fields
                .return_immediately
                .or(fields.blocking.map(|blocking| !blocking))
                .unwrap_or(false),
        }
    }
}

impl From<SendMessageConfiguration> for model::SendConfiguration {
    fn from(configuration: SendMessageConfiguration) -> Self {
        Self {
            accepted_output_modes: configuration.accepted_output_modes,
            history_length: configuration.history_length,
            return_immediately: configuration.return_immediately,
            push_notification_config: configuration.task_push_notification_config.map(Into::into),
        }
    }
}

impl From<&model::SendConfiguration> for SendMessageConfiguration {
    fn from(configuration: &model::SendConfiguration) -> Self {
        Self {
            accepted_output_modes: configuration.accepted_output_modes.clone(),
            task_push_notification_config: configuration
                .push_notification_config
                .as_ref()
                .map(Into::into),
            history_length: configuration.history_length,
            return_immediately: configuration.return_immediately,
        }
    }
}

/// Params of `GetTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `id` (required, not empty).
    #[serde(deserialize_with = "helpers::required_id")]
    pub id: String,
    /// `historyLength`: how many history messages to return (absent: all).
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "helpers::int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<u32>,
}

impl From<GetTaskRequest> for model::GetTaskParams {
    fn from(request: GetTaskRequest) -> Self {
        Self {
            id: request.id,
            history_length: request.history_length,
            metadata: None,
        }
    }
}

/// The model's `metadata` (a v0.3 member) has no v1.0 place and is dropped.
impl From<&model::GetTaskParams> for GetTaskRequest {
    fn from(params: &model::GetTaskParams) -> Self {
        Self {
            tenant: None,
            id: params.id.clone(),
            history_length: params.history_length,
        }
    }
}

/// Params of `CancelTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelTaskRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `id` (required, not empty).
    #[serde(deserialize_with = "helpers::required_id")]
    pub id: String,
    /// `metadata`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl From<CancelTaskRequest> for model::TaskIdParams {
    fn from(request: CancelTaskRequest) -> Self {
        Self {
            id: request.id,
            metadata: request.metadata,
        }
    }
}

impl From<&model::TaskIdParams> for CancelTaskRequest {
    fn from(params: &model::TaskIdParams) -> Self {
        Self {
            tenant: None,
            id: params.id.clone(),
            metadata: params.metadata.clone(),
        }
    }
}

/// Params of `SubscribeToTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscribeToTaskRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `id` (required, not empty).
    #[serde(deserialize_with = "helpers::required_id")]
    pub id: String,
}

impl From<SubscribeToTaskRequest> for model::TaskIdParams {
    fn from(request: SubscribeToTaskRequest) -> Self {
        Self {
            id: request.id,
            metadata: None,
        }
    }
}

/// The model's `metadata` has no place in a subscribe request and is dropped.
impl From<&model::TaskIdParams> for SubscribeToTaskRequest {
    fn from(params: &model::TaskIdParams) -> Self {
        Self {
            tenant: None,
            id: params.id.clone(),
        }
    }
}

/// Params of `ListTasks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTasksRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `contextId`: only tasks of this context.
    #[serde(
        default,
        alias = "context_id",
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub context_id: Option<String>,
    /// `status`: only tasks in this state. `TASK_STATE_UNSPECIFIED` (the ProtoJSON
    /// default) means no filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskState>,
    /// `pageSize`: from 1 to 100 (the server's default applies when absent).
    #[serde(
        default,
        alias = "page_size",
        deserialize_with = "helpers::page_size",
        skip_serializing_if = "Option::is_none"
    )]
    pub page_size: Option<u32>,
    /// `pageToken`: the previous page's `nextPageToken`.
    #[serde(
        default,
        alias = "page_token",
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub page_token: Option<String>,
    /// `historyLength`: how many history messages to return per task.
    #[serde(
        default,
        alias = "history_length",
        deserialize_with = "helpers::int32",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<u32>,
    /// `statusTimestampAfter`: only tasks whose status changed at or after this time.
    #[serde(
        default,
        alias = "status_timestamp_after",
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub status_timestamp_after: Option<String>,
    /// `includeArtifacts`: return the tasks' artifacts (written only when true).
    #[serde(
        default,
        alias = "include_artifacts",
        deserialize_with = "helpers::null_as_default",
        skip_serializing_if = "helpers::is_false"
    )]
    pub include_artifacts: bool,
}

impl From<ListTasksRequest> for model::ListTasksParams {
    fn from(request: ListTasksRequest) -> Self {
        Self {
            context_id: request.context_id,
            status: request
                .status
                .filter(|state| *state != TaskState::Unspecified)
                .map(Into::into),
            page_size: request.page_size,
            page_token: request.page_token,
            history_length: request.history_length,
            status_timestamp_after: request.status_timestamp_after,
            include_artifacts: request.include_artifacts,
        }
    }
}

impl From<&model::ListTasksParams> for ListTasksRequest {
    fn from(params: &model::ListTasksParams) -> Self {
        Self {
            tenant: None,
            context_id: params.context_id.clone(),
            status: params.status.map(Into::into),
            page_size: params.page_size,
            page_token: params.page_token.clone(),
            history_length: params.history_length,
            status_timestamp_after: params.status_timestamp_after.clone(),
            include_artifacts: params.include_artifacts,
        }
    }
}
