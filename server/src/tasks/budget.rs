//! [`TaskBudget`]: bounds in tasks and bytes that in-memory task stores share.
//!
//! One store per process needs none (each [`InMemoryTaskStore`](super::InMemoryTaskStore)
//! has a budget of its own); the emulator, which keeps a store per AgentCore session (a
//! session is a microVM of its own), gives them one budget so that the process as a whole
//! stays within it however many sessions hold tasks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use super::memory::Tasks;

/// Bounds in tasks and bytes shared by in-memory task stores: when all of them together
/// hold more tasks or more bytes, the oldest finished tasks go, first in the store written
/// to, then in the stores made earliest.
///
/// ```
/// use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskBudget};
///
/// let budget = TaskBudget::new(1_000, 64 * 1024 * 1024);
/// let first = InMemoryTaskStore::with_budget(1_000, &budget);
/// let second = InMemoryTaskStore::with_budget(1_000, &budget);
/// assert_eq!(budget.max(), 64 * 1024 * 1024);
/// assert_eq!(budget.held(), first.bytes() + second.bytes());
/// assert_eq!(budget.tasks(), first.len() + second.len());
/// ```
#[derive(Debug, Clone)]
pub struct TaskBudget(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    max: usize,
    held: AtomicUsize,
    max_tasks: usize,
    tasks: AtomicUsize,
    /// The stores sharing it, the earliest made first.
    stores: Mutex<Vec<Weak<RwLock<Tasks>>>>,
}

impl TaskBudget {
    /// A budget of `max_tasks` tasks (at least one) and `max_bytes` bytes.
    pub fn new(max_tasks: usize, max_bytes: usize) -> Self {
        Self(Arc::new(Inner {
            max: max_bytes,
            held: AtomicUsize::new(0),
            max_tasks: max_tasks.max(1),
            tasks: AtomicUsize::new(0),
            stores: Mutex::new(Vec::new()),
        }))
    }

    /// The bound in bytes.
    pub fn max(&self) -> usize {
        self.0.max
    }

    /// The bound in tasks.
    pub fn max_tasks(&self) -> usize {
        self.0.max_tasks
    }

    /// How many tasks the stores sharing it hold now.
    pub fn tasks(&self) -> usize {
        self.0.tasks.load(Ordering::Relaxed)
    }

    /// The estimated bytes the stores sharing it hold now.
    pub fn held(&self) -> usize {
        self.0.held.load(Ordering::Relaxed)
    }

    pub(super) fn over(&self) -> bool {
        self.over_bytes() || self.tasks() > self.0.max_tasks
    }

    pub(super) fn over_bytes(&self) -> bool {
        self.held() > self.0.max
    }

    pub(super) fn count(&self, added: usize, removed: usize) {
        self.0.tasks.fetch_add(added, Ordering::Relaxed);
        self.0.tasks.fetch_sub(removed, Ordering::Relaxed);
    }

    pub(super) fn add(&self, bytes: usize) {
        self.0.held.fetch_add(bytes, Ordering::Relaxed);
    }

    pub(super) fn remove(&self, bytes: usize) {
        self.0.held.fetch_sub(bytes, Ordering::Relaxed);
    }

    pub(super) fn register(&self, tasks: &Arc<RwLock<Tasks>>) {
        let mut stores = self
            .0
            .stores
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        stores.retain(|store| store.strong_count() > 0);
        stores.push(Arc::downgrade(tasks));
    }

    /// Forgets finished tasks of the other stores, the earliest made first, until the
    /// budget holds no more than its bounds. Called with no store's lock held: it takes
    /// each store's in turn.
    pub(super) fn reclaim(&self, writer: &Arc<RwLock<Tasks>>) {
        let stores: Vec<Arc<RwLock<Tasks>>> = self
            .0
            .stores
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for store in stores {
            if !self.over() {
                break;
            }
            if Arc::ptr_eq(&store, writer) {
                continue;
            }
            store
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .evict(usize::MAX, self, "");
        }
    }
}
