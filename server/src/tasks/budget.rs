//! [`ByteBudget`]: a bound in bytes that in-memory task stores share.
//!
//! One store per process needs none (each [`InMemoryTaskStore`](super::InMemoryTaskStore)
//! has a budget of its own); the emulator, which keeps a store per AgentCore session (a
//! session is a microVM of its own), gives them one budget so that the process as a whole
//! stays within it however many sessions hold tasks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use super::memory::Tasks;

/// A bound in bytes shared by in-memory task stores: when the tasks of all of them hold
/// more, the oldest finished tasks go, first in the store written to, then in the stores
/// made earliest.
///
/// ```
/// use a2a_server::tasks::{ByteBudget, InMemoryTaskStore};
///
/// let budget = ByteBudget::new(64 * 1024 * 1024);
/// let first = InMemoryTaskStore::with_budget(1_000, &budget);
/// let second = InMemoryTaskStore::with_budget(1_000, &budget);
/// assert_eq!(budget.max(), 64 * 1024 * 1024);
/// assert_eq!(budget.held(), first.bytes() + second.bytes());
/// ```
#[derive(Debug, Clone)]
pub struct ByteBudget(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    max: usize,
    held: AtomicUsize,
    /// The stores sharing it, the earliest made first.
    stores: Mutex<Vec<Weak<RwLock<Tasks>>>>,
}

impl ByteBudget {
    /// A budget of `max` bytes.
    pub fn new(max: usize) -> Self {
        Self(Arc::new(Inner {
            max,
            held: AtomicUsize::new(0),
            stores: Mutex::new(Vec::new()),
        }))
    }

    /// The bound.
    pub fn max(&self) -> usize {
        self.0.max
    }

    /// The estimated bytes the stores sharing it hold now.
    pub fn held(&self) -> usize {
        self.0.held.load(Ordering::Relaxed)
    }

    pub(super) fn over(&self) -> bool {
        self.held() > self.0.max
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
    /// budget holds no more than its bound. Called with no store's lock held: it takes
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
