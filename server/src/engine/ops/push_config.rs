//! The push-notification configuration methods of both versions, and the configuration a
//! send may carry.
//!
//! A configuration belongs to its task: another owner's task, or one that does not exist,
//! is -32001 for every method, as for `GetTask`. A configuration that does not exist is
//! -32001 too (its task has none of that id), except for a delete, which is idempotent
//! (A2A v1.0 §3.1.10). A webhook URL the host may not call is -32602 with the reason.

use futures_util::future::{Either, ready};

use crate::agent::RequestContext;
use crate::engine::request::Request;
use crate::engine::respond::{self, success};
use crate::engine::{Engine, Reply};
use crate::push::{ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, Push, StoredConfig};
use crate::tasks::SharedStored;
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{
    ListPushConfigsResult, PushConfigId, PushNotificationConfig, TaskPushNotificationConfig,
};
use a2a_lambda_core::version::{Operation, ProtocolVersion};
use a2a_lambda_core::wire::{v0_3, v1_0};

/// Longest webhook URL a configuration may hold.
const MAX_URL_LEN: usize = 2048;
/// Longest token, credentials or configuration id.
const MAX_SECRET_LEN: usize = 4096;
/// Longest configuration id.
const MAX_ID_LEN: usize = 256;

/// Refuses a push method when this agent sends no push notifications.
pub(in crate::engine) fn require_push(engine: &Engine, method: &str) -> Result<(), Error> {
    match engine.deps.push {
        Some(_) => Ok(()),
        None => Err(push_not_supported(method)),
    }
}

/// Reads the params of a push-configuration method (without serving it).
pub(in crate::engine) fn check_params(req: &Request<'_>) -> Result<(), Error> {
    let params = req.params;
    match (req.version, req.operation) {
        (ProtocolVersion::V0_3, Operation::SetPushConfig) => {
            v0_3::parse_task_push_config_params(params).map(drop)
        }
        (ProtocolVersion::V0_3, Operation::GetPushConfig) => {
            v0_3::parse_get_push_config_params(params).map(drop)
        }
        (ProtocolVersion::V0_3, Operation::ListPushConfigs) => {
            v0_3::parse_list_push_configs_params(params).map(drop)
        }
        (ProtocolVersion::V0_3, _) => v0_3::parse_delete_push_config_params(params).map(drop),
        (_, Operation::SetPushConfig) => v1_0::parse_task_push_config_params(params).map(drop),
        (_, Operation::ListPushConfigs) => v1_0::parse_list_push_configs_params(params).map(drop),
        (_, _) => v1_0::parse_push_config_id_params(params).map(drop),
    }
}

/// Serves one push-configuration method.
pub(in crate::engine) async fn run(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    let Request {
        version,
        operation,
        method,
        params,
        frame: id,
        call,
    } = req;
    let Some(push) = &engine.deps.push else {
        return Err(push_not_supported(method));
    };
    let body = match operation {
        Operation::SetPushConfig => {
            let (params, at) = match version {
                ProtocolVersion::V0_3 => (
                    v0_3::parse_task_push_config_params(params)?,
                    "params.pushNotificationConfig",
                ),
                ProtocolVersion::V1_0 => (v1_0::parse_task_push_config_params(params)?, "params"),
            };
            let stored = super::load_stored(engine, &params.task_id, &call.owner).await?;
            let mark = Mark {
                version: stored.version,
                status_at: stored.task.status.timestamp.clone().unwrap_or_default(),
            };
            let config = keep_config(
                push,
                version,
                &params.task_id,
                params.config,
                Some(mark),
                at,
            )
            .await?;
            let created = TaskPushNotificationConfig {
                task_id: params.task_id,
                config,
            };
            respond::push_config(version, id, &created)
        }
        Operation::GetPushConfig => {
            let wanted = match version {
                ProtocolVersion::V0_3 => v0_3::parse_get_push_config_params(params)?,
                ProtocolVersion::V1_0 => v1_0::parse_push_config_id_params(params)?,
            };
            super::load_stored(engine, &wanted.task_id, &call.owner).await?;
            let configs = configs_of(push, &wanted.task_id).await?;
            let found = match &wanted.config_id {
                Some(config_id) => configs.iter().find(|config| config.id() == config_id),
                None => configs
                    .iter()
                    .find(|config| config.id() == wanted.task_id)
                    .or_else(|| configs.first()),
            };
            let Some(found) = found else {
                return Err(config_not_found(&wanted));
            };
            let found = TaskPushNotificationConfig {
                task_id: wanted.task_id,
                config: found.config.clone(),
            };
            respond::push_config(version, id, &found)
        }
        Operation::ListPushConfigs => {
            let params = match version {
                ProtocolVersion::V0_3 => v0_3::parse_list_push_configs_params(params)?,
                ProtocolVersion::V1_0 => v1_0::parse_list_push_configs_params(params)?,
            };
            super::load_stored(engine, &params.task_id, &call.owner).await?;
            let configs = configs_of(push, &params.task_id).await?;
            let page = page(
                &params.task_id,
                configs,
                params.page_size,
                params.page_token,
            )?;
            respond::push_config_list(version, id, &page)
        }
        Operation::DeletePushConfig => {
            let wanted = match version {
                ProtocolVersion::V0_3 => v0_3::parse_delete_push_config_params(params)?,
                ProtocolVersion::V1_0 => v1_0::parse_push_config_id_params(params)?,
            };
            super::load_stored(engine, &wanted.task_id, &call.owner).await?;
            let config_id = wanted.config_id.as_deref().unwrap_or_default();
            push.store()
                .delete_config(&wanted.task_id, config_id)
                .await
                .map_err(|error| super::internal(&error))?;
            match version {
                ProtocolVersion::V0_3 => success(id, &()),
                ProtocolVersion::V1_0 => success(id, &serde_json::Map::new()),
            }
        }
        _ => return Err(Error::bare(Refusal::Internal)),
    };
    Ok(req.json(body))
}

/// Keeps the configuration a send carries, for the task it starts or continues,
/// before its agent runs: every status change from then on is told. Without one, the
/// preparation passes through as it is.
pub(super) fn attach_push<'a>(
    engine: &'a Engine,
    version: ProtocolVersion,
    config: Option<PushNotificationConfig>,
    prepared: (RequestContext, Option<SharedStored>),
) -> impl Future<Output = Result<(RequestContext, Option<SharedStored>), Error>> + Send + 'a {
    let Some(config) = config else {
        return Either::Left(ready(Ok(prepared)));
    };
    Either::Right(Box::pin(async move {
        let Some(push) = &engine.deps.push else {
            return Err(Error::new(
                Refusal::PushNotSupported,
                "params.configuration: this agent does not send push notifications \
                 (capabilities.pushNotifications is false); send without a push \
                 notification config",
            ));
        };
        let at = match version {
            ProtocolVersion::V0_3 => "params.configuration.pushNotificationConfig",
            ProtocolVersion::V1_0 => "params.configuration.taskPushNotificationConfig",
        };
        let task_id = prepared.0.task_id.clone();
        keep_config(push, version, &task_id, config, None, at).await?;
        Ok(prepared)
    }))
}

/// Checks a configuration, gives it an id if it has none, and stores it; the
/// configuration as stored.
async fn keep_config(
    push: &Push,
    version: ProtocolVersion,
    task_id: &str,
    mut config: PushNotificationConfig,
    mark: Option<Mark>,
    at: &str,
) -> Result<PushNotificationConfig, Error> {
    check_config(&config, at)?;
    match crate::push::target::check_url(&config.url, push.targets()).await {
        Ok(_) => {}
        // A name that does not resolve now cannot point anywhere now; each delivery
        // resolves it again and checks what it finds before connecting.
        Err(reason) if !reason.is_refusal() => {
            tracing::info!(task_id, %reason, "push config kept with a webhook host that does not resolve now");
        }
        Err(reason) => return Err(Error::invalid_params(format!("{at}.{reason}"))),
    }
    if config.id.as_deref().is_none_or(str::is_empty) {
        // A v0.3 configuration without an id takes the task's (a v0.3 get without
        // one finds it); a v1.0 one gets a new id.
        config.id = Some(match version {
            ProtocolVersion::V0_3 => task_id.to_owned(),
            ProtocolVersion::V1_0 => a2a_lambda_core::model::new_id(),
        });
    }
    let stored = StoredConfig {
        config: config.clone(),
        version,
        mark,
    };
    push.store()
        .put_config(task_id, stored)
        .await
        .map_err(|error| match error {
            ConfigWriteError::Full(_) => Error::invalid_params(format!(
                "{at}: task {task_id} already holds {MAX_CONFIGS_PER_TASK} push \
                 notification configs, the most a task may hold; delete one first"
            )),
            ConfigWriteError::Store(error) => super::internal(&error),
        })?;
    Ok(config)
}

/// The checks that need no network: sizes, and header-safe token, scheme and credentials.
fn check_config(config: &PushNotificationConfig, at: &str) -> Result<(), Error> {
    let refuse =
        |member: &str, why: &str| Err(Error::invalid_params(format!("{at}.{member}: {why}")));
    if config.url.len() > MAX_URL_LEN {
        return refuse("url", &format!("longer than {MAX_URL_LEN} bytes"));
    }
    if let Some(id) = &config.id
        && (id.len() > MAX_ID_LEN || id.chars().any(char::is_control))
    {
        return refuse(
            "id",
            &format!("at most {MAX_ID_LEN} bytes, without control characters"),
        );
    }
    if let Some(token) = &config.token
        && !header_safe(token)
    {
        return refuse(
            "token",
            &format!("at most {MAX_SECRET_LEN} bytes of visible ASCII (it is sent as a header)"),
        );
    }
    if let Some(authentication) = &config.authentication {
        let scheme = authentication.schemes.first().map(String::as_str);
        match scheme {
            Some(scheme) if !scheme.is_empty() && scheme.chars().all(is_token_char) => {}
            _ => {
                return refuse(
                    "authentication",
                    "needs an HTTP authentication scheme such as \"Bearer\" (letters, digits and !#$%&'*+.^_`|~-)",
                );
            }
        }
        if let Some(credentials) = &authentication.credentials
            && !header_safe(credentials)
        {
            return refuse(
                "authentication.credentials",
                &format!(
                    "at most {MAX_SECRET_LEN} bytes of visible ASCII (they are sent in the Authorization header)"
                ),
            );
        }
    }
    Ok(())
}

/// Fits in a header value: visible ASCII and spaces, bounded.
fn header_safe(value: &str) -> bool {
    value.len() <= MAX_SECRET_LEN && value.bytes().all(|byte| (0x20..0x7f).contains(&byte))
}

/// An RFC 9110 token character (an authentication scheme is a token).
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

async fn configs_of(push: &Push, task_id: &str) -> Result<Vec<StoredConfig>, Error> {
    push.store()
        .configs(task_id)
        .await
        .map_err(|error| super::internal(&error))
}

fn config_not_found(wanted: &PushConfigId) -> Error {
    let task_id = &wanted.task_id;
    let message = match &wanted.config_id {
        Some(config_id) => {
            format!("task {task_id:?} has no push notification config with id {config_id:?}")
        }
        None => format!("task {task_id:?} has no push notification config"),
    };
    let mut refused =
        Error::new(Refusal::TaskNotFound, message).with_metadata("taskId", task_id.as_str());
    if let Some(config_id) = &wanted.config_id {
        refused = refused.with_metadata("configId", config_id.as_str());
    }
    refused
}

/// One page of configurations: `page_token` is the decimal offset a previous page gave.
fn page(
    task_id: &str,
    configs: Vec<StoredConfig>,
    page_size: Option<u32>,
    page_token: Option<String>,
) -> Result<ListPushConfigsResult, Error> {
    let start = match page_token.as_deref() {
        None | Some("") => 0,
        Some(token) => token
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= configs.len())
            .ok_or_else(|| {
                Error::invalid_params(format!(
                    "params.pageToken: {token:?} is not a token this agent issued"
                ))
            })?,
    };
    let size = page_size.map_or(usize::MAX, |size| size as usize);
    let end = start.saturating_add(size).min(configs.len());
    let next_page_token = if end < configs.len() {
        end.to_string()
    } else {
        String::new()
    };
    Ok(ListPushConfigsResult {
        configs: configs
            .into_iter()
            .skip(start)
            .take(end - start)
            .map(|config| TaskPushNotificationConfig {
                task_id: task_id.to_owned(),
                config: config.config,
            })
            .collect(),
        next_page_token,
    })
}

fn push_not_supported(method: &str) -> Error {
    Error::new(
        Refusal::PushNotSupported,
        format!(
            "{method}: this agent does not send push notifications \
             (capabilities.pushNotifications is false)"
        ),
    )
}
