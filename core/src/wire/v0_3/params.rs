//! v0.3 request params: `message/send` and `message/stream`, `tasks/get`, `tasks/cancel`
//! and `tasks/resubscribe`, `tasks/pushNotificationConfig/set`.

use serde::{Deserialize, Serialize};

use super::de::{history_length, non_empty};
use super::message::Message;
use crate::model::{self, Metadata};

/// Params of `message/send` and `message/stream`: `{message, configuration?, metadata?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendParams {
    /// The message sent.
    pub message: Message,
    /// How to handle it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<MessageSendConfiguration>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// How a send should be handled:
/// `{acceptedOutputModes?, historyLength?, pushNotificationConfig?, blocking?}`.
///
/// A missing `blocking` means blocking. From the model, `blocking` is always emitted and
/// `acceptedOutputModes` only when non-empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSendConfiguration {
    /// Media types the client accepts in the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted_output_modes: Vec<String>,
    /// How many history messages to return with the task (a non-negative integer).
    #[serde(
        default,
        deserialize_with = "history_length",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<u32>,
    /// Where to push updates for the task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config: Option<PushNotificationConfig>,
    /// Wait for a terminal or interrupted state before answering (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
}

/// Where and how the agent pushes task updates: `{id?, url, token?, authentication?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationConfig {
    /// Id of this configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The client's webhook URL (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub url: String,
    /// A token the client uses to check the notification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// How the agent authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<PushNotificationAuthenticationInfo>,
}

/// How the agent authenticates to a webhook: `{schemes, credentials?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushNotificationAuthenticationInfo {
    /// Authentication schemes (for example `Bearer`).
    pub schemes: Vec<String>,
    /// Credentials, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<String>,
}

/// Params of `tasks/pushNotificationConfig/set` (and its result):
/// `{taskId, pushNotificationConfig}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// The task (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub task_id: String,
    /// The configuration.
    pub push_notification_config: PushNotificationConfig,
}

/// Params of `tasks/get`: `{id, historyLength?, metadata?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskQueryParams {
    /// The task id (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub id: String,
    /// How many history messages to return (a non-negative integer).
    #[serde(
        default,
        deserialize_with = "history_length",
        skip_serializing_if = "Option::is_none"
    )]
    pub history_length: Option<u32>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Params of `tasks/cancel` and `tasks/resubscribe`: `{id, metadata?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdParams {
    /// The task id (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub id: String,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl From<MessageSendParams> for model::SendMessageParams {
    fn from(params: MessageSendParams) -> Self {
        Self {
            message: params.message.into(),
            configuration: params.configuration.map(Into::into),
            metadata: params.metadata,
        }
    }
}

impl From<&model::SendMessageParams> for MessageSendParams {
    fn from(params: &model::SendMessageParams) -> Self {
        Self {
            message: (&params.message).into(),
            configuration: params.configuration.as_ref().map(Into::into),
            metadata: params.metadata.clone(),
        }
    }
}

impl From<MessageSendConfiguration> for model::SendConfiguration {
    fn from(configuration: MessageSendConfiguration) -> Self {
        Self {
            accepted_output_modes: configuration.accepted_output_modes,
            history_length: configuration.history_length,
            return_immediately: configuration.blocking == Some(false),
            push_notification_config: configuration.push_notification_config.map(Into::into),
        }
    }
}

impl From<&model::SendConfiguration> for MessageSendConfiguration {
    fn from(configuration: &model::SendConfiguration) -> Self {
        Self {
            accepted_output_modes: configuration.accepted_output_modes.clone(),
            history_length: configuration.history_length,
            push_notification_config: configuration
                .push_notification_config
                .as_ref()
                .map(Into::into),
            blocking: Some(!configuration.return_immediately),
        }
    }
}

impl From<PushNotificationConfig> for model::PushNotificationConfig {
    fn from(config: PushNotificationConfig) -> Self {
        Self {
            id: config.id,
            url: config.url,
            token: config.token,
            authentication: config
                .authentication
                .map(|authentication| model::PushAuthentication {
                    schemes: authentication.schemes,
                    credentials: authentication.credentials,
                }),
        }
    }
}

impl From<&model::PushNotificationConfig> for PushNotificationConfig {
    fn from(config: &model::PushNotificationConfig) -> Self {
        Self {
            id: config.id.clone(),
            url: config.url.clone(),
            token: config.token.clone(),
            authentication: config.authentication.as_ref().map(|authentication| {
                PushNotificationAuthenticationInfo {
                    schemes: authentication.schemes.clone(),
                    credentials: authentication.credentials.clone(),
                }
            }),
        }
    }
}

impl From<TaskPushNotificationConfig> for model::TaskPushNotificationConfig {
    fn from(config: TaskPushNotificationConfig) -> Self {
        Self {
            task_id: config.task_id,
            config: config.push_notification_config.into(),
        }
    }
}

impl From<&model::TaskPushNotificationConfig> for TaskPushNotificationConfig {
    fn from(config: &model::TaskPushNotificationConfig) -> Self {
        Self {
            task_id: config.task_id.clone(),
            push_notification_config: (&config.config).into(),
        }
    }
}

impl From<TaskQueryParams> for model::GetTaskParams {
    fn from(params: TaskQueryParams) -> Self {
        Self {
            id: params.id,
            history_length: params.history_length,
            metadata: params.metadata,
        }
    }
}

impl From<&model::GetTaskParams> for TaskQueryParams {
    fn from(params: &model::GetTaskParams) -> Self {
        Self {
            id: params.id.clone(),
            history_length: params.history_length,
            metadata: params.metadata.clone(),
        }
    }
}

impl From<TaskIdParams> for model::TaskIdParams {
    fn from(params: TaskIdParams) -> Self {
        Self {
            id: params.id,
            metadata: params.metadata,
        }
    }
}

impl From<&model::TaskIdParams> for TaskIdParams {
    fn from(params: &model::TaskIdParams) -> Self {
        Self {
            id: params.id.clone(),
            metadata: params.metadata.clone(),
        }
    }
}
