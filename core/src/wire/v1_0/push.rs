//! Push notifications: the flat `TaskPushNotificationConfig` and its `AuthenticationInfo`.

use serde::{Deserialize, Serialize};

use super::de as helpers;
use crate::model;

/// A push-notification configuration: flat in v1.0 (no nested config object).
///
/// The params and the result of `CreateTaskPushNotificationConfig`, and the
/// `taskPushNotificationConfig` of a send (where `taskId` is left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfig {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `id`: the configuration's id.
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub id: Option<String>,
    /// `taskId`: the task the configuration belongs to.
    #[serde(
        default,
        alias = "task_id",
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub task_id: Option<String>,
    /// `url` (required, not empty): the client's webhook.
    #[serde(deserialize_with = "helpers::required_id")]
    pub url: String,
    /// `token`: a token the client checks on each notification.
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub token: Option<String>,
    /// `authentication`: how the agent authenticates to the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<AuthenticationInfo>,
}

impl From<TaskPushNotificationConfig> for model::PushNotificationConfig {
    fn from(config: TaskPushNotificationConfig) -> Self {
        Self {
            id: config.id,
            url: config.url,
            token: config.token,
            authentication: config.authentication.map(Into::into),
        }
    }
}

impl From<&model::PushNotificationConfig> for TaskPushNotificationConfig {
    fn from(config: &model::PushNotificationConfig) -> Self {
        Self {
            tenant: None,
            id: config.id.clone(),
            task_id: None,
            url: config.url.clone(),
            token: config.token.clone(),
            authentication: config.authentication.as_ref().map(Into::into),
        }
    }
}

impl From<TaskPushNotificationConfig> for model::TaskPushNotificationConfig {
    fn from(mut config: TaskPushNotificationConfig) -> Self {
        Self {
            task_id: config.task_id.take().unwrap_or_default(),
            config: config.into(),
        }
    }
}

impl From<&model::TaskPushNotificationConfig> for TaskPushNotificationConfig {
    fn from(config: &model::TaskPushNotificationConfig) -> Self {
        Self {
            task_id: Some(config.task_id.clone()),
            ..(&config.config).into()
        }
    }
}

/// How the agent authenticates to a webhook: one HTTP authentication `scheme` (such as
/// `Bearer`) and optional `credentials`.
///
/// Reading also tolerates the pre-release `schemes: ["Bearer"]` (used by the
/// specification's own example) when `scheme` is absent; its first entry is the scheme.
/// Writing from the model, whose schemes are a list, writes the first one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "AuthenticationFields")]
pub struct AuthenticationInfo {
    /// `scheme` (required, not empty).
    pub scheme: String,
    /// `credentials`.
    #[serde(skip_serializing_if = "helpers::is_unset")]
    pub credentials: Option<String>,
}

#[derive(Deserialize)]
struct AuthenticationFields {
    #[serde(default, deserialize_with = "helpers::optional_string")]
    scheme: Option<String>,
    #[serde(default, deserialize_with = "helpers::null_as_default")]
    schemes: Vec<String>,
    #[serde(default, deserialize_with = "helpers::optional_string")]
    credentials: Option<String>,
}

impl TryFrom<AuthenticationFields> for AuthenticationInfo {
    type Error = &'static str;

    fn try_from(fields: AuthenticationFields) -> Result<Self, Self::Error> {
        let legacy = fields.schemes.into_iter().find(|scheme| !scheme.is_empty());
        match fields.scheme.or(legacy) {
            Some(scheme) => Ok(Self {
                scheme,
                credentials: fields.credentials,
            }),
            None => Err(
                "authentication needs a non-empty `scheme` (an HTTP authentication scheme such as \"Bearer\")",
            ),
        }
    }
}

impl From<AuthenticationInfo> for model::PushAuthentication {
    fn from(info: AuthenticationInfo) -> Self {
        Self {
            schemes: vec![info.scheme],
            credentials: info.credentials,
        }
    }
}

impl From<&model::PushAuthentication> for AuthenticationInfo {
    fn from(authentication: &model::PushAuthentication) -> Self {
        Self {
            scheme: authentication.schemes.first().cloned().unwrap_or_default(),
            credentials: authentication.credentials.clone(),
        }
    }
}

/// Params of `GetTaskPushNotificationConfig` and `DeleteTaskPushNotificationConfig`:
/// `{tenant?, taskId, id}`, both ids required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPushNotificationConfigRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `taskId` (required, not empty): the task.
    #[serde(alias = "task_id", deserialize_with = "helpers::required_id")]
    pub task_id: String,
    /// `id` (required, not empty): the configuration.
    #[serde(deserialize_with = "helpers::required_id")]
    pub id: String,
}

impl From<TaskPushNotificationConfigRequest> for model::PushConfigId {
    fn from(request: TaskPushNotificationConfigRequest) -> Self {
        Self {
            task_id: request.task_id,
            config_id: Some(request.id),
        }
    }
}

/// An id without a configuration writes an empty `id`, which a server refuses.
impl From<&model::PushConfigId> for TaskPushNotificationConfigRequest {
    fn from(id: &model::PushConfigId) -> Self {
        Self {
            tenant: None,
            task_id: id.task_id.clone(),
            id: id.config_id.clone().unwrap_or_default(),
        }
    }
}

/// Params of `ListTaskPushNotificationConfigs`: `{tenant?, taskId, pageSize?, pageToken?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsRequest {
    /// `tenant`: accepted and ignored (the model has no tenant).
    #[serde(
        default,
        deserialize_with = "helpers::optional_string",
        skip_serializing_if = "helpers::is_unset"
    )]
    pub tenant: Option<String>,
    /// `taskId` (required, not empty): the task.
    #[serde(alias = "task_id", deserialize_with = "helpers::required_id")]
    pub task_id: String,
    /// `pageSize`: from 1 to 100 (absent: every configuration).
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
}

impl From<ListTaskPushNotificationConfigsRequest> for model::ListPushConfigsParams {
    fn from(request: ListTaskPushNotificationConfigsRequest) -> Self {
        Self {
            task_id: request.task_id,
            page_size: request.page_size,
            page_token: request.page_token,
        }
    }
}

impl From<&model::ListPushConfigsParams> for ListTaskPushNotificationConfigsRequest {
    fn from(params: &model::ListPushConfigsParams) -> Self {
        Self {
            tenant: None,
            task_id: params.task_id.clone(),
            page_size: params.page_size,
            page_token: params.page_token.clone(),
        }
    }
}

/// The result of `ListTaskPushNotificationConfigs`: `{configs, nextPageToken}`, both always
/// written (`nextPageToken` empty on the last page), as a list of tasks writes its members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigsResponse {
    /// `configs`: this page's configurations.
    #[serde(default, deserialize_with = "helpers::null_as_default")]
    pub configs: Vec<TaskPushNotificationConfig>,
    /// `nextPageToken`: empty when this is the last page.
    #[serde(
        default,
        alias = "next_page_token",
        deserialize_with = "helpers::null_as_default"
    )]
    pub next_page_token: String,
}

impl From<&model::ListPushConfigsResult> for ListTaskPushNotificationConfigsResponse {
    fn from(result: &model::ListPushConfigsResult) -> Self {
        Self {
            configs: result.configs.iter().map(Into::into).collect(),
            next_page_token: result.next_page_token.clone(),
        }
    }
}

impl From<ListTaskPushNotificationConfigsResponse> for model::ListPushConfigsResult {
    fn from(response: ListTaskPushNotificationConfigsResponse) -> Self {
        Self {
            configs: response.configs.into_iter().map(Into::into).collect(),
            next_page_token: response.next_page_token,
        }
    }
}
