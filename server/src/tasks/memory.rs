//! [`InMemoryTaskStore`]: tasks in process memory, with a bounded event log per task.

use std::collections::HashMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::{Lease, Logged, SharedStored, Since, StoreError, Stored, TaskStore, page_token};
use super::{parse_time, view};
use crate::owner::Owner;
use a2a_core::model::{ListTasksParams, ListTasksResult, StreamEvent, Task};

/// How many logged writes [`InMemoryTaskStore`] keeps per task (each up to a batch of an
/// agent's events): a client resuming a stream cut further back gets the task as it
/// stands instead.
pub const IN_MEMORY_LOG_WRITES: usize = 64;

/// How many tasks [`InMemoryTaskStore::new`] keeps before it forgets the oldest finished
/// ones.
pub const DEFAULT_IN_MEMORY_CAPACITY: usize = 1_000;

/// Tasks in process memory: lost on restart, not shared between processes.
///
/// It holds at most `capacity` tasks: past that, the oldest tasks in a terminal state are
/// forgotten first (a get then answers -32001), so a long-running process does not grow
/// without bound. Tasks still open are never forgotten.
#[derive(Debug)]
pub struct InMemoryTaskStore {
    inner: RwLock<Tasks>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<Arc<str>, SharedStored>,
    /// The logged writes of the tasks that have any, the newest last, and the version
    /// before which the log may miss some.
    logs: HashMap<Arc<str>, TaskLog>,
    /// Ids in the order they were first saved (sharing the map's keys).
    order: std::collections::VecDeque<Arc<str>>,
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl InMemoryTaskStore {
    /// An empty store holding up to [`DEFAULT_IN_MEMORY_CAPACITY`] tasks.
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_IN_MEMORY_CAPACITY)
    }

    /// An empty store holding up to `capacity` tasks (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            inner: RwLock::new(Tasks::default()),
            capacity: capacity.max(1),
        }
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
}

#[derive(Debug, Default)]
struct TaskLog {
    writes: std::collections::VecDeque<Logged>,
    /// Writes before this version may be missing (dropped to keep the log bounded, or
    /// made before the log started).
    complete_from: u64,
}

impl Tasks {
    /// Forgets the oldest terminal tasks until at most `capacity` remain (or none can go).
    fn evict(&mut self, capacity: usize) {
        let mut excess = self.by_id.len().saturating_sub(capacity);
        let mut index = 0;
        while excess > 0 && index < self.order.len() {
            let terminal = self
                .by_id
                .get(&*self.order[index])
                .is_none_or(|stored| stored.task.status.state.is_terminal());
            if terminal {
                if let Some(id) = self.order.remove(index) {
                    self.by_id.remove(&*id);
                    self.logs.remove(&*id);
                }
                excess -= 1;
            } else {
                index += 1;
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
        let mut tasks = self.write();
        let tasks = &mut *tasks;
        match (tasks.by_id.get_mut(task.id.as_str()), expected) {
            (Some(stored), Some(expected)) if stored.version == expected => {
                stored.version += 1;
                stored.task = Arc::clone(task);
                if stored.owner != *owner {
                    stored.owner = owner.clone();
                }
                Ok(stored.version)
            }
            (None, None) => {
                let stored = SharedStored {
                    task: Arc::clone(task),
                    version: 1,
                    owner: owner.clone(),
                };
                let id: Arc<str> = Arc::from(task.id.as_str());
                tasks.by_id.insert(Arc::clone(&id), stored);
                tasks.order.push_back(id);
                tasks.evict(self.capacity);
                Ok(1)
            }
            _ => Err(StoreError::Conflict(task.id.clone())),
        }
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
        let version = self.put_shared(task, owner, expected).await?;
        if !events.is_empty() {
            let mut tasks = self.write();
            if tasks.by_id.contains_key(task.id.as_str()) {
                let log = tasks
                    .logs
                    .entry(Arc::from(task.id.as_str()))
                    .or_insert_with(|| TaskLog {
                        writes: std::collections::VecDeque::new(),
                        complete_from: version,
                    });
                if log.writes.len() == IN_MEMORY_LOG_WRITES
                    && let Some(dropped) = log.writes.pop_front()
                {
                    log.complete_from = dropped.version + 1;
                }
                log.writes.push_back(Logged {
                    version,
                    events: events.to_vec(),
                });
            }
        }
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
