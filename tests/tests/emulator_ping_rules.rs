//! How the emulator's session lifecycle reads an agent process's `/ping`, as AWS does
//! (`emulator/src/front/ping_report.rs` has the sources): `HealthyBusy` without
//! `time_of_last_update` does not keep a session past its idle timeout, and the end says
//! why; `HealthyBusy` with a time does; a container that moves the time on every ping keeps
//! its session alive and is warned that it never idles out on AWS either; `Healthy` with an
//! old time is idle since the last invocation, not earlier; `Healthy` while a task of the
//! session is still working (the agent's `tasks/get` says so) is warned that AWS ends that
//! session mid-task, and a task done by then is not. The agent is
//! `tests/agents/ping_agent.py`, whose `/ping` answers as told.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{invoke, plain_log, session_id, wait_for_log};
use a2a_test_support::harness::{Emulator, STEP_TIMEOUT, json};

/// The emulator running `ping_agent.py MODE` per session, sessions idle after 1 s.
fn emulator(mode: &str) -> Emulator {
    emulator_idle_after(mode, 1)
}

/// The emulator running `ping_agent.py MODE` per session, sessions idle after `idle` s.
fn emulator_idle_after(mode: &str, idle: u64) -> Emulator {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/agents/ping_agent.py");
    Emulator::builder()
        .args([
            "--agent-cmd",
            &format!("exec python3 '{script}' {mode}"),
            "--idle-timeout",
            &idle.to_string(),
        ])
        .process()
        .start()
}

/// One invocation in `session`, answered by the agent.
async fn invoke_once(emulator: &Emulator, session: &str) {
    let (_, reply) = invoke(
        emulator,
        Some(session),
        "message/send",
        json!({"message": {"kind": "message", "role": "user", "messageId": "m-1",
                           "parts": [{"kind": "text", "text": "hi"}]}}),
    )
    .await;
    assert_eq!(reply.result()["parts"][0]["text"], "ok", "{reply:?}");
}

/// Stops the emulator (SIGTERM, and its agent processes with it) and waits.
async fn stop(mut emulator: Emulator) {
    emulator.terminate();
    let status = emulator.exited_within(Duration::from_secs(20)).await;
    assert!(status.is_some_and(|status| status.success()), "{status:?}");
}

fn ended(log: &str, session: &str) -> bool {
    log.lines()
        .any(|line| line.contains("session ended") && line.contains(session))
}

#[tokio::test]
async fn healthy_busy_without_a_time_is_ended_at_the_idle_timeout_and_told_why() {
    let mut emulator = emulator("busy-unstamped");
    let session = session_id("busy-unstamped");
    invoke_once(&emulator, &session).await;
    wait_for_log(
        &mut emulator,
        &[
            "HealthyBusy without time_of_last_update",
            "AWS ends such a session",
            &session,
        ],
        STEP_TIMEOUT,
    )
    .await;
    wait_for_log(
        &mut emulator,
        &[
            "session ended while its agent said HealthyBusy",
            &session,
            "which AWS does not count as busy",
        ],
        STEP_TIMEOUT,
    )
    .await;
    stop(emulator).await;
}

#[tokio::test]
async fn healthy_busy_with_a_time_keeps_its_session_and_says_so() {
    let mut emulator = emulator("busy");
    let session = session_id("busy-stamped");
    let sent = Instant::now();
    invoke_once(&emulator, &session).await;
    wait_for_log(
        &mut emulator,
        &[
            "session kept past its idle timeout",
            &session,
            "HealthyBusy with a time_of_last_update",
        ],
        STEP_TIMEOUT,
    )
    .await;
    // Three idle timeouts after the invocation, the session lives on.
    while sent.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let log = plain_log(&mut emulator);
    assert!(!ended(&log, &session), "{log}");
    assert!(!log.contains("without time_of_last_update"), "{log}");
    stop(emulator).await;
}

#[tokio::test]
async fn a_time_moved_on_every_ping_keeps_the_session_and_is_warned() {
    let mut emulator = emulator("restamp");
    let session = session_id("restamp");
    invoke_once(&emulator, &session).await;
    wait_for_log(
        &mut emulator,
        &[
            "moves time_of_last_update on every ping",
            "never idles out",
            &session,
        ],
        STEP_TIMEOUT,
    )
    .await;
    wait_for_log(
        &mut emulator,
        &[
            "session kept past its idle timeout",
            &session,
            "time_of_last_update is recent",
        ],
        STEP_TIMEOUT,
    )
    .await;
    let log = plain_log(&mut emulator);
    assert!(!ended(&log, &session), "{log}");
    stop(emulator).await;
}

#[tokio::test]
async fn healthy_with_an_old_time_is_idle_since_the_last_invocation() {
    let mut emulator = emulator("healthy-old");
    let session = session_id("healthy-old");
    invoke_once(&emulator, &session).await;
    let answered = Instant::now();
    wait_for_log(
        &mut emulator,
        &["session ended", &session, "idle timeout"],
        STEP_TIMEOUT,
    )
    .await;
    // The hour-old time does not end it at once: its idle time runs from the invocation
    // (a lower bound only).
    assert!(answered.elapsed() >= Duration::from_secs(1));
    let log = plain_log(&mut emulator);
    assert!(!log.contains("session kept past its idle timeout"), "{log}");
    assert!(!log.contains("moves time_of_last_update"), "{log}");
    stop(emulator).await;
}

/// A send in `session` that the agent answers with its task `task-at-work` working.
async fn send_task(emulator: &Emulator, session: &str) {
    let (_, reply) = invoke(
        emulator,
        Some(session),
        "message/send",
        json!({"message": {"kind": "message", "role": "user", "messageId": "m-1",
                           "parts": [{"kind": "text", "text": "work"}]},
               "configuration": {"blocking": false}}),
    )
    .await;
    assert_eq!(reply.result()["id"], "task-at-work", "{reply:?}");
    assert_eq!(reply.result()["status"]["state"], "working", "{reply:?}");
}

#[tokio::test]
async fn healthy_while_a_task_works_is_warned_that_aws_ends_the_session_mid_task() {
    let mut emulator = emulator_idle_after("healthy-while-working", 3);
    let session = session_id("healthy-at-work");
    send_task(&emulator, &session).await;
    wait_for_log(
        &mut emulator,
        &[
            "/ping says Healthy while a task of its session is still working",
            "ends it at its idle timeout, the task unfinished",
            &session,
            "task-at-work",
        ],
        STEP_TIMEOUT,
    )
    .await;
    // And as on AWS, the session ends at its idle timeout all the same.
    wait_for_log(
        &mut emulator,
        &["session ended", &session, "idle timeout"],
        STEP_TIMEOUT,
    )
    .await;
    stop(emulator).await;
}

#[tokio::test]
async fn healthy_once_the_task_is_done_is_not_warned() {
    let mut emulator = emulator_idle_after("healthy-after-work", 3);
    let session = session_id("healthy-after-work");
    send_task(&emulator, &session).await;
    // The emulator asked after the task (the agent printed it), found it done, and the
    // session idled out without a warning.
    wait_for_log(&mut emulator, &["tasks/get task-at-work"], STEP_TIMEOUT).await;
    wait_for_log(
        &mut emulator,
        &["session ended", &session, "idle timeout"],
        STEP_TIMEOUT,
    )
    .await;
    let log = plain_log(&mut emulator);
    assert!(
        !log.contains("while a task of its session is still working"),
        "{log}"
    );
    assert_eq!(log.matches("tasks/get task-at-work").count(), 1, "{log}");
    stop(emulator).await;
}
