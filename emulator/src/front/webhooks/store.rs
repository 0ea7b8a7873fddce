//! The sinks' deliveries, bounded: at most [`MAX_SINKS`] sinks of at most
//! [`MAX_DELIVERIES`] each (the oldest dropped and counted), and a wake-up for long polls.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

use super::WebhookDelivery;

/// Most deliveries one sink keeps; a new one past it drops the oldest.
pub const MAX_DELIVERIES: usize = 1_000;
/// Most sinks the emulator keeps; a delivery to a new name past it is refused.
pub const MAX_SINKS: usize = 100;

/// One sink's deliveries.
#[derive(Default)]
struct Sink {
    /// Oldest first.
    deliveries: VecDeque<WebhookDelivery>,
    /// How many were dropped to keep [`MAX_DELIVERIES`].
    dropped: u64,
}

/// What a read of a sink found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Page {
    /// The deliveries after the position asked for, oldest first.
    pub deliveries: Vec<WebhookDelivery>,
    /// How many the sink dropped (since it was made or cleared).
    pub dropped: u64,
    /// The position after the last delivery: what the next poll passes as `since`.
    pub next: u64,
}

/// A delivery to a new sink when [`MAX_SINKS`] exist already.
#[derive(Debug, PartialEq, Eq)]
pub struct TooManySinks;

/// Every sink, by name.
#[derive(Default)]
pub struct Sinks {
    sinks: Mutex<BTreeMap<String, Sink>>,
    /// Woken at every delivery, to any sink (a long poll looks again).
    arrived: Notify,
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sinks").finish_non_exhaustive()
    }
}

impl Sinks {
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Sink>> {
        // A panic elsewhere leaves the map whole (each change is one call).
        self.sinks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `delivery` in sink `name` (made on first use) and returns how many it holds.
    ///
    /// # Errors
    /// [`TooManySinks`] when `name` is new and [`MAX_SINKS`] exist.
    pub fn record(&self, name: &str, delivery: WebhookDelivery) -> Result<usize, TooManySinks> {
        let held = {
            let mut sinks = self.lock();
            if !sinks.contains_key(name) && sinks.len() >= MAX_SINKS {
                return Err(TooManySinks);
            }
            let sink = sinks.entry(name.to_owned()).or_default();
            if sink.deliveries.len() >= MAX_DELIVERIES {
                sink.deliveries.pop_front();
                sink.dropped += 1;
            }
            sink.deliveries.push_back(delivery);
            sink.deliveries.len()
        };
        self.arrived.notify_waiters();
        Ok(held)
    }

    /// Sink `name`'s deliveries after position `since` (positions count every delivery
    /// since the sink was made or cleared, dropped ones included). An unknown sink is empty.
    pub fn read(&self, name: &str, since: u64) -> Page {
        let sinks = self.lock();
        let Some(sink) = sinks.get(name) else {
            return Page {
                next: since,
                ..Page::default()
            };
        };
        let next = sink.dropped + sink.deliveries.len() as u64;
        let skip = usize::try_from(since.saturating_sub(sink.dropped)).unwrap_or(usize::MAX);
        Page {
            deliveries: sink.deliveries.iter().skip(skip).cloned().collect(),
            dropped: sink.dropped,
            next: next.max(since),
        }
    }

    /// As [`read`](Self::read), but waits up to `wait` for a delivery past `since` when
    /// there is none yet.
    pub async fn wait(&self, name: &str, since: u64, wait: Duration) -> Page {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Registered before looking, so a delivery between the look and the wait wakes it.
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            let page = self.read(name, since);
            if !page.deliveries.is_empty() {
                return page;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return self.read(name, since);
            }
        }
    }

    /// Forgets sink `name` (its slot is free again); a long poll on it keeps waiting.
    pub fn clear(&self, name: &str) {
        self.lock().remove(name);
    }

    /// Every sink's name and how many deliveries it holds, by name.
    pub fn list(&self) -> Vec<(String, usize, u64)> {
        self.lock()
            .iter()
            .map(|(name, sink)| (name.clone(), sink.deliveries.len(), sink.dropped))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn delivery(n: u8) -> WebhookDelivery {
        WebhookDelivery {
            received_at: SystemTime::UNIX_EPOCH,
            headers: Vec::new(),
            content_type: None,
            body: vec![n],
        }
    }

    #[test]
    fn since_counts_dropped_deliveries_too() {
        let sinks = Sinks::default();
        for n in 0..=3 {
            sinks.record("a", delivery(n)).unwrap();
        }
        let page = sinks.read("a", 2);
        assert_eq!(page.deliveries, vec![delivery(2), delivery(3)]);
        assert_eq!(page.next, 4);
        assert_eq!(sinks.read("a", 9).next, 9);
        assert_eq!(sinks.read("unknown", 0), Page::default());
    }

    #[test]
    fn a_new_sink_past_the_bound_is_refused() {
        let sinks = Sinks::default();
        for n in 0..MAX_SINKS {
            sinks.record(&n.to_string(), delivery(0)).unwrap();
        }
        assert_eq!(sinks.record("one-more", delivery(0)), Err(TooManySinks));
        assert_eq!(sinks.record("0", delivery(1)), Ok(2));
        sinks.clear("0");
        assert_eq!(sinks.record("one-more", delivery(0)), Ok(1));
    }
}
