//! The end of a runner's task: closed when the agent returns, failed on the host's
//! demand ([`fail_live`]), and ended by [`RunnerGuard`] when the runner is dropped first.

use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{Message, Role, TaskState};

use super::apply::deliver;
use super::{LiveTask, RunnerDeps, RunnerState, Settled};
use crate::agent::AgentEvent;

/// A runner with what it needs.
pub(super) struct RunnerGuard {
    pub(super) deps: RunnerDeps,
    pub(super) state: RunnerState,
}

impl Drop for RunnerGuard {
    /// A runner dropped while its task is live stopped early: it panicked (a store's
    /// write, say: the agent's own panics are caught) or the runtime is stopping. Whatever
    /// the agent started is cancelled, and its callers are answered -32603 at once. When
    /// the task is still this runner's (no follow-up message took it over), its followers
    /// get the error too, it leaves the registry (`/ping` stops counting it), and a task
    /// of its own marks it failed in the store, as an agent's failure would — while the
    /// runtime runs: a runtime that is stopping runs no new task, and the store keeps the
    /// task as it last saved it.
    fn drop(&mut self) {
        let Some(live) = self.state.live.take() else {
            return;
        };
        let RunnerState {
            request_id,
            task_id,
            registered,
            changed,
            ..
        } = &self.state;
        tracing::error!(
            request_id,
            task_id,
            "the task runner stopped before the task was settled"
        );
        live.cancel.cancel();
        live.settled.send_if_modified(|settled| {
            let running = *settled == Settled::Running;
            if running {
                *settled = Settled::Failed(Error::bare(Refusal::Internal));
            }
            running
        });
        let deps = &self.deps;
        if deps.registry.is_replaced(task_id, &live) {
            return;
        }
        deps.registry
            .publish(task_id, Err(Error::bare(Refusal::Internal)), true);
        if *registered {
            deps.registry.remove(task_id, &live, &deps.health);
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let deps = deps.clone();
            let (request_id, task_id, changed) = (request_id.clone(), task_id.clone(), *changed);
            runtime.spawn(async move {
                finish(&deps, &live, true, changed, &request_id, &task_id).await;
            });
        }
    }
}

/// Closes the task when the agent returns: completed if it left it running (or never
/// changed a task it continued, which would otherwise wait for input it already got);
/// failed if the agent failed, after telling subscribers (-32603, generic) so that a
/// stream ends with the error and a waiting send answers with it.
pub(super) async fn finish(
    deps: &RunnerDeps,
    live: &LiveTask,
    failed: bool,
    changed: bool,
    request_id: &str,
    task_id: &str,
) {
    if deps.registry.is_replaced(task_id, live) {
        // A follow-up message runs the task now: its runner owns the task, its followers
        // and its end. This one settles only its own callers.
        if failed {
            tracing::warn!(
                request_id,
                task_id,
                "the agent failed after a follow-up message took the task over"
            );
            live.settled
                .send_replace(Settled::Failed(Error::bare(Refusal::Internal)));
        }
        return;
    }
    if failed {
        deps.registry
            .publish(task_id, Err(Error::bare(Refusal::Internal)), false);
        live.settled
            .send_replace(Settled::Failed(Error::bare(Refusal::Internal)));
    }
    let state = live.state.lock().await.task.status.state;
    if state.is_terminal() || (state.ends_stream() && changed) {
        return;
    }
    let (state, text) = if failed {
        (
            TaskState::Failed,
            Some("The agent failed while working on this task."),
        )
    } else {
        (TaskState::Completed, None)
    };
    let message = text.map(|text| {
        let mut message = Message::text(Role::Agent, a2a_lambda_core::model::new_id(), text);
        message.task_id = None;
        message
    });
    deliver(
        deps,
        live,
        vec![AgentEvent::status(state, message)],
        request_id,
    )
    .await;
}

/// Fails a live task that is still at work (submitted or working) with `text` as its
/// status message, saved like any other change, then fires its token so the agent stops.
/// A task that already ended or waits for input is left as it is. Whether the task is
/// failed now.
///
/// The failure is applied before the token fires: an agent that returns when cancelled
/// then finds its task over, and its runner does not complete it instead.
pub(crate) async fn fail_live(
    deps: &RunnerDeps,
    live: &LiveTask,
    request_id: &str,
    text: &str,
) -> bool {
    if live.state.lock().await.task.status.state.ends_stream() {
        return false;
    }
    let mut message = Message::text(Role::Agent, a2a_lambda_core::model::new_id(), text);
    message.task_id = None;
    deliver(
        deps,
        live,
        vec![AgentEvent::status(TaskState::Failed, Some(message))],
        request_id,
    )
    .await;
    let failed = live.state.lock().await.task.status.state == TaskState::Failed;
    if failed {
        live.cancel.cancel();
    }
    failed
}
