//! Running tasks: one runner per task owns its state, applies the agent's events, saves
//! them and broadcasts them to every subscriber, in order.
//!
//! Events the agent has already sent when the runner gets to them are applied together
//! and saved in one write (an agent that answers at once costs one write, not one per
//! event); subscribers still receive every event, in order.

use std::future::Future as _;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use futures_util::FutureExt as _;
use tokio::sync::{Mutex, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::cursor::{Cursor, Sequenced};
use super::lease::{self, Leasing};
use super::registry::Registry;
use crate::agent::{AgentEvent, EventReceiver, EventSink, RequestContext, SharedAgent};
use crate::health::Health;
use crate::owner::Owner;
use crate::tasks::{self, SharedStored, StoreError, TaskStore};
use a2a_core::error::{Error, Refusal};
use a2a_core::model::{Message, Role, StreamEvent, Task, TaskState, TaskStatus};

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
pub(crate) enum Started {
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
) -> impl Future<Output = Started> + Send {
    let (report, started) = oneshot::channel();
    // Boxed: the runner's future is large (the agent's events, the store's writes), and
    // it may move to a task of its own after its first poll.
    let mut runner = Box::pin(run(deps, context, previous, keep_opening, report));
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
                // Answer after the other requests that are ready now, as when the runner was
                // spawned: under load the answers then leave together, and a client waiting on
                // several connections is woken once for them, not once per answer, which
                // costs less CPU per request (figures in BENCHMARKS.md).
                tokio::task::yield_now().await;
            }
        }
        started.await.unwrap_or_else(|_| {
            Started::Failed(Error::new(
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
    report: oneshot::Sender<Started>,
) -> impl Future<Output = ()> + Send + 'static {
    let (sink, mut events) = EventSink::channel(&context.task_id, &context.context_id);
    let work = Work {
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
    let mut running = Running { deps, work };
    async move {
        let Running { deps, work: runner } = &mut running;
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
                    let _ = pending.send(Started::Failed(Error::bare(Refusal::Internal)));
                }
                deps.registry.prune_topics();
                return;
            }
            runner.begin(deps, Vec::new(), false).await;
        }
        // Kept in the runner until the task is settled: a runner dropped before then
        // ends the task itself (see Running's Drop).
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

/// A runner with what it needs.
struct Running {
    deps: RunnerDeps,
    work: Work,
}

impl Drop for Running {
    /// A runner dropped while its task is live stopped early: it panicked (a store's
    /// write, say: the agent's own panics are caught) or the runtime is stopping. Whatever
    /// the agent started is cancelled, and its callers are answered -32603 at once. When
    /// the task is still this runner's (no follow-up message took it over), its followers
    /// get the error too, it leaves the registry (`/ping` no longer counts it), and a task
    /// of its own marks it failed in the store, as an agent's failure would — while the
    /// runtime runs: a runtime that is stopping runs no new task, and the store keeps the
    /// task as it last saved it.
    fn drop(&mut self) {
        let Some(live) = self.work.live.take() else {
            return;
        };
        let Work {
            request_id,
            task_id,
            registered,
            changed,
            ..
        } = &self.work;
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
struct Work {
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
    report: Option<oneshot::Sender<Started>>,
    live: Option<Arc<LiveTask>>,
    /// The task is in the registry (it ran on after its first write).
    registered: bool,
    /// Some agent event changed the task.
    changed: bool,
}

impl Work {
    /// Applies a batch of events; `agent_done`: the agent has returned, successfully.
    async fn on_events(&mut self, deps: &RunnerDeps, events: Vec<AgentEvent>, agent_done: bool) {
        let mut events = events;
        if self.live.is_none()
            && self.previous.is_none()
            && matches!(events.first(), Some(AgentEvent::Message(_)))
        {
            // A direct reply: no task. Whatever follows it is dropped below.
            if let AgentEvent::Message(message) = events.remove(0)
                && let Some(report) = self.report.take()
            {
                let _ = report.send(Started::Message(message));
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
            self.begin(deps, events, agent_done).await;
        } else if let Some(live) = &self.live {
            self.changed |= deliver(deps, live, events, &self.request_id).await;
        }
    }

    /// Creates (or reopens) the task with the first events applied, in one write.
    async fn begin(&mut self, deps: &RunnerDeps, events: Vec<AgentEvent>, agent_done: bool) {
        let opening = Opening {
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
        if let Some(opened) = begin(deps, opening, events, &mut self.report).await {
            self.live = Some(opened.live);
            self.registered = opened.registered;
            self.changed |= opened.changed;
        }
    }
}

/// A task a runner opened.
struct Opened {
    live: Arc<LiveTask>,
    /// It is in the registry.
    registered: bool,
    /// The agent's first events changed it.
    changed: bool,
}

/// What a runner opens a task with.
struct Opening<'a> {
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
async fn begin(
    deps: &RunnerDeps,
    opening: Opening<'_>,
    events: Vec<AgentEvent>,
    report: &mut Option<oneshot::Sender<Started>>,
) -> Option<Opened> {
    let Opening {
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
        (Arc::clone(&task), task, Applying::default())
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
                let _ = report.send(Started::Failed(refusal));
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
        let _ = report.send(Started::Task {
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
    Some(Opened {
        live,
        registered: register,
        changed,
    })
}

/// Changes applied to a task, to broadcast.
#[derive(Default)]
struct Applying {
    /// The update events, when someone follows the task.
    changes: Vec<StreamEvent>,
    /// How many events changed the task.
    count: usize,
    /// Some change reached a state that ends a send's stream (terminal or interrupted).
    ended: bool,
    /// Some change was a status change (what push notifications tell).
    status_changed: bool,
}

/// Applies events in order; an event the lifecycle refuses is logged and skipped. The
/// update events are made only when the task is `followed`.
fn apply_all(
    task: &mut Task,
    events: Vec<AgentEvent>,
    request_id: &str,
    followed: bool,
) -> Applying {
    let mut applying = Applying {
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
async fn deliver(
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
    let status = StreamEvent::StatusUpdate(a2a_core::model::TaskStatusUpdateEvent {
        task_id: stored.task.id.clone(),
        context_id: stored.task.context_id.clone(),
        status: stored.task.status.clone(),
        is_final: true,
        metadata: None,
    });
    let adopted = Applying {
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
        // Applying makes only updates.
        StreamEvent::Task(_) | StreamEvent::Message(_) => None,
    }
}

/// Where the events a write applied stand in the task's history.
#[derive(Debug, Clone, Copy)]
enum Position {
    /// The write made this version: its events are numbered from 1.
    Numbered(u64),
    /// The event sums up everything up to this version (a task another writer ended).
    Whole(u64),
    /// The write failed: the events were not stored.
    Unstored,
}

/// Broadcasts applied changes, in order, and settles the task when one ended it; `task`
/// is the task after all of them.
fn publish(deps: &RunnerDeps, live: &LiveTask, task: &Arc<Task>, applied: Applying, at: Position) {
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

/// Closes the task when the agent returns: completed if it left it running (or never
/// changed a task it continued, which would otherwise wait for input it already got);
/// failed if the agent failed, after telling subscribers (-32603, generic) so that a
/// stream ends with the error and a waiting send answers with it.
async fn finish(
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
        let mut message = Message::text(Role::Agent, a2a_core::model::new_id(), text);
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

/// Cancels a live task: fires its token and moves it to canceled.
///
/// # Errors
/// -32002 when it already reached a terminal state.
pub(crate) async fn cancel_live(
    deps: &RunnerDeps,
    live: &LiveTask,
    request_id: &str,
) -> Result<Arc<Task>, Error> {
    {
        let stored = live.state.lock().await;
        if stored.task.status.state.is_terminal() {
            return Err(not_cancelable(&stored.task));
        }
    }
    live.cancel.cancel();
    deliver(
        deps,
        live,
        vec![AgentEvent::status(TaskState::Canceled, None)],
        request_id,
    )
    .await;
    let task = Arc::clone(&live.state.lock().await.task);
    if task.status.state == TaskState::Canceled {
        Ok(task)
    } else {
        Err(not_cancelable(&task))
    }
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
    let mut message = Message::text(Role::Agent, a2a_core::model::new_id(), text);
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

/// -32002 for a task in a terminal state.
pub(crate) fn not_cancelable(task: &Task) -> Error {
    Error::new(
        Refusal::TaskNotCancelable,
        format!(
            "task {} is already {}",
            task.id,
            task.status.state.v0_3_name()
        ),
    )
    .with_metadata("taskId", task.id.clone())
}
