//! The agent processes of one emulator, as a whole: one switch stops them all, a stop that
//! needs no runtime, and the ports they were given (never two live processes on one).

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid;
use tokio::sync::watch;

use super::process::{Phase, signal_group};

/// Every agent process of an emulator: one signal stops them all.
#[derive(Debug)]
pub struct Processes {
    stop_all: watch::Sender<bool>,
    phases: Mutex<Vec<Tracked>>,
}

/// A process as [`Processes`] knows it.
#[derive(Debug)]
struct Tracked {
    phase: watch::Receiver<Phase>,
    /// The port it was told to listen on: not given to another process while it lives.
    port: u16,
    /// Its process group, for a stop that cannot wait for the supervisor.
    group: Option<Pid>,
}

impl Default for Processes {
    fn default() -> Self {
        Self::new()
    }
}

impl Processes {
    /// No process yet.
    pub fn new() -> Self {
        Self {
            stop_all: watch::Sender::new(false),
            phases: Mutex::new(Vec::new()),
        }
    }

    /// Stops every process without waiting (SIGTERM now, SIGKILL after the grace); a
    /// process started afterwards is stopped at once.
    pub fn stop_all(&self) {
        self.stop_all.send_replace(true);
    }

    /// Stops every process and waits until each is gone, for at most `limit`.
    pub async fn stop_all_and_wait(&self, limit: Duration) {
        self.stop_all();
        let phases = std::mem::take(&mut *self.lock());
        let all_gone = futures_util::future::join_all(phases.into_iter().map(|tracked| {
            let mut phase = tracked.phase;
            async move {
                // A closed channel: the supervisor is gone, and its process with it.
                let _ = phase
                    .wait_for(|phase| matches!(phase, Phase::Gone(_)))
                    .await;
            }
        }));
        if tokio::time::timeout(limit, all_gone).await.is_err() {
            tracing::warn!(?limit, "agent processes still running after the stop");
        }
    }

    /// SIGTERM to every live process group now, from any thread and without a runtime:
    /// for a stop whose supervisors may never run again (an emulator dropped with its
    /// runtime). The supervisors, if they run, still SIGKILL what is left after the grace.
    pub fn terminate_now(&self) {
        self.stop_all();
        for tracked in self.lock().iter() {
            if let Some(group) = tracked.group
                && !matches!(*tracked.phase.borrow(), Phase::Gone(_))
            {
                signal_group(group, Signal::SIGTERM);
            }
        }
    }

    /// A loopback port free now and not given to a live process of this emulator.
    pub(super) fn free_port(&self) -> Option<u16> {
        let taken: Vec<u16> = self
            .lock()
            .iter()
            .filter(|tracked| !matches!(*tracked.phase.borrow(), Phase::Gone(_)))
            .map(|tracked| tracked.port)
            .collect();
        (0..16).find_map(|_| free_port().filter(|port| !taken.contains(port)))
    }

    /// A receiver of the stop-all switch, for a new process's supervisor.
    pub(super) fn subscribe(&self) -> watch::Receiver<bool> {
        self.stop_all.subscribe()
    }

    pub(super) fn track(&self, phase: watch::Receiver<Phase>, port: u16, pid: Option<u32>) {
        let group = pid
            .and_then(|pid| i32::try_from(pid).ok())
            .map(Pid::from_raw);
        let mut phases = self.lock();
        phases.retain(|tracked| !matches!(*tracked.phase.borrow(), Phase::Gone(_)));
        phases.push(Tracked { phase, port, group });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Tracked>> {
        self.phases.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A loopback port free now, for the process to bind.
fn free_port() -> Option<u16> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).ok()?;
    listener.local_addr().ok().map(|address| address.port())
}
