//! One execution environment: the function's process, its Runtime and Extensions APIs,
//! and where each invocation stands — the lifecycle of "Understanding the Lambda
//! execution environment lifecycle"
//! (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html>):
//!
//! - **Init** ends once the runtime and every registered extension have asked for their
//!   next event (`/runtime/invocation/next`, `/extension/event/next`), bounded by
//!   [`INIT_TIMEOUT`](super::config::INIT_TIMEOUT). Extensions register during init only.
//! - **Invoke**: the invocation goes to the runtime's `/next`, an `INVOKE` event to each
//!   extension registered for it. It is over once the runtime has answered
//!   (`/response` or `/error`) *and* the runtime and every extension have asked for their
//!   next event; until then the function's time runs ("the invoke phase ends after the
//!   runtime and all extensions signal that they are done by sending a Next API request").
//! - **Freezing**: once an invocation is over and nothing else is to run, the process
//!   group is stopped (`SIGSTOP`) — Lambda freezes the environment then, and nothing in it
//!   runs until the next invocation thaws it (`SIGCONT`).
//! - **Timeout**: an invocation not over at its deadline fails with `Sandbox.Timedout`
//!   ("Task timed out after N.NN seconds") and the environment is reset: the process is
//!   killed and the next invocation starts a new one (a cold start), as Lambda resets an
//!   environment after a timeout ("Failures during the invoke phase").
//! - **Lambda Managed Instances** (`AWS_LAMBDA_MAX_CONCURRENCY`): up to that many
//!   invocations at once, handed to concurrent `/next` calls ("Lambda Managed Instances
//!   support concurrent requests",
//!   <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html>); the environment is
//!   never frozen ("Continuous operation … without freezing between invocations"), a
//!   timeout fails its invocation but neither stops the code nor resets the environment
//!   ("Independent timeouts", "Invocation timeouts": "Lambda Managed Instances doesn't
//!   enforce timeouts"), and an extension's INVOKE events do not hold anything back
//!   (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html>).

mod calls;
mod invoke;
mod start;
mod stop;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use axum::body::Bytes;
use nix::sys::signal::Signal;
use nix::unistd::Pid;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::config::{EXTENSIONS_SHUTDOWN_GRACE, FunctionConfig, SHUTDOWN_GRACE};
use super::environment::ShutdownReport;
use super::process::{self, Logs};
use super::record::Recorder;
use crate::inspector::SessionState;

/// An error of the function as Lambda names it (`errorType`, `errorMessage`).
///
/// ```
/// use a2a_lambda_emulator::lambda::FunctionError;
/// let error = FunctionError {
///     error_type: "Sandbox.Timedout".into(),
///     message: "Task timed out after 3.00 seconds".into(),
/// };
/// assert_eq!(error.to_json()["errorType"], "Sandbox.Timedout");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionError {
    /// `Sandbox.Timedout`, `Runtime.ExitError`, `Runtime.InitError`, or the function's
    /// own type.
    pub error_type: String,
    /// What happened.
    pub message: String,
}

impl FunctionError {
    pub(crate) fn new(error_type: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            error_type: error_type.into(),
            message: message.into(),
        }
    }

    /// The JSON Lambda's Invoke API would answer: `{"errorMessage", "errorType"}`.
    ///
    /// ```
    /// # use a2a_lambda_emulator::lambda::FunctionError;
    /// let error = FunctionError { error_type: "Runtime.ExitError".into(), message: "gone".into() };
    /// assert_eq!(error.to_json(), serde_json::json!({"errorMessage": "gone", "errorType": "Runtime.ExitError"}));
    /// ```
    pub fn to_json(&self) -> Value {
        json!({"errorMessage": self.message, "errorType": self.error_type})
    }
}

impl std::fmt::Display for FunctionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error_type, self.message)
    }
}

/// A piece of a streamed response, or the error that ended it.
pub(crate) type Chunk = Result<Bytes, FunctionError>;

/// What the function answered to one invocation.
#[derive(Debug)]
pub(crate) enum Reply {
    /// A whole (buffered) response.
    Buffered(Bytes),
    /// A streamed response: its content type, and its bytes as they come.
    Streamed {
        content_type: Option<String>,
        chunks: mpsc::Receiver<Chunk>,
    },
    /// An invoke error, a timeout, the runtime's end.
    Failed(FunctionError),
}

/// An invocation handed out, as the front waits for it.
#[derive(Debug)]
pub(crate) struct Invocation {
    /// Lambda's request id.
    pub request_id: String,
    /// The function's answer.
    pub reply: oneshot::Receiver<Reply>,
    /// It thawed a frozen environment.
    pub thawed: bool,
}

/// An invocation waiting for the runtime's `/next`.
#[derive(Debug, Clone)]
pub(crate) struct Handed {
    pub request_id: String,
    pub event: Bytes,
    pub deadline_ms: u64,
}

/// An invocation in flight.
struct Inflight {
    started: Instant,
    reply: Option<oneshot::Sender<Reply>>,
    /// A streamed response's channel, so a timeout can end the stream with its error.
    stream: Option<mpsc::Sender<Chunk>>,
    /// The runtime has answered (all of it, when streamed).
    answered: bool,
    /// How it ended for the caller (error type), once answered.
    failed: Option<String>,
    /// The slot it holds; released when it is over.
    permit: Option<OwnedSemaphorePermit>,
}

/// A registered extension.
struct Extension {
    name: String,
    /// An external extension (a process of its own), not one in the runtime's process.
    external: bool,
    invoke: bool,
    /// Registered for `SHUTDOWN` (external extensions only).
    shutdown: bool,
    /// Its `SHUTDOWN` event was handed to it.
    shutdown_delivered: bool,
    /// It is in `/event/next`.
    waiting: bool,
    /// Events it has yet to be given.
    pending: VecDeque<Value>,
}

/// Where init stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Init {
    Starting,
    Ready,
    Failed(FunctionError),
}

struct State {
    init: Init,
    /// `/runtime/invocation/next` calls waiting.
    runtime_waiting: usize,
    extensions: HashMap<String, Extension>,
    queue: VecDeque<Handed>,
    inflight: HashMap<String, Inflight>,
    frozen: bool,
    /// Why the environment is gone, once it is.
    dead: Option<String>,
    /// Shutting down: nothing is frozen or handed out any more.
    stopping: bool,
    /// The init duration, until the first invocation's REPORT line carries it.
    init_duration: Option<Duration>,
}

/// One execution environment. See the module's documentation.
pub(crate) struct Instance {
    pub config: Arc<FunctionConfig>,
    state: Mutex<State>,
    changed: watch::Sender<u64>,
    /// The function's process.
    pids: OnceLock<u32>,
    /// The environment's process group (led by the first process started).
    group: OnceLock<Pid>,
    logs: Arc<Logs>,
    pub recorder: Recorder,
    started: Instant,
    servers: Mutex<Vec<JoinHandle<()>>>,
    /// The function's process exited (set by its waiter).
    exited: watch::Receiver<Option<String>>,
    reaped: AtomicBool,
    /// The signal that ended the function's process (0: none, or not ended yet).
    ended_by: AtomicI32,
    /// External extension processes still running.
    extension_processes: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for Instance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance")
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

/// Drops a waiting `/next` from the count when its call ends without an event (the
/// connection went away).
pub(crate) struct Waiting<'a> {
    instance: &'a Instance,
    extension: Option<String>,
    armed: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.armed {
            let mut state = self.instance.lock();
            match &self.extension {
                None => state.runtime_waiting = state.runtime_waiting.saturating_sub(1),
                Some(id) => {
                    if let Some(extension) = state.extensions.get_mut(id) {
                        extension.waiting = false;
                    }
                }
            }
            self.instance.settle(&mut state);
        }
    }
}

impl Instance {
    /// The function's process (0 before it is started).
    pub(crate) fn pid(&self) -> u32 {
        self.pids.get().copied().unwrap_or(0)
    }

    /// Signals the environment's process group (nothing before it exists).
    fn signal_all(&self, signal: Signal) {
        if let Some(group) = self.group.get() {
            process::signal_group(*group, signal);
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes whoever waits on the state.
    fn bump(&self) {
        self.changed
            .send_modify(|version| *version = version.wrapping_add(1));
    }

    /// Waits until `ready` holds of the state (checked at once and after each change).
    async fn until<T>(&self, mut ready: impl FnMut(&mut State) -> Option<T>) -> T {
        let mut changed = self.changed.subscribe();
        loop {
            changed.borrow_and_update();
            if let Some(value) = ready(&mut self.lock()) {
                return value;
            }
            if changed.changed().await.is_err() {
                // The sender lives as long as the instance: never reached.
                std::future::pending::<()>().await;
            }
        }
    }

    async fn wait_exit(
        instance: Arc<Self>,
        mut child: tokio::process::Child,
        exit: watch::Sender<Option<String>>,
    ) {
        let status = child.wait().await;
        if let Some(signal) = status
            .as_ref()
            .ok()
            .and_then(std::os::unix::process::ExitStatusExt::signal)
        {
            instance.ended_by.store(signal, Ordering::Release);
        }
        let reason = match status {
            Ok(status) => format!("Runtime exited with error: {status}"),
            Err(error) => format!("Runtime exited: {error}"),
        };
        instance.reaped.store(true, Ordering::Release);
        exit.send_replace(Some(reason.clone()));
        instance.died(&reason);
    }

    /// The process is gone: what was in flight fails with `Runtime.ExitError`.
    fn died(&self, reason: &str) {
        let mut state = self.lock();
        if state.dead.is_some() {
            return;
        }
        state.dead = Some(reason.to_owned());
        let error = FunctionError::new("Runtime.ExitError", reason.to_owned());
        if state.init == Init::Starting {
            state.init = Init::Failed(error.clone());
        }
        let ids: Vec<String> = state.inflight.keys().cloned().collect();
        for id in ids {
            if let Some(mut inflight) = state.inflight.remove(&id) {
                let error = FunctionError::new(
                    "Runtime.ExitError",
                    format!("RequestId: {id} Error: {reason}"),
                );
                if !inflight.answered {
                    self.logs.line(format!("RequestId: {id} Error: {reason}"));
                    self.fail(&mut inflight, error);
                }
                self.finish(&id, inflight, &mut state);
            }
        }
        drop(state);
        self.recorder.state(SessionState::Stopped, Some(reason));
        self.bump();
    }

    /// Whether the environment is gone (exited, reset, or init failed).
    pub(crate) fn is_dead(&self) -> bool {
        let state = self.lock();
        state.dead.is_some() || matches!(state.init, Init::Failed(_))
    }

    fn extensions_idle(state: &State) -> bool {
        state
            .extensions
            .values()
            .all(|extension| extension.waiting && extension.pending.is_empty())
    }

    /// Moves the lifecycle on after any change: init done, invocations over, freezing.
    fn settle(&self, state: &mut State) {
        let idle = state.runtime_waiting > 0 && Self::extensions_idle(state);
        if state.init == Init::Starting && idle {
            state.init = Init::Ready;
            state.init_duration = Some(self.started.elapsed());
            self.recorder.state(SessionState::Ready, None);
        }
        let managed = self.config.managed_instances();
        let quiet = idle && state.queue.is_empty();
        let over: Vec<String> = state
            .inflight
            .iter()
            .filter(|(_, inflight)| inflight.answered && (managed || quiet))
            .map(|(id, _)| id.clone())
            .collect();
        for id in over {
            if let Some(inflight) = state.inflight.remove(&id) {
                self.finish(&id, inflight, state);
            }
        }
        if !managed
            && quiet
            && state.inflight.is_empty()
            && state.init == Init::Ready
            && !state.frozen
            && state.dead.is_none()
            && !state.stopping
        {
            self.signal_all(Signal::SIGSTOP);
            state.frozen = true;
            self.recorder.frozen();
        }
        self.bump();
    }

    /// An invocation is over: its END and REPORT lines, its journal entry.
    fn finish(&self, id: &str, inflight: Inflight, state: &mut State) {
        let took = inflight.started.elapsed();
        let millis = took.as_secs_f64() * 1000.0;
        // Lambda bills by the millisecond, rounded up.
        let billed = took.as_micros().div_ceil(1000).max(1);
        let memory = process::max_memory_mb(self.pid())
            .map(|mb| format!("\tMax Memory Used: {mb} MB"))
            .unwrap_or_default();
        let init = state
            .init_duration
            .take()
            .map(|init| format!("\tInit Duration: {:.2} ms", init.as_secs_f64() * 1000.0))
            .unwrap_or_default();
        self.logs.line(format!("END RequestId: {id}"));
        let status = match inflight.failed.as_deref() {
            Some("Sandbox.Timedout") => "\tStatus: timeout",
            Some(_) => "\tStatus: error",
            None => "",
        };
        self.logs.line(format!(
            "REPORT RequestId: {id}\tDuration: {millis:.2} ms\tBilled Duration: {billed} ms\tMemory Size: {} MB{memory}{init}{status}",
            self.config.memory_mb
        ));
        self.recorder.over(id, took, inflight.failed.clone());
    }

    fn fail(&self, inflight: &mut Inflight, error: FunctionError) {
        inflight.failed = Some(error.error_type.clone());
        inflight.answered = true;
        if let Some(stream) = inflight.stream.take() {
            // Behind the chunks not read yet, however many.
            let error = error.clone();
            tokio::spawn(async move {
                let _ = stream.send(Err(error)).await;
            });
        }
        if let Some(reply) = inflight.reply.take() {
            let _ = reply.send(Reply::Failed(error));
        }
    }

    /// Whether the process group is stopped now.
    pub(crate) fn frozen(&self) -> bool {
        self.lock().frozen
    }
}

/// `at` in milliseconds since the Unix epoch.
fn unix_millis(at: SystemTime) -> u64 {
    u64::try_from(
        at.duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis(),
    )
    .unwrap_or(u64::MAX)
}

/// An X-Ray trace header for an invocation.
pub(crate) fn trace_id() -> String {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!(
        "Root=1-{now:08x}-{};Parent={};Sampled=0",
        &random[..24],
        &random[16..32]
    )
}
