//! StopRuntimeSession over the real binary with `--agent-cmd`: the stopped session's agent
//! process is stopped, and the next invocation runs a new process without the old tasks.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::front::{
    self, ARN, SESSION_HEADER, encode, plain_log, session_id, wait_for_log,
};
use a2a_test_support::harness::{Emulator, STEP_TIMEOUT, binary, eventually};

/// True when `pid` is gone or a zombie (exited, not yet reaped).
fn exited(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let (_, after_name) = stat.rsplit_once(')')?;
            after_name
                .split_whitespace()
                .next()
                .map(|state| state == "Z")
        })
        .unwrap_or(true)
}

/// The pids the emulator logged for the processes of `session`, in order.
fn agent_pids(emulator: &mut Emulator, session: &str) -> Vec<u32> {
    plain_log(emulator)
        .lines()
        .filter(|line| line.contains("agent process started") && line.contains(session))
        .filter_map(|line| {
            let pid = line.split("pid=").nth(1)?;
            pid.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        })
        .collect()
}

#[tokio::test]
async fn stopping_a_session_stops_its_agent_process() {
    let command = format!(
        "'{}'",
        binary("a2a-lambda-server", "a2a-container").display()
    );
    let mut emulator = Emulator::builder()
        .args(["--agent-cmd", command.as_str()])
        .process()
        .start();
    let session = session_id("stop-process");
    let task = front::create_task(&emulator, &session, "m-stop-process").await;
    wait_for_log(
        &mut emulator,
        &["agent process started", &session],
        STEP_TIMEOUT,
    )
    .await;
    let first = agent_pids(&mut emulator, &session)[0];

    let stopped = front::post(
        &emulator,
        &format!("/runtimes/{}/stopruntimesession", encode(ARN)),
        &[(SESSION_HEADER, &session)],
        Vec::new(),
    )
    .await;
    assert_eq!(
        (stopped.status, stopped.session()),
        (200, Some(session.as_str()))
    );
    eventually(
        "the agent process to exit",
        Duration::from_secs(15),
        || async { exited(first).then_some(()) },
    )
    .await;

    // Once stopped, the same id is a new session: a new process, without the task.
    let reply = eventually("a fresh session", Duration::from_secs(15), || async {
        let reply = front::get_task(&emulator, Some(&session), &task).await;
        (reply.status == 200).then_some(reply)
    })
    .await;
    assert_eq!(reply.error_code(), -32001, "{reply:?}");
    let pids = agent_pids(&mut emulator, &session);
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert!(!exited(pids[1]));
    // Waited for, so that the emulator stops the new session's agent process before the
    // harness kills what is left (a process left behind outlives the test run).
    emulator.terminate();
    let status = emulator.exited_within(Duration::from_secs(15)).await;
    assert!(status.is_some_and(|status| status.success()), "{status:?}");
    assert!(exited(pids[1]), "the agent process outlived the emulator");
}

#[tokio::test]
async fn stopping_a_session_stops_its_in_process_agents_at_work() {
    let mut emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .process()
        .start();
    let session = session_id("stop-working");
    let (_, sent) = front::invoke(
        &emulator,
        Some(&session),
        "message/send",
        a2a_test_support::harness::json!({"message": {"kind": "message", "role": "user",
            "messageId": "slow-stop-working", "parts": [{"kind": "text", "text": "wait"}]},
            "configuration": {"blocking": false}}),
    )
    .await;
    let task = sent.result()["id"].as_str().unwrap().to_owned();
    let stopped = front::post(
        &emulator,
        &format!("/runtimes/{}/stopruntimesession", encode(ARN)),
        &[(SESSION_HEADER, &session)],
        Vec::new(),
    )
    .await;
    assert_eq!(stopped.status, 200, "{stopped:?}");
    // Its agent is told to stop: the task fails with the session, logged.
    wait_for_log(
        &mut emulator,
        &["running task failed", &task, "the session ended"],
        STEP_TIMEOUT,
    )
    .await;
    emulator.terminate();
}
