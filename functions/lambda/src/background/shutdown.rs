//! The environment's shutdown: the tasks still at work here are settled in the store
//! before the process goes.
//!
//! **What Lambda does.** An environment is shut down when it has been idle a while, when
//! Lambda scales in or replaces it (an update, maintenance every few hours), and after
//! an invocation failed or timed out (a reset, which "behaves like a `Shutdown` event").
//! The `SHUTDOWN` event itself goes to external extensions only: an internal extension
//! may not register for it (the registration is refused). But once any extension is
//! registered, internal ones included, Lambda sends the runtime process `SIGTERM` at the
//! start of the shutdown, and `SIGKILL` when its time is up: 500 ms for a function with
//! an internal extension (0 ms, no `SIGTERM` at all, without extensions; of the 2,000 ms
//! given to external extensions, the runtime keeps the same 500 ms). Sources: AWS Lambda
//! Developer Guide, "Understanding the Lambda execution environment lifecycle", Shutdown
//! phase and failure handling
//! (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-shutdown>),
//! and "Using the Lambda Extensions API", troubleshooting ("make sure that the request
//! does not register for the Shutdown event" for an internal extension,
//! <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html>); the
//! `SIGTERM` with an internal extension only: AWS samples, "Graceful shutdown with AWS
//! Lambda" (<https://github.com/aws-samples/graceful-shutdown-with-aws-lambda>, its Rust
//! example with a no-op internal extension), as `lambda_runtime`'s
//! `spawn_graceful_shutdown_handler` relies on it.
//!
//! **What the function does.** The background-work extension ([`super::Extension`]) is
//! the registered extension, so `SIGTERM` comes without anything more deployed. The
//! function listens for it from init on ([`Signal`]); on it, [`Background::shut_down`]
//! fails every task still submitted or working here with [`SHUT_DOWN`] as its status
//! message, written to the store within [`SETTLE_WITHIN`] of the signal, tells the
//! agents to stop, lets the runners end and the push notifications now due go out until
//! [`DRAIN_WITHIN`], logs what it settled, and the process exits with code 0 — all
//! before Lambda's [`SHUTDOWN_BUDGET`]. Tasks waiting for input, and tasks already over,
//! are left as they are.
//!
//! Why `lambda_runtime`'s `spawn_graceful_shutdown_handler` (feature `graceful-shutdown`)
//! is not used: it registers a second, no-op extension (the function has one already),
//! panics where the Extensions API is missing, and ends the process itself
//! (`std::process::exit`), where this returns from [`super::serve`] and `main`.
//!
//! **When it matters.** Usually nothing runs at a shutdown: the extension holds each
//! invocation until its tasks are done, or fails them before its deadline
//! ([`super::OUT_OF_TIME`]). The shutdown settles what got past that: an invocation reset
//! before the extension let it go (the store too slow to answer at the deadline), tasks
//! left running after the extension stopped, an environment stopped outside Lambda's
//! lifecycle (`cargo lambda watch`, a test). With the DynamoDB store, a task left working
//! anyway (`SIGKILL` first, a store slower than [`SETTLE_WITHIN`]) is failed by the next
//! read once its runner's lease has run out; in memory, the tasks go with the
//! environment, and only their push notifications tell the client.

use std::time::Duration;

use a2a_lambda_server::host::engine::Engine;
use tokio::time::{Instant, timeout_at};

use super::Background;

/// The status message of a task failed because its environment was shut down.
pub const SHUT_DOWN: &str =
    "The agent's Lambda execution environment was shut down before the task finished.";

/// How long the runtime process has from `SIGTERM` to `SIGKILL` when the function has an
/// internal extension (AWS Lambda Developer Guide, "Understanding the Lambda execution
/// environment lifecycle", Shutdown phase:
/// <https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-shutdown>).
pub const SHUTDOWN_BUDGET: Duration = Duration::from_millis(500);

/// How long after the signal the tasks' failed states may take to be written. A DynamoDB
/// `PutItem` takes some milliseconds in its region and a throttled one is retried after
/// 50–100 ms: 300 ms covers a write and its retries, and leaves the rest of the budget
/// for the agents' runners to end, the log and the exit. Writes still under way then are
/// given up: those tasks keep their last saved state.
pub const SETTLE_WITHIN: Duration = Duration::from_millis(300);

/// How long after the signal the runners may take to end and the push notifications of
/// the failed tasks to be delivered; what is left of [`SHUTDOWN_BUDGET`] after it is for
/// the last log line and the exit.
pub const DRAIN_WITHIN: Duration = Duration::from_millis(450);

// The steps fit in Lambda's budget, in order.
const _: () = assert!(
    SETTLE_WITHIN.as_millis() < DRAIN_WITHIN.as_millis()
        && DRAIN_WITHIN.as_millis() < SHUTDOWN_BUDGET.as_millis()
);

/// What a shutdown settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// The tasks at work here when the signal came (submitted, working, or waiting for
    /// input).
    pub running: usize,
    /// The tasks failed with [`SHUT_DOWN`], their state written to the store.
    pub failed: usize,
    /// Every write was done within [`SETTLE_WITHIN`] (false: the store did not answer in
    /// time, and the tasks not yet written keep their last saved state).
    pub written: bool,
    /// Every runner ended and every push notification due was delivered within
    /// [`DRAIN_WITHIN`].
    pub drained: bool,
    /// Push notifications still undelivered when the process goes (lost with it).
    pub undelivered: usize,
}

impl Background {
    /// Settles the tasks still at work here because the environment is shutting down, the
    /// signal having come at `signaled`: fails each one still submitted or working with
    /// [`SHUT_DOWN`], written to the store by [`SETTLE_WITHIN`] after `signaled`, tells
    /// its agent to stop, and waits until [`DRAIN_WITHIN`] after it for the runners to end
    /// and the push notifications to go out; what it settled, also logged.
    ///
    /// Without an engine (the function's init failed), nothing runs and nothing is done.
    pub async fn shut_down(&self, signaled: Instant) -> Settled {
        let Some(engine) = self.engine() else {
            return Settled {
                running: 0,
                failed: 0,
                written: true,
                drained: true,
                undelivered: 0,
            };
        };
        let settled = settle(engine, signaled).await;
        log(&settled, signaled);
        settled
    }
}

/// What [`Background::shut_down`] does with the engine.
async fn settle(engine: &Engine, signaled: Instant) -> Settled {
    let running = engine.running_tasks();
    let (failed, written) = match timeout_at(
        signaled + SETTLE_WITHIN,
        engine.fail_running("shutdown", SHUT_DOWN),
    )
    .await
    {
        Ok(failed) => (failed, true),
        Err(_) => (0, false),
    };
    // Told to stop, the agents return at once; a notification of a failed task is queued
    // once its state is written.
    let drained = timeout_at(signaled + DRAIN_WITHIN, engine.idle())
        .await
        .is_ok();
    let undelivered = engine
        .push()
        .map_or(0, a2a_lambda_server::push::Push::pending);
    Settled {
        running,
        failed,
        written,
        drained,
        undelivered,
    }
}

fn log(settled: &Settled, signaled: Instant) {
    let Settled {
        running,
        failed,
        written,
        drained,
        undelivered,
    } = *settled;
    let took_ms = signaled.elapsed().as_secs_f64() * 1000.0;
    if !written {
        tracing::error!(
            running,
            took_ms,
            "environment shutting down: the task store did not answer within {} ms, and \
             the tasks still at work keep their last saved state (with DynamoDB, a read \
             fails them once their runner's lease runs out)",
            SETTLE_WITHIN.as_millis()
        );
    } else if running == 0 {
        tracing::info!(took_ms, "environment shutting down: no task at work");
    } else {
        tracing::warn!(
            running,
            failed,
            drained,
            undelivered,
            took_ms,
            "environment shutting down: the tasks still at work were failed in the store"
        );
    }
}

/// The shutdown signal: `SIGTERM`, listened for from init on (installed once; once it is,
/// the signal does not end the process by itself: the function settles its tasks first).
#[derive(Debug)]
pub struct Signal(tokio::signal::unix::Signal);

impl Signal {
    /// Listens for `SIGTERM`.
    ///
    /// # Errors
    /// The handler could not be installed (the process then ends at once on the signal,
    /// as without it).
    pub fn install() -> std::io::Result<Self> {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).map(Self)
    }

    /// Waits for the signal; the instant it came.
    pub async fn received(&mut self) -> Instant {
        // `None` only once no more signals can come: wait for ever, as for a signal that
        // never comes.
        if self.0.recv().await.is_none() {
            std::future::pending::<()>().await;
        }
        Instant::now()
    }
}
