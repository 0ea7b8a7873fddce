//! Ending a task that no runner of this engine holds: a cancel of a task waiting for
//! input, the failure of a task whose runner's lease expired.
//!
//! Every write of a task outside a runner goes through [`end`], which does what a
//! runner's writes do: the store (with the final status in the task's log, which a
//! subscriber on another instance reads), this engine's followers of the task (a
//! subscription to a task at rest follows it here: its stream is told, then ends), and
//! push notifications.

use std::sync::Arc;

use super::follow::{
    self,
    cursor::{Cursor, Sequenced},
};
use super::runner::RunnerDeps;
use crate::owner::Owner;
use crate::tasks::StoreError;
use a2a_lambda_core::model::Task;

/// Writes `task`, which its new status ends, if the stored task is still at version
/// `expected`; then tells its followers and push notifications. The version written.
///
/// # Errors
/// The store's: [`StoreError::Conflict`] when another writer changed the task first.
pub(crate) async fn end(
    deps: &RunnerDeps,
    task: &Arc<Task>,
    owner: &Owner,
    expected: u64,
) -> Result<u64, StoreError> {
    let ended = follow::final_update(task);
    let written = deps
        .store
        .put_logged(
            task,
            owner,
            Some(expected),
            std::slice::from_ref(&ended),
            None,
        )
        .await?;
    // Numbered as the log numbers it: a follower here and one reading the log on another
    // instance give it the same SSE id.
    let told = Sequenced {
        event: ended,
        at: Some(Cursor::at(written, 1)),
    };
    deps.registry.publish(&task.id, Ok(told), true);
    if let Some(push) = &deps.push {
        push.notify(task, written);
    }
    Ok(written)
}
