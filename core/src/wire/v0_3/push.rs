//! v0.3 push-notification params beyond `…/set`: `tasks/pushNotificationConfig/get`,
//! `…/list` and `…/delete` (a2a-sdk 0.3's `GetTaskPushNotificationConfigParams`,
//! `ListTaskPushNotificationConfigParams`, `DeleteTaskPushNotificationConfigParams`).

use serde::{Deserialize, Serialize};

use super::de::non_empty;
use crate::model::{self, Metadata};

/// Params of `tasks/pushNotificationConfig/get`: `{id, pushNotificationConfigId?, metadata?}`.
///
/// `id` names the task. Without `pushNotificationConfigId` the task's configuration whose
/// id is the task id is meant (the id a configuration set without one gets), else its
/// first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetTaskPushNotificationConfigParams {
    /// The task (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub id: String,
    /// The configuration's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notification_config_id: Option<String>,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Params of `tasks/pushNotificationConfig/list`: `{id, metadata?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListTaskPushNotificationConfigParams {
    /// The task (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub id: String,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Params of `tasks/pushNotificationConfig/delete`:
/// `{id, pushNotificationConfigId, metadata?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteTaskPushNotificationConfigParams {
    /// The task (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub id: String,
    /// The configuration to delete (must not be empty).
    #[serde(deserialize_with = "non_empty")]
    pub push_notification_config_id: String,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl From<GetTaskPushNotificationConfigParams> for model::PushConfigId {
    fn from(params: GetTaskPushNotificationConfigParams) -> Self {
        Self {
            task_id: params.id,
            config_id: params
                .push_notification_config_id
                .filter(|id| !id.is_empty()),
        }
    }
}

impl From<&model::PushConfigId> for GetTaskPushNotificationConfigParams {
    fn from(id: &model::PushConfigId) -> Self {
        Self {
            id: id.task_id.clone(),
            push_notification_config_id: id.config_id.clone(),
            metadata: None,
        }
    }
}

impl From<ListTaskPushNotificationConfigParams> for model::ListPushConfigsParams {
    fn from(params: ListTaskPushNotificationConfigParams) -> Self {
        Self {
            task_id: params.id,
            page_size: None,
            page_token: None,
        }
    }
}

/// v0.3 lists have no pages: the page size and token are dropped.
impl From<&model::ListPushConfigsParams> for ListTaskPushNotificationConfigParams {
    fn from(params: &model::ListPushConfigsParams) -> Self {
        Self {
            id: params.task_id.clone(),
            metadata: None,
        }
    }
}

impl From<DeleteTaskPushNotificationConfigParams> for model::PushConfigId {
    fn from(params: DeleteTaskPushNotificationConfigParams) -> Self {
        Self {
            task_id: params.id,
            config_id: Some(params.push_notification_config_id),
        }
    }
}

/// A delete names its configuration; a model id without one writes an empty id, which
/// the server refuses.
impl From<&model::PushConfigId> for DeleteTaskPushNotificationConfigParams {
    fn from(id: &model::PushConfigId) -> Self {
        Self {
            id: id.task_id.clone(),
            push_notification_config_id: id.config_id.clone().unwrap_or_default(),
            metadata: None,
        }
    }
}
