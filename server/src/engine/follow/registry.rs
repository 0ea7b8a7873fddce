//! The live tasks of one engine and the update channels of the tasks someone follows.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::topic::{Follower, Topic};
use crate::engine::runner::{LiveTask, Update};
use crate::health::Health;

/// The live tasks of one engine, and the update channel of every task someone follows.
///
/// A channel is made only when someone follows the task (a stream or a subscription), so
/// a plain send costs no channel. A task's channel outlives its runners: a subscriber to
/// a task waiting for input keeps receiving when a follow-up message starts the agent
/// again, until the task ends.
#[derive(Default)]
pub(crate) struct Registry {
    tasks: Mutex<HashMap<String, Arc<LiveTask>>>,
    topics: Mutex<HashMap<String, Topic>>,
}

impl Registry {
    /// Follows a task: every update sent from now on, in order. The task's channel is
    /// made on first use.
    pub fn follow(&self, id: &str) -> Follower {
        self.lock_topics()
            .entry(id.to_owned())
            .or_default()
            .follow()
    }

    /// Someone follows the task (a stream or a subscription).
    pub(crate) fn is_followed(&self, id: &str) -> bool {
        let topics = self.lock_topics();
        !topics.is_empty() && topics.contains_key(id)
    }

    /// Sends an update to the task's followers, if it has any; `last` forgets the channel
    /// (the task ended): current receivers still get what was sent.
    pub(crate) fn publish(&self, id: &str, update: Update, last: bool) {
        let mut topics = self.lock_topics();
        if topics.is_empty() {
            return;
        }
        if let Some(topic) = topics.get_mut(id) {
            topic.send(update);
        }
        if last {
            topics.remove(id);
        }
    }

    /// Forgets the channels nobody follows of tasks that do not run.
    pub(crate) fn prune_topics(&self) {
        if self.lock_topics().is_empty() {
            return;
        }
        let tasks = self.lock();
        let mut topics = self.lock_topics();
        if !topics.is_empty() {
            topics.retain(|id, topic| topic.is_followed() || tasks.contains_key(id));
        }
    }

    fn lock_topics(&self) -> std::sync::MutexGuard<'_, HashMap<String, Topic>> {
        self.topics
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn get(&self, id: &str) -> Option<Arc<LiveTask>> {
        self.lock().get(id).cloned()
    }

    /// Whether a newer runner of the task took its place in the registry (a follow-up
    /// message continued it while `live`'s runner was still returning).
    pub(crate) fn is_replaced(&self, id: &str, live: &LiveTask) -> bool {
        self.lock()
            .get(id)
            .is_some_and(|current| !std::ptr::eq(Arc::as_ptr(current), live))
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// The tasks running now, with their ids.
    pub(crate) fn live_tasks(&self) -> Vec<(String, Arc<LiveTask>)> {
        self.lock()
            .iter()
            .map(|(id, live)| (id.clone(), Arc::clone(live)))
            .collect()
    }

    /// Registers a running task; the health status follows under the same lock.
    pub(crate) fn insert(&self, id: String, live: Arc<LiveTask>, health: &Health) {
        let mut tasks = self.lock();
        tasks.insert(id, live);
        health.set_running(tasks.len());
    }

    /// Unregisters `live`, unless a newer runner of the same task replaced it.
    pub(crate) fn remove(&self, id: &str, live: &Arc<LiveTask>, health: &Health) {
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
