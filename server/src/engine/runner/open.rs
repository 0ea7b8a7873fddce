//! The opening write: the task created (or reopened by a follow-up message) with the
//! agent's first events applied, stored, registered, reported to the caller and
//! broadcast.

use std::sync::Arc;

use tokio::sync::{Mutex, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::apply::{AppliedBatch, apply_all};
use super::publish::{Position, publish};
use super::{LiveTask, RunnerDeps, RunnerState, Settled, StartOutcome};
use crate::agent::AgentEvent;
use crate::engine::lease;
use crate::owner::Owner;
use crate::tasks::{self, SharedStored, StoreError};
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{Message, StreamEvent, Task, TaskState, TaskStatus};

impl RunnerState {
    /// Creates (or reopens) the task with the first events applied, in one write.
    pub(super) async fn open(
        &mut self,
        deps: &RunnerDeps,
        events: Vec<AgentEvent>,
        agent_done: bool,
    ) {
        let opening = TaskOpening {
            task_id: &self.task_id,
            context_id: &self.context_id,
            owner: &self.owner,
            request_id: &self.request_id,
            user_message: self.user_message.take(),
            previous: self.previous.take(),
            cancel: &self.cancel,
            keep_opening: self.keep_opening,
            agent_done,
        };
        if let Some(opened) = open_task(deps, opening, events, &mut self.report).await {
            self.live = Some(opened.live);
            self.registered = opened.registered;
            self.changed |= opened.changed;
        }
    }
}

/// A task a runner opened.
struct OpenedTask {
    live: Arc<LiveTask>,
    /// It is in the registry.
    registered: bool,
    /// The agent's first events changed it.
    changed: bool,
}

/// What a runner opens a task with.
struct TaskOpening<'a> {
    task_id: &'a str,
    context_id: &'a str,
    /// Who a new task belongs to (a continued task keeps its owner).
    owner: &'a Owner,
    request_id: &'a str,
    user_message: Option<Message>,
    previous: Option<SharedStored>,
    cancel: &'a CancellationToken,
    /// The caller shows the task as it opened.
    keep_opening: bool,
    /// The agent has returned, successfully.
    agent_done: bool,
}

/// Creates (or reopens) the task, applies the agent's first events, stores the result,
/// registers the task, reports it as it opened to the caller and broadcasts the events;
/// the live task and whether it was registered. When the store refuses, the caller is
/// told (-32603, or -32004 after a conflicting write) and nothing runs on.
///
/// A task the agent finished before its first write is not registered: nothing runs to
/// be found by a cancel or a subscription (the store has its end), and `/ping` never
/// sees it busy.
async fn open_task(
    deps: &RunnerDeps,
    opening: TaskOpening<'_>,
    events: Vec<AgentEvent>,
    report: &mut Option<oneshot::Sender<StartOutcome>>,
) -> Option<OpenedTask> {
    let TaskOpening {
        task_id,
        context_id,
        owner,
        request_id,
        user_message,
        previous,
        cancel,
        keep_opening,
        agent_done,
    } = opening;
    let message = user_message.map(|mut message| {
        message.task_id = Some(task_id.to_owned());
        message.context_id = Some(context_id.to_owned());
        message
    });
    let expected = previous.as_ref().map(|stored| stored.version);
    let owner = previous
        .as_ref()
        .map_or_else(|| owner.clone(), |stored| stored.owner.clone());
    let opened = match previous {
        Some(SharedStored { task, .. }) => {
            let mut task = Task::clone(&task);
            task.history.extend(message);
            task
        }
        None => Task {
            id: task_id.to_owned(),
            context_id: context_id.to_owned(),
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: Some(tasks::now_rfc3339()),
            },
            artifacts: Vec::new(),
            history: message.into_iter().collect(),
            metadata: None,
        },
    };
    let (initial, task, applied) = if events.is_empty() {
        let task = Arc::new(opened);
        (Arc::clone(&task), task, AppliedBatch::default())
    } else {
        // The opening write is not retried (a conflict refuses the message), so the
        // events need no keeping: their update events are made only for followers.
        // A continued task may gain a follower before this runner is registered (its
        // subscription reads the state it continues), so its events are always made, as
        // for a store other instances read (one of theirs may follow the task).
        let followed =
            expected.is_some() || deps.store.is_shared() || deps.registry.is_followed(task_id);
        let initial = keep_opening.then(|| Arc::new(opened.clone()));
        let mut task = opened;
        let applied = apply_all(&mut task, events, request_id, followed);
        let task = Arc::new(task);
        (initial.unwrap_or_else(|| Arc::clone(&task)), task, applied)
    };
    // The events go to the task's log, except for a new task that is over at once: nobody
    // elsewhere can know its id yet, and a stream resumed from its start is given the
    // finished task.
    let logged =
        !applied.changes.is_empty() && (expected.is_some() || !task.status.state.is_terminal());
    let log: &[StreamEvent] = if logged { &applied.changes } else { &[] };
    let (version, lease_written) = match lease::put(deps, &task, &owner, expected, log).await {
        Ok(written) => written,
        Err(error) => {
            tracing::error!(task_id, %error, "storing the task failed");
            cancel.cancel();
            let refusal = match error {
                StoreError::Conflict(_) => Error::new(
                    Refusal::UnsupportedOperation,
                    format!("task {task_id} changed while this message was sent; send it again"),
                ),
                _ => Error::new(
                    Refusal::Internal,
                    "the task store is unavailable; retry later",
                ),
            };
            if let Some(report) = report.take() {
                let _ = report.send(StartOutcome::Failed(refusal));
            }
            return None;
        }
    };
    let first = if applied.ended {
        Settled::Ended
    } else {
        Settled::Running
    };
    let (settled, settled_receiver) = watch::channel(first);
    let live = Arc::new(LiveTask {
        state: Mutex::new(SharedStored {
            task: Arc::clone(&task),
            version,
            owner,
        }),
        cancel: cancel.clone(),
        settled,
        lease_written: std::sync::Mutex::new(lease_written),
    });
    // A continued task may still be registered by the runner it continues (an agent that
    // asked for input and is returning): this runner replaces it there even when it is
    // over, or a cancel or subscription would find the older runner's state.
    let over = agent_done && task.status.state.ends_stream();
    let register = !over || (expected.is_some() && deps.registry.get(task_id).is_some());
    if register {
        deps.registry
            .insert(task_id.to_owned(), Arc::clone(&live), &deps.health);
    }
    if let Some(report) = report.take() {
        let _ = report.send(StartOutcome::Task {
            live: Arc::clone(&live),
            initial,
            opened_at: version,
            settled: settled_receiver,
        });
    }
    // Subscribers followed the task before it started: they get its opening snapshot
    // (from the report), then these events.
    let changed = applied.count > 0;
    publish(deps, &live, &task, applied, Position::Numbered(version));
    Some(OpenedTask {
        live,
        registered: register,
        changed,
    })
}
