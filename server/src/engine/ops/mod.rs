//! The operations, one file each: it reads the request's params, runs the operation and
//! makes its reply. [`super::dispatch`] picks the one a request names; both bindings reach
//! the same function.
//!
//! What several operations share is here: reading a task for its owner, the task as a
//! client asked to see it, and the common refusals.

pub(super) mod cancel;
pub(super) mod card;
pub(super) mod get;
pub(super) mod list;
pub(super) mod push_config;
pub(super) mod send;
pub(super) mod stream;
pub(super) mod subscribe;

use std::borrow::Cow;
use std::sync::Arc;

use super::request::Request;
use super::{Engine, lease};
use crate::owner::Owner;
use crate::tasks::{self, SharedStored, StoreError};
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{Task, TaskIdParams};
use a2a_lambda_core::wire::{v0_3, v1_0};

/// The task `task_id`, when it is `owner`'s.
async fn load(engine: &Engine, task_id: &str, owner: &Owner) -> Result<Arc<Task>, Error> {
    load_stored(engine, task_id, owner)
        .await
        .map(|stored| stored.task)
}

/// The stored task, when it is `owner`'s: another owner's task is not found, as one
/// that does not exist. A task at work whose runner's lease expired (its process is
/// gone) is failed first ([`lease`]).
async fn load_stored(engine: &Engine, task_id: &str, owner: &Owner) -> Result<SharedStored, Error> {
    let deps = &engine.deps;
    let stored = lease::load(deps, task_id, owner)
        .await
        .map_err(|error| internal(&error))?
        .ok_or_else(|| task_not_found(task_id))?;
    if let Some(push) = &deps.push
        && deps.store.is_shared()
        && deps.registry.get(task_id).is_none()
    {
        push.touch(&stored);
    }
    Ok(stored)
}

/// The task as a client asked to see it: its last `history_length` messages (`None`: all);
/// a copy only when some are left out.
fn trimmed(task: &Task, history_length: Option<u32>) -> Cow<'_, Task> {
    match history_length {
        Some(keep) if task.history.len() > keep as usize => {
            Cow::Owned(tasks::view(task, history_length, true))
        }
        _ => Cow::Borrowed(task),
    }
}

/// The params of an operation on one task (cancel, subscribe).
pub(super) fn parse_task_id(req: &Request<'_>) -> Result<TaskIdParams, Error> {
    req.parse(v0_3::parse_task_id_params, v1_0::parse_task_id_params)
}

/// Refuses a streaming method when this agent does not stream.
pub(super) fn require_streaming(engine: &Engine, method: &str) -> Result<(), Error> {
    if engine.card.capabilities.streaming {
        Ok(())
    } else {
        Err(Error::new(
            Refusal::UnsupportedOperation,
            format!("{method}: this agent does not stream (capabilities.streaming is false)"),
        ))
    }
}

pub(super) fn not_served(method: &str) -> Error {
    Error::new(
        Refusal::UnsupportedOperation,
        format!("{method}: this agent does not serve this method"),
    )
}

fn task_not_found(task_id: &str) -> Error {
    Error::new(
        Refusal::TaskNotFound,
        format!("no task with id {task_id:?}"),
    )
    .with_metadata("taskId", task_id)
}

fn internal(error: &StoreError) -> Error {
    tracing::error!(%error, "task store failed");
    Error::new(
        Refusal::Internal,
        "the task store is unavailable; retry later",
    )
}
