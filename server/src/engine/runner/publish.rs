//! What a write is told as: its events to the task's followers, each with its place in
//! the task's history, a status change to push notifications, and the end to the
//! callers that wait for it.

use std::sync::Arc;

use super::apply::AppliedBatch;
use super::{LiveTask, RunnerDeps, Settled};
use crate::engine::follow::cursor::{Cursor, Sequenced};
use a2a_lambda_core::model::Task;

/// Where the events a write applied stand in the task's history.
#[derive(Debug, Clone, Copy)]
pub(super) enum Position {
    /// The write made this version: its events are numbered from 1.
    Numbered(u64),
    /// The event sums up everything up to this version (a task another writer ended).
    Whole(u64),
    /// The write failed: the events were not stored.
    Unstored,
}

/// Broadcasts applied changes, in order, and settles the task when one ended it; `task`
/// is the task after all of them.
pub(super) fn publish(
    deps: &RunnerDeps,
    live: &LiveTask,
    task: &Arc<Task>,
    applied: AppliedBatch,
    at: Position,
) {
    if applied.status_changed {
        crate::telemetry::metrics::transition(task.status.state);
    }
    if let (Some(push), true, Position::Numbered(version) | Position::Whole(version)) =
        (&deps.push, applied.status_changed, at)
    {
        push.notify(task, version);
    }
    // After a terminal state nothing applies: when the task ended, the last change did it.
    let terminal = task.status.state.is_terminal();
    let count = applied.changes.len();
    for (index, event) in applied.changes.into_iter().enumerate() {
        let at = match at {
            Position::Numbered(version) => Some(Cursor::at(version, index + 1)),
            Position::Whole(version) => Some(Cursor::after(version)),
            Position::Unstored => None,
        };
        deps.registry.publish(
            &task.id,
            Ok(Sequenced { event, at }),
            terminal && index + 1 == count,
        );
    }
    if applied.ended {
        live.settled.send_if_modified(|settled| {
            let running = *settled == Settled::Running;
            if running {
                *settled = Settled::Ended;
            }
            running
        });
    }
}
