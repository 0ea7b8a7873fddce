//! Push-notification configurations of a task: create, get, list and delete, in either
//! version (A2A specification v1.0 §3.1.7–3.1.10 and §9.4.7; v0.3.0 §7.5–7.8).
//!
//! | operation | A2A 0.3 | A2A 1.0 |
//! |---|---|---|
//! | create | `tasks/pushNotificationConfig/set` `{taskId, pushNotificationConfig}` | `CreateTaskPushNotificationConfig`, the flat config with `taskId` |
//! | get | `tasks/pushNotificationConfig/get` `{id, pushNotificationConfigId}` | `GetTaskPushNotificationConfig` `{taskId, id}` |
//! | list | `tasks/pushNotificationConfig/list` `{id}`: a bare array | `ListTaskPushNotificationConfigs` `{taskId, pageToken?}`: `{configs, nextPageToken}`, pages followed |
//! | delete | `tasks/pushNotificationConfig/delete` `{id, pushNotificationConfigId}`: `null` | `DeleteTaskPushNotificationConfig` `{taskId, id}`: `{}` |
//!
//! A card whose `capabilities.pushNotifications` is not true makes each of them
//! [`Error::Unsupported`] before any request: an agent whose card's
//! `capabilities.pushNotifications` is false or absent must answer
//! PushNotificationNotSupportedError (-32003) to each of them (A2A specification v1.0
//! §3.3.4, "Capability Validation").

use a2a_lambda_core::wire::{v0_3, v1_0};
use a2a_lambda_core::{Operation, ProtocolVersion, model};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::client::Client;
use crate::error::Error;

/// Most pages a list follows: a server that keeps handing out tokens is an invalid answer,
/// not an endless loop.
pub const MAX_LIST_PAGES: usize = 1_000;

impl Client {
    /// Creates (A2A 1.0) or sets (A2A 0.3) a push-notification configuration of task
    /// `task_id`; returns it as the agent keeps it (with the id it chose when `config.id`
    /// is `None`).
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), a2a_lambda_client::Error> {
    /// use a2a_lambda_client::{Client, model};
    ///
    /// let client = Client::connect("http://127.0.0.1:9000/").await?;
    /// let config = model::PushNotificationConfig {
    ///     id: None,
    ///     url: "http://127.0.0.1:9000/_emulator/webhooks/mine".to_owned(),
    ///     token: Some("check-me".to_owned()),
    ///     authentication: None,
    /// };
    /// let kept = client.create_push_config("task-1", &config).await?;
    /// println!("config {:?} of task {}", kept.config.id, kept.task_id);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the card says the agent has no push notifications;
    /// otherwise as [`Client::send`] (-32001 for an unknown task, -32602 for a URL the
    /// agent refuses, -32003 when push notifications are not supported).
    pub async fn create_push_config(
        &self,
        task_id: &str,
        config: &model::PushNotificationConfig,
    ) -> Result<model::TaskPushNotificationConfig, Error> {
        self.require_push("create a push-notification config")?;
        let config = model::TaskPushNotificationConfig {
            task_id: task_id.to_owned(),
            config: config.clone(),
        };
        let params = match self.version() {
            ProtocolVersion::V0_3 => to_value(&v0_3::TaskPushNotificationConfig::from(&config)),
            _ => to_value(&v1_0::TaskPushNotificationConfig::from(&config)),
        };
        let raw = self.unary(Operation::SetPushConfig, params).await?;
        self.read_config(task_id, &raw)
    }

    /// Gets push-notification configuration `config_id` of task `task_id`.
    ///
    /// # Errors
    /// As [`Client::create_push_config`] (-32001 for an unknown task or configuration).
    pub async fn get_push_config(
        &self,
        task_id: &str,
        config_id: &str,
    ) -> Result<model::TaskPushNotificationConfig, Error> {
        self.require_push("get a push-notification config")?;
        let id = config_id_of(task_id, config_id);
        let params = match self.version() {
            ProtocolVersion::V0_3 => {
                to_value(&v0_3::GetTaskPushNotificationConfigParams::from(&id))
            }
            _ => to_value(&v1_0::TaskPushNotificationConfigRequest::from(&id)),
        };
        let raw = self.unary(Operation::GetPushConfig, params).await?;
        self.read_config(task_id, &raw)
    }

    /// Every push-notification configuration of task `task_id`, oldest first (in A2A 1.0
    /// each page is asked for in turn, up to [`MAX_LIST_PAGES`]).
    ///
    /// # Errors
    /// As [`Client::create_push_config`]; an invalid answer when a 1.0 server hands out a
    /// page token again or more than [`MAX_LIST_PAGES`] pages.
    pub async fn list_push_configs(
        &self,
        task_id: &str,
    ) -> Result<Vec<model::TaskPushNotificationConfig>, Error> {
        self.require_push("list push-notification configs")?;
        let mut params = model::ListPushConfigsParams {
            task_id: task_id.to_owned(),
            ..Default::default()
        };
        if self.version() == ProtocolVersion::V0_3 {
            let params = to_value(&v0_3::ListTaskPushNotificationConfigParams::from(&params));
            let raw = self.unary(Operation::ListPushConfigs, params).await?;
            let configs: Vec<v0_3::TaskPushNotificationConfig> = self.read(&raw)?;
            return Ok(configs.into_iter().map(Into::into).collect());
        }
        let mut configs = Vec::new();
        let mut seen_tokens = Vec::new();
        for _ in 0..MAX_LIST_PAGES {
            let request = to_value(&v1_0::ListTaskPushNotificationConfigsRequest::from(&params));
            let raw = self.unary(Operation::ListPushConfigs, request).await?;
            let page: v1_0::ListTaskPushNotificationConfigsResponse = self.read(&raw)?;
            let page = model::ListPushConfigsResult::from(page);
            configs.extend(
                page.configs
                    .into_iter()
                    .map(|config| with_task(task_id, config)),
            );
            if page.next_page_token.is_empty() {
                return Ok(configs);
            }
            if seen_tokens.contains(&page.next_page_token) {
                return Err(self.invalid(format!(
                    "the list handed out page token {:?} twice",
                    page.next_page_token
                )));
            }
            seen_tokens.push(page.next_page_token.clone());
            params.page_token = Some(page.next_page_token);
        }
        Err(self.invalid(format!("the list went on past {MAX_LIST_PAGES} pages")))
    }

    /// Deletes push-notification configuration `config_id` of task `task_id`.
    ///
    /// # Errors
    /// As [`Client::create_push_config`] (-32001 for an unknown task or configuration).
    pub async fn delete_push_config(&self, task_id: &str, config_id: &str) -> Result<(), Error> {
        self.require_push("delete a push-notification config")?;
        let id = config_id_of(task_id, config_id);
        let params = match self.version() {
            ProtocolVersion::V0_3 => {
                to_value(&v0_3::DeleteTaskPushNotificationConfigParams::from(&id))
            }
            _ => to_value(&v1_0::TaskPushNotificationConfigRequest::from(&id)),
        };
        // The result (0.3 `null`, 1.0 `{}`) says nothing more than that it succeeded.
        self.unary(Operation::DeletePushConfig, params).await?;
        Ok(())
    }

    /// [`Error::Unsupported`] when the card says `capabilities.pushNotifications` is not
    /// true (an agent reached without a card is asked anyway).
    fn require_push(&self, operation: &'static str) -> Result<(), Error> {
        match self.card() {
            Some(card) if !card.push_notifications => Err(Error::Unsupported {
                operation,
                reason: format!(
                    "the agent card of {:?} does not say capabilities.pushNotifications is true",
                    card.name
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Reads a create's or get's result in the version spoken.
    fn read_config(
        &self,
        task_id: &str,
        raw: &RawValue,
    ) -> Result<model::TaskPushNotificationConfig, Error> {
        let config = match self.version() {
            ProtocolVersion::V0_3 => self.read::<v0_3::TaskPushNotificationConfig>(raw)?.into(),
            _ => self.read::<v1_0::TaskPushNotificationConfig>(raw)?.into(),
        };
        Ok(with_task(task_id, config))
    }

    fn read<T: DeserializeOwned>(&self, raw: &RawValue) -> Result<T, Error> {
        serde_json::from_str(raw.get()).map_err(|error| self.invalid(format!("result: {error}")))
    }
}

/// `config`, naming `task_id` when the answer left its task out (`taskId` is optional in
/// a 1.0 config).
fn with_task(
    task_id: &str,
    mut config: model::TaskPushNotificationConfig,
) -> model::TaskPushNotificationConfig {
    if config.task_id.is_empty() {
        config.task_id = task_id.to_owned();
    }
    config
}

fn config_id_of(task_id: &str, config_id: &str) -> model::PushConfigId {
    model::PushConfigId {
        task_id: task_id.to_owned(),
        config_id: Some(config_id.to_owned()),
    }
}

/// Our own wire types always serialize (string keys, no floats); should one not, the
/// params go out as `{}` and the server names what is missing.
fn to_value(params: &impl Serialize) -> Value {
    serde_json::to_value(params).unwrap_or_else(|error| {
        tracing::error!(%error, "serializing params failed");
        Value::Object(serde_json::Map::new())
    })
}

/// A push-notification configuration as `version` writes it (what `a2a push … --json`
/// prints): 0.3 `{taskId, pushNotificationConfig}`, 1.0 the flat config.
pub fn config_json(version: ProtocolVersion, config: &model::TaskPushNotificationConfig) -> Value {
    match version {
        ProtocolVersion::V0_3 => to_value(&v0_3::task_push_config(config)),
        _ => to_value(&v1_0::task_push_config(config)),
    }
}

/// A task's configurations as `version` writes a list of them: 0.3 a bare array, 1.0
/// `{configs, nextPageToken}` (every page read, so the token is empty).
pub fn list_json(version: ProtocolVersion, configs: &[model::TaskPushNotificationConfig]) -> Value {
    let result = model::ListPushConfigsResult {
        configs: configs.to_vec(),
        next_page_token: String::new(),
    };
    match version {
        ProtocolVersion::V0_3 => to_value(&v0_3::push_config_list(&result)),
        _ => to_value(&v1_0::push_config_list(&result)),
    }
}
