//! [`InMemoryTaskStore`]: tasks in process memory, with a bounded event log per task.

use std::collections::HashMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::budget::TaskBudget;

use super::size::{estimated_bytes, event_bytes};
use super::{Lease, Logged, SharedStored, Since, StoreError, Stored, TaskStore, page_token};
use super::{parse_time, view};
use crate::owner::Owner;
use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, StreamEvent, Task};

/// How many logged writes [`InMemoryTaskStore`] keeps per task (each up to a batch of an
/// agent's events): a client resuming a stream cut further back gets the task as it
/// stands instead.
pub const IN_MEMORY_LOG_WRITES: usize = 64;

/// How many tasks [`InMemoryTaskStore::new`] keeps before it forgets the oldest finished
/// ones.
pub const DEFAULT_IN_MEMORY_CAPACITY: usize = 1_000;

/// How many bytes of tasks [`InMemoryTaskStore::new`] keeps before it forgets the oldest
/// finished ones: 256 MiB, which a laptop spares, and room for two of AgentCore's largest
/// (100 MB) requests and their echoes.
pub const DEFAULT_IN_MEMORY_BYTES: usize = 256 * 1024 * 1024;

/// Tasks in process memory: lost on restart, not shared between processes.
///
/// It holds at most `capacity` tasks and about `max_bytes` of them (their texts, data,
/// files and logged events, as [`estimated_bytes`](super::estimated_bytes) counts them):
/// past either bound, the oldest tasks in a terminal state are forgotten first (a get then
/// answers -32001, task not found), so a long-running process does not grow without
/// bound. Tasks still open are never forgotten, nor the task written last (a client can
/// read back what it was just sent even when that task alone is over the bound). Tasks
/// forgotten for their bytes are logged at info, for their count at debug. Stores can
/// share one bound ([`TaskBudget`], [`InMemoryTaskStore::with_budget`]).
///
/// ```
/// use a2a_lambda_server::tasks::InMemoryTaskStore;
///
/// // 10,000 tasks or 64 MiB of them, whichever comes first.
/// let store = InMemoryTaskStore::with_limits(10_000, 64 * 1024 * 1024);
/// assert_eq!(store.bytes(), 0);
/// ```
#[derive(Debug)]
pub struct InMemoryTaskStore {
    inner: Arc<RwLock<Tasks>>,
    capacity: usize,
    budget: TaskBudget,
}

#[derive(Debug, Default)]
pub(super) struct Tasks {
    by_id: HashMap<Arc<str>, SharedStored>,
    /// The logged writes of the tasks that have any, the newest last, and the version
    /// before which the log may miss some.
    logs: HashMap<Arc<str>, TaskLog>,
    /// Ids in the order they were first saved (sharing the map's keys).
    order: std::collections::VecDeque<Arc<str>>,
    /// The estimated bytes of each task, its log's included.
    sizes: HashMap<Arc<str>, usize>,
    /// Their sum.
    bytes: usize,
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryTaskStore {
    /// An empty store holding up to [`DEFAULT_IN_MEMORY_CAPACITY`] tasks and
    /// [`DEFAULT_IN_MEMORY_BYTES`] of them.
    pub fn new() -> Self {
        Self::with_limits(DEFAULT_IN_MEMORY_CAPACITY, DEFAULT_IN_MEMORY_BYTES)
    }

    /// An empty store holding up to `capacity` tasks (at least one) and
    /// [`DEFAULT_IN_MEMORY_BYTES`] of them.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_limits(capacity, DEFAULT_IN_MEMORY_BYTES)
    }

    /// An empty store holding up to `capacity` tasks (at least one) and about `max_bytes`
    /// of them.
    pub fn with_limits(capacity: usize, max_bytes: usize) -> Self {
        Self::with_budget(capacity, &TaskBudget::new(capacity, max_bytes))
    }

    /// An empty store holding up to `capacity` tasks (at least one), its tasks and bytes
    /// counted in `budget` with those of the other stores sharing it.
    pub fn with_budget(capacity: usize, budget: &TaskBudget) -> Self {
        let inner = Arc::new(RwLock::new(Tasks::default()));
        budget.register(&inner);
        Self {
            inner,
            capacity: capacity.max(1),
            budget: budget.clone(),
        }
    }

    /// The estimated bytes of the tasks held now.
    pub fn bytes(&self) -> usize {
        self.read().bytes
    }

    /// How many tasks are held now.
    pub fn len(&self) -> usize {
        self.read().by_id.len()
    }

    /// True when no task is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl InMemoryTaskStore {
    // A plain lock: no write holds it across an await, and it costs less than an async one.
    fn read(&self) -> RwLockReadGuard<'_, Tasks> {
        self.inner
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Tasks> {
        self.inner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Saves `task` (new, or at version `expected`) and forgets what the bounds say.
    fn write_task(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        let mut tasks = self.write();
        let tasks = &mut *tasks;
        match (tasks.by_id.get_mut(task.id.as_str()), expected) {
            (Some(stored), Some(expected)) if stored.version == expected => {
                stored.version += 1;
                stored.task = Arc::clone(task);
                if stored.owner != *owner {
                    stored.owner = owner.clone();
                }
                let version = stored.version;
                let id: Arc<str> = Arc::from(task.id.as_str());
                let log = tasks.logs.get(&*id).map_or(0, |log| log.bytes);
                tasks.resize(&id, estimated_bytes(task) + log, &self.budget);
                tasks.evict(self.capacity, &self.budget, &id);
                Ok(version)
            }
            (None, None) => {
                let stored = SharedStored {
                    task: Arc::clone(task),
                    version: 1,
                    owner: owner.clone(),
                };
                let id: Arc<str> = Arc::from(task.id.as_str());
                tasks.by_id.insert(Arc::clone(&id), stored);
                tasks.order.push_back(Arc::clone(&id));
                self.budget.count(1, 0);
                tasks.resize(&id, estimated_bytes(task), &self.budget);
                tasks.evict(self.capacity, &self.budget, &id);
                Ok(1)
            }
            _ => Err(StoreError::Conflict(task.id.clone())),
        }
    }

    /// Logs the events of the write that made `version` of `task`.
    fn write_log(&self, task: &Task, version: u64, events: &[StreamEvent]) {
        let mut tasks = self.write();
        if tasks.by_id.contains_key(task.id.as_str()) {
            let id: Arc<str> = Arc::from(task.id.as_str());
            let log = tasks
                .logs
                .entry(Arc::clone(&id))
                .or_insert_with(|| TaskLog {
                    writes: std::collections::VecDeque::new(),
                    complete_from: version,
                    bytes: 0,
                });
            let before = log.bytes;
            if log.writes.len() == IN_MEMORY_LOG_WRITES
                && let Some(dropped) = log.writes.pop_front()
            {
                log.complete_from = dropped.version + 1;
                log.bytes -= logged_bytes(&dropped.events);
            }
            log.bytes += logged_bytes(events);
            log.writes.push_back(Logged {
                version,
                events: events.to_vec(),
            });
            let after = log.bytes;
            let size = tasks.sizes.get(&*id).copied().unwrap_or(0);
            tasks.resize(&id, size - before + after, &self.budget);
            tasks.evict(self.capacity, &self.budget, &id);
        }
    }

    /// After a write: when the shared budget is still over its bound (this store had
    /// nothing more it could forget), the other stores forget their oldest finished tasks.
    fn settle(&self) {
        if self.budget.over() {
            self.budget.reclaim(&self.inner);
        }
    }
}

impl Drop for InMemoryTaskStore {
    fn drop(&mut self) {
        let tasks = self.read();
        self.budget.remove(tasks.bytes);
        self.budget.count(0, tasks.by_id.len());
    }
}

#[derive(Debug, Default)]
struct TaskLog {
    writes: std::collections::VecDeque<Logged>,
    /// Writes before this version may be missing (dropped to keep the log bounded, or
    /// made before the log started).
    complete_from: u64,
    /// The estimated bytes of the writes' events.
    bytes: usize,
}

fn logged_bytes(events: &[StreamEvent]) -> usize {
    events.iter().map(event_bytes).sum()
}

impl Tasks {
    /// Sets the estimated size of task `id` to `bytes`.
    fn resize(&mut self, id: &Arc<str>, bytes: usize, budget: &TaskBudget) {
        let before = self.sizes.insert(Arc::clone(id), bytes).unwrap_or(0);
        self.bytes = self.bytes - before + bytes;
        budget.remove(before);
        budget.add(bytes);
    }

    /// Forgets the oldest terminal tasks, but never `kept` (the task written last), until
    /// at most `capacity` remain and `budget` is within its bound (or none can go).
    pub(super) fn evict(&mut self, capacity: usize, budget: &TaskBudget, kept: &str) {
        let mut index = 0;
        while (self.by_id.len() > capacity || budget.over()) && index < self.order.len() {
            let id = &self.order[index];
            let evictable = &**id != kept
                && self
                    .by_id
                    .get(&**id)
                    .is_none_or(|stored| stored.task.status.state.is_terminal());
            if !evictable {
                index += 1;
                continue;
            }
            let for_bytes = self.by_id.len() <= capacity && budget.over_bytes();
            if let Some(id) = self.order.remove(index) {
                self.by_id.remove(&*id);
                budget.count(0, 1);
                self.logs.remove(&*id);
                let bytes = self.sizes.remove(&*id).unwrap_or(0);
                self.bytes -= bytes;
                budget.remove(bytes);
                if for_bytes {
                    tracing::info!(
                        task_id = &*id,
                        bytes,
                        held_bytes = budget.held(),
                        max_bytes = budget.max(),
                        "finished task forgotten: the in-memory task store is over its bytes"
                    );
                } else {
                    tracing::debug!(
                        task_id = &*id,
                        capacity,
                        "finished task forgotten: the in-memory task store is full"
                    );
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        Ok(self.read().by_id.get(id).map(|stored| Stored {
            task: Task::clone(&stored.task),
            version: stored.version,
            owner: stored.owner.clone(),
        }))
    }

    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.put_shared(&Arc::new(task.clone()), owner, expected)
            .await
    }

    async fn get_shared(&self, id: &str) -> Result<Option<SharedStored>, StoreError> {
        Ok(self.read().by_id.get(id).cloned())
    }

    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        let written = self.write_task(task, owner, expected);
        self.settle();
        written
    }

    async fn put_logged(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
        events: &[StreamEvent],
        _: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        // A task in memory dies with its process: it needs no lease.
        let version = self.write_task(task, owner, expected)?;
        if !events.is_empty() {
            self.write_log(task, version, events);
        }
        self.settle();
        Ok(version)
    }

    async fn since(&self, id: &str, version: u64) -> Result<Option<Since>, StoreError> {
        let tasks = self.read();
        let Some(stored) = tasks.by_id.get(id).cloned() else {
            return Ok(None);
        };
        let logged = match tasks.logs.get(id) {
            // No write was logged: there is nothing to miss only if none came after.
            None => (stored.version <= version).then(Vec::new),
            Some(log) if version + 1 >= log.complete_from => Some(
                log.writes
                    .iter()
                    .filter(|write| write.version > version)
                    .cloned()
                    .collect(),
            ),
            Some(_) => None,
        };
        Ok(Some(Since { stored, logged }))
    }

    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError> {
        let tasks = self.read();
        let mut matching: Vec<&Task> = tasks
            .by_id
            .values()
            .filter(|stored| stored.owner == *owner)
            .map(|stored| &*stored.task)
            .filter(|task| {
                params
                    .context_id
                    .as_ref()
                    .is_none_or(|context| &task.context_id == context)
            })
            .filter(|task| params.status.is_none_or(|state| task.status.state == state))
            .filter(|task| {
                params.status_timestamp_after.as_ref().is_none_or(|after| {
                    task.status
                        .timestamp
                        .as_ref()
                        .is_some_and(|at| parse_time(at) >= parse_time(after))
                })
            })
            .collect();
        matching.sort_by(|a, b| {
            let key = |task: &Task| task.status.timestamp.as_deref().and_then(parse_time);
            key(b).cmp(&key(a)).then_with(|| a.id.cmp(&b.id))
        });
        let paging = page_token::Paging::of(params)?;
        let range = paging.range(matching.len());
        let page = matching
            .get(range)
            .unwrap_or_default()
            .iter()
            .map(|task| view(task, params.history_length, params.include_artifacts))
            .collect();
        Ok(paging.result(page, matching.len()))
    }
}
