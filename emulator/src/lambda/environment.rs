//! The function as Lambda holds it: one execution environment at a time, started on the
//! first invocation (a cold start: "Init phase",
//! <https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-ib>),
//! replaced after a reset, and invocations let in one at a time (Lambda's default: each
//! environment serves one invocation at a time; a concurrent request would go to another
//! environment, which this one-environment emulator has not, so it waits its turn) or
//! `AWS_LAMBDA_MAX_CONCURRENCY` at a time (Managed Instances).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Bytes;
use tokio::sync::Semaphore;

use super::config::{FunctionConfig, INIT_TIMEOUT};
use super::instance::{FunctionError, Instance, Invocation};
use super::process::Logs;
use super::record::Recorder;
use super::runtime_api;
use crate::Journal;

/// How the environment's shutdown went.
///
/// ```
/// let report = a2a_lambda_emulator::lambda::ShutdownReport::default();
/// assert!(!report.environment && !report.sigterm && !report.killed);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// An environment was running.
    pub environment: bool,
    /// The runtime got `SIGTERM` (an extension was registered).
    pub sigterm: bool,
    /// The runtime exited by itself within the grace, before `SIGKILL`.
    pub exited_in_grace: bool,
    /// The runtime's process was ended by `SIGKILL` (its exit status says so): it had
    /// not exited by itself when the grace was over, or there was none (no extension).
    pub killed: bool,
    /// `SHUTDOWN` events sent (to the external extensions registered for them).
    pub shutdown_events: usize,
}

/// The function and its execution environment.
pub(crate) struct Function {
    pub config: Arc<FunctionConfig>,
    slots: Arc<Semaphore>,
    current: tokio::sync::Mutex<Option<Arc<Instance>>>,
    /// The newest environment, for [`Self::pid`] without waiting on `current`.
    latest: Mutex<Option<Arc<Instance>>>,
    pub logs: Arc<Logs>,
    journal: Option<Journal>,
    started: AtomicU64,
    stopping: AtomicBool,
}

impl Function {
    pub fn new(config: FunctionConfig, journal: Option<Journal>) -> Self {
        let slots = Arc::new(Semaphore::new(config.concurrency()));
        Self {
            config: Arc::new(config),
            slots,
            current: tokio::sync::Mutex::new(None),
            latest: Mutex::new(None),
            logs: Arc::default(),
            journal,
            started: AtomicU64::new(0),
            stopping: AtomicBool::new(false),
        }
    }

    fn latest(&self) -> Option<Arc<Instance>> {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The process of the live environment.
    pub fn pid(&self) -> Option<u32> {
        self.latest()
            .filter(|instance| !instance.is_dead())
            .map(|instance| instance.pid())
    }

    /// Whether the live environment is frozen now.
    pub fn frozen(&self) -> bool {
        self.latest()
            .is_some_and(|instance| !instance.is_dead() && instance.frozen())
    }

    /// The live environment, started (and initialized) if there is none.
    async fn environment(&self) -> Result<Arc<Instance>, FunctionError> {
        let mut current = self.current.lock().await;
        if let Some(instance) = current.as_ref().filter(|instance| !instance.is_dead()) {
            return Ok(Arc::clone(instance));
        }
        *current = None;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|error| FunctionError::new("Runtime.Unknown", error.to_string()))?;
        let number = self.started.fetch_add(1, Ordering::Relaxed) + 1;
        let recorder = Recorder::new(
            self.journal.clone(),
            format!("lambda:{}:{number}", self.config.name),
        );
        let instance = Instance::start(
            Arc::clone(&self.config),
            listener,
            Arc::clone(&self.logs),
            recorder,
            runtime_api::serve,
        )
        .await?;
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&instance));
        if let Err(error) = instance.initialized(INIT_TIMEOUT).await {
            self.logs.line(format!(
                "INIT_REPORT Status: error Error Type: {}",
                error.error_type
            ));
            instance.reset("init failed");
            return Err(error);
        }
        *current = Some(Arc::clone(&instance));
        Ok(instance)
    }

    /// Invokes the function with `event`: a slot, the environment (started if need be),
    /// the invocation handed out.
    ///
    /// # Errors
    /// The init error, or the environment went away, or it is shutting down.
    pub async fn invoke(&self, event: Bytes) -> Result<(Arc<Instance>, Invocation), FunctionError> {
        let unavailable =
            || FunctionError::new("Runtime.Unavailable", "the local Lambda is shutting down");
        if self.stopping.load(Ordering::Acquire) {
            return Err(unavailable());
        }
        let mut permit = Some(
            Arc::clone(&self.slots)
                .acquire_owned()
                .await
                .map_err(|_| unavailable())?,
        );
        // An environment that went away before the invocation was handed out (its
        // process exited after its last answer) is replaced, as Lambda would start
        // another: once.
        let mut tries = 2;
        loop {
            tries -= 1;
            let instance = self.environment().await?;
            match instance.dispatch(event.clone(), &mut permit).await {
                Ok(invocation) => return Ok((instance, invocation)),
                Err(error) if tries > 0 && permit.is_some() && instance.is_dead() => {
                    tracing::info!(%error, "the environment went away; starting another");
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Shuts the live environment down (see [`Instance::shut_down`]).
    pub async fn shutdown(&self) -> ShutdownReport {
        self.stopping.store(true, Ordering::Release);
        self.slots.close();
        let Some(instance) = self.latest().filter(|instance| !instance.is_dead()) else {
            return ShutdownReport::default();
        };
        instance.shut_down().await
    }

    /// Kills the live environment at once (the handle was dropped).
    pub fn kill(&self) {
        if let Some(instance) = self.latest() {
            instance.reset("the local Lambda was dropped");
        }
    }
}
