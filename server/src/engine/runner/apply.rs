//! Applying the agent's events to a task and storing them: a batch in one conditional
//! write, applied again to the fresh task when another writer changed it first.

use std::sync::Arc;

use super::publish::{Position, publish};
use super::{LiveTask, RunnerDeps};
use crate::agent::AgentEvent;
use crate::engine::lease;
use crate::tasks::{self, SharedStored, StoreError};
use a2a_lambda_core::model::{StreamEvent, Task};

/// Changes applied to a task, to broadcast.
#[derive(Default)]
pub(super) struct AppliedBatch {
    /// The update events, when someone follows the task.
    pub(super) changes: Vec<StreamEvent>,
    /// How many events changed the task.
    pub(super) count: usize,
    /// Some change reached a state that ends a send's stream (terminal or interrupted).
    pub(super) ended: bool,
    /// Some change was a status change (what push notifications tell).
    pub(super) status_changed: bool,
}

/// Applies events in order; an event the lifecycle refuses is logged and skipped. The
/// update events are made only when the task is `followed`.
pub(super) fn apply_all(
    task: &mut Task,
    events: Vec<AgentEvent>,
    request_id: &str,
    followed: bool,
) -> AppliedBatch {
    let mut applying = AppliedBatch {
        changes: Vec::with_capacity(if followed { events.len() } else { 0 }),
        count: 0,
        ended: false,
        status_changed: false,
    };
    for event in events {
        let status = matches!(event, AgentEvent::Status { .. });
        let outcome = if followed {
            tasks::apply(task, event).map(|applied| {
                applying.changes.push(match applied {
                    tasks::Applied::Status(status) => StreamEvent::StatusUpdate(status),
                    tasks::Applied::Artifact(artifact) => StreamEvent::ArtifactUpdate(artifact),
                });
            })
        } else {
            tasks::apply_quietly(task, event)
        };
        match outcome {
            Ok(()) => {
                applying.count += 1;
                applying.ended |= task.status.state.ends_stream();
                applying.status_changed |= status;
            }
            Err(error) => {
                tracing::debug!(request_id, task_id = task.id, %error, "agent event ignored");
            }
        }
    }
    applying
}

/// How often a write that lost a race is tried again on the fresh task.
const CONFLICT_RETRIES: usize = 3;

/// Applies agent events under the task's lock, stores them in one write and broadcasts
/// them; whether the task changed.
///
/// The write is conditional. When another writer changed the task first (a cancel from
/// another instance, say), the fresh task is read: if it has ended, the runner adopts it
/// (and tells the agent to stop); otherwise the events are applied to it and written
/// again.
pub(crate) async fn deliver(
    deps: &RunnerDeps,
    live: &LiveTask,
    events: Vec<AgentEvent>,
    request_id: &str,
) -> bool {
    let mut stored = live.state.lock().await;
    let mut events = events;
    for _ in 0..=CONFLICT_RETRIES {
        let mut next = Task::clone(&stored.task);
        // Always with the update events: after a conflict they are applied again.
        let applied = apply_all(&mut next, events, request_id, true);
        if applied.count == 0 {
            return false;
        }
        let next = Arc::new(next);
        let written = lease::put(
            deps,
            &next,
            &stored.owner,
            Some(stored.version),
            &applied.changes,
        )
        .await;
        match written {
            Ok((version, lease_written)) => {
                live.set_lease_written(lease_written);
                stored.task = next;
                stored.version = version;
                publish(
                    deps,
                    live,
                    &stored.task,
                    applied,
                    Position::Numbered(version),
                );
                return true;
            }
            Err(StoreError::Conflict(_)) => match deps.store.get_shared(&next.id).await {
                Ok(Some(fresh)) => {
                    let ended_elsewhere = fresh.task.status.state.is_terminal();
                    *stored = fresh;
                    if ended_elsewhere {
                        live.set_lease_written(None);
                        adopt_ended(deps, live, &stored, request_id);
                        return true;
                    }
                    // Apply the same events to the fresh task.
                    events = applied.changes.into_iter().filter_map(unapplied).collect();
                }
                Ok(None) | Err(_) => break,
            },
            Err(error) => {
                // The store is down: the clients connected here still see the change.
                tracing::error!(request_id, task_id = next.id, %error, "storing a task failed");
                stored.task = next;
                publish(deps, live, &stored.task, applied, Position::Unstored);
                return true;
            }
        }
    }
    tracing::error!(
        request_id,
        task_id = stored.task.id,
        "agent events were lost to repeated write conflicts"
    );
    false
}

/// Takes in the task as another writer ended it (a cancel, perhaps from another instance):
/// the agent is told to stop, and followers get the final status. `stored` is the fresh
/// task, under the live task's lock.
pub(crate) fn adopt_ended(
    deps: &RunnerDeps,
    live: &LiveTask,
    stored: &SharedStored,
    request_id: &str,
) {
    tracing::info!(
        request_id,
        task_id = stored.task.id,
        "the task ended elsewhere"
    );
    live.cancel.cancel();
    let status = StreamEvent::StatusUpdate(a2a_lambda_core::model::TaskStatusUpdateEvent {
        task_id: stored.task.id.clone(),
        context_id: stored.task.context_id.clone(),
        status: stored.task.status.clone(),
        is_final: true,
        metadata: None,
    });
    let adopted = AppliedBatch {
        changes: vec![status],
        count: 1,
        ended: true,
        status_changed: true,
    };
    publish(
        deps,
        live,
        &stored.task,
        adopted,
        Position::Whole(stored.version),
    );
}

/// The event an applied change came from (to apply it again after a conflict, without
/// keeping a copy of every event for the rare case).
fn unapplied(applied: StreamEvent) -> Option<AgentEvent> {
    match applied {
        StreamEvent::StatusUpdate(update) => Some(AgentEvent::Status {
            state: update.status.state,
            message: update.status.message,
            task_metadata: update.metadata,
        }),
        StreamEvent::ArtifactUpdate(update) => Some(AgentEvent::Artifact {
            artifact: update.artifact,
            append: update.append,
            last_chunk: update.last_chunk,
        }),
        // AppliedBatch makes only updates.
        StreamEvent::Task(_) | StreamEvent::Message(_) => None,
    }
}
