//! The function's process: started as Lambda starts a runtime (its own environment, not
//! the emulator's), in a process group of its own so that one signal freezes, thaws or
//! ends whatever it started, killed if its owner is dropped; each line it prints goes to
//! the function's log ([`Logs`]).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Mutex, PoisonError};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, BufReader};
use tokio::process::{Child, Command};

use super::config::FunctionConfig;

/// Lines the function's log keeps (the oldest go first).
const LOG_LINES: usize = 10_000;

/// The function's log: what the process prints and the platform's lines (`START`,
/// `END`, `REPORT`, timeouts), in order, as CloudWatch Logs would hold them. Each line is
/// also emitted as a `tracing` event (target `a2a_lambda_emulator::lambda`).
#[derive(Debug, Default)]
pub(crate) struct Logs {
    lines: Mutex<VecDeque<String>>,
}

impl Logs {
    /// Appends `line`.
    pub fn line(&self, line: impl Into<String>) {
        let line = line.into();
        tracing::info!(target: "a2a_lambda_emulator::lambda", "{line}");
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if lines.len() == LOG_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}

/// The environment Lambda gives a runtime: the reserved variables ("Defined runtime
/// environment variables",
/// <https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime>),
/// then the function's own. The emulator's environment is not passed on (Lambda's
/// environment holds only these), except the AWS credentials (Lambda sets the execution
/// role's; a local run uses the caller's, for a DynamoDB store or any AWS call).
pub(crate) fn environment(
    config: &FunctionConfig,
    runtime_api: SocketAddr,
) -> Vec<(String, String)> {
    let task_root = config
        .command
        .parent()
        .map(|dir| dir.display().to_string())
        .filter(|dir| !dir.is_empty())
        .unwrap_or_else(|| ".".to_owned());
    let mut env: Vec<(String, String)> = vec![
        ("AWS_LAMBDA_RUNTIME_API".into(), runtime_api.to_string()),
        ("AWS_LAMBDA_FUNCTION_NAME".into(), config.name.clone()),
        (
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE".into(),
            config.memory_mb.to_string(),
        ),
        ("AWS_LAMBDA_FUNCTION_VERSION".into(), "$LATEST".into()),
        ("AWS_LAMBDA_INITIALIZATION_TYPE".into(), "on-demand".into()),
        (
            "AWS_LAMBDA_LOG_GROUP_NAME".into(),
            format!("/aws/lambda/{}", config.name),
        ),
        (
            "AWS_LAMBDA_LOG_STREAM_NAME".into(),
            format!("$LATEST/{}", uuid::Uuid::new_v4().simple()),
        ),
        ("AWS_REGION".into(), config.region.clone()),
        ("AWS_DEFAULT_REGION".into(), config.region.clone()),
        ("_HANDLER".into(), config.handler.clone()),
        ("LAMBDA_TASK_ROOT".into(), task_root),
        ("LAMBDA_RUNTIME_DIR".into(), "/var/runtime".into()),
        ("LANG".into(), "en_US.UTF-8".into()),
        ("TZ".into(), ":UTC".into()),
        (
            "PATH".into(),
            "/usr/local/bin:/usr/bin/:/bin:/opt/bin".into(),
        ),
    ];
    if let Some(n) = config.max_concurrency {
        env.push(("AWS_LAMBDA_MAX_CONCURRENCY".into(), n.to_string()));
    }
    for name in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
    ] {
        if let Ok(value) = std::env::var(name) {
            env.push((name.into(), value));
        }
    }
    env.extend(config.env.iter().cloned());
    env
}

/// Starts `program` with `env` (and nothing of the emulator's), in process group `group`
/// (a new one, led by it, when `None`).
pub(crate) fn spawn(
    program: &Path,
    args: &[String],
    env: Vec<(String, String)>,
    logs: &std::sync::Arc<Logs>,
    group: Option<i32>,
) -> std::io::Result<Child> {
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(group.unwrap_or(0))
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    if let Some(out) = child.stdout.take() {
        tokio::spawn(log_lines(out, std::sync::Arc::clone(logs)));
    }
    if let Some(err) = child.stderr.take() {
        tokio::spawn(log_lines(err, std::sync::Arc::clone(logs)));
    }
    Ok(child)
}

async fn log_lines(output: impl AsyncRead + Unpin, logs: std::sync::Arc<Logs>) {
    let mut lines = BufReader::new(output).split(b'\n');
    while let Ok(Some(line)) = lines.next_segment().await {
        let line = String::from_utf8_lossy(&line);
        logs.line(line.trim_end_matches('\r'));
    }
}

/// Sends `signal` to the process group led by `group` (gone already: nothing to do).
pub(crate) fn signal_group(group: Pid, signal: Signal) {
    match killpg(group, signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => tracing::warn!(%group, ?signal, %error, "cannot signal the function"),
    }
}

/// Sends `signal` to the process `pid` alone.
pub(crate) fn signal_process(pid: Pid, signal: Signal) {
    match kill(pid, signal) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => tracing::warn!(%pid, ?signal, %error, "cannot signal the function"),
    }
}

/// The peak resident memory of process `pid`, in MB (`VmHWM` of `/proc/PID/status`): what
/// the `REPORT` line's "Max Memory Used" says. `None` where `/proc` cannot tell.
pub(crate) fn max_memory_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb.div_ceil(1024))
}
