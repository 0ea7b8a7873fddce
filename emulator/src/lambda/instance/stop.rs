//! How an environment ends: a reset, or the shutdown.

use super::*;

impl Instance {
    /// Resets the environment: the process group killed, the APIs closed, whatever is in
    /// flight failed. The next invocation starts a new environment.
    pub(crate) fn reset(&self, why: &str) {
        self.lock().stopping = true;
        self.signal_all(Signal::SIGKILL);
        self.close_apis();
        self.logs.line(format!("environment reset: {why}"));
        self.died(why);
    }

    fn close_apis(&self) {
        for server in self
            .servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
        {
            server.abort();
        }
    }

    /// Shuts the environment down as Lambda does ("Shutdown phase",
    /// <https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-shutdown>):
    /// a `SHUTDOWN` event (reason `spindown`) to each external extension registered for
    /// it, `SIGTERM` to the runtime when any extension is registered, `SIGKILL` to the
    /// runtime once [`SHUTDOWN_GRACE`] is over and to the rest once every external
    /// extension came back for its next event (or exited), at most
    /// [`EXTENSIONS_SHUTDOWN_GRACE`] after the start; without extensions, `SIGKILL` at once.
    pub(crate) async fn shut_down(&self) -> ShutdownReport {
        let started = tokio::time::Instant::now();
        let deadline_ms = unix_millis(SystemTime::now() + EXTENSIONS_SHUTDOWN_GRACE);
        let (extensions, externals) = {
            let mut state = self.lock();
            state.stopping = true;
            let mut externals = 0;
            for extension in state.extensions.values_mut() {
                if extension.shutdown {
                    extension.pending.push_back(json!({
                        "eventType": "SHUTDOWN",
                        "shutdownReason": "spindown",
                        "deadlineMs": deadline_ms,
                    }));
                    externals += 1;
                }
            }
            if state.frozen {
                self.signal_all(Signal::SIGCONT);
                state.frozen = false;
                self.recorder
                    .state(SessionState::Busy, Some("SIGCONT: thawed for the shutdown"));
            }
            (!state.extensions.is_empty(), externals)
        };
        self.bump();
        let runtime = Pid::from_raw(i32::try_from(self.pid()).unwrap_or(0));
        let mut exited_in_grace = false;
        if extensions && !self.reaped.load(Ordering::Acquire) && self.pid() != 0 {
            process::signal_process(runtime, Signal::SIGTERM);
            let mut exited = self.exited.clone();
            exited_in_grace =
                tokio::time::timeout(SHUTDOWN_GRACE, exited.wait_for(Option::is_some))
                    .await
                    .is_ok_and(|waited| waited.is_ok());
        }
        if self.pid() != 0 {
            process::signal_process(runtime, Signal::SIGKILL);
        }
        if externals > 0 {
            let budget = started + EXTENSIONS_SHUTDOWN_GRACE;
            let _ = tokio::time::timeout_at(
                budget,
                self.until(|state| {
                    let done = state.extensions.values().all(|extension| {
                        !extension.shutdown
                            || (extension.shutdown_delivered
                                && extension.waiting
                                && extension.pending.is_empty())
                    });
                    let gone = self.extension_processes.load(Ordering::Acquire) == 0;
                    (done || gone).then_some(())
                }),
            )
            .await;
        }
        self.signal_all(Signal::SIGKILL);
        self.close_apis();
        let mut exited = self.exited.clone();
        let _ =
            tokio::time::timeout(Duration::from_secs(5), exited.wait_for(Option::is_some)).await;
        self.died("the environment was shut down");
        ShutdownReport {
            environment: true,
            sigterm: extensions,
            exited_in_grace,
            killed: self.ended_by.load(Ordering::Acquire) == Signal::SIGKILL as i32,
            shutdown_events: externals,
        }
    }
}
