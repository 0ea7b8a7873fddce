//! Running tasks: one runner per task owns its state, applies the agent's events, saves
//! them and broadcasts them to every subscriber, in order.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex as SyncMutex};

use futures_util::FutureExt as _;
use tokio::sync::{Mutex, broadcast, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, AgentEvent, EventSink, RequestContext};
use crate::error::{Error, Refusal};
use crate::health::Health;
use crate::model::{Message, Role, StreamEvent, Task, TaskState, TaskStatus};
use crate::tasks::{self, Applied, SharedStored, StoreError, TaskStore};

/// How many events a slow subscriber may fall behind before it is cut off.
const BROADCAST_CAPACITY: usize = 64;

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

/// What subscribers receive: an event, or the error that ends the stream.
pub(crate) type Update = Result<StreamEvent, Error>;

/// A task whose agent is running.
pub(crate) struct LiveTask {
    /// The task as it stands and its stored version; the lock also orders saves and
    /// broadcasts (every applied event goes to the task's topic in the [`Registry`]).
    pub state: Mutex<SharedStored>,
    /// Fired by a cancel.
    pub cancel: CancellationToken,
    /// Moves once, from running to ended or failed.
    pub settled: watch::Sender<Settled>,
}

/// How the start of a send turned out.
pub(crate) enum Started {
    /// The agent replied directly: no task.
    Message(Message),
    /// A task exists (created or continued) and runs: its state when it started.
    Task {
        live: Arc<LiveTask>,
        initial: Arc<Task>,
        settled: watch::Receiver<Settled>,
    },
    /// The agent failed before saying anything.
    Failed(Error),
}

/// The live tasks of one engine, and the update channel of every task someone follows.
///
/// A channel is made only when someone follows the task (a stream or a subscription), so
/// a plain send costs no channel. A task's channel outlives its runners: a subscriber to
/// a task waiting for input keeps receiving when a follow-up message starts the agent
/// again, until the task ends.
#[derive(Default)]
pub(crate) struct Registry {
    tasks: SyncMutex<HashMap<String, Arc<LiveTask>>>,
    topics: SyncMutex<HashMap<String, broadcast::Sender<Update>>>,
}

impl Registry {
    /// The update channel of a task, made on first use.
    pub fn topic(&self, id: &str) -> broadcast::Sender<Update> {
        self.lock_topics()
            .entry(id.to_owned())
            .or_insert_with(|| broadcast::channel(BROADCAST_CAPACITY).0)
            .clone()
    }

    /// Sends an update to the task's followers, if it has any; `last` forgets the channel
    /// (the task ended): current receivers still get what was sent.
    fn publish(&self, id: &str, update: Update, last: bool) {
        let mut topics = self.lock_topics();
        if topics.is_empty() {
            return;
        }
        if let Some(topic) = topics.get(id) {
            let _ = topic.send(update);
        }
        if last {
            topics.remove(id);
        }
    }

    /// Forgets the channels nobody follows of tasks that do not run.
    fn prune_topics(&self) {
        let tasks = self.lock();
        let mut topics = self.lock_topics();
        if !topics.is_empty() {
            topics.retain(|id, topic| topic.receiver_count() > 0 || tasks.contains_key(id));
        }
    }

    fn lock_topics(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Update>>> {
        self.topics
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn get(&self, id: &str) -> Option<Arc<LiveTask>> {
        self.lock().get(id).cloned()
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Registers a running task; the health status follows under the same lock.
    fn insert(&self, id: String, live: Arc<LiveTask>, health: &Health) {
        let mut tasks = self.lock();
        tasks.insert(id, live);
        health.set_running(tasks.len());
    }

    /// Unregisters `live`, unless a newer runner of the same task replaced it.
    fn remove(&self, id: &str, live: &Arc<LiveTask>, health: &Health) {
        let mut tasks = self.lock();
        if tasks
            .get(id)
            .is_some_and(|current| Arc::ptr_eq(current, live))
        {
            tasks.remove(id);
        }
        health.set_running(tasks.len());
        drop(tasks);
        self.prune_topics();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LiveTask>>> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// What a runner needs from the engine.
pub(crate) struct RunnerDeps {
    pub agent: Arc<dyn Agent>,
    pub store: Arc<dyn TaskStore>,
    pub registry: Arc<Registry>,
    pub health: Arc<Health>,
}

/// Starts the agent on a message and reports how it started.
///
/// `previous` is the stored task when the message continues one.
pub(crate) async fn start(
    deps: RunnerDeps,
    context: RequestContext,
    previous: Option<SharedStored>,
) -> Started {
    let (report, started) = oneshot::channel();
    tokio::spawn(run(deps, context, previous, report));
    started.await.unwrap_or_else(|_| {
        Started::Failed(Error::new(
            Refusal::Internal,
            "the task runner stopped before it started",
        ))
    })
}

/// The runner: owns the task from the agent's first event to its last.
///
/// The agent runs inside the runner's own tokio task (no extra spawn, no hop between
/// threads per event); a panic is caught here and treated as an agent failure. Events the
/// agent sends after `execute` returns are dropped.
async fn run(
    deps: RunnerDeps,
    context: RequestContext,
    previous: Option<SharedStored>,
    report: oneshot::Sender<Started>,
) {
    let (sink, mut events) = EventSink::channel(&context.task_id, &context.context_id);
    let mut runner = Work {
        request_id: context.request_id.clone(),
        task_id: context.task_id.clone(),
        context_id: context.context_id.clone(),
        user_message: Some(context.message.clone()),
        cancel: context.cancellation.clone(),
        previous,
        report: Some(report),
        live: None,
    };
    let agent = Arc::clone(&deps.agent);
    let execution = AssertUnwindSafe(agent.execute(context, sink)).catch_unwind();
    tokio::pin!(execution);
    let outcome = loop {
        tokio::select! {
            biased;
            Some(event) = events.recv() => runner.on_event(&deps, event).await,
            outcome = &mut execution => break outcome,
        }
    };
    while let Ok(event) = events.try_recv() {
        runner.on_event(&deps, event).await;
    }
    let failure = match outcome {
        Ok(Ok(())) => None,
        Ok(Err(error)) => Some(format!("agent error: {error}")),
        Err(_) => Some("agent panicked".to_owned()),
    };
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
            return;
        }
        if failure.is_some() {
            if let Some(pending) = runner.report.take() {
                let _ = pending.send(Started::Failed(Error::bare(Refusal::Internal)));
            }
            return;
        }
        runner.begin(&deps).await;
    }
    let Some(live) = runner.live.take() else {
        return;
    };
    finish(
        &deps,
        &live,
        failure.is_some(),
        &runner.request_id,
        &runner.task_id,
    )
    .await;
    deps.registry.remove(&runner.task_id, &live, &deps.health);
}

/// What a runner knows while its agent works.
struct Work {
    request_id: String,
    task_id: String,
    context_id: String,
    /// Taken when the task begins.
    user_message: Option<Message>,
    cancel: CancellationToken,
    previous: Option<SharedStored>,
    report: Option<oneshot::Sender<Started>>,
    live: Option<Arc<LiveTask>>,
}

impl Work {
    async fn on_event(&mut self, deps: &RunnerDeps, event: AgentEvent) {
        let event = match (event, self.live.is_none() && self.previous.is_none()) {
            (AgentEvent::Message(message), true) => {
                if let Some(report) = self.report.take() {
                    let _ = report.send(Started::Message(message));
                }
                return;
            }
            (event, _) => event,
        };
        if self.live.is_none() {
            if self.report.is_none() {
                // The agent replied directly, or the task could not be stored.
                tracing::debug!(
                    request_id = self.request_id,
                    task_id = self.task_id,
                    "agent event dropped: no task"
                );
                return;
            }
            self.begin(deps).await;
        }
        if let Some(live) = &self.live {
            deliver(deps, live, event, &self.request_id).await;
        }
    }

    async fn begin(&mut self, deps: &RunnerDeps) {
        let live = begin(
            deps,
            &self.task_id,
            &self.context_id,
            self.user_message.take(),
            self.previous.take(),
            &self.cancel,
            &mut self.report,
        )
        .await;
        self.live = live;
    }
}

/// Creates (or reopens) the task, stores it, registers it and reports it to the caller.
/// When the store refuses, the caller is told (-32603) and nothing runs on.
async fn begin(
    deps: &RunnerDeps,
    task_id: &str,
    context_id: &str,
    user_message: Option<Message>,
    previous: Option<SharedStored>,
    cancel: &CancellationToken,
    report: &mut Option<oneshot::Sender<Started>>,
) -> Option<Arc<LiveTask>> {
    let message = user_message.map(|mut message| {
        message.task_id = Some(task_id.to_owned());
        message.context_id = Some(context_id.to_owned());
        message
    });
    let expected = previous.as_ref().map(|stored| stored.version);
    let task = match previous {
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
    let task = Arc::new(task);
    let version = match deps.store.put_shared(&task, expected).await {
        Ok(version) => version,
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
    let (settled, settled_receiver) = watch::channel(Settled::Running);
    let live = Arc::new(LiveTask {
        state: Mutex::new(SharedStored {
            task: Arc::clone(&task),
            version,
        }),
        cancel: cancel.clone(),
        settled,
    });
    deps.registry
        .insert(task_id.to_owned(), Arc::clone(&live), &deps.health);
    if let Some(report) = report.take() {
        let _ = report.send(Started::Task {
            live: Arc::clone(&live),
            initial: task,
            settled: settled_receiver,
        });
    }
    Some(live)
}

/// How often a write that lost a race is tried again on the fresh task.
const CONFLICT_RETRIES: usize = 3;

/// Applies one agent event under the task's lock, stores and broadcasts it.
///
/// The write is conditional. When another writer changed the task first (a cancel from
/// another instance, say), the fresh task is read: if it has ended, the runner adopts it
/// (and tells the agent to stop); otherwise the event is applied to it and written again.
async fn deliver(deps: &RunnerDeps, live: &LiveTask, event: AgentEvent, request_id: &str) {
    let mut stored = live.state.lock().await;
    let mut event = event;
    for _ in 0..=CONFLICT_RETRIES {
        let mut next = Task::clone(&stored.task);
        let applied = match tasks::apply(&mut next, event) {
            Ok(applied) => applied,
            Err(error) => {
                tracing::debug!(request_id, task_id = next.id, %error, "agent event ignored");
                return;
            }
        };
        let next = Arc::new(next);
        match deps.store.put_shared(&next, Some(stored.version)).await {
            Ok(version) => {
                *stored = SharedStored {
                    task: next,
                    version,
                };
                publish(deps, live, &stored.task, applied);
                return;
            }
            Err(StoreError::Conflict(_)) => match deps.store.get_shared(&next.id).await {
                Ok(Some(fresh)) => {
                    let ended_elsewhere = fresh.task.status.state.is_terminal();
                    *stored = fresh;
                    if ended_elsewhere {
                        tracing::info!(request_id, task_id = next.id, "the task ended elsewhere");
                        live.cancel.cancel();
                        let status = Applied::Status(crate::model::TaskStatusUpdateEvent {
                            task_id: stored.task.id.clone(),
                            context_id: stored.task.context_id.clone(),
                            status: stored.task.status.clone(),
                            is_final: true,
                            metadata: None,
                        });
                        publish(deps, live, &stored.task, status);
                        return;
                    }
                    // Apply the same event to the fresh task.
                    event = unapplied(applied);
                }
                Ok(None) | Err(_) => break,
            },
            Err(error) => {
                // The store is down: the clients connected here still see the change.
                tracing::error!(request_id, task_id = next.id, %error, "storing a task failed");
                *stored = SharedStored {
                    task: next,
                    version: stored.version,
                };
                publish(deps, live, &stored.task, applied);
                return;
            }
        }
    }
    tracing::error!(
        request_id,
        task_id = stored.task.id,
        "an agent event was lost to repeated write conflicts"
    );
}

/// The event an applied change came from (to apply it again after a conflict, without
/// keeping a copy of every event for the rare case).
fn unapplied(applied: Applied) -> AgentEvent {
    match applied {
        Applied::Status(update) => AgentEvent::Status {
            state: update.status.state,
            message: update.status.message,
        },
        Applied::Artifact(update) => AgentEvent::Artifact {
            artifact: update.artifact,
            append: update.append,
            last_chunk: update.last_chunk,
        },
    }
}

/// Broadcasts an applied change and settles the task when it ended.
fn publish(deps: &RunnerDeps, live: &LiveTask, task: &Task, applied: Applied) {
    let ended = task.status.state.ends_stream();
    let event = match applied {
        Applied::Status(status) => StreamEvent::StatusUpdate(status),
        Applied::Artifact(artifact) => StreamEvent::ArtifactUpdate(artifact),
    };
    deps.registry
        .publish(&task.id, Ok(event), task.status.state.is_terminal());
    if ended {
        live.settled.send_if_modified(|settled| {
            let running = *settled == Settled::Running;
            if running {
                *settled = Settled::Ended;
            }
            running
        });
    }
}

/// Closes the task when the agent returns: completed if it left it running; failed if
/// the agent failed, after telling subscribers (-32603, generic) so that a stream ends
/// with the error and a waiting send answers with it.
async fn finish(deps: &RunnerDeps, live: &LiveTask, failed: bool, request_id: &str, task_id: &str) {
    if failed {
        deps.registry
            .publish(task_id, Err(Error::bare(Refusal::Internal)), false);
        live.settled
            .send_replace(Settled::Failed(Error::bare(Refusal::Internal)));
    }
    if live.state.lock().await.task.status.state.ends_stream() {
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
        let mut message = Message::text(Role::Agent, uuid::Uuid::new_v4().to_string(), text);
        message.task_id = None;
        message
    });
    deliver(
        deps,
        live,
        AgentEvent::Status { state, message },
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
        AgentEvent::Status {
            state: TaskState::Canceled,
            message: None,
        },
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

/// -32002 for a task in a terminal state.
pub(crate) fn not_cancelable(task: &Task) -> Error {
    Error::new(
        Refusal::TaskNotCancelable,
        format!(
            "task {} is already {}",
            task.id,
            state_name(task.status.state)
        ),
    )
    .with_metadata("taskId", task.id.clone())
}

/// A state's name for messages (`input-required`).
pub(crate) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "input-required",
        TaskState::AuthRequired => "auth-required",
        TaskState::Completed => "completed",
        TaskState::Canceled => "canceled",
        TaskState::Failed => "failed",
        TaskState::Rejected => "rejected",
        TaskState::Unknown => "unknown",
    }
}
