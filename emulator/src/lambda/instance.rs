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

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
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
    _permit: OwnedSemaphorePermit,
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
    /// Starts an environment: the Runtime API on `listener` (and on a second address for
    /// the external extensions, when there are any), served by `serve`; the external
    /// extensions' processes first, then — once each has registered, as Lambda starts the
    /// runtime after the extensions' init — the function's.
    ///
    /// # Errors
    /// A process that cannot be started, or an extension that never registers.
    pub(crate) async fn start(
        config: Arc<FunctionConfig>,
        listener: tokio::net::TcpListener,
        logs: Arc<Logs>,
        recorder: Recorder,
        serve: impl Fn(Arc<Self>, tokio::net::TcpListener, bool) -> JoinHandle<()>,
    ) -> Result<Arc<Self>, FunctionError> {
        let unknown =
            |error: std::io::Error| FunctionError::new("Runtime.Unknown", error.to_string());
        let address = listener.local_addr().map_err(unknown)?;
        let external = if config.extensions.is_empty() {
            None
        } else {
            Some(
                tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .map_err(unknown)?,
            )
        };
        let (exit_tx, exited) = watch::channel(None);
        let instance = Arc::new(Self {
            config: Arc::clone(&config),
            state: Mutex::new(State {
                init: Init::Starting,
                runtime_waiting: 0,
                extensions: HashMap::new(),
                queue: VecDeque::new(),
                inflight: HashMap::new(),
                frozen: false,
                dead: None,
                stopping: false,
                init_duration: None,
            }),
            changed: watch::Sender::new(0),
            pids: OnceLock::new(),
            group: OnceLock::new(),
            logs: Arc::clone(&logs),
            recorder,
            started: Instant::now(),
            servers: Mutex::new(Vec::new()),
            exited,
            reaped: AtomicBool::new(false),
            extension_processes: std::sync::atomic::AtomicUsize::new(0),
        });
        instance.recorder.state(SessionState::Starting, None);
        let mut servers = vec![serve(Arc::clone(&instance), listener, false)];
        if let Some(external) = external {
            let external_address = external.local_addr().map_err(unknown)?;
            servers.push(serve(Arc::clone(&instance), external, true));
            *instance
                .servers
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = servers;
            instance.start_extensions(external_address).await?;
        } else {
            *instance
                .servers
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = servers;
        }
        let group = instance.group.get().map(|group| group.as_raw());
        let child = process::spawn(
            &config.command,
            &config.args,
            process::environment(&config, address),
            &logs,
            group,
        )
        .map_err(|error| {
            instance.reset("the function's process could not start");
            FunctionError::new(
                "Runtime.InvalidEntrypoint",
                format!("cannot run {}: {error}", config.command.display()),
            )
        })?;
        let pid = child.id().unwrap_or(0);
        let _ = instance.pids.set(pid);
        let _ = instance.group.set(Pid::from_raw(
            group.unwrap_or_else(|| i32::try_from(pid).unwrap_or(0)),
        ));
        tokio::spawn(Self::wait_exit(Arc::clone(&instance), child, exit_tx));
        Ok(instance)
    }

    /// Starts the external extensions (the first leads the environment's process group)
    /// and waits until each has registered, within the init timeout.
    async fn start_extensions(
        self: &Arc<Self>,
        api: std::net::SocketAddr,
    ) -> Result<(), FunctionError> {
        let count = self.config.extensions.len();
        for path in &self.config.extensions {
            let group = self.group.get().map(|group| group.as_raw());
            let child = process::spawn(
                path,
                &[],
                process::environment(&self.config, api),
                &self.logs,
                group,
            )
            .map_err(|error| {
                self.reset("an extension could not start");
                FunctionError::new(
                    "Extension.LaunchError",
                    format!("cannot run {}: {error}", path.display()),
                )
            })?;
            if group.is_none() {
                let _ = self.group.set(Pid::from_raw(
                    i32::try_from(child.id().unwrap_or(0)).unwrap_or(0),
                ));
            }
            self.extension_processes.fetch_add(1, Ordering::AcqRel);
            tokio::spawn(Self::wait_extension(
                Arc::clone(self),
                child,
                path.display().to_string(),
            ));
        }
        let registered = tokio::time::timeout(
            super::config::INIT_TIMEOUT,
            self.until(|state| {
                if let Init::Failed(error) = &state.init {
                    return Some(Err(error.clone()));
                }
                let external = state
                    .extensions
                    .values()
                    .filter(|extension| extension.external)
                    .count();
                (external >= count).then_some(Ok(()))
            }),
        )
        .await;
        match registered {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => {
                self.reset("an extension failed its init");
                Err(error)
            }
            Err(_) => {
                self.reset("an extension did not register in time");
                Err(FunctionError::new(
                    "Extension.Timeout",
                    "an external extension did not register within the init phase",
                ))
            }
        }
    }

    /// An external extension's process ended: during init the init fails; later the
    /// environment is reset (Lambda's `Extension.Crash`).
    async fn wait_extension(instance: Arc<Self>, mut child: tokio::process::Child, name: String) {
        let status = child.wait().await;
        instance.extension_processes.fetch_sub(1, Ordering::AcqRel);
        let reason = match status {
            Ok(status) => format!("extension {name} exited: {status}"),
            Err(error) => format!("extension {name}: {error}"),
        };
        let mut state = instance.lock();
        if state.stopping || state.dead.is_some() {
            drop(state);
            instance.bump();
            return;
        }
        instance
            .logs
            .line(format!("EXTENSION Name: {name} State: Exited"));
        if state.init == Init::Starting {
            state.init = Init::Failed(FunctionError::new("Extension.Crash", reason));
            drop(state);
            instance.bump();
        } else {
            drop(state);
            instance.reset(&reason);
        }
    }

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
            let _ = stream.try_send(Err(error.clone()));
        }
        if let Some(reply) = inflight.reply.take() {
            let _ = reply.send(Reply::Failed(error));
        }
    }

    /// Waits for init to end, at most `within`.
    ///
    /// # Errors
    /// The init error (the runtime's `/init/error`, its exit, or `Sandbox.Timedout`).
    pub(crate) async fn initialized(&self, within: Duration) -> Result<Duration, FunctionError> {
        let done = tokio::time::timeout(
            within,
            self.until(|state| match &state.init {
                Init::Starting => None,
                Init::Ready => Some(Ok(state.init_duration.unwrap_or_default())),
                Init::Failed(error) => Some(Err(error.clone())),
            }),
        )
        .await;
        match done {
            Ok(result) => result,
            Err(_) => {
                let error = FunctionError::new(
                    "Sandbox.Timedout",
                    format!(
                        "INIT_REPORT Init Duration: {:.2} ms\tPhase: init\tStatus: timeout",
                        within.as_secs_f64() * 1000.0
                    ),
                );
                self.lock().init = Init::Failed(error.clone());
                Err(error)
            }
        }
    }

    /// Hands `event` to the runtime once the environment can take it (for Lambda's
    /// default, the previous invocation over; with Managed Instances at once), thawing it
    /// first; `permit` is the slot it holds until it is over.
    ///
    /// # Errors
    /// The environment is gone (`Runtime.ExitError`).
    pub(crate) async fn dispatch(
        self: &Arc<Self>,
        event: Bytes,
        permit: OwnedSemaphorePermit,
    ) -> Result<Invocation, FunctionError> {
        let managed = self.config.managed_instances();
        let request_id = uuid::Uuid::new_v4().to_string();
        let timeout = self.config.timeout;
        let deadline = SystemTime::now() + timeout;
        let deadline_ms = unix_millis(deadline);
        let mut permit = Some(permit);
        let (reply_tx, reply) = oneshot::channel();
        let mut reply_tx = Some(reply_tx);
        let arn = self.config.arn();
        let mut thawed = false;
        self.until(|state| {
            if let Some(reason) = &state.dead {
                return Some(Err(FunctionError::new("Runtime.ExitError", reason.clone())));
            }
            if state.stopping {
                return Some(Err(FunctionError::new(
                    "Runtime.Unavailable",
                    "the environment is shutting down",
                )));
            }
            let can = if managed {
                state.init == Init::Ready
            } else {
                state.runtime_waiting > 0
                    && Self::extensions_idle(state)
                    && state.inflight.is_empty()
            };
            if !can {
                return None;
            }
            if state.frozen {
                self.signal_all(Signal::SIGCONT);
                state.frozen = false;
                thawed = true;
            }
            let (Some(permit), Some(reply)) = (permit.take(), reply_tx.take()) else {
                return None;
            };
            state.inflight.insert(
                request_id.clone(),
                Inflight {
                    started: Instant::now(),
                    reply: Some(reply),
                    stream: None,
                    answered: false,
                    failed: None,
                    _permit: permit,
                },
            );
            state.queue.push_back(Handed {
                request_id: request_id.clone(),
                event: event.clone(),
                deadline_ms,
            });
            for extension in state.extensions.values_mut() {
                if extension.invoke {
                    extension.pending.push_back(json!({
                        "eventType": "INVOKE",
                        "deadlineMs": deadline_ms,
                        "requestId": request_id,
                        "invokedFunctionArn": arn,
                        "tracing": {"type": "X-Amzn-Trace-Id", "value": trace_id()},
                    }));
                }
            }
            Some(Ok(()))
        })
        .await?;
        self.logs
            .line(format!("START RequestId: {request_id} Version: $LATEST"));
        self.recorder.started(thawed);
        self.bump();
        tokio::spawn(Arc::clone(self).deadline(request_id.clone(), timeout));
        Ok(Invocation {
            request_id,
            reply,
            thawed,
        })
    }

    /// At the deadline: an invocation not over has timed out.
    async fn deadline(self: Arc<Self>, request_id: String, timeout: Duration) {
        tokio::time::sleep(timeout).await;
        let mut state = self.lock();
        let Some(mut inflight) = state.inflight.remove(&request_id) else {
            return;
        };
        let message = format!(
            "RequestId: {request_id} Error: Task timed out after {:.2} seconds",
            timeout.as_secs_f64()
        );
        self.logs.line(format!(
            "{} {request_id} Task timed out after {:.2} seconds",
            crate::front::webhooks::rfc3339_millis(SystemTime::now()),
            timeout.as_secs_f64()
        ));
        self.fail(
            &mut inflight,
            FunctionError::new("Sandbox.Timedout", message),
        );
        inflight.failed = Some("Sandbox.Timedout".to_owned());
        self.finish(&request_id, inflight, &mut state);
        self.recorder.timed_out(&request_id);
        if self.config.managed_instances() {
            self.settle(&mut state);
            return;
        }
        drop(state);
        self.reset("the invocation timed out");
    }

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
            shutdown_events: externals,
        }
    }

    // -----------------------------------------------------------------------------------
    // What the Runtime and Extensions APIs call.

    /// The runtime asks for its next invocation: counted as waiting until one comes.
    pub(crate) async fn next_invocation(&self) -> Handed {
        let mut waiting = Waiting {
            instance: self,
            extension: None,
            armed: true,
        };
        {
            let mut state = self.lock();
            state.runtime_waiting += 1;
            self.settle(&mut state);
        }
        let handed = self
            .until(|state| {
                if state.stopping {
                    return None;
                }
                let handed = state.queue.pop_front()?;
                state.runtime_waiting = state.runtime_waiting.saturating_sub(1);
                Some(handed)
            })
            .await;
        waiting.armed = false;
        handed
    }

    /// The runtime's whole response to `request_id`.
    pub(crate) fn respond(&self, request_id: &str, reply: Reply) -> Result<(), &'static str> {
        let mut state = self.lock();
        let inflight = state
            .inflight
            .get_mut(request_id)
            .ok_or("InvalidRequestID")?;
        if inflight.answered || inflight.reply.is_none() {
            return Err("InvalidStateTransition");
        }
        if let Reply::Failed(error) = &reply {
            inflight.failed = Some(error.error_type.clone());
            self.logs.line(format!(
                "{} {request_id} ERROR Invoke Error {}",
                crate::front::webhooks::rfc3339_millis(SystemTime::now()),
                error.to_json()
            ));
        }
        inflight.answered = true;
        if let Some(reply_tx) = inflight.reply.take() {
            let _ = reply_tx.send(reply);
        }
        self.settle(&mut state);
        Ok(())
    }

    /// The runtime starts streaming its response to `request_id`: the channel its bytes go
    /// to.
    pub(crate) fn start_stream(
        &self,
        request_id: &str,
        content_type: Option<String>,
    ) -> Result<mpsc::Sender<Chunk>, &'static str> {
        let mut state = self.lock();
        let inflight = state
            .inflight
            .get_mut(request_id)
            .ok_or("InvalidRequestID")?;
        let reply_tx = inflight.reply.take().ok_or("InvalidStateTransition")?;
        let (chunks_tx, chunks) = mpsc::channel(64);
        inflight.stream = Some(chunks_tx.clone());
        let _ = reply_tx.send(Reply::Streamed {
            content_type,
            chunks,
        });
        Ok(chunks_tx)
    }

    /// The runtime's streamed response to `request_id` ended (with `error` from its
    /// trailers, if any).
    pub(crate) fn end_stream(&self, request_id: &str, error: Option<FunctionError>) {
        let mut state = self.lock();
        if let Some(inflight) = state.inflight.get_mut(request_id) {
            inflight.stream = None;
            inflight.answered = true;
            if let Some(error) = error {
                inflight.failed = Some(error.error_type);
            }
        }
        self.settle(&mut state);
    }

    /// The runtime's `/runtime/init/error`.
    pub(crate) fn init_error(&self, error: FunctionError) {
        let mut state = self.lock();
        self.logs.line(format!(
            "INIT_REPORT Init Duration: {:.2} ms\tPhase: init\tStatus: error\tError Type: {}",
            self.started.elapsed().as_secs_f64() * 1000.0,
            error.error_type
        ));
        state.init = Init::Failed(error);
        drop(state);
        self.bump();
    }

    /// An extension registers (during init only).
    ///
    /// # Errors
    /// After init, or for the `SHUTDOWN` event (which an internal extension — the only
    /// kind a function's own process can run — may not register for: "Using the Lambda
    /// Extensions API", troubleshooting,
    /// <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html>).
    pub(crate) fn register(
        &self,
        name: &str,
        events: &[String],
        external: bool,
    ) -> Result<String, FunctionError> {
        let mut state = self.lock();
        if state.init != Init::Starting {
            return Err(FunctionError::new(
                "Extension.RegistrationAfterInit",
                "extensions register during the init phase only",
            ));
        }
        if !external && events.iter().any(|event| event == "SHUTDOWN") {
            return Err(FunctionError::new(
                "ShutdownEventNotSupportedForInternalExtension",
                format!("{name}: an internal extension cannot register for the SHUTDOWN event"),
            ));
        }
        if let Some(unknown) = events
            .iter()
            .find(|event| *event != "INVOKE" && *event != "SHUTDOWN")
        {
            return Err(FunctionError::new(
                "InvalidEventType",
                format!("{name}: unknown event type {unknown}"),
            ));
        }
        let id = uuid::Uuid::new_v4().to_string();
        state.extensions.insert(
            id.clone(),
            Extension {
                name: name.to_owned(),
                external,
                invoke: events.iter().any(|event| event == "INVOKE"),
                shutdown: events.iter().any(|event| event == "SHUTDOWN"),
                shutdown_delivered: false,
                waiting: false,
                pending: VecDeque::new(),
            },
        );
        self.logs.line(format!(
            "EXTENSION Name: {name} State: Registered Events: {events:?}"
        ));
        self.bump();
        Ok(id)
    }

    /// An extension asks for its next event; `None` for an unknown extension.
    pub(crate) async fn next_event(&self, id: &str) -> Option<Value> {
        {
            let mut state = self.lock();
            let extension = state.extensions.get_mut(id)?;
            extension.waiting = true;
            self.settle(&mut state);
        }
        let mut waiting = Waiting {
            instance: self,
            extension: Some(id.to_owned()),
            armed: true,
        };
        let event = self
            .until(|state| {
                let extension = state.extensions.get_mut(id)?;
                let event = extension.pending.pop_front()?;
                extension.waiting = false;
                if event["eventType"] == "SHUTDOWN" {
                    extension.shutdown_delivered = true;
                }
                Some(event)
            })
            .await;
        waiting.armed = false;
        let mut state = self.lock();
        self.settle(&mut state);
        Some(event)
    }

    /// An extension's `/init/error` or `/exit/error`: the environment fails (init) or is
    /// reset.
    pub(crate) fn extension_error(&self, id: &str, error: FunctionError) -> bool {
        let mut state = self.lock();
        let Some(name) = state
            .extensions
            .get(id)
            .map(|extension| extension.name.clone())
        else {
            return false;
        };
        self.logs.line(format!(
            "EXTENSION Name: {name} State: {} Error: {error}",
            error.error_type
        ));
        if state.init == Init::Starting {
            state.init = Init::Failed(error);
            drop(state);
            self.bump();
        } else {
            drop(state);
            self.reset("an extension reported an error");
        }
        true
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
