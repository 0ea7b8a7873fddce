//! AgentCore sessions through the front of the real binary, as its log shows them: an idle
//! session ends but a working one does not, an ended session restarts after its startup
//! time, every invocation is logged with its request id, and an exclusive session refuses a
//! second invocation while a stream runs (the conformance agent's `TCK_STREAMING_TIMEOUT`
//! needs a process). (The rest, in-process: `emulator/tests/front_sessions.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{
    self, ARN, SESSION_BUSY, SESSION_HEADER, create_task, get_task, invocations, invoke,
    send_params, session_id,
};
use a2a_test_support::harness::{Emulator, eventually, json};

const TASK_NOT_FOUND: i64 = -32001;

#[tokio::test]
async fn an_idle_session_ends_but_a_working_one_does_not() {
    let mut emulator = Emulator::builder()
        .args(["--agent", "conformance", "--idle-timeout", "1"])
        .process()
        .start();
    // A session whose agent keeps working, used first…
    let working = session_id("idle-working");
    let (_, sent) = invoke(
        &emulator,
        Some(&working),
        "message/send",
        json!({"message": {"kind": "message", "role": "user", "messageId": "slow-idle",
            "parts": [{"kind": "text", "text": "wait"}]},
            "configuration": {"blocking": false}}),
    )
    .await;
    let slow_task = sent.result()["id"].as_str().unwrap().to_owned();
    // …then an idle one.
    let idle = session_id("idle-idle");
    let used = Instant::now();
    let task_id = create_task(&emulator, &idle, "tck-complete-task-idle").await;

    front::wait_for_log(
        &mut emulator,
        &["session ended", &idle],
        Duration::from_secs(10),
    )
    .await;
    assert!(used.elapsed() >= Duration::from_secs(1));
    let after = get_task(&emulator, Some(&idle), &task_id).await;
    assert_eq!(after.error_code(), TASK_NOT_FOUND, "{after:?}");

    // The working session, unused for longer, is still there with its task.
    assert!(
        !emulator
            .stderr()
            .lines()
            .any(|line| line.contains("session ended") && line.contains(&working)),
        "{}",
        emulator.stderr()
    );
    let still = get_task(&emulator, Some(&working), &slow_task).await;
    assert_eq!(still.result()["status"]["state"], "working");
    let (_, canceled) = invoke(
        &emulator,
        Some(&working),
        "tasks/cancel",
        json!({"id": slow_task}),
    )
    .await;
    assert_eq!(canceled.result()["status"]["state"], "canceled");
}

#[tokio::test]
async fn an_exclusive_session_refuses_a_second_invocation_while_a_stream_runs() {
    // `test-resubscribe-message-id` works for 2 × 1 s, then completes.
    let emulator = Emulator::builder()
        .args(["--agent", "conformance", "--exclusive-sessions"])
        .env("TCK_STREAMING_TIMEOUT", "1")
        .start();
    let session = session_id("exclusive");
    let headers = [(SESSION_HEADER, session.as_str())];
    let mut stream = front::open_stream(
        &emulator,
        &invocations(ARN),
        &headers,
        "message/stream",
        send_params("test-resubscribe-message-id-x", "wait"),
    )
    .await;
    let first = stream.next_result().await;
    let task_id = first["id"].as_str().unwrap().to_owned();

    let (id, busy) = invoke(
        &emulator,
        Some(&session),
        "tasks/get",
        json!({"id": task_id}),
    )
    .await;
    busy.assert_aws(&id, SESSION_BUSY);
    assert_eq!(busy.session(), Some(session.as_str()));
    let card = front::get(
        &emulator,
        &format!("{}.well-known/agent-card.json", invocations(ARN)),
        &headers,
    )
    .await;
    // A card fetch is no invocation of the session: it is served.
    assert_eq!(card.status, 200, "{card:?}");
    assert_eq!(card.session(), Some(session.as_str()));
    // Other sessions are not held up.
    let other = session_id("exclusive-other");
    let reply = get_task(&emulator, Some(&other), &task_id).await;
    assert_eq!(reply.error_code(), TASK_NOT_FOUND);

    // Once the stream ends, the session takes invocations again.
    let rest = stream.rest().await;
    assert_eq!(
        rest.last().unwrap()["result"]["status"]["state"],
        "completed",
        "{rest:?}"
    );
    let task = eventually(
        "the session to take invocations",
        Duration::from_secs(2),
        || async {
            let reply = get_task(&emulator, Some(&session), &task_id).await;
            (reply.status != 409).then(|| reply.result())
        },
    )
    .await;
    assert_eq!(task["status"]["state"], "completed");
}

#[tokio::test]
async fn an_ended_session_is_stopping_for_its_startup_time_then_starts_anew() {
    let mut emulator = Emulator::builder()
        .args(["--session-startup-ms", "1000", "--idle-timeout", "1"])
        .process()
        .start();
    let session = session_id("stopping");
    let started = Instant::now();
    let task_id = create_task(&emulator, &session, "m-stopping").await;
    assert!(started.elapsed() >= Duration::from_millis(1000));
    front::wait_for_log(
        &mut emulator,
        &["session ended", &session],
        Duration::from_secs(10),
    )
    .await;
    // Stopping: the retryable conflict, echoing the id.
    let (id, stopping) = invoke(
        &emulator,
        Some(&session),
        "tasks/get",
        json!({"id": task_id}),
    )
    .await;
    stopping.assert_aws(&id, SESSION_BUSY);
    assert_eq!(stopping.session(), Some(session.as_str()));
    // Then a new session, without the old task.
    let code = eventually(
        "the session to start anew",
        Duration::from_secs(5),
        || async {
            let reply = get_task(&emulator, Some(&session), &task_id).await;
            (reply.status != 409).then(|| reply.error_code())
        },
    )
    .await;
    assert_eq!(code, TASK_NOT_FOUND);
}

/// Each invocation's log line carries the request id its response returned, even with
/// many invocations in flight at once.
#[tokio::test]
async fn every_invocation_is_logged_with_its_own_request_id() {
    let mut emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .process()
        .start();
    let sessions: Vec<String> = (0..40).map(|_| session_id("logged")).collect();
    let replies = futures_util::future::join_all(sessions.iter().map(|session| {
        let emulator = &emulator;
        async move {
            let (_, reply) = invoke(
                emulator,
                Some(session),
                "message/send",
                send_params("tck-complete-task-logged", "x"),
            )
            .await;
            assert_eq!(reply.result()["status"]["state"], "completed");
            (session.clone(), reply.request_id().unwrap().to_owned())
        }
    }))
    .await;
    // The engine logs one `rpc` line per JSON-RPC request, with the session id.
    let rpc_line = |log: &str, session: &str| {
        log.lines()
            .find(|line| line.contains(" rpc ") && line.contains(session))
            .map(str::to_owned)
    };
    let log = eventually("every rpc line", Duration::from_secs(5), || {
        let log = front::plain_log(&mut emulator);
        let all = replies
            .iter()
            .all(|(session, _)| rpc_line(&log, session).is_some());
        async move { all.then_some(log) }
    })
    .await;
    let mut wrong = Vec::new();
    for (session, request_id) in &replies {
        let line = rpc_line(&log, session).unwrap();
        let own = format!("invocation{{request_id=\"{request_id}\"");
        if !line.contains(&own) || line.matches("invocation{").count() != 1 {
            wrong.push(format!("{request_id}: {line}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rpc lines do not carry their request id:\n{}",
        wrong.len(),
        replies.len(),
        wrong.join("\n")
    );
}
