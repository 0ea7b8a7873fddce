//! `--agent-cmd`: the user's agent as a process of its own per session, as AgentCore starts
//! one microVM per session.
//!
//! A session's process runs `sh -c COMMAND` in a process group of its own, told where to
//! listen (`PORT`, `A2A_HOST`), its public URL (`AGENTCORE_RUNTIME_URL`) and its session
//! (`A2A_SESSION_ID`). A supervisor task owns it: it waits for `GET /ping` to answer 200
//! (the session is *starting* until then), then asks `/ping` every second what the agent is
//! doing (read as AWS reads it: `front/ping_report.rs`; after a `Healthy` one, whether a
//! task its session's answers showed at work is still working), and on stop sends the group SIGTERM, then SIGKILL after a grace. Each
//! line the process prints is logged, prefixed with the session id. Calls reach it as an
//! [`Upstream`] at `http://127.0.0.1:PORT`.

use a2a_lambda_server::push::target::TargetPolicy;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;
use tokio::time::Instant;

use super::container::{RuntimeFailure, Upstream};
use super::ping_report::{Activity, PingLedger, PingReport, TaskAtWork, shows_at_work};
pub use super::processes::Processes;

/// How often a ready process's `/ping` is asked whether it is busy.
const BUSY_POLL: Duration = Duration::from_secs(1);
/// How long one `/ping` may take.
const PING_TIMEOUT: Duration = Duration::from_secs(1);
/// The first pause between two readiness pings; it doubles up to [`READY_POLL_MAX`].
const READY_POLL_MIN: Duration = Duration::from_millis(20);
/// The longest pause between two readiness pings.
const READY_POLL_MAX: Duration = Duration::from_millis(250);
/// How often a stopping process group is checked for members left.
const GROUP_POLL: Duration = Duration::from_millis(20);
/// How long killed members of a group may take to be reaped.
const REAP_WAIT: Duration = Duration::from_secs(2);

/// How agent processes are started and stopped.
#[derive(Clone)]
pub struct ProcessSpec {
    /// The shell command, run with `sh -c`.
    pub command: String,
    /// How long a process may take to answer `GET /ping` with 200.
    pub startup_timeout: Duration,
    /// How long a process gets between SIGTERM and SIGKILL.
    pub stop_grace: Duration,
    /// The emulator's public URL, the process's `AGENTCORE_RUNTIME_URL`.
    pub public_url: String,
    /// The HTTP client calls to the processes use.
    pub client: reqwest::Client,
    /// Every process started, for stopping them all.
    pub processes: Arc<Processes>,
    /// Where the agent's webhooks may point (its `A2A_PUSH_ALLOW_PRIVATE`), or `None` for
    /// push notifications off (`A2A_PUSH_NOTIFICATIONS=off`): the emulator's own setting.
    pub push: Option<TargetPolicy>,
    /// The emulator's OTLP receiver (its base URL), the process's
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` unless the emulator's environment sets one; `None`:
    /// no receiver (the inspector is off).
    pub otlp_endpoint: Option<String>,
}

/// The service name an agent process exports as unless the environment names one.
const AGENT_SERVICE_NAME: &str = "agent-cmd";

/// The OpenTelemetry variables an agent process gets when the emulator receives OTLP,
/// each given only when the emulator's own environment (which the process inherits) does
/// not set it: the endpoint (a signal's own `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` still
/// wins in the SDK), OTLP/HTTP with protobuf (some SDKs default to gRPC, which the
/// emulator does not serve) and a service name. Source: OpenTelemetry, "OpenTelemetry
/// Protocol Exporter" (<https://opentelemetry.io/docs/specs/otel/protocol/exporter/>) and
/// "Environment Variable Specification"
/// (<https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/>).
fn otel_environment(endpoint: &str) -> Vec<(&'static str, String)> {
    [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.to_owned()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf".to_owned()),
        ("OTEL_SERVICE_NAME", AGENT_SERVICE_NAME.to_owned()),
    ]
    .into_iter()
    .filter(|(name, _)| std::env::var_os(name).is_none())
    .collect()
}

/// Where a process is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Started; `/ping` has not answered 200 yet.
    Starting,
    /// Its `/ping` answered 200: it takes calls.
    Ready,
    /// It cannot take calls (exited, never listened, stopped) and is being stopped.
    Failed(String),
    /// It has exited and its process group is empty.
    Gone(String),
}

impl Phase {
    /// Why it takes no calls, once it is failed or gone.
    fn reason(&self) -> Option<&str> {
        match self {
            Self::Starting | Self::Ready => None,
            Self::Failed(reason) | Self::Gone(reason) => Some(reason),
        }
    }
}

/// One agent process, as its session sees it. Dropping it stops the process.
pub struct AgentProcess {
    /// The session it serves, for logs.
    label: String,
    /// How calls reach it.
    upstream: Arc<Upstream>,
    phase: watch::Receiver<Phase>,
    pings: Arc<PingLedger>,
    stop: watch::Sender<bool>,
    /// The `sh` that runs the command, leader of the process group.
    pid: Option<u32>,
}

impl std::fmt::Debug for AgentProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentProcess")
            .field("session", &self.label)
            .field("base", &self.upstream.base)
            .field("pid", &self.pid)
            .field("phase", &*self.phase.borrow())
            .finish_non_exhaustive()
    }
}

impl AgentProcess {
    /// Starts the command for session `label` (`session`: its id, for `A2A_SESSION_ID`;
    /// none for a process outside any session). A command that cannot be started gives a
    /// process that has failed, so the session's first call answers AgentCore's 424.
    pub fn start(spec: &ProcessSpec, label: &str, session: Option<&str>) -> Self {
        let (phase_tx, phase) = watch::channel(Phase::Starting);
        let (stop, stop_rx) = watch::channel(false);
        let pings = Arc::new(PingLedger::new(label));
        let port = spec.processes.free_port().unwrap_or(0);
        let upstream = Arc::new(Upstream {
            base: format!("http://127.0.0.1:{port}"),
            client: spec.client.clone(),
        });
        let spawned = if port == 0 {
            Err(std::io::Error::other("no free port for the agent"))
        } else {
            command(spec, port, session).spawn()
        };
        let pid = match spawned {
            Ok(mut child) => {
                let pid = child.id();
                tracing::info!(session_id = label, pid, port, command = %spec.command, "agent process started");
                if let Some(out) = child.stdout.take() {
                    tokio::spawn(log_lines(out, label.to_owned(), "stdout"));
                }
                if let Some(err) = child.stderr.take() {
                    tokio::spawn(log_lines(err, label.to_owned(), "stderr"));
                }
                let supervisor = Supervisor {
                    label: label.to_owned(),
                    upstream: Arc::clone(&upstream),
                    phase: phase_tx,
                    pings: Arc::clone(&pings),
                    startup_timeout: spec.startup_timeout,
                    grace: spec.stop_grace,
                };
                tokio::spawn(supervisor.run(child, stop_rx, spec.processes.subscribe()));
                pid
            }
            Err(error) => {
                let reason = format!("cannot run `sh -c {:?}`: {error}", spec.command);
                tracing::warn!(session_id = label, reason, "agent process not started");
                phase_tx.send_replace(Phase::Gone(reason));
                None
            }
        };
        spec.processes.track(phase.clone(), port, pid);
        Self {
            label: label.to_owned(),
            upstream,
            phase,
            pings,
            stop,
            pid,
        }
    }

    /// True until its `/ping` first answers 200 (or it fails).
    pub fn starting(&self) -> bool {
        matches!(*self.phase.borrow(), Phase::Starting)
    }

    /// True once it can take no more calls: exited, never listened, or stopped.
    pub fn failed(&self) -> bool {
        self.phase.borrow().reason().is_some()
    }

    /// True once it has exited and its process group is empty.
    pub fn gone(&self) -> bool {
        matches!(*self.phase.borrow(), Phase::Gone(_))
    }

    /// What its pings mean for its session's idle clock, as AWS reads them
    /// (`front/ping_report.rs`).
    pub(crate) fn activity(&self) -> Activity {
        self.pings.activity()
    }

    /// Its pings, and the tasks its answers showed at work.
    pub(crate) fn pings(&self) -> &Arc<PingLedger> {
        &self.pings
    }

    /// Stops it: SIGTERM to its group now, SIGKILL after the grace.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// Waits until it is ready (bounded by the startup timeout, which the supervisor
    /// enforces), then gives the upstream that reaches it.
    ///
    /// # Errors
    /// [`RuntimeFailure::Unreachable`] when it failed to start or has ended.
    pub async fn ready(&self) -> Result<Arc<Upstream>, RuntimeFailure> {
        let mut phase = self.phase.clone();
        let settled = phase
            .wait_for(|phase| !matches!(phase, Phase::Starting))
            .await
            .map(|phase| phase.reason().map(str::to_owned));
        match settled {
            Ok(None) => Ok(Arc::clone(&self.upstream)),
            Ok(Some(reason)) => Err(RuntimeFailure::Unreachable(format!(
                "the agent process of session {}: {reason}",
                self.label
            ))),
            Err(_) => Err(RuntimeFailure::Unreachable(format!(
                "the agent process of session {} is gone",
                self.label
            ))),
        }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `sh -c COMMAND` with the container's environment, in a process group of its own (so
/// one signal reaches whatever the shell starts), killed if its supervisor is dropped.
fn command(spec: &ProcessSpec, port: u16, session: Option<&str>) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&spec.command)
        .env("PORT", port.to_string())
        .env("A2A_HOST", "127.0.0.1")
        .env("AGENTCORE_RUNTIME_URL", &spec.public_url)
        // The emulator's own settings are not the agent's: it listens where PORT says.
        .env_remove("A2A_PORT")
        .env_remove("A2A_PUBLIC_URL")
        // The agent's push notifications follow the emulator's: on loopback by default, so
        // that a webhook on this machine (the emulator's sink, `a2a webhook listen`) works.
        .env(
            "A2A_PUSH_NOTIFICATIONS",
            if spec.push.is_some() { "on" } else { "off" },
        )
        .env(
            "A2A_PUSH_ALLOW_PRIVATE",
            match spec.push {
                Some(TargetPolicy::AllowPrivate) => "true",
                Some(TargetPolicy::Loopback) => "loopback",
                _ => "false",
            },
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    match session {
        Some(session) => command.env("A2A_SESSION_ID", session),
        None => command.env_remove("A2A_SESSION_ID"),
    };
    if let Some(endpoint) = &spec.otlp_endpoint {
        command.envs(otel_environment(endpoint));
    }
    command
}

/// Logs each line of `output`, prefixed with the session.
async fn log_lines(output: impl AsyncRead + Unpin, label: String, stream: &'static str) {
    let mut lines = BufReader::new(output).split(b'\n');
    while let Ok(Some(line)) = lines.next_segment().await {
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches('\r');
        tracing::info!(target: "a2a_lambda_emulator::agent", session_id = label, stream, "[{label}] {line}");
    }
}

/// Owns one process: its startup, its busy state, its stop.
struct Supervisor {
    label: String,
    upstream: Arc<Upstream>,
    phase: watch::Sender<Phase>,
    pings: Arc<PingLedger>,
    startup_timeout: Duration,
    grace: Duration,
}

/// Why a process is being ended.
enum End {
    /// It exited by itself.
    Exited(String),
    /// The emulator ends it.
    Stopped(String),
}

impl Supervisor {
    async fn run(
        self,
        mut child: Child,
        stop: watch::Receiver<bool>,
        stop_all: watch::Receiver<bool>,
    ) {
        let group = child
            .id()
            .and_then(|pid| i32::try_from(pid).ok())
            .map(Pid::from_raw);
        let stopped = stop_requested(stop, stop_all);
        tokio::pin!(stopped);
        let end = tokio::select! {
            biased;
            () = &mut stopped => End::Stopped("stopped while starting".to_owned()),
            status = child.wait() => End::Exited(exit_reason(status, "while starting")),
            ready = self.wait_ready() => match ready {
                Ok(()) => {
                    tracing::info!(session_id = self.label, "agent process ready");
                    self.phase.send_replace(Phase::Ready);
                    self.serve(&mut child, &mut stopped).await
                }
                Err(reason) => End::Stopped(reason),
            },
        };
        let reason = match end {
            End::Exited(reason) => {
                tracing::warn!(session_id = self.label, reason, "agent process ended");
                reason
            }
            End::Stopped(reason) => {
                tracing::info!(
                    session_id = self.label,
                    reason,
                    "stopping the agent process"
                );
                reason
            }
        };
        self.pings.clear();
        self.phase.send_replace(Phase::Failed(reason.clone()));
        terminate(&mut child, group, self.grace).await;
        tracing::info!(session_id = self.label, "agent process gone");
        self.phase.send_replace(Phase::Gone(reason));
    }

    /// Pings until `/ping` answers 200, for at most the startup timeout.
    async fn wait_ready(&self) -> Result<(), String> {
        let timeout = self.startup_timeout;
        let pinged = tokio::time::timeout(timeout, async {
            let mut pause = READY_POLL_MIN;
            while self.ping().await.is_none() {
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(READY_POLL_MAX);
            }
        });
        pinged
            .await
            .map_err(|_| format!("its /ping did not answer 200 within {timeout:?}"))
    }

    /// While ready: records what each `/ping` says, until it exits or is stopped.
    async fn serve(
        &self,
        child: &mut Child,
        stopped: &mut std::pin::Pin<&mut impl Future<Output = ()>>,
    ) -> End {
        let mut tick = tokio::time::interval_at(Instant::now() + BUSY_POLL, BUSY_POLL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                biased;
                () = stopped.as_mut() => return End::Stopped("stopped".to_owned()),
                status = child.wait() => return End::Exited(exit_reason(status, "")),
                _ = tick.tick() => {
                    self.pings.record(self.ping().await);
                    for task in self.pings.tasks_to_check() {
                        let at_work = self.still_at_work(&task).await;
                        self.pings.checked(&task.id, at_work);
                    }
                }
            }
        }
    }

    /// Whether the process says `task` is still submitted or working, asked as a client
    /// would (`tasks/get`, or v1.0's `GetTask`); an answer that says otherwise, or none,
    /// is not.
    async fn still_at_work(&self, task: &TaskAtWork) -> bool {
        let method = if task.v1_0 { "GetTask" } else { "tasks/get" };
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": "a2a-emulator-ping-check",
            "method": method,
            "params": {"id": task.id},
        });
        let mut request = self
            .upstream
            .client
            .post(format!("{}/", self.upstream.base))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .timeout(PING_TIMEOUT)
            .body(body.to_string());
        if task.v1_0 {
            request = request.header(a2a_lambda_core::version::VERSION_HEADER, "1.0");
        }
        let Ok(answer) = request.send().await else {
            return false;
        };
        let Ok(body) = answer.bytes().await else {
            return false;
        };
        let answer = serde_json::from_slice::<serde_json::Value>(&body).unwrap_or_default();
        shows_at_work(&answer["result"])
    }

    /// What a `/ping` that answered 200 said.
    async fn ping(&self) -> Option<PingReport> {
        let answer = self
            .upstream
            .client
            .get(format!("{}/ping", self.upstream.base))
            .timeout(PING_TIMEOUT)
            .send()
            .await
            .ok()?;
        if answer.status() != reqwest::StatusCode::OK {
            return None;
        }
        let body = answer.bytes().await.ok()?;
        Some(PingReport::parse(&body))
    }
}

/// Resolves once either stop signal says stop (or its sender is gone: the session's
/// process handle or the emulator was dropped).
async fn stop_requested(mut stop: watch::Receiver<bool>, mut stop_all: watch::Receiver<bool>) {
    tokio::select! {
        _ = stop.wait_for(|stop| *stop) => {}
        _ = stop_all.wait_for(|stop| *stop) => {}
    }
}

fn exit_reason(status: std::io::Result<std::process::ExitStatus>, when: &str) -> String {
    let when = if when.is_empty() {
        String::new()
    } else {
        format!(" {when}")
    };
    match status {
        Ok(status) => format!("it exited{when} ({status})"),
        Err(error) => format!("waiting for it failed{when}: {error}"),
    }
}

/// Ends the process and its group: SIGTERM, then SIGKILL for whatever is left after
/// `grace`. Returns once the shell is reaped and the group is empty (or killed).
async fn terminate(child: &mut Child, group: Option<Pid>, grace: Duration) {
    let deadline = Instant::now() + grace;
    if let Some(group) = group {
        signal_group(group, Signal::SIGTERM);
    }
    let exited = tokio::time::timeout_at(deadline, child.wait())
        .await
        .is_ok();
    let emptied = match group {
        Some(group) => group_emptied(group, deadline).await,
        None => true,
    };
    if exited && emptied {
        return;
    }
    if let Some(group) = group {
        signal_group(group, Signal::SIGKILL);
    }
    // The shell itself, when its group could not be signalled.
    let _ = child.kill().await;
    // Killed members the shell left behind are reparented and reaped by init: wait
    // (bounded) until the group is empty, so "gone" means no process of it is left.
    if let Some(group) = group
        && !group_emptied(group, Instant::now() + REAP_WAIT).await
    {
        tracing::warn!(%group, "agent process group not empty after SIGKILL");
    }
}

/// Polls until no process is left in `group`, or `deadline`; true if it emptied.
async fn group_emptied(group: Pid, deadline: Instant) -> bool {
    loop {
        if killpg(group, None) == Err(Errno::ESRCH) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(GROUP_POLL).await;
    }
}

pub(super) fn signal_group(group: Pid, signal: Signal) {
    match killpg(group, signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => tracing::warn!(%group, ?signal, %error, "cannot signal the agent process"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn spec(command: &str, startup: Duration) -> ProcessSpec {
        ProcessSpec {
            command: command.to_owned(),
            startup_timeout: startup,
            stop_grace: Duration::from_secs(5),
            public_url: "http://127.0.0.1:9/".to_owned(),
            client: reqwest::Client::new(),
            processes: Arc::new(Processes::new()),
            push: Some(TargetPolicy::Loopback),
            otlp_endpoint: None,
        }
    }

    fn alive(pid: u32) -> bool {
        killpg(Pid::from_raw(i32::try_from(pid).unwrap()), None).is_ok()
    }

    #[tokio::test]
    async fn a_command_that_exits_fails_its_first_call() {
        let spec = spec("exit 3", Duration::from_secs(30));
        let process = AgentProcess::start(&spec, "s-exit", Some("s-exit"));
        let failure = process.ready().await.unwrap_err().to_string();
        assert!(failure.contains("exit status: 3"), "{failure}");
        assert!(process.failed());
    }

    #[tokio::test]
    async fn a_command_that_never_listens_fails_after_the_startup_timeout() {
        let spec = spec("exec sleep 30", Duration::from_millis(300));
        let process = AgentProcess::start(&spec, "s-deaf", None);
        let pid = process.pid.unwrap();
        let failure = process.ready().await.unwrap_err().to_string();
        assert!(failure.contains("did not answer 200 within"), "{failure}");
        // The supervisor stops it: SIGTERM ends `sleep`.
        spec.processes
            .stop_all_and_wait(Duration::from_secs(10))
            .await;
        assert!(process.gone());
        assert!(!alive(pid));
    }

    #[tokio::test]
    async fn a_process_that_ignores_sigterm_is_killed_after_the_grace() {
        let mut spec = spec(
            "trap '' TERM; while :; do sleep 0.05; done",
            Duration::from_secs(30),
        );
        spec.stop_grace = Duration::from_millis(200);
        let process = AgentProcess::start(&spec, "s-stubborn", None);
        let pid = process.pid.unwrap();
        assert!(alive(pid));
        process.stop();
        spec.processes
            .stop_all_and_wait(Duration::from_secs(10))
            .await;
        assert!(process.gone());
        assert!(!alive(pid));
    }

    #[tokio::test]
    async fn the_environment_names_the_port_host_url_and_session() {
        let dir = std::env::temp_dir().join(format!("a2a-emulator-env-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("env");
        let spec = spec(
            &format!(
                "echo \"$PORT $A2A_HOST $AGENTCORE_RUNTIME_URL $A2A_SESSION_ID $A2A_PUSH_NOTIFICATIONS $A2A_PUSH_ALLOW_PRIVATE\" > '{}'",
                file.display()
            ),
            Duration::from_secs(30),
        );
        let process = AgentProcess::start(&spec, "s-env", Some("s-env-id"));
        assert!(process.ready().await.is_err());
        let written = std::fs::read_to_string(&file).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let port = process.upstream.base.rsplit(':').next().unwrap();
        assert_eq!(
            written.trim(),
            format!("{port} 127.0.0.1 http://127.0.0.1:9/ s-env-id on loopback")
        );
    }

    #[tokio::test]
    async fn the_environment_points_opentelemetry_at_the_emulator() {
        let dir = std::env::temp_dir().join(format!("a2a-emulator-otel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("env");
        let mut spec = spec(
            &format!(
                "echo \"$OTEL_EXPORTER_OTLP_ENDPOINT $OTEL_EXPORTER_OTLP_PROTOCOL $OTEL_SERVICE_NAME\" > '{}'",
                file.display()
            ),
            Duration::from_secs(30),
        );
        spec.otlp_endpoint = Some("http://127.0.0.1:9".to_owned());
        let process = AgentProcess::start(&spec, "s-otel", None);
        assert!(process.ready().await.is_err());
        let written = std::fs::read_to_string(&file).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // What the test's own environment sets, the process inherits instead.
        let expected: Vec<String> = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
            ("OTEL_SERVICE_NAME", "agent-cmd"),
        ]
        .iter()
        .map(|(name, given)| std::env::var(name).unwrap_or_else(|_| (*given).to_owned()))
        .collect();
        assert_eq!(written.trim(), expected.join(" "));
    }
}
