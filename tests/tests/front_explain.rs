//! The platform's surprises explained in the emulator's log (the real binary's stderr),
//! while the wire stays AgentCore's: a task not found because the call went to another
//! session (no session header: a new one; another header: that one), and a session
//! refused while it starts.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::front::{
    SESSION_BUSY, create_task, get_task, invoke, plain_log, send_params, session_id, wait_for_log,
};
use a2a_test_support::harness::{Emulator, Version, binary, json};

const LOG_TIMEOUT: Duration = Duration::from_secs(5);

/// The exact A2A answer for task `task_id` not found (HTTP 200, the spec's -32001).
fn assert_not_found(reply: &a2a_test_support::harness::front::Reply, task_id: &str) {
    assert_eq!(reply.error_code(), -32001, "{reply:?}");
    assert_eq!(
        reply.json()["error"]["data"][0]["metadata"]["taskId"],
        task_id,
        "{reply:?}"
    );
}

#[tokio::test]
async fn a_get_without_the_session_header_is_told_which_session_holds_the_task() {
    let mut emulator = Emulator::builder().process().start();
    let session = session_id("owner");
    let task_id = create_task(&emulator, &session, "m-explain-1").await;

    let reply = get_task(&emulator, None, &task_id).await;
    assert_not_found(&reply, &task_id);
    let new_session = reply.session().unwrap().to_owned();
    assert_ne!(new_session, session);
    let line = format!(
        "task {task_id} lives in session {session}; this call carried no session header, so \
         AgentCore started a new session ({new_session}): send \
         X-Amzn-Bedrock-AgentCore-Runtime-Session-Id: {session}"
    );
    wait_for_log(&mut emulator, &[&line], LOG_TIMEOUT).await;

    // With the header, the same get finds the task.
    let found = get_task(&emulator, Some(&session), &task_id).await;
    assert_eq!(found.result()["id"], task_id.as_str());
}

#[tokio::test]
async fn a_call_in_another_session_is_told_so_and_an_unknown_task_says_nothing() {
    let mut emulator = Emulator::builder().process().start();
    let session = session_id("owner");
    let other = session_id("other");
    let task_id = create_task(&emulator, &session, "m-explain-2").await;
    // A task nobody has, asked for first: its -32001 is explained by nothing.
    let unknown = get_task(&emulator, Some(&other), "no-such-task").await;
    assert_not_found(&unknown, "no-such-task");

    // A follow-up message to the task, from the other session.
    let mut params = send_params("m-explain-3", "again");
    params["message"]["taskId"] = json!(task_id);
    let (_, reply) = invoke(&emulator, Some(&other), "message/send", params).await;
    assert_eq!(reply.error_code(), -32001, "{reply:?}");
    let line = format!(
        "task {task_id} lives in session {session}; this call carried session id {other}, \
         another session: send X-Amzn-Bedrock-AgentCore-Runtime-Session-Id: {session}"
    );
    wait_for_log(&mut emulator, &[&line], LOG_TIMEOUT).await;
    assert!(
        !plain_log(&mut emulator).contains("task no-such-task lives in"),
        "{}",
        plain_log(&mut emulator)
    );
}

#[tokio::test]
async fn a_session_refused_while_it_starts_is_explained_once() {
    let mut emulator = Emulator::builder()
        .args(["--session-startup-ms", "400"])
        .process()
        .start();
    let session = session_id("starting");
    // The first starts the session (and waits for it); the others arrive meanwhile.
    let first = invoke(
        &emulator,
        Some(&session),
        "message/send",
        send_params("m-start-0", "first"),
    );
    let later = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut refused = Vec::new();
        for n in 1..=3 {
            let params = send_params(&format!("m-start-{n}"), "later");
            refused.push(invoke(&emulator, Some(&session), "message/send", params).await);
        }
        refused
    };
    let ((_, first), refused) = tokio::join!(first, later);
    assert_eq!(first.result()["status"]["state"], "completed");
    for (id, reply) in &refused {
        reply.assert_aws(id, SESSION_BUSY);
    }
    let line = format!(
        "session {session} is starting (AgentCore starts a microVM for a new session): calls \
         that arrive meanwhile get the retryable 409/-32054 \"Session operation in progress, \
         please retry\"; the client should retry them with backoff"
    );
    wait_for_log(&mut emulator, &[&line], LOG_TIMEOUT).await;
    let log = plain_log(&mut emulator);
    assert_eq!(
        log.matches(&format!("session {session} is starting ("))
            .count(),
        1,
        "{log}"
    );
}

#[tokio::test]
async fn agent_processes_are_indexed_from_their_answers_sent_whole_or_streamed() {
    let command = format!(
        "'{}'",
        binary("a2a-lambda-server", "a2a-container").display()
    );
    let mut emulator = Emulator::builder()
        .args(["--agent-cmd", &command])
        .process()
        .start();
    let session = session_id("process");
    let sent = create_task(&emulator, &session, "m-process-1").await;
    let mut stream = a2a_test_support::harness::front::open_stream(
        &emulator,
        &a2a_test_support::harness::front::invocations(a2a_test_support::harness::front::ARN),
        &[
            (
                a2a_test_support::harness::front::SESSION_HEADER,
                session.as_str(),
            ),
            ("A2A-Version", "1.0"),
        ],
        "SendStreamingMessage",
        Version::V1_0.send_params("m-process-2", "streamed"),
    )
    .await;
    let first = stream.next_result().await;
    let streamed = first["task"]["id"].as_str().unwrap().to_owned();
    let _ = stream.rest().await;

    for task_id in [&sent, &streamed] {
        let reply = get_task(&emulator, None, task_id).await;
        assert_not_found(&reply, task_id);
        let line = format!(
            "task {task_id} lives in session {session}; this call carried no session header, \
             so AgentCore started a new session ("
        );
        let fix = format!("send X-Amzn-Bedrock-AgentCore-Runtime-Session-Id: {session}");
        wait_for_log(&mut emulator, &[&line, &fix], LOG_TIMEOUT).await;
    }
    emulator.terminate();
    assert!(
        emulator
            .exited_within(Duration::from_secs(20))
            .await
            .is_some()
    );
}
