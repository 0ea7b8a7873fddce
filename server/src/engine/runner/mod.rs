//! Running tasks: one runner per task owns its state, applies the agent's events, saves
//! them and broadcasts them to every subscriber, in order.
//!
//! Events the agent has already sent when the runner gets to them are applied together
//! and saved in one write (an agent that answers at once costs one write, not one per
//! event); subscribers still receive every event, in order.
//!
//! A runner's life, by phase:
//!
//! - here, [`start`] (the first poll, in the caller's task) and `run`, the loop over the
//!   agent's events, its outcome and the lease's renewal, where the agent is called (the
//!   one place it is); [`RunnerState`] is what the runner knows meanwhile;
//! - [`open`]: the opening write, which creates (or reopens) the task;
//! - [`apply`]: every later write ([`deliver`]), retried on a conflict;
//! - [`publish`]: what followers and push notifications are told of a write;
//! - [`finish`]: the task's end when the agent returns, the failure of a live task, and
//!   [`RunnerGuard`], which ends the task of a runner dropped before then.

mod apply;
mod finish;
mod open;
mod publish;

use std::future::Future as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures_util::FutureExt as _;
use tokio::sync::{Mutex, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::follow::cursor::Sequenced;
use super::follow::registry::Registry;
use super::lease::{self, Leasing};
use crate::agent::{AgentEvent, EventReceiver, EventSink, RequestContext, SharedAgent};
use crate::health::Health;
use crate::owner::Owner;
use crate::tasks::{SharedStored, TaskStore};
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{Message, Task};

pub(crate) use apply::{adopt_ended, deliver};
pub(crate) use finish::fail_live;
use finish::{RunnerGuard, finish};

/// Most agent events applied together in one write.
const BATCH: usize = 32;

/// Where a running task stands, for callers that only wait for the end.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Settled {
    /// Still working.
    Running,
    /// Reached a terminal or interrupted state.
    Ended,
    /// The agent failed.
    Failed(Error),
}

/// What subscribers receive: an event and its place in the task's history, or the error
/// that ends the stream.
pub(crate) type Update = Result<Sequenced, Error>;

/// A task whose agent is running.
pub(crate) struct LiveTask {
    /// The task as it stands and its stored version; the lock also orders saves and
    /// broadcasts (every applied event goes to the task's topic in the [`Registry`]).
    pub state: Mutex<SharedStored>,
    /// Fired by a cancel.
    pub cancel: CancellationToken,
    /// Moves once, from running to ended or failed.
    pub settled: watch::Sender<Settled>,
    /// When the task's lease was last written (`None`: it carries none), kept up to date
    /// under the state's lock.
    pub lease_written: std::sync::Mutex<Option<tokio::time::Instant>>,
}

/// How the start of a send turned out.
pub(crate) enum StartOutcome {
    /// The agent replied directly: no task.
    Message(Message),
    /// A task exists (created or continued) and runs: its state when it started (when
    /// the caller asked to keep it; else the task as it stood after its first write).
    Task {
        live: Arc<LiveTask>,
        initial: Arc<Task>,
        /// The version of the opening write (the initial task is as it stood before that
        /// write's events when the caller asked to keep it, or when there were none).
        opened_at: u64,
        settled: watch::Receiver<Settled>,
    },
    /// The agent failed before saying anything.
    Failed(Error),
}

/// What a runner needs from the engine (the engine keeps one, and each runner a clone).
#[derive(Clone)]
pub(crate) struct RunnerDeps {
    pub agent: SharedAgent,
    /// The agent's name (its card's), for the spans of its runs.
    pub agent_name: Arc<str>,
    pub store: Arc<dyn TaskStore>,
    pub registry: Arc<Registry>,
    pub health: Arc<Health>,
    /// Present when the store is shared with other processes: the leases of tasks at work.
    pub leasing: Option<Arc<Leasing>>,
    /// Present when the host delivers push notifications.
    pub push: Option<crate::push::Push>,
}

/// Starts the agent on a message and reports how it started.
///
/// `previous` is the stored task when the message continues one. `keep_opening`: the
/// caller shows the task as it opened (a stream, a non-blocking send), so the runner keeps
/// that snapshot apart from the task its first events change.
///
/// The runner is made before the returned future is first polled; that future holds
/// only the runner's box and the report's receiver (an `async fn` would hold its
/// arguments twice, the request's context among them).
pub(crate) fn start(
    deps: RunnerDeps,
    context: RequestContext,
    previous: Option<SharedStored>,
    keep_opening: bool,
) -> impl Future<Output = StartOutcome> + Send {
    let (report, started) = oneshot::channel();
    // Boxed: the runner's future is large (the agent's events, the store's writes), and
    // it may move to a task of its own after its first poll.
    let span = crate::telemetry::agent(
        &deps.agent_name,
        &context.task_id,
        &context.context_id,
        context.session_id.as_deref(),
    );
    let mut runner = Box::pin(crate::telemetry::in_span(
        run(deps, context, previous, keep_opening, report),
        span,
    ));
    async move {
        // The first poll runs here, in the caller's task: an agent that answers at once
        // (and a store that answers at once) is done within it, with no task spawned and no
        // wake-up between tasks. Otherwise the runner goes on in its own task, so that a
        // caller that goes away (a client that disconnects) does not stop it. This poll
        // wakes no one (the runner's own channel would wake the caller, whose connection
        // would then be polled again for nothing): the spawned task's first poll registers
        // its waker with whatever the runner waits on.
        //
        // The agent's own panics are caught inside the runner; this catches the rest (an
        // agent's `execute` that panics before it returns its future, a store's write),
        // which would otherwise unwind through the caller: the caller then answers -32603
        // as for a runner that stopped.
        let polled = std::panic::catch_unwind(AssertUnwindSafe(|| {
            runner
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
        }));
        match polled {
            Ok(Poll::Pending) => {
                tokio::spawn(runner);
            }
            Err(_) => {
                tracing::error!("the task runner panicked on its first step");
                drop(runner);
            }
            Ok(Poll::Ready(())) => {
                // Answer after the other requests that are ready now, as a spawned runner
                // does: under load the answers then leave together, and a client waiting on
                // several connections is woken once for them, not once per answer, which
                // costs less CPU per request (figures in BENCHMARKS.md).
                tokio::task::yield_now().await;
            }
        }
        started.await.unwrap_or_else(|_| {
            StartOutcome::Failed(Error::new(
                Refusal::Internal,
                "the task runner stopped before it started",
            ))
        })
    }
}

/// The runner: owns the task from the agent's first event to its last.
///
/// The agent runs inside the runner's own tokio task (no extra spawn, no hop between
/// threads per event); a panic is caught here and treated as an agent failure. Events the
/// agent sends after `execute` returns are dropped.
///
/// What the runner keeps is set up before its future is made, which holds each piece
/// once (an `async fn` would keep a copy of every argument besides).
fn run(
    deps: RunnerDeps,
    context: RequestContext,
    previous: Option<SharedStored>,
    keep_opening: bool,
    report: oneshot::Sender<StartOutcome>,
) -> impl Future<Output = ()> + Send + 'static {
    let (sink, mut events) = EventSink::channel(&context.task_id, &context.context_id);
    let state = RunnerState {
        request_id: context.request_id.clone(),
        task_id: context.task_id.clone(),
        context_id: context.context_id.clone(),
        owner: context.owner.clone(),
        user_message: Some(context.message.clone()),
        cancel: context.cancellation.clone(),
        previous,
        keep_opening,
        report: Some(report),
        live: None,
        registered: false,
        changed: false,
    };
    let mut running = RunnerGuard { deps, state };
    async move {
        crate::telemetry::metrics::running(1);
        let _counted = RunningCount;
        let RunnerGuard {
            deps,
            state: runner,
        } = &mut running;
        // The one call of the agent.
        let agent = deps.agent.clone();
        let execution = AssertUnwindSafe(agent.execute(context, sink)).catch_unwind();
        tokio::pin!(execution);
        let outcome = loop {
            // A quiet runner renews its task's lease (made only when it carries one).
            let renewal = runner.live.as_ref().and_then(|live| live.renewal_due(deps));
            tokio::select! {
                biased;
                Some(event) = events.recv() => {
                    let batch = with_queued(event, &mut events, BATCH);
                    runner.on_events(deps, batch, false).await;
                }
                outcome = &mut execution => break outcome,
                () = renewal_at(renewal), if renewal.is_some() => {
                    if let Some(live) = &runner.live {
                        lease::renew(deps, live, &runner.request_id).await;
                    }
                }
            }
        };
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(error)) => Some(format!("agent error: {error}")),
            Err(_) => Some("agent panicked".to_owned()),
        };
        while let Some(event) = events.try_recv() {
            // The agent has returned: whatever it left goes in one batch (the queue holds
            // at most 64), so whether the task is over is judged on all of it.
            let batch = with_queued(event, &mut events, usize::MAX);
            runner.on_events(deps, batch, failure.is_none()).await;
        }
        if let Some(detail) = &failure {
            crate::telemetry::record_agent_failure(if detail.starts_with("agent panicked") {
                "panic"
            } else {
                "agent_error"
            });
            tracing::error!(
                request_id = runner.request_id,
                task_id = runner.task_id,
                detail,
                "agent failed"
            );
        }
        if runner.live.is_none() {
            // Either the agent replied directly (the report is gone), or it returned without
            // an event: then the task exists only to record how it ended.
            if runner.report.is_none() {
                deps.registry.prune_topics();
                return;
            }
            if failure.is_some() {
                if let Some(pending) = runner.report.take() {
                    let _ = pending.send(StartOutcome::Failed(Error::bare(Refusal::Internal)));
                }
                deps.registry.prune_topics();
                return;
            }
            runner.open(deps, Vec::new(), false).await;
        }
        // Kept in the runner until the task is settled: a runner dropped before then
        // ends the task itself (see RunnerGuard's Drop).
        let Some(live) = runner.live.clone() else {
            // The opening write failed: a stream that followed the task is told and gone.
            deps.registry.prune_topics();
            return;
        };
        finish(
            deps,
            &live,
            failure.is_some(),
            runner.changed,
            &runner.request_id,
            &runner.task_id,
        )
        .await;
        runner.live = None;
        if runner.registered {
            deps.registry.remove(&runner.task_id, &live, &deps.health);
        } else {
            deps.registry.prune_topics();
        }
    }
}

/// Ready at `at` (never without it). No timer exists until it is first polled.
async fn renewal_at(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// `first` and the events queued behind it, `limit` in all.
fn with_queued(first: AgentEvent, events: &mut EventReceiver, limit: usize) -> Vec<AgentEvent> {
    let mut batch = Vec::with_capacity(4);
    batch.push(first);
    while batch.len() < limit {
        match events.try_recv() {
            Some(event) => batch.push(event),
            None => break,
        }
    }
    batch
}

/// What a runner knows while its agent works.
struct RunnerState {
    request_id: String,
    task_id: String,
    context_id: String,
    /// Who a new task belongs to.
    owner: Owner,
    /// Taken when the task begins.
    user_message: Option<Message>,
    cancel: CancellationToken,
    previous: Option<SharedStored>,
    /// The caller shows the task as it opened.
    keep_opening: bool,
    report: Option<oneshot::Sender<StartOutcome>>,
    live: Option<Arc<LiveTask>>,
    /// The task is in the registry (it ran on after its first write).
    registered: bool,
    /// Some agent event changed the task.
    changed: bool,
}

impl RunnerState {
    /// Applies a batch of events; `agent_done`: the agent has returned, successfully.
    pub(super) async fn on_events(
        &mut self,
        deps: &RunnerDeps,
        events: Vec<AgentEvent>,
        agent_done: bool,
    ) {
        let mut events = events;
        if self.live.is_none()
            && self.previous.is_none()
            && matches!(events.first(), Some(AgentEvent::Message(_)))
        {
            // A direct reply: no task. Whatever follows it is dropped below.
            if let AgentEvent::Message(message) = events.remove(0)
                && let Some(report) = self.report.take()
            {
                let _ = report.send(StartOutcome::Message(message));
            }
        }
        if events.is_empty() {
            return;
        }
        if self.live.is_none() {
            if self.report.is_none() {
                // The agent replied directly, or the task could not be stored.
                tracing::debug!(
                    request_id = self.request_id,
                    task_id = self.task_id,
                    dropped = events.len(),
                    "agent events dropped: no task"
                );
                return;
            }
            self.open(deps, events, agent_done).await;
        } else if let Some(live) = &self.live {
            self.changed |= deliver(deps, live, events, &self.request_id).await;
        }
    }
}

/// Counts a runner out of `a2a.tasks.running` however its future ends (dropped too).
struct RunningCount;

impl Drop for RunningCount {
    fn drop(&mut self) {
        crate::telemetry::metrics::running(-1);
    }
}
