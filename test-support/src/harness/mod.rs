//! The emulator harness: the tests of the emulator (in-process) and of the real binaries.
//!
//! - [`binary`] builds a workspace binary once per test process (with the same profile as
//!   the tests) and returns its path, so `cargo test --workspace` never runs a stale build.
//! - [`Emulator`] starts the emulator on an ephemeral port from the binary's flags: by
//!   default the `a2a-emulator` library in-process (on a runtime of its own), with
//!   [`EmulatorBuilder::process`] the real binary, waiting (bounded) for the line saying
//!   where it listens and killing it on drop. Its methods speak HTTP to it:
//!   JSON-RPC calls in either protocol [`Version`], SSE streams ([`SseStream`], read with
//!   [`crate::sse`]), the agent card and `/ping`.
//! - [`front`]: AgentCore's paths, headers and exact error bodies; [`streams`]: the events
//!   a stream sends; [`conformance`]: what the conformance suites check; [`cli`]: the real
//!   `a2a` CLI.
//!
//! Every wait is bounded: a test that would hang fails with what it was waiting for.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt as _};
pub use reqwest::header::HeaderMap;
pub use serde_json::{Value, json};

use crate::sse::SseParser;
use crate::values::is_rfc3339_millis;
pub use crate::values::is_uuid;

pub mod cli;
pub mod conformance;
pub mod front;
pub mod streams;

/// How long the emulator may take to print its listening line.
pub const STARTUP_TIMEOUT: Duration = Duration::from_secs(20);
/// How long any one HTTP exchange or SSE event may take.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);
/// What the emulator prints (on stdout) once it accepts connections.
pub const LISTENING_PREFIX: &str = a2a_lambda_emulator::cli::LISTENING_PREFIX;
/// What `a2a-container` prints (on stdout) once it accepts connections.
pub const CONTAINER_LISTENING_PREFIX: &str = "a2a-container listening on ";

/// Environment variables the emulator (or its agents) read: cleared for every run so the
/// tests do not depend on the caller's environment.
const EMULATOR_ENV: [&str; 38] = [
    "A2A_HOST",
    "A2A_PORT",
    "A2A_AGENT",
    "A2A_PUBLIC_URL",
    "A2A_SHUTDOWN_GRACE_SECONDS",
    "A2A_LOG_FORMAT",
    "A2A_ERROR_PROFILE",
    "A2A_CONTAINER_ONLY",
    "A2A_UPSTREAM",
    "A2A_RUNTIME_ARN",
    "A2A_MAX_BODY_BYTES",
    "A2A_RATE_LIMIT",
    "A2A_SESSION_STARTUP_MS",
    "A2A_EXCLUSIVE_SESSIONS",
    "A2A_IDLE_TIMEOUT",
    "A2A_MAX_LIFETIME",
    "A2A_REQUEST_TIMEOUT",
    "A2A_FAULT",
    "A2A_SEED",
    "A2A_AUTH",
    "A2A_SIGV4_CREDENTIALS",
    "A2A_JWT_DISCOVERY_URL",
    "A2A_JWT_JWKS",
    "A2A_JWT_ALLOWED_AUDIENCE",
    "A2A_JWT_ALLOWED_CLIENTS",
    "A2A_JWT_ALLOWED_SCOPES",
    "A2A_JWT_SIGNING_KEY",
    "A2A_EMULATOR_STATE_DIR",
    "AGENTCORE_RUNTIME_URL",
    "PORT",
    "TCK_STREAMING_TIMEOUT",
    "RUST_LOG",
    "NO_COLOR",
    "TOKIO_WORKER_THREADS",
    "A2A_REQUEST_HEADER_ALLOWLIST",
    "A2A_INSPECTOR",
    "A2A_JOURNAL_SIZE",
    "A2A_JOURNAL_BODY_BYTES",
];

/// The target directory the tests were built into (`…/target/debug`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // …/target/debug/deps/<test-binary>
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Builds the workspace's binaries (once per process, or once per `cargo nextest` run) and
/// returns the path of `bin`, from package `package`.
///
/// Every binary is built with the whole workspace's features, dev-dependencies' included
/// (`--workspace --bins --examples`): the feature set `cargo test --workspace` builds
/// with, so nothing is compiled again. `cargo build -p {package}` would resolve the
/// package's features alone and rebuild a hundred dependencies a second way.
///
/// # Panics
/// When the build fails: the test cannot run without the binary.
pub fn binary(package: &str, bin: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<bool>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(false));
    let mut built = built.lock().unwrap_or_else(PoisonError::into_inner);
    let path = profile_dir().join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    // Under nextest every test is a process of its own: one build per run is enough.
    let marker = std::env::var("NEXTEST_RUN_ID")
        .ok()
        .map(|run| profile_dir().join(format!(".a2a-binaries-built-{run}")));
    if !*built && !marker.as_ref().is_some_and(|marker| marker.exists()) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = Command::new(cargo)
            // `a2a-agent`'s telemetry, as `make unit` builds it (see the Makefile's
            // TEST_FEATURES): no dev-dependency's features reach that binary.
            .args([
                "build",
                "--quiet",
                "--workspace",
                "--bins",
                "--examples",
                "--features",
                "a2a-agent/otel",
            ])
            .status();
        assert!(
            status.is_ok_and(|status| status.success()),
            "building the workspace's binaries (for {package}'s {bin}) failed"
        );
        if let Some(marker) = &marker {
            let _ = std::fs::write(marker, b"");
        }
        *built = true;
    }
    assert!(path.exists(), "{} was not built", path.display());
    path
}

/// A command for the emulator binary with the emulator's environment variables cleared,
/// for runs that do not serve (`--help`, bad flags).
pub fn emulator_command() -> Command {
    let mut command = Command::new(binary("a2a-lambda-emulator", "a2a-emulator"));
    for name in EMULATOR_ENV {
        command.env_remove(name);
    }
    command
}

/// Polls `probe` until it returns `Some`, for at most `timeout`; panics naming `what`.
///
/// For states the tests cannot be told about (a task runner finishing, a process
/// exiting): the probe is asked again every 20 ms, never waited on blindly.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An A2A protocol version, as a request asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// v0.3: no `A2A-Version` header.
    V0_3,
    /// v1.0: `A2A-Version: 1.0`.
    V1_0,
}

/// A JSON-RPC operation, named per version by [`Version::method`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `message/send` / `SendMessage`.
    Send,
    /// `message/stream` / `SendStreamingMessage`.
    Stream,
    /// `tasks/get` / `GetTask`.
    Get,
    /// `ListTasks` (v1.0 only).
    List,
    /// `tasks/cancel` / `CancelTask`.
    Cancel,
    /// `tasks/resubscribe` / `SubscribeToTask`.
    Subscribe,
    /// `tasks/pushNotificationConfig/set` / `CreateTaskPushNotificationConfig`.
    SetPush,
    /// `tasks/pushNotificationConfig/get` / `GetTaskPushNotificationConfig`.
    GetPush,
    /// `tasks/pushNotificationConfig/list` / `ListTaskPushNotificationConfigs`.
    ListPush,
    /// `tasks/pushNotificationConfig/delete` / `DeleteTaskPushNotificationConfig`.
    DeletePush,
    /// `agent/getAuthenticatedExtendedCard` / `GetExtendedAgentCard`.
    ExtendedCard,
}

impl Version {
    /// Both versions, oldest first.
    pub const ALL: [Self; 2] = [Self::V0_3, Self::V1_0];

    /// The `A2A-Version` header the request sends (none for v0.3).
    pub fn header(self) -> Option<&'static str> {
        match self {
            Self::V0_3 => None,
            Self::V1_0 => Some("1.0"),
        }
    }

    /// The method name of `op` in this version.
    pub fn method(self, op: Op) -> &'static str {
        match (self, op) {
            (Self::V0_3, Op::Send) => "message/send",
            (Self::V0_3, Op::Stream) => "message/stream",
            (Self::V0_3, Op::Get) => "tasks/get",
            // v0.3 has no list; the v1.0 name is what a v0.3 request would (wrongly) send.
            (_, Op::List) => "ListTasks",
            (Self::V0_3, Op::Cancel) => "tasks/cancel",
            (Self::V0_3, Op::Subscribe) => "tasks/resubscribe",
            (Self::V0_3, Op::SetPush) => "tasks/pushNotificationConfig/set",
            (Self::V0_3, Op::GetPush) => "tasks/pushNotificationConfig/get",
            (Self::V0_3, Op::ListPush) => "tasks/pushNotificationConfig/list",
            (Self::V0_3, Op::DeletePush) => "tasks/pushNotificationConfig/delete",
            (Self::V0_3, Op::ExtendedCard) => "agent/getAuthenticatedExtendedCard",
            (Self::V1_0, Op::Send) => "SendMessage",
            (Self::V1_0, Op::Stream) => "SendStreamingMessage",
            (Self::V1_0, Op::Get) => "GetTask",
            (Self::V1_0, Op::Cancel) => "CancelTask",
            (Self::V1_0, Op::Subscribe) => "SubscribeToTask",
            (Self::V1_0, Op::SetPush) => "CreateTaskPushNotificationConfig",
            (Self::V1_0, Op::GetPush) => "GetTaskPushNotificationConfig",
            (Self::V1_0, Op::ListPush) => "ListTaskPushNotificationConfigs",
            (Self::V1_0, Op::DeletePush) => "DeleteTaskPushNotificationConfig",
            (Self::V1_0, Op::ExtendedCard) => "GetExtendedAgentCard",
        }
    }

    /// A user message with one text part.
    pub fn user_message(self, message_id: &str, text: &str) -> Value {
        match self {
            Self::V0_3 => json!({
                "kind": "message",
                "role": "user",
                "messageId": message_id,
                "parts": [{"kind": "text", "text": text}],
            }),
            Self::V1_0 => json!({
                "role": "ROLE_USER",
                "messageId": message_id,
                "parts": [{"text": text}],
            }),
        }
    }

    /// `{"message": …}` for a user message with one text part.
    pub fn send_params(self, message_id: &str, text: &str) -> Value {
        json!({"message": self.user_message(message_id, text)})
    }

    /// Send params that ask for the task at once, without waiting for it to finish
    /// (`blocking: false` in v0.3, `returnImmediately: true` in v1.0).
    pub fn send_params_at_once(self, message_id: &str, text: &str) -> Value {
        let configuration = match self {
            Self::V0_3 => json!({"blocking": false}),
            Self::V1_0 => json!({"returnImmediately": true}),
        };
        json!({"message": self.user_message(message_id, text), "configuration": configuration})
    }

    /// A role's wire name: `agent` → `ROLE_AGENT` in v1.0.
    pub fn role(self, role: &str) -> String {
        match self {
            Self::V0_3 => role.to_owned(),
            Self::V1_0 => format!("ROLE_{}", role.to_uppercase()),
        }
    }

    /// The `A2A-Version` header a request of this version carries, as a header pair (none
    /// for v0.3).
    pub fn headers(self) -> Vec<(&'static str, &'static str)> {
        self.header()
            .map(|value| ("A2A-Version", value))
            .into_iter()
            .collect()
    }

    /// A state's wire name: `input-required` → `TASK_STATE_INPUT_REQUIRED` in v1.0.
    pub fn state(self, state: &str) -> String {
        match self {
            Self::V0_3 => state.to_owned(),
            Self::V1_0 => format!("TASK_STATE_{}", state.replace('-', "_").to_uppercase()),
        }
    }

    /// The task in a send result (v0.3: the result itself; v1.0: `result.task`).
    pub fn task_in(self, result: &Value) -> Value {
        match self {
            Self::V0_3 => {
                assert_eq!(result["kind"], "task", "not a task: {result}");
                result.clone()
            }
            Self::V1_0 => {
                let task = &result["task"];
                assert!(task.is_object(), "not a task: {result}");
                task.clone()
            }
        }
    }
}

/// The `error` response the A2A spec profile sends: code, `"{title}: {detail}"`, and a
/// `google.rpc.ErrorInfo` whose metadata holds the detail and `extra` entries.
pub fn spec_error(
    id: &Value,
    code: i64,
    title: &str,
    reason: &str,
    detail: &str,
    extra: &[(&str, &str)],
) -> Value {
    let mut metadata = serde_json::Map::new();
    metadata.insert("detail".to_owned(), json!(detail));
    for (key, value) in extra {
        metadata.insert((*key).to_owned(), json!(value));
    }
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": code,
            "message": format!("{title}: {detail}"),
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "domain": "a2a-protocol.org",
                "metadata": metadata,
                "reason": reason,
            }],
        },
    })
}

/// A copy of `value` with what changes from run to run replaced: every `timestamp`
/// (checked to be RFC 3339 UTC with milliseconds) becomes `"<timestamp>"`, every
/// UUID-shaped `messageId` becomes `"<uuid>"`.
///
/// # Panics
/// When a timestamp is malformed.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| {
                    let item = match (key.as_str(), item) {
                        ("timestamp", Value::String(text)) => {
                            assert!(is_rfc3339_millis(text), "bad timestamp {text:?}");
                            json!("<timestamp>")
                        }
                        ("messageId", Value::String(text)) if is_uuid(text) => json!("<uuid>"),
                        _ => redact(item),
                    };
                    (key.clone(), item)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

/// The options of one emulator run; [`EmulatorBuilder::start`] starts it.
#[derive(Debug, Clone)]
pub struct EmulatorBuilder {
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// Runs `a2a-container` (configured by the environment) instead of `a2a-emulator`.
    container: bool,
    /// Runs the real `a2a-emulator` binary rather than the library in-process.
    process: bool,
}

/// The environment variable an in-process emulator takes from [`EmulatorBuilder::env`]
/// (as the card's URL); any other makes the run a process of its own.
const IN_PROCESS_ENV: &str = "AGENTCORE_RUNTIME_URL";

/// What the built-in agents read from the process environment while they run: set in the
/// test runner's environment, it would reach an in-process emulator, so runs go to a
/// process of their own (whose environment is cleared) instead.
const AGENT_ENV: &str = "TCK_STREAMING_TIMEOUT";

impl EmulatorBuilder {
    /// Adds command-line arguments (after `--port 0`).
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the emulator. `AGENTCORE_RUNTIME_URL` is given to
    /// an in-process emulator as the binary reads it; any other variable (the process
    /// environment is shared by the tests running in parallel) runs the real binary.
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Runs the real `a2a-emulator` binary instead of the library in-process: for tests of
    /// the process itself (signals, exit status, logs, [`Emulator::pid`],
    /// [`Emulator::stderr`], [`Emulator::terminate`], [`Emulator::exited_within`]).
    pub fn process(mut self) -> Self {
        self.process = true;
        self
    }

    /// Whether this run needs the real binary: asked for, `a2a-container`, or an
    /// environment the library cannot be given per run.
    fn needs_process(&self) -> bool {
        self.process
            || self.container
            || self.env.iter().any(|(name, _)| name != IN_PROCESS_ENV)
            || std::env::var_os(AGENT_ENV).is_some()
    }

    /// Starts the emulator and waits (at most [`STARTUP_TIMEOUT`]) until it listens:
    /// in-process on a tokio runtime of its own, or the real binary when asked
    /// ([`process`](Self::process)), for `a2a-container`, or with an
    /// [environment](Self::env) beyond `AGENTCORE_RUNTIME_URL`.
    ///
    /// # Panics
    /// When it cannot start, exits, or does not say where it listens in time; the panic
    /// carries its error (a process's: its stderr).
    pub fn start(mut self) -> Emulator {
        // Throttling is off unless a test asks for it: tests send faster than AgentCore's
        // default 25 invocations a second.
        if !self.container && !self.args.iter().any(|arg| arg.starts_with("--rate-limit")) {
            self.args
                .extend(["--rate-limit".to_owned(), "0".to_owned()]);
        }
        if self.needs_process() {
            self.start_process()
        } else {
            self.start_in_process()
        }
    }

    /// The library emulator, from the flags as the binary parses them (but with no
    /// environment fallback: the test runner's `A2A_*` variables are not the test's), on a
    /// multi-thread runtime the returned [`Emulator`] owns, so it serves whatever the
    /// caller's thread does (blocking on a child process, a runtime of its own or none).
    fn start_in_process(self) -> Emulator {
        let argv = std::iter::once("a2a-emulator").chain(self.args.iter().map(String::as_str));
        let args = a2a_lambda_emulator::cli::Args::try_parse_args_only(argv)
            .unwrap_or_else(|error| panic!("a2a-emulator {:?}: {error}", self.args));
        let env = self.env.clone();
        let server = args
            .build_with_env(move |name| {
                env.iter()
                    .rev()
                    .find(|(set, _)| set == name)
                    .map(|(_, value)| value.clone())
            })
            .unwrap_or_else(|error| panic!("a2a-emulator {:?}: {error}", self.args));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("emulator")
            .enable_all()
            .build()
            .unwrap_or_else(|error| panic!("cannot build the emulator's runtime: {error}"));
        let (started_tx, started_rx) = mpsc::channel();
        runtime.spawn(async move {
            let _ = started_tx.send(server.start().await);
        });
        let started = match started_rx.recv_timeout(STARTUP_TIMEOUT) {
            Ok(Ok(started)) => started,
            Ok(Err(error)) => panic!("a2a-emulator {:?} did not start: {error}", self.args),
            Err(error) => panic!("a2a-emulator {:?} did not start: {error}", self.args),
        };
        let line = started.listening_line().to_owned();
        Emulator::listening(
            Backend::InProcess(InProcess {
                started: Some(started),
                runtime: Some(runtime),
            }),
            LISTENING_PREFIX,
            line,
        )
    }

    /// The real binary (`a2a-emulator`, or `a2a-container`), its environment cleared but
    /// for [`EmulatorBuilder::env`].
    fn start_process(self) -> Emulator {
        let (mut command, prefix) = if self.container {
            let mut command = Command::new(binary("a2a-lambda-server", "a2a-container"));
            for name in EMULATOR_ENV {
                command.env_remove(name);
            }
            command.env("PORT", "0").env("A2A_HOST", "127.0.0.1");
            (command, CONTAINER_LISTENING_PREFIX)
        } else {
            (emulator_command(), LISTENING_PREFIX)
        };
        command
            .args(&self.args)
            .envs(self.env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .unwrap_or_else(|error| panic!("a2a-emulator did not start: {error}"));

        // Drain stderr (the logs) so the emulator never blocks on a full pipe; keep it for
        // failure messages.
        let stderr_log = Arc::new(Mutex::new(String::new()));
        let stderr_thread = child.stderr.take().map(|stderr| {
            let log = Arc::clone(&stderr_log);
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).split(b'\n') {
                    let Ok(line) = line else { break };
                    let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
                    log.push_str(&String::from_utf8_lossy(&line));
                    log.push('\n');
                }
            })
        });
        // Read stdout until the listening line, then keep draining it.
        let (listening_tx, listening_rx) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if line.starts_with(prefix) {
                        let _ = listening_tx.send(line);
                    }
                }
            });
        }
        let mut process = Process {
            child,
            stderr_log,
            stderr_thread,
        };
        match listening_rx.recv_timeout(STARTUP_TIMEOUT) {
            Ok(line) => Emulator::listening(Backend::Process(process), prefix, line),
            Err(error) => {
                let _ = process.child.kill();
                let status = process.child.wait();
                panic!(
                    "a2a-emulator {:?} did not say it listens ({error}); exit: {status:?}; \
                     stderr:\n{}",
                    self.args,
                    process.stderr()
                );
            }
        }
    }
}

/// What a process-only method says about an in-process emulator.
fn in_process_panic(what: &str) -> ! {
    panic!(
        "Emulator::{what} needs the real a2a-emulator binary, but this emulator runs \
         in-process: start it with Emulator::builder().process()"
    )
}

/// A running emulator: the library in-process or a real binary's process.
#[derive(Debug)]
enum Backend {
    InProcess(#[expect(dead_code, reason = "held for its drop, which stops the server")] InProcess),
    Process(Process),
}

/// The library emulator and the runtime it serves on; dropping it stops both without
/// waiting for in-flight requests, as killing a process does.
#[derive(Debug)]
struct InProcess {
    started: Option<a2a_lambda_emulator::cli::Started>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            // The server's own drop (stop signal, agent processes) runs inside its runtime.
            let guard = runtime.enter();
            drop(self.started.take());
            drop(guard);
            // Not a blocking shutdown: the caller may itself be on a runtime.
            runtime.shutdown_background();
        }
    }
}

/// A real binary's process, killed on drop, with its stderr collected.
#[derive(Debug)]
struct Process {
    child: Child,
    stderr_log: Arc<Mutex<String>>,
    stderr_thread: Option<JoinHandle<()>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Process {
    /// What the process logged so far (all of it once it has exited).
    fn stderr(&mut self) -> String {
        if self.child.try_wait().ok().flatten().is_some()
            && let Some(thread) = self.stderr_thread.take()
        {
            let _ = thread.join();
        }
        self.stderr_log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// A running emulator: by default the `a2a-emulator` library in-process, with
/// [`EmulatorBuilder::process`] (or [`Emulator::container`]) a real binary, killed on drop.
#[derive(Debug)]
pub struct Emulator {
    backend: Backend,
    base_url: String,
    listening_line: String,
    http: reqwest::Client,
    next_id: AtomicU64,
}

impl Emulator {
    /// A run on a free port (`--port 0`) with no other option yet.
    pub fn builder() -> EmulatorBuilder {
        EmulatorBuilder {
            args: vec!["--port".to_owned(), "0".to_owned()],
            env: Vec::new(),
            container: false,
            process: false,
        }
    }

    /// A run of `a2a-container` (the AgentCore container binary) on a free loopback port,
    /// configured through [`EmulatorBuilder::env`]; it takes no arguments.
    pub fn container() -> EmulatorBuilder {
        EmulatorBuilder {
            args: Vec::new(),
            env: Vec::new(),
            container: true,
            process: true,
        }
    }

    /// Starts the emulator on a free port with `args`.
    pub fn start(args: &[&str]) -> Self {
        Self::builder().args(args.iter().copied()).start()
    }

    /// Starts the emulator with the `conformance` agent.
    pub fn conformance() -> Self {
        Self::start(&["--agent", "conformance"])
    }

    /// The emulator that printed (or, in-process, would print) `line`, which starts with
    /// `prefix` and then the base URL.
    fn listening(backend: Backend, prefix: &str, line: String) -> Self {
        let base_url = line
            .strip_prefix(prefix)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_default()
            .trim_end_matches('/')
            .to_owned();
        assert!(
            base_url.starts_with("http://"),
            "unexpected listening line {line:?}"
        );
        Self {
            backend,
            base_url,
            listening_line: line,
            http: reqwest::Client::builder()
                .no_proxy()
                .connect_timeout(STEP_TIMEOUT)
                .build()
                .unwrap_or_else(|error| panic!("cannot build the HTTP client: {error}")),
            next_id: AtomicU64::new(1),
        }
    }

    /// The real binary's process.
    ///
    /// # Panics
    /// For an in-process emulator, naming what needs a process.
    fn process(&mut self, what: &str) -> &mut Process {
        match &mut self.backend {
            Backend::Process(process) => process,
            Backend::InProcess(_) => in_process_panic(what),
        }
    }

    /// [`Emulator::process`], shared.
    fn process_ref(&self, what: &str) -> &Process {
        match &self.backend {
            Backend::Process(process) => process,
            Backend::InProcess(_) => in_process_panic(what),
        }
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The line the emulator printed when it started listening (in-process: the line the
    /// binary prints).
    pub fn listening_line(&self) -> &str {
        &self.listening_line
    }

    /// The base URL followed by `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The process id.
    ///
    /// # Panics
    /// In-process (use [`EmulatorBuilder::process`]).
    pub fn pid(&self) -> u32 {
        self.process_ref("pid").child.id()
    }

    /// What the emulator logged so far.
    ///
    /// # Panics
    /// In-process (use [`EmulatorBuilder::process`]).
    pub fn stderr(&mut self) -> String {
        self.process("stderr").stderr()
    }

    /// Sends SIGTERM (with `kill -TERM`, so the tests need no libc).
    ///
    /// # Panics
    /// When `kill` fails; in-process (use [`EmulatorBuilder::process`]).
    pub fn terminate(&self) {
        let pid = self.process_ref("terminate").child.id();
        let status = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        assert!(
            status.is_ok_and(|status| status.success()),
            "kill -TERM {pid} failed"
        );
    }

    /// The exit status if the process exits within `timeout` (polled), else `None`.
    ///
    /// # Panics
    /// In-process (use [`EmulatorBuilder::process`]).
    pub async fn exited_within(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let child = &mut self.process("exited_within").child;
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The HTTP client (no proxy, plain HTTP/1.1).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// A fresh request id (`"req-N"`).
    pub fn next_id(&self) -> Value {
        json!(format!(
            "req-{}",
            self.next_id.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// Sends `request`, bounded by [`STEP_TIMEOUT`] until the response head arrives.
    ///
    /// # Panics
    /// When the request fails or times out.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> reqwest::Response {
        match tokio::time::timeout(STEP_TIMEOUT, request.send()).await {
            Ok(Ok(response)) => response,
            Ok(Err(error)) => panic!("HTTP request failed: {error}"),
            Err(_) => panic!("no HTTP response within {STEP_TIMEOUT:?}"),
        }
    }

    /// `POST path` with JSON content type, the version's header and `body`.
    pub async fn post(&self, path: &str, version: Version, body: Vec<u8>) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.url(path))
            .header("content-type", "application/json")
            .body(body);
        if let Some(header) = version.header() {
            request = request.header("A2A-Version", header);
        }
        self.send(request).await
    }

    /// Sends one JSON-RPC body to `POST /` and returns the JSON response, checking HTTP
    /// 200 and the JSON content type.
    pub async fn rpc(&self, version: Version, body: &Value) -> Value {
        let response = self.post("/", version, body.to_string().into_bytes()).await;
        json_body(response, 200).await.1
    }

    /// Calls `method` with `params` and a fresh id; checks that the response echoes the id
    /// and is JSON-RPC 2.0, and returns the whole response.
    ///
    /// A v0.3 stream refused once its request was found valid is an SSE stream of one
    /// error event (as the official v0.3 servers answer): that event is returned, after
    /// checking that the stream then ends.
    pub async fn call(&self, version: Version, method: &str, params: Value) -> Value {
        let id = self.next_id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post("/", version, body.to_string().into_bytes()).await;
        let streamed = header(response.headers(), "content-type")
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let response = if streamed {
            let mut stream = SseStream::open(response, id.clone()).await;
            let events = stream.rest().await;
            let [event] = events.as_slice() else {
                panic!("{method}: expected a stream of one error event, got {events:?}");
            };
            assert!(event.get("error").is_some(), "{method}: {event}");
            event.clone()
        } else {
            json_body(response, 200).await.1
        };
        assert_eq!(response["jsonrpc"], "2.0", "{response}");
        assert_eq!(response["id"], id, "the id is not echoed: {response}");
        response
    }

    /// [`Emulator::call`] for the version's name of `op`.
    pub async fn call_op(&self, version: Version, op: Op, params: Value) -> Value {
        self.call(version, version.method(op), params).await
    }

    /// The `result` of `op`, panicking with the response when it is an error.
    pub async fn result(&self, version: Version, op: Op, params: Value) -> Value {
        let response = self.call_op(version, op, params).await;
        assert!(
            response.get("error").is_none() && response.get("result").is_some(),
            "{} failed: {response}",
            version.method(op)
        );
        response["result"].clone()
    }

    /// Sends a message and returns the task of the result (blocking send).
    pub async fn send_task(&self, version: Version, params: Value) -> Value {
        version.task_in(&self.result(version, Op::Send, params).await)
    }

    /// The task with this id, as `tasks/get` / `GetTask` returns it.
    pub async fn get_task(&self, version: Version, task_id: &str) -> Value {
        self.result(version, Op::Get, json!({"id": task_id})).await
    }

    /// Calls a streaming `op` and returns the SSE stream, checking HTTP 200 and the
    /// `text/event-stream` content type.
    pub async fn stream(&self, version: Version, op: Op, params: Value) -> SseStream {
        let id = self.next_id();
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": version.method(op), "params": params});
        let response = self.post("/", version, body.to_string().into_bytes()).await;
        SseStream::open(response, id).await
    }

    /// `GET /ping` as JSON.
    pub async fn ping(&self) -> Value {
        let response = self.send(self.http.get(self.url("/ping"))).await;
        json_body(response, 200).await.1
    }

    /// Waits (bounded) until `/ping` says `Healthy`: no task is running any more.
    pub async fn wait_idle(&self) {
        eventually("/ping to say Healthy", STEP_TIMEOUT, || async {
            (self.ping().await["status"] == "Healthy").then_some(())
        })
        .await;
    }

    /// `GET /.well-known/agent-card.json`, optionally with `If-None-Match`.
    pub async fn card_response(&self, if_none_match: Option<&str>) -> reqwest::Response {
        let mut request = self.http.get(self.url("/.well-known/agent-card.json"));
        if let Some(tag) = if_none_match {
            request = request.header("if-none-match", tag);
        }
        self.send(request).await
    }

    /// The agent card.
    pub async fn card(&self) -> Value {
        json_body(self.card_response(None).await, 200).await.1
    }
}

/// Reads a JSON response, checking its status and `application/json` content type.
///
/// # Panics
/// On another status or content type, or a body that is not JSON.
pub async fn json_body(response: reqwest::Response, status: u16) -> (HeaderMap, Value) {
    let actual = response.status().as_u16();
    let headers = response.headers().clone();
    let text = match tokio::time::timeout(STEP_TIMEOUT, response.text()).await {
        Ok(Ok(text)) => text,
        Ok(Err(error)) => panic!("reading the body failed: {error}"),
        Err(_) => panic!("no complete body within {STEP_TIMEOUT:?}"),
    };
    assert_eq!(actual, status, "unexpected HTTP status; body: {text}");
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/json"),
        "body: {text}"
    );
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("the body is not JSON ({error}): {text}"));
    (headers, body)
}

/// A header's value as text.
pub fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

type ByteStream = Pin<Box<dyn Stream<Item = reqwest::Result<Vec<u8>>> + Send>>;

/// A server-sent-event stream being read, one event at a time.
pub struct SseStream {
    /// The response headers.
    pub headers: HeaderMap,
    /// The JSON-RPC id of the request that opened it.
    pub id: Value,
    body: ByteStream,
    parser: SseParser,
    ready: VecDeque<String>,
    ended: bool,
}

impl std::fmt::Debug for SseStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseStream")
            .field("id", &self.id)
            .field("ready", &self.ready)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl SseStream {
    /// Wraps a response, checking HTTP 200 and `text/event-stream`.
    ///
    /// # Panics
    /// When the response is not a stream (its body is in the message).
    pub async fn open(response: reqwest::Response, id: Value) -> Self {
        let headers = response.headers().clone();
        let status = response.status().as_u16();
        let is_stream = header(&headers, "content-type")
            .is_some_and(|value| value.starts_with("text/event-stream"));
        if status != 200 || !is_stream {
            // Say what came back instead (a JSON-RPC error, usually).
            let text = tokio::time::timeout(STEP_TIMEOUT, response.text()).await;
            panic!(
                "expected an SSE stream, got HTTP {status} {:?}: {text:?}",
                header(&headers, "content-type"),
            );
        }
        Self {
            headers,
            id,
            body: Box::pin(
                response
                    .bytes_stream()
                    .map(|chunk| chunk.map(|bytes| bytes.to_vec())),
            ),
            parser: SseParser::default(),
            ready: VecDeque::new(),
            ended: false,
        }
    }

    /// The next event's data, or `None` once the server closed the stream.
    ///
    /// # Panics
    /// When nothing arrives within [`STEP_TIMEOUT`], or the connection fails.
    pub async fn next_data(&mut self) -> Option<String> {
        loop {
            if let Some(data) = self.ready.pop_front() {
                return Some(data);
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout(STEP_TIMEOUT, self.body.next()).await {
                Err(_) => panic!("no SSE event within {STEP_TIMEOUT:?} (stream {})", self.id),
                Ok(None) => self.ended = true,
                Ok(Some(Ok(chunk))) => self.ready.extend(self.parser.push_data(&chunk)),
                Ok(Some(Err(error))) => panic!("the SSE stream {} failed: {error}", self.id),
            }
        }
    }

    /// The next event as JSON, or `None` once the server closed the stream. Checks that
    /// the event is a JSON-RPC 2.0 response echoing the stream's request id.
    pub async fn next_event(&mut self) -> Option<Value> {
        let data = self.next_data().await?;
        let event: Value = serde_json::from_str(&data)
            .unwrap_or_else(|error| panic!("SSE data is not JSON ({error}): {data}"));
        assert_eq!(event["jsonrpc"], "2.0", "{event}");
        assert_eq!(
            event["id"], self.id,
            "the event does not echo the id: {event}"
        );
        Some(event)
    }

    /// The next event's `result`; panics if the stream ended or the event is an error.
    pub async fn next_result(&mut self) -> Value {
        let Some(event) = self.next_event().await else {
            panic!("the stream {} ended early", self.id)
        };
        assert!(event.get("error").is_none(), "error event: {event}");
        event["result"].clone()
    }

    /// Every remaining event, until the server closes the stream.
    pub async fn rest(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(event) = self.next_event().await {
            events.push(event);
        }
        events
    }

    /// Checks that the server closes the stream with no further event.
    pub async fn expect_end(&mut self) {
        if let Some(event) = self.next_event().await {
            panic!("expected the stream to end, got {event}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_replaces_timestamps_and_generated_message_ids() {
        let value = json!({"status": {"timestamp": "2026-01-02T03:04:05.678Z"},
            "history": [{"messageId": "90449a37-f4f1-4c9b-a452-91b139dc5bf2"}, {"messageId": "mine"}]});
        assert_eq!(
            redact(&value),
            json!({"status": {"timestamp": "<timestamp>"},
                "history": [{"messageId": "<uuid>"}, {"messageId": "mine"}]})
        );
    }

    #[test]
    fn state_and_role_names_per_version() {
        assert_eq!(Version::V0_3.state("input-required"), "input-required");
        assert_eq!(
            Version::V1_0.state("input-required"),
            "TASK_STATE_INPUT_REQUIRED"
        );
        assert_eq!(Version::V0_3.role("agent"), "agent");
        assert_eq!(Version::V1_0.role("user"), "ROLE_USER");
    }
}
