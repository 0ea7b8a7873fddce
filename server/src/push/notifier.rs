//! Telling webhooks about a task's changes: one worker per task with news, so that the
//! notifications of one task go out in order, each configuration's webhook told once per
//! status change.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::join_all;
use tokio::sync::{Semaphore, watch};

use a2a_lambda_core::model::{Task, TaskState};
use a2a_lambda_core::version::ProtocolVersion;
use a2a_lambda_core::wire::{v0_3, v1_0};

use super::delivery::{Notification, Outcome, Webhooks};
use super::store::{Mark, PushConfigStore, StoredConfig};
use super::target::TargetPolicy;
use crate::tasks::SharedStored;

/// How long after a status change a process that touches the task takes it that the
/// process that made the change is gone, if a configuration was not told: longer than
/// the default delivery policy's every attempt and backoff (5 × 10 s + 15.5 s).
pub const DEFAULT_RECOVERY_GRACE: Duration = Duration::from_secs(120);

/// Most changes of one task waiting to be told while its webhooks are slow: past that the
/// oldest waiting one is dropped (each notification carries the whole task, so a later one
/// tells what a dropped one would have, and more), and the drop is logged.
pub const MAX_QUEUED_PER_TASK: usize = 32;

/// Most notifications on their way at once, over every task: a flood of tasks with slow
/// webhooks waits here rather than opening ever more connections.
pub const MAX_CONCURRENT_DELIVERIES: usize = 256;

/// Push notifications for an engine: where configurations live and how webhooks are
/// called. Cheap to clone.
///
/// ```no_run
/// use std::sync::Arc;
/// use a2a_lambda_server::push::delivery::{DeliveryPolicy, Webhooks};
/// use a2a_lambda_server::push::target::TargetPolicy;
/// use a2a_lambda_server::push::{InMemoryPushConfigs, Push};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let webhooks = Webhooks::new(TargetPolicy::PublicHttps, DeliveryPolicy::default())?;
/// let push = Push::new(Arc::new(InMemoryPushConfigs::new()), webhooks);
/// # let _ = push;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Push {
    inner: Arc<Inner>,
    recovery_grace: Duration,
}

impl std::fmt::Debug for Push {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Push")
            .field("targets", &self.inner.webhooks.targets())
            .field("busy", &*self.inner.busy.borrow())
            .finish_non_exhaustive()
    }
}

struct Inner {
    store: Arc<dyn PushConfigStore>,
    webhooks: Webhooks,
    /// The changes waiting in each task whose worker is at work (a task is here exactly
    /// while its worker runs).
    workers: Mutex<HashMap<String, VecDeque<Snapshot>>>,
    /// Permits for [`MAX_CONCURRENT_DELIVERIES`].
    deliveries: Semaphore,
    /// How many workers are at work.
    busy: watch::Sender<usize>,
}

/// A task as one write left it.
struct Snapshot {
    task: Arc<Task>,
    version: u64,
}

impl Push {
    /// Push notifications with configurations in `store`, delivered by `webhooks`.
    pub fn new(store: Arc<dyn PushConfigStore>, webhooks: Webhooks) -> Self {
        Self {
            inner: Arc::new(Inner {
                store,
                webhooks,
                workers: Mutex::new(HashMap::new()),
                deliveries: Semaphore::new(MAX_CONCURRENT_DELIVERIES),
                busy: watch::Sender::new(0),
            }),
            recovery_grace: DEFAULT_RECOVERY_GRACE,
        }
    }

    /// Sets how long after a status change a missed notification is made up by the next
    /// request that touches the task ([`DEFAULT_RECOVERY_GRACE`]).
    #[must_use]
    pub fn recovery_grace(mut self, grace: Duration) -> Self {
        self.recovery_grace = grace;
        self
    }

    /// Where webhooks may point.
    pub fn targets(&self) -> TargetPolicy {
        self.inner.webhooks.targets()
    }

    /// Where configurations live.
    pub fn store(&self) -> &Arc<dyn PushConfigStore> {
        &self.inner.store
    }

    /// How many tasks have notifications on their way.
    pub fn pending(&self) -> usize {
        *self.inner.busy.borrow()
    }

    /// Waits until no notification is on its way.
    pub async fn idle(&self) {
        let mut busy = self.inner.busy.subscribe();
        let _ = busy.wait_for(|busy| *busy == 0).await;
    }

    /// The task changed status in the write that made `version`: its webhooks are told,
    /// after what they were told before. A task still `submitted` is news to nobody.
    pub(crate) fn notify(&self, task: &Arc<Task>, version: u64) {
        if task.status.state == TaskState::Submitted {
            return;
        }
        let snapshot = Snapshot {
            task: Arc::clone(task),
            version,
        };
        let mut workers = self.inner.lock();
        if let Some(waiting) = workers.get_mut(&task.id) {
            waiting.push_back(snapshot);
            if waiting.len() > MAX_QUEUED_PER_TASK {
                waiting.pop_front();
                tracing::warn!(
                    task_id = task.id,
                    "push notifications of this task wait on slow webhooks: the oldest waiting change was dropped (the next one carries the whole task)"
                );
            }
            return;
        }
        workers.insert(task.id.clone(), VecDeque::from([snapshot]));
        self.inner.busy.send_modify(|busy| *busy += 1);
        drop(workers);
        tokio::spawn(work(Arc::clone(&self.inner), task.id.clone()));
    }

    /// A request touched a task that does not run here: if its status settled longer ago
    /// than the recovery grace and some configuration was never told, the task as it
    /// stands is delivered (the process that changed it stopped before it could tell).
    pub(crate) fn touch(&self, stored: &SharedStored) {
        let task = &stored.task;
        if !task.status.state.ends_stream() || self.inner.lock().contains_key(&task.id) {
            return;
        }
        let settled_long_ago = task
            .status
            .timestamp
            .as_deref()
            .and_then(age)
            .is_some_and(|age| age >= self.recovery_grace);
        if settled_long_ago {
            self.notify(task, stored.version);
        }
    }
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<Snapshot>>> {
        // Every change under the lock is one insert or remove.
        self.workers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tells every configuration of the task not told of this status yet, at once, and
    /// records that each was told (or given up on).
    async fn tell(&self, snapshot: &Snapshot) {
        let Snapshot { task, version } = snapshot;
        let configs = match self.store.configs(&task.id).await {
            Ok(configs) => configs,
            Err(error) => {
                tracing::warn!(task_id = task.id, %error, "reading the task's push configurations failed; its webhooks are not told of this change");
                return;
            }
        };
        let mark = Mark {
            version: *version,
            status_at: task.status.timestamp.clone().unwrap_or_default(),
        };
        let due: Vec<&StoredConfig> = configs
            .iter()
            .filter(|config| {
                config.mark.as_ref().is_none_or(|told| {
                    told.version < mark.version && told.status_at != mark.status_at
                })
            })
            .collect();
        if due.is_empty() {
            return;
        }
        let bodies = Bodies::new(task);
        join_all(due.into_iter().map(|config| {
            let notification = notification(config, &bodies);
            let mark = &mark;
            async move {
                let Some(notification) = notification else {
                    return;
                };
                // The semaphore is never closed: a permit always comes.
                let permit = self.deliveries.acquire().await.ok();
                let outcome = self.webhooks.deliver(&notification).await;
                drop(permit);
                match &outcome {
                    Outcome::Delivered { attempts, status } => tracing::debug!(
                        task_id = task.id,
                        config_id = config.id(),
                        attempts,
                        status,
                        "push notification delivered"
                    ),
                    other => tracing::info!(
                        task_id = task.id,
                        config_id = config.id(),
                        outcome = ?other,
                        "push notification not delivered"
                    ),
                }
                if let Err(error) = self.store.mark(&task.id, config.id(), mark).await {
                    tracing::warn!(task_id = task.id, config_id = config.id(), %error, "recording a push notification failed");
                }
            }
        }))
        .await;
    }
}

/// A task's worker: tells its waiting changes in order, and leaves when none waits.
async fn work(inner: Arc<Inner>, task_id: String) {
    loop {
        // Under the lock, so that a notify either finds this task's queue (and its change
        // is told here) or, once the queue is gone, starts a new worker.
        let next = {
            let mut workers = inner.lock();
            match workers.get_mut(&task_id).and_then(VecDeque::pop_front) {
                Some(snapshot) => snapshot,
                None => {
                    workers.remove(&task_id);
                    drop(workers);
                    inner
                        .busy
                        .send_modify(|busy| *busy = busy.saturating_sub(1));
                    return;
                }
            }
        };
        inner.tell(&next).await;
    }
}

/// The notification bodies of one snapshot, made once per version at most.
struct Bodies<'a> {
    task: &'a Task,
    v0_3: std::sync::OnceLock<bytes::Bytes>,
    v1_0: std::sync::OnceLock<bytes::Bytes>,
}

impl<'a> Bodies<'a> {
    fn new(task: &'a Task) -> Self {
        Self {
            task,
            v0_3: std::sync::OnceLock::new(),
            v1_0: std::sync::OnceLock::new(),
        }
    }

    /// The body in `version`, and its content type.
    fn of(&self, version: ProtocolVersion) -> (bytes::Bytes, &'static str) {
        let written = match version {
            ProtocolVersion::V0_3 => self
                .v0_3
                .get_or_init(|| to_bytes(&v0_3::push_payload(self.task))),
            ProtocolVersion::V1_0 => self
                .v1_0
                .get_or_init(|| to_bytes(&v1_0::push_payload(self.task))),
        };
        let content_type = match version {
            ProtocolVersion::V0_3 => "application/json",
            ProtocolVersion::V1_0 => "application/a2a+json",
        };
        (written.clone(), content_type)
    }
}

fn to_bytes<T: serde::Serialize>(value: &T) -> bytes::Bytes {
    serde_json::to_vec(value)
        .map(bytes::Bytes::from)
        .unwrap_or_else(|error| {
            tracing::error!(%error, "writing a push notification failed");
            bytes::Bytes::new()
        })
}

/// What to POST for `config` (`None` if the body could not be written).
fn notification(config: &StoredConfig, bodies: &Bodies<'_>) -> Option<Notification> {
    let (body, content_type) = bodies.of(config.version);
    if body.is_empty() {
        return None;
    }
    Some(Notification {
        url: config.config.url.clone(),
        token: config.config.token.clone(),
        authorization: config.config.authentication.as_ref().and_then(|auth| {
            let scheme = auth.schemes.first()?;
            Some(match &auth.credentials {
                Some(credentials) => format!("{scheme} {credentials}"),
                None => scheme.clone(),
            })
        }),
        content_type,
        body,
    })
}

/// How long ago an RFC 3339 timestamp was (`None`: unreadable, or in the future).
fn age(timestamp: &str) -> Option<Duration> {
    let at = time::OffsetDateTime::parse(timestamp, &time::format_description::well_known::Rfc3339)
        .ok()?;
    let elapsed = time::OffsetDateTime::now_utc() - at;
    Duration::try_from(elapsed).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::push::InMemoryPushConfigs;
    use crate::push::delivery::DeliveryPolicy;
    use a2a_lambda_core::model::{PushNotificationConfig, TaskStatus};

    fn task(state: TaskState, at: &str) -> Arc<Task> {
        Arc::new(Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: Some(at.into()),
            },
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        })
    }

    #[tokio::test]
    async fn a_task_waiting_on_a_slow_webhook_keeps_a_bounded_queue() {
        // A webhook that accepts connections and never answers.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                held.push(socket);
            }
        });
        let configs = Arc::new(InMemoryPushConfigs::new());
        configs
            .put_config(
                "t",
                StoredConfig {
                    config: PushNotificationConfig {
                        id: Some("c".into()),
                        url,
                        token: None,
                        authentication: None,
                    },
                    version: ProtocolVersion::V1_0,
                    mark: None,
                },
            )
            .await
            .unwrap();
        let policy = DeliveryPolicy {
            timeout: Duration::from_secs(30),
            attempts: 1,
            ..DeliveryPolicy::default()
        };
        let push = Push::new(
            configs,
            Webhooks::new(TargetPolicy::Loopback, policy).unwrap(),
        );
        push.notify(&task(TaskState::Working, "2026-01-01T00:00:00.000Z"), 1);
        // The worker takes the first change and hangs on it.
        tokio::time::sleep(Duration::from_millis(200)).await;
        for version in 2..100 {
            push.notify(&task(TaskState::Working, &format!("v{version}")), version);
        }
        let waiting = push.inner.lock().get("t").map(VecDeque::len);
        assert_eq!(waiting, Some(MAX_QUEUED_PER_TASK));
        // The newest change is kept; the oldest waiting ones went.
        let newest = push
            .inner
            .lock()
            .get("t")
            .and_then(|queue| queue.back().map(|snapshot| snapshot.version));
        assert_eq!(newest, Some(99));
        assert_eq!(push.pending(), 1);
        // A task still submitted is news to nobody.
        push.notify(
            &Arc::new(Task {
                id: "other".into(),
                ..Task::clone(&task(TaskState::Submitted, "x"))
            }),
            1,
        );
        assert_eq!(push.pending(), 1);
    }
}
