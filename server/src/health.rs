//! The `/ping` health status that AgentCore polls.
//!
//! `Healthy` when idle, `HealthyBusy` while any task runs (AgentCore keeps a busy session
//! alive). `time_of_last_update` (Unix seconds) moves only when the status changes, so an
//! idle session can still time out.
//!
//! A host that must keep its process alive while tasks run (an AWS Lambda environment,
//! frozen once it asks for the next event) awaits [`Health::idle`].

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use tokio::sync::watch;

/// The `status` member of `/ping`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PingStatus {
    /// Idle and ready.
    Healthy,
    /// Working on at least one task.
    HealthyBusy,
}

/// The `/ping` body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Ping {
    /// Current status.
    pub status: PingStatus,
    /// When the status last changed, in Unix seconds.
    pub time_of_last_update: u64,
}

/// Tracks the status; shared by the engine and the `/ping` route.
#[derive(Debug)]
pub struct Health {
    state: Mutex<Ping>,
    /// How many tasks run, for those waiting until none does.
    running: watch::Sender<usize>,
}

impl Default for Health {
    fn default() -> Self {
        Self::new()
    }
}

impl Health {
    /// Healthy, as of now.
    pub fn new() -> Self {
        Self {
            state: Mutex::new(Ping {
                status: PingStatus::Healthy,
                time_of_last_update: unix_now(),
            }),
            running: watch::Sender::new(0),
        }
    }

    /// The current body.
    pub fn ping(&self) -> Ping {
        *self.lock()
    }

    /// Waits until no task runs (at once when none does).
    pub async fn idle(&self) {
        let mut running = self.running.subscribe();
        // The sender lives as long as `self`, so the wait ends only when the count is 0.
        let _ = running.wait_for(|running| *running == 0).await;
    }

    /// Records how many tasks run; the time moves only if the status changes.
    pub fn set_running(&self, running: usize) {
        self.running.send_if_modified(|current| {
            let changed = *current != running;
            *current = running;
            changed
        });
        let status = if running == 0 {
            PingStatus::Healthy
        } else {
            PingStatus::HealthyBusy
        };
        let mut state = self.lock();
        if state.status != status {
            *state = Ping {
                status,
                time_of_last_update: unix_now(),
            };
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ping> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn idle_waits_until_no_task_runs() {
        let health = std::sync::Arc::new(Health::new());
        // Nothing runs: at once.
        health.idle().await;
        health.set_running(2);
        let waiting = tokio::spawn({
            let health = std::sync::Arc::clone(&health);
            async move { health.idle().await }
        });
        health.set_running(1);
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "one task still runs");
        health.set_running(0);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("idle once none runs")
            .expect("the waiter did not panic");
        assert_eq!(health.ping().status, PingStatus::Healthy);
    }
}
