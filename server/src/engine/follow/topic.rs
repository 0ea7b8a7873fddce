//! A task's followers: each stream or subscription has its own queue of the task's
//! updates, so a burst of events reaches every follower that keeps reading, whatever the
//! scheduler runs first; only a follower that stops reading is cut off.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

use crate::engine::runner::Update;
use a2a_lambda_core::error::{Error, Refusal};

/// How many updates a follower may have waiting before it is cut off (its stream ends
/// with an error asking it to resubscribe). A queue's memory is taken as it fills.
pub(crate) const FOLLOWER_QUEUE: usize = 1024;

/// The followers of one task.
#[derive(Default)]
pub(crate) struct Topic {
    followers: Vec<Sender>,
}

struct Sender {
    queue: mpsc::Sender<Arc<Update>>,
    cut_off: Arc<AtomicBool>,
}

/// What one follower reads: the task's updates in order, until the task ends, or until
/// it fell [`FOLLOWER_QUEUE`] updates behind.
pub(crate) struct Follower {
    queue: mpsc::Receiver<Arc<Update>>,
    cut_off: Arc<AtomicBool>,
}

impl Topic {
    /// A new follower, that reads every update sent from now on.
    pub(crate) fn follow(&mut self) -> Follower {
        let (queue, receiver) = mpsc::channel(FOLLOWER_QUEUE);
        let cut_off = Arc::new(AtomicBool::new(false));
        self.followers.push(Sender {
            queue,
            cut_off: Arc::clone(&cut_off),
        });
        Follower {
            queue: receiver,
            cut_off,
        }
    }

    /// Queues `update` for every follower. A follower that went away is forgotten; one
    /// whose queue is full is cut off: it reads what is queued, then an error.
    /// The followers share one copy of the update.
    pub(crate) fn send(&mut self, update: Update) {
        if self.followers.is_empty() {
            return;
        }
        let update = Arc::new(update);
        let mut dropped = false;
        for follower in &self.followers {
            dropped |= !follower.offer(Arc::clone(&update));
        }
        if dropped {
            // Dropping a cut-off follower's sender ends its queue after what it holds.
            self.followers.retain(Sender::is_open);
        }
    }

    /// Whether anyone still follows the task.
    pub(crate) fn is_followed(&self) -> bool {
        self.followers.iter().any(Sender::is_open)
    }
}

impl Sender {
    /// Queues an update; whether this follower still reads.
    fn offer(&self, update: Arc<Update>) -> bool {
        match self.queue.try_send(update) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.cut_off.store(true, Ordering::Release);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }

    fn is_open(&self) -> bool {
        !self.cut_off.load(Ordering::Acquire) && !self.queue.is_closed()
    }
}

impl Follower {
    /// The next update, in order; `None` once the task ended (or its channel was
    /// forgotten) and every update was read. A follower that fell behind reads what was
    /// queued, then an error that asks it to resubscribe.
    pub(crate) async fn next(&mut self) -> Option<Arc<Update>> {
        match self.queue.recv().await {
            Some(update) => Some(update),
            None if self.cut_off.load(Ordering::Acquire) => {
                tracing::warn!(
                    queued = FOLLOWER_QUEUE,
                    "a stream subscriber stopped reading and was cut off"
                );
                Some(Arc::new(Err(Error::new(
                    Refusal::Internal,
                    format!(
                        "the stream fell more than {FOLLOWER_QUEUE} events behind; resubscribe"
                    ),
                ))))
            }
            None => None,
        }
    }
}
