//! [`RunningLambda`]: a started local Lambda — its URL, its environment's process, its
//! log and journal, and its shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::environment::{Function, ShutdownReport};
use super::{LambdaError, process};
use crate::Journal;

/// The function's log (see [`RunningLambda::log`]).
#[derive(Debug, Clone)]
pub struct FunctionLog(Arc<process::Logs>);

impl FunctionLog {
    /// Its lines, oldest first.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let lines = lambda.log().lines();
    /// # }
    /// ```
    pub fn lines(&self) -> Vec<String> {
        self.0.lines()
    }
}

/// A started local Lambda. Dropping it kills the function at once; call
/// [`shutdown`](Self::shutdown) for Lambda's shutdown.
#[derive(Debug)]
pub struct RunningLambda {
    pub(super) address: SocketAddr,
    pub(super) url: String,
    pub(super) function: Arc<Function>,
    pub(super) journal: Option<Journal>,
    pub(super) stop: tokio::sync::watch::Sender<bool>,
    pub(super) server: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Function")
            .field("name", &self.config.name)
            .finish_non_exhaustive()
    }
}

impl RunningLambda {
    /// The front's base URL, `http://127.0.0.1:PORT` (no trailing slash): the Function
    /// URL (or the API's invoke URL).
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let card = format!("{}/.well-known/agent-card.json", lambda.base_url());
    /// # }
    /// ```
    pub fn base_url(&self) -> &str {
        &self.url
    }

    /// The bound address.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let port = lambda.address().port();
    /// # }
    /// ```
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The process of the live execution environment (`None` before the first
    /// invocation and after a reset): `/proc/PID/stat` says `T` while it is frozen.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// if let Some(pid) = lambda.pid() {
    ///     let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    /// }
    /// # }
    /// ```
    pub fn pid(&self) -> Option<u32> {
        self.function.pid()
    }

    /// Whether the live environment is frozen (`SIGSTOP`) now.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let frozen = lambda.frozen();
    /// # }
    /// ```
    pub fn frozen(&self) -> bool {
        self.function.frozen()
    }

    /// The function's log: what it printed, and Lambda's `START`, `END`, `REPORT` and
    /// timeout lines, oldest first.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let reports = lambda.logs().iter().filter(|line| line.starts_with("REPORT")).count();
    /// # }
    /// ```
    pub fn logs(&self) -> Vec<String> {
        self.function.logs.lines()
    }

    /// A handle on the function's log that outlives this one (to read what the function
    /// printed while [`shutdown`](Self::shutdown) ran).
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let log = lambda.log();
    /// lambda.shutdown().await.unwrap();
    /// let last = log.lines().pop();
    /// # }
    /// ```
    pub fn log(&self) -> FunctionLog {
        FunctionLog(Arc::clone(&self.function.logs))
    }

    /// The inspector's journal (its invocations and environments), when it is on.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let seen = lambda.journal().map(|journal| journal.sessions().len());
    /// # }
    /// ```
    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    /// Shuts down as Lambda does (`SIGTERM` to the runtime when an extension is
    /// registered, `SIGKILL` 500 ms later; without extensions `SIGKILL`), then stops the
    /// front.
    ///
    /// ```no_run
    /// # async fn example(lambda: a2a_lambda_emulator::lambda::RunningLambda) {
    /// let report = lambda.shutdown().await.unwrap();
    /// assert!(!report.sigterm || report.exited_in_grace);
    /// # }
    /// ```
    ///
    /// # Errors
    /// None today; the result leaves room for a front that fails to stop.
    pub async fn shutdown(mut self) -> Result<ShutdownReport, LambdaError> {
        let report = self.function.shutdown().await;
        self.stop.send_replace(true);
        if let Some(server) = self.server.take()
            && tokio::time::timeout(Duration::from_secs(5), server)
                .await
                .is_err()
        {
            tracing::warn!("the local Lambda's front did not stop within 5 s");
        }
        Ok(report)
    }
}

impl Drop for RunningLambda {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            server.abort();
            self.function.kill();
        }
    }
}
