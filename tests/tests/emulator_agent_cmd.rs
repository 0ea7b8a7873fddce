//! `--agent-cmd`: the real emulator running the real `a2a-container` once per session, as
//! AgentCore starts one microVM per session. Sessions are isolated processes; a command
//! that exits or never listens is AgentCore's 424/-32055; while a process starts its
//! session answers the retryable 409/-32054; a busy process keeps its session; SIGTERM to
//! the emulator leaves no agent process behind.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::ops::{Deref, DerefMut};
use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{
    self, RUNTIME_ERROR, SESSION_BUSY, invoke, plain_log, session_id, wait_for_log,
};
use a2a_test_support::harness::{Emulator, STEP_TIMEOUT, binary, eventually, json};

/// The emulator, stopped with SIGTERM (and waited for) even when a test fails, so that it
/// stops its agent processes: killing it outright would leave them running.
struct Stopping(Option<Emulator>);

impl Deref for Stopping {
    type Target = Emulator;
    fn deref(&self) -> &Emulator {
        self.0.as_ref().unwrap()
    }
}

impl DerefMut for Stopping {
    fn deref_mut(&mut self) -> &mut Emulator {
        self.0.as_mut().unwrap()
    }
}

impl Drop for Stopping {
    fn drop(&mut self) {
        if let Some(emulator) = self.0.take() {
            let pid = emulator.pid();
            emulator.terminate();
            // Polled, bounded: the emulator stops its agents before it exits.
            let deadline = Instant::now() + Duration::from_secs(20);
            while !exited(pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

impl Stopping {
    /// SIGTERM, then waits (bounded) for a clean exit.
    async fn terminate_and_wait(&mut self) {
        let mut emulator = self.0.take().unwrap();
        emulator.terminate();
        let status = emulator.exited_within(Duration::from_secs(20)).await;
        assert!(
            status.is_some_and(|status| status.success()),
            "exit {status:?}; log:\n{}",
            plain_log(&mut emulator)
        );
    }
}

/// The `stat` fields of process `pid` after its name: state, parent, process group…
fn stat(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, after_name) = stat.rsplit_once(')')?;
    Some(after_name.split_whitespace().map(str::to_owned).collect())
}

/// True when `pid` is gone or a zombie (exited, not yet reaped).
fn exited(pid: u32) -> bool {
    stat(&pid.to_string()).is_none_or(|fields| fields[0] == "Z")
}

/// The live processes (zombies aside) whose process group is `group`.
fn members_of(group: u32) -> Vec<String> {
    let group = group.to_string();
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
                .filter(|name| name.bytes().all(|b| b.is_ascii_digit()))
                .filter(|pid| {
                    stat(pid).is_some_and(|fields| fields[0] != "Z" && fields[2] == group)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Single-quoted for `sh`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The `a2a-container` binary, as an agent command.
fn container_command() -> String {
    quoted(
        &binary("a2a-lambda-server", "a2a-container")
            .display()
            .to_string(),
    )
}

fn emulator(command: &str, args: &[&str]) -> Stopping {
    let emulator = Emulator::builder()
        .args(["--agent-cmd", command])
        .args(args.iter().copied())
        .process()
        .start();
    Stopping(Some(emulator))
}

/// The pid the emulator logged for the process of `session`, once it has.
async fn agent_pid(emulator: &mut Emulator, session: &str) -> u32 {
    wait_for_log(emulator, &["agent process started", session], STEP_TIMEOUT).await;
    let log = plain_log(emulator);
    let line = log
        .lines()
        .find(|line| line.contains("agent process started") && line.contains(session))
        .unwrap();
    let pid = line.split("pid=").nth(1).unwrap();
    let digits: String = pid.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

#[tokio::test]
async fn each_session_runs_its_own_process_with_its_own_tasks() {
    let mut emulator = emulator(&container_command(), &[]);
    assert!(
        emulator
            .listening_line()
            .contains("AgentCore front, agent command: "),
        "{}",
        emulator.listening_line()
    );
    let (a, b) = (session_id("cmd-a"), session_id("cmd-b"));
    let task = front::create_task(&emulator, &a, "m-a").await;
    let other = front::create_task(&emulator, &b, "m-b").await;

    // Session A's task is in A's process only.
    assert_eq!(
        front::get_task(&emulator, Some(&a), &task).await.result()["id"],
        task
    );
    assert_eq!(
        front::get_task(&emulator, Some(&b), &task)
            .await
            .error_code(),
        -32001
    );
    assert_eq!(
        front::get_task(&emulator, Some(&a), &other)
            .await
            .error_code(),
        -32001
    );

    // Two processes, each one's output prefixed with its session.
    let pid_a = agent_pid(&mut emulator, &a).await;
    let pid_b = agent_pid(&mut emulator, &b).await;
    assert_ne!(pid_a, pid_b);
    for session in [&a, &b] {
        let line = format!("[{session}] a2a-container listening on http://127.0.0.1:");
        wait_for_log(&mut emulator, &[&line], STEP_TIMEOUT).await;
    }
    assert!(!exited(pid_a) && !exited(pid_b));
}

#[tokio::test]
async fn sigterm_to_the_emulator_stops_every_agent_process() {
    let mut emulator = emulator(&container_command(), &[]);
    let (a, b) = (session_id("term-a"), session_id("term-b"));
    front::create_task(&emulator, &a, "m-a").await;
    front::create_task(&emulator, &b, "m-b").await;
    let pids = [
        agent_pid(&mut emulator, &a).await,
        agent_pid(&mut emulator, &b).await,
    ];
    for pid in pids {
        assert!(!members_of(pid).is_empty(), "no process in group {pid}");
    }
    emulator.terminate_and_wait().await;
    // The emulator exits only once its agents are gone: nothing is left of their groups.
    for pid in pids {
        assert!(exited(pid), "agent process {pid} is still running");
        assert_eq!(members_of(pid), Vec::<String>::new(), "group {pid}");
    }
}

#[tokio::test]
async fn a_command_that_exits_at_once_is_a_runtime_client_error() {
    let mut emulator = emulator("exit 3", &[]);
    let session = session_id("exit");
    let (id, reply) = invoke(
        &emulator,
        Some(&session),
        "message/send",
        front::send_params("m-exit", "hi"),
    )
    .await;
    reply.assert_aws(&id, RUNTIME_ERROR);
    assert_eq!(reply.session(), Some(session.as_str()));
    wait_for_log(
        &mut emulator,
        &["agent process ended", &session, "exit status: 3"],
        STEP_TIMEOUT,
    )
    .await;
    // The session is over: the next invocation starts a new process (which fails again).
    let (id, reply) = invoke(
        &emulator,
        Some(&session),
        "message/send",
        front::send_params("m-exit-2", "hi"),
    )
    .await;
    reply.assert_aws(&id, RUNTIME_ERROR);
    // The log is read from the emulator's stderr as it arrives: wait for the second start.
    let deadline = Instant::now() + STEP_TIMEOUT;
    loop {
        let log = plain_log(&mut emulator);
        let started = log
            .lines()
            .filter(|line| line.contains("agent process started") && line.contains(&session))
            .count();
        if started == 2 {
            break;
        }
        assert!(
            started < 2 && Instant::now() < deadline,
            "{started} starts; {log}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_command_that_never_listens_fails_after_the_startup_timeout() {
    let mut emulator = emulator("exec sleep 60", &["--agent-startup-timeout", "1"]);
    let session = session_id("deaf");
    let began = Instant::now();
    let (id, reply) = invoke(
        &emulator,
        Some(&session),
        "message/send",
        front::send_params("m-deaf", "hi"),
    )
    .await;
    let waited = began.elapsed();
    reply.assert_aws(&id, RUNTIME_ERROR);
    assert!(
        waited >= Duration::from_millis(900) && waited < STEP_TIMEOUT,
        "answered after {waited:?}"
    );
    wait_for_log(
        &mut emulator,
        &["did not answer 200 within", &session],
        STEP_TIMEOUT,
    )
    .await;
    // The process that never listened is stopped with its session.
    let pid = agent_pid(&mut emulator, &session).await;
    eventually("the deaf agent to be stopped", STEP_TIMEOUT, || async {
        members_of(pid).is_empty().then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_starting_session_answers_the_retryable_conflict() {
    let mut emulator = emulator("exec sleep 60", &["--agent-startup-timeout", "2"]);
    let session = session_id("starting");
    let url = emulator.url(&front::invocations(front::ARN));
    let body = front::rpc(
        &json!("req-first"),
        "message/send",
        front::send_params("m-1", "hi"),
    );
    let first = emulator
        .http()
        .post(url)
        .header("content-type", "application/json")
        .header(front::SESSION_HEADER, &session)
        .body(body)
        .send();
    let first = tokio::spawn(first);
    agent_pid(&mut emulator, &session).await;
    let (id, reply) = invoke(
        &emulator,
        Some(&session),
        "message/send",
        front::send_params("m-2", "hi"),
    )
    .await;
    reply.assert_aws(&id, SESSION_BUSY);
    // The first invocation gets 424 once the startup timeout is over.
    let first = tokio::time::timeout(STEP_TIMEOUT, first)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let reply = front::read(first).await;
    reply.assert_aws(&json!("req-first"), RUNTIME_ERROR);
}

#[tokio::test]
async fn a_busy_agent_keeps_its_session_past_the_idle_timeout() {
    let command = format!("A2A_AGENT=conformance exec {}", container_command());
    let mut emulator = emulator(&command, &["--idle-timeout", "1"]);
    let session = session_id("busy");
    let (_, reply) = invoke(
        &emulator,
        Some(&session),
        "message/send",
        json!({
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "slow-busy",
                "parts": [{"kind": "text", "text": "work"}],
            },
            "configuration": {"blocking": false},
        }),
    )
    .await;
    let task = reply.result();
    let task_id = task["id"].as_str().unwrap().to_owned();
    let sent = Instant::now();
    // Three idle timeouts with the agent at work: the session lives on.
    let ended = |log: &str| {
        log.lines()
            .any(|line| line.contains("session ended") && line.contains(&session))
    };
    let health = [(front::SESSION_HEADER, session.as_str())];
    eventually("three idle timeouts to pass", STEP_TIMEOUT, || async {
        let ping = front::get(&emulator, "/ping", &health).await;
        assert_eq!(ping.json()["status"], "HealthyBusy", "{ping:?}");
        (sent.elapsed() >= Duration::from_secs(3)).then_some(())
    })
    .await;
    let log = plain_log(&mut emulator);
    assert!(!ended(&log), "{log}");
    // Done working: the session idles out.
    let (_, reply) = invoke(
        &emulator,
        Some(&session),
        "tasks/cancel",
        json!({"id": task_id}),
    )
    .await;
    assert_eq!(reply.result()["status"]["state"], "canceled", "{reply:?}");
    wait_for_log(
        &mut emulator,
        &["session ended", &session, "idle=true"],
        STEP_TIMEOUT,
    )
    .await;
    // Our container said HealthyBusy while the task worked: no warning about a Healthy
    // ping over a task at work.
    let log = plain_log(&mut emulator);
    assert!(!log.contains("still working"), "{log}");
}
