//! The `/ping` health status that AgentCore polls.
//!
//! `Healthy` when idle, `HealthyBusy` while any task runs (AgentCore keeps a busy session
//! alive). `time_of_last_update` (Unix seconds) moves only when the status changes, so an
//! idle session can still time out.

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

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
        }
    }

    /// The current body.
    pub fn ping(&self) -> Ping {
        *self.lock()
    }

    /// Records how many tasks run; the time moves only if the status changes.
    pub fn set_running(&self, running: usize) {
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
