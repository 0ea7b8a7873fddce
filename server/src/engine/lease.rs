//! The leases of the tasks this engine runs, on a store shared with other processes
//! ([`crate::tasks::lease`]).
//!
//! A runner's writes of a task at work carry the lease at no cost (the write is made
//! anyway); a runner that wrote nothing for [`LeaseTerms::renew_after`] renews it alone
//! (one write). A read of a task at work whose lease expired fails it, once, by a write
//! conditional on the version it read: a runner that renewed meanwhile made a new version,
//! so the write loses, and the task is read again.

use std::sync::Arc;

use tokio::time::Instant;

use super::runner::{self, LiveTask, RunnerDeps};
use crate::agent::AgentEvent;
use crate::owner::Owner;
use crate::tasks::{self, Lease, LeaseTerms, Leased, SharedStored, StoreError};
use a2a_lambda_core::model::{Message, Role, StreamEvent, Task, TaskState};

/// The status message of a task failed because its runner's lease expired.
pub(crate) const HOST_STOPPED: &str = "The agent's host stopped before the task finished.";

/// How often a read tries again when a write keeps beating its failure of a task.
const RETRIES: usize = 3;

/// What an engine on a store with leases needs to hold and judge them.
#[derive(Debug)]
pub(crate) struct Leasing {
    /// This engine instance's id: the holder of its leases.
    pub holder: Arc<str>,
    /// The store's lease terms.
    pub terms: LeaseTerms,
}

impl Leasing {
    /// The lease a write of `task` carries: one for a task at work (submitted, working),
    /// none for a task that waits for input or is over.
    pub(crate) fn lease_for(&self, task: &Task) -> Option<Lease> {
        (!task.status.state.ends_stream())
            .then(|| Lease::from_now(&self.holder, self.terms.duration))
    }
}

/// Writes `task` as [`TaskStore::put_logged`](crate::tasks::TaskStore::put_logged) does,
/// with `events` for its log and the lease it carries now (none without [`Leasing`]); the new version, and when the
/// lease was written (`None`: the task carries none).
pub(crate) async fn put(
    deps: &RunnerDeps,
    task: &Arc<Task>,
    owner: &Owner,
    expected: Option<u64>,
    events: &[StreamEvent],
) -> Result<(u64, Option<Instant>), StoreError> {
    let lease = deps
        .leasing
        .as_ref()
        .and_then(|leasing| leasing.lease_for(task));
    let written = lease.as_ref().map(|_| Instant::now());
    let version = if lease.is_none() && events.is_empty() {
        deps.store.put_shared(task, owner, expected).await?
    } else {
        deps.store
            .put_logged(task, owner, expected, events, lease.as_ref())
            .await?
    };
    Ok((version, written))
}

impl LiveTask {
    /// When the runner renews the task's lease next (`None`: it carries none).
    pub(crate) fn renewal_due(&self, deps: &RunnerDeps) -> Option<Instant> {
        let leasing = deps.leasing.as_ref()?;
        let written = *self
            .lease_written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        written.map(|at| at + leasing.terms.renew_after())
    }

    /// Records when the task's lease was last written (`None`: it carries none now).
    pub(crate) fn set_lease_written(&self, at: Option<Instant>) {
        *self
            .lease_written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = at;
    }
}

/// Renews the lease of `live`'s task, unless a write since made it needless, under the
/// task's lock. When another writer changed the task meanwhile, the fresh task is read:
/// one that ended elsewhere (a cancel, a reader that found the lease expired) is adopted
/// and its agent told to stop.
pub(crate) async fn renew(deps: &RunnerDeps, live: &LiveTask, request_id: &str) {
    let Some(leasing) = &deps.leasing else {
        return;
    };
    let mut stored = live.state.lock().await;
    for _ in 0..RETRIES {
        if stored.task.status.state.ends_stream() {
            live.set_lease_written(None);
            return;
        }
        if live
            .renewal_due(deps)
            .is_some_and(|due| Instant::now() < due)
        {
            return;
        }
        let lease = Lease::from_now(&leasing.holder, leasing.terms.duration);
        let written = Instant::now();
        match deps
            .store
            .renew_lease(&stored.task.id, stored.version, &lease)
            .await
        {
            Ok(version) => {
                stored.version = version;
                live.set_lease_written(Some(written));
                return;
            }
            Err(StoreError::Conflict(_)) => match deps.store.get_shared(&stored.task.id).await {
                Ok(Some(fresh)) => {
                    let ended_elsewhere = fresh.task.status.state.is_terminal();
                    *stored = fresh;
                    if ended_elsewhere {
                        live.set_lease_written(None);
                        runner::adopt_ended(deps, live, &stored, request_id);
                        return;
                    }
                }
                Ok(None) | Err(_) => break,
            },
            Err(error) => {
                tracing::warn!(request_id, task_id = stored.task.id, %error, "renewing a task's lease failed");
                break;
            }
        }
    }
    // Tried again after another interval: the lease outlives two missed renewals.
    live.set_lease_written(Some(Instant::now()));
}

/// The stored task `task_id` when it is `owner`'s; a task at work whose lease expired
/// (its runner's process is gone) is failed first, once, with [`HOST_STOPPED`].
///
/// The lease of a task this engine runs is never judged here: its runner is alive.
pub(crate) async fn load(
    deps: &RunnerDeps,
    task_id: &str,
    owner: &Owner,
) -> Result<Option<SharedStored>, StoreError> {
    for _ in 0..RETRIES {
        let Some(Leased { stored, lease }) = deps.store.get_leased(task_id).await? else {
            return Ok(None);
        };
        if stored.owner != *owner {
            return Ok(None);
        }
        let (Some(leasing), Some(lease)) = (&deps.leasing, lease) else {
            return Ok(Some(stored));
        };
        let abandoned = !stored.task.status.state.ends_stream()
            && lease.is_expired_at(tasks::lease::unix_millis(), leasing.terms.grace())
            && !(lease.holder == leasing.holder && deps.registry.get(task_id).is_some());
        if !abandoned {
            return Ok(Some(stored));
        }
        let mut task = Task::clone(&stored.task);
        let mut message =
            Message::text(Role::Agent, a2a_lambda_core::model::new_id(), HOST_STOPPED);
        message.task_id = None;
        let failure = AgentEvent::status(TaskState::Failed, Some(message));
        if tasks::apply_quietly(&mut task, failure).is_err() {
            return Ok(Some(stored));
        }
        let task = Arc::new(task);
        // Boxed: only a task whose runner's lease expired gets here, and every read's
        // future stays small.
        let ended = Box::pin(super::at_rest::end(
            deps,
            &task,
            &stored.owner,
            stored.version,
        ));
        match ended.await {
            Ok(version) => {
                tracing::warn!(
                    task_id,
                    holder = &*lease.holder,
                    expired_at_ms = lease.expires_at_ms,
                    "task failed: the lease of its runner expired"
                );
                return Ok(Some(SharedStored {
                    task,
                    version,
                    owner: stored.owner,
                }));
            }
            Err(StoreError::Conflict(_)) => {}
            Err(error) => return Err(error),
        }
    }
    Err(StoreError::Conflict(task_id.to_owned()))
}
