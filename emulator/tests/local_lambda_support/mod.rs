//! What the local Lambda's tests share: the real `a2a-agent` function binary, tiny
//! custom runtimes written as shell scripts (the shape of AWS's own custom-runtime
//! tutorial) for what the agent cannot show, and bounded waits.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use a2a_lambda_emulator::lambda::{LocalLambda, RunningLambda};
use serde_json::{Value, json};

/// How long any one step may take.
pub const STEP: Duration = Duration::from_secs(20);

/// The `a2a-agent` function binary (the workspace's binaries are built once per run).
pub fn agent_binary() -> PathBuf {
    a2a_test_support::harness::binary("a2a-agent", "a2a-agent")
}

/// The a2a-agent under a local Lambda with the conformance agent, JSON logs at `info`.
pub fn agent() -> LocalLambda {
    LocalLambda::new(agent_binary())
        .port(0)
        .env("A2A_AGENT", "conformance")
        .env("RUST_LOG", "info")
}

/// Starts `lambda`.
pub async fn start(lambda: LocalLambda) -> RunningLambda {
    lambda.start().await.expect("the local Lambda starts")
}

/// A v0.3 JSON-RPC `method` call.
pub fn rpc(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A v0.3 message with `message_id` (the conformance agent's behaviour is its prefix).
pub fn message(message_id: &str, text: &str) -> Value {
    json!({"kind": "message", "messageId": message_id, "role": "user",
           "parts": [{"kind": "text", "text": text}]})
}

/// POSTs `body` to `url`; the status, the `x-amzn-requestid` header and the JSON body.
pub async fn post(url: &str, body: &Value) -> (u16, Option<String>, Value) {
    let answer = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .timeout(STEP)
        .send()
        .await
        .expect("the front answers");
    let status = answer.status().as_u16();
    let request_id = answer
        .headers()
        .get("x-amzn-requestid")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let text = answer.text().await.expect("a body");
    let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, request_id, json)
}

/// The state letter of process `pid` (`/proc/PID/stat`'s third field: `T` is stopped).
pub fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: the state follows the last `)`.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// The state letters of every process in process group `group`.
pub fn group_states(group: u32) -> Vec<char> {
    let mut states = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|pgrp| pgrp.parse::<u32>().ok()) == Some(group) {
            states.extend(fields[0].chars().next());
        }
    }
    states
}

/// Polls `probe` every 10 ms until it returns `Some`, for at most [`STEP`].
pub async fn eventually<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + STEP;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until the environment's process is stopped (`T`); its pid.
pub async fn frozen(lambda: &RunningLambda) -> u32 {
    eventually("the environment frozen (T in /proc/PID/stat)", || {
        let pid = lambda.pid()?;
        (process_state(pid) == Some('T') && lambda.frozen()).then_some(pid)
    })
    .await
}

/// The log lines that start with `prefix` and name `request_id`.
pub fn log_lines(lambda: &RunningLambda, prefix: &str, request_id: &str) -> Vec<String> {
    lambda
        .logs()
        .into_iter()
        .filter(|line| line.starts_with(prefix) && line.contains(request_id))
        .collect()
}

/// The function's JSON log lines whose message is `message`.
pub fn json_logs(lambda: &RunningLambda, message: &str) -> Vec<Value> {
    lambda
        .logs()
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|log| log["fields"]["message"] == message)
        .collect()
}

/// A directory of its own for a test's scripts and files, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(label: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "a2a-local-lambda-{label}-{}-{}",
            std::process::id(),
            uuid_like()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uuid_like() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// A custom runtime as a shell script in `dir`: `init` runs once, then for each
/// invocation `handle` runs with `$id` (the request id), `$event` (the event) and `$api`
/// (the Runtime API's base) set. `post_response BODY` and `post_error TYPE` answer.
pub fn shell_function(dir: &Path, init: &str, handle: &str) -> PathBuf {
    let script = format!(
        r#"#!/bin/sh
api="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
post_response() {{ curl -sS -o /dev/null -X POST "$api/invocation/$id/response" -d "$1"; }}
post_error() {{ curl -sS -o /dev/null -X POST -H "Lambda-Runtime-Function-Error-Type: $1" "$api/invocation/$id/error" -d "{{\"errorType\":\"$1\",\"errorMessage\":\"failed on purpose\"}}"; }}
{init}
while true; do
  headers=$(mktemp)
  event=$(curl -sS -D "$headers" "$api/invocation/next")
  id=$(tr -d '\r' < "$headers" | grep -i '^lambda-runtime-aws-request-id:' | cut -d' ' -f2)
  rm -f "$headers"
  {handle}
done
"#
    );
    let path = dir.join("bootstrap");
    std::fs::write(&path, script).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
    path
}

/// The default answer of a shell function: a 200 with body `ok`.
pub const RESPOND_OK: &str = r#"post_response '{"statusCode":200,"body":"ok"}'"#;
