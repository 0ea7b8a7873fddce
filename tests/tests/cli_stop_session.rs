#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Stopping a session from the client side: `Client::stop_session` and the real
//! `a2a stop-session` against the emulator, and how a task lost with its session is
//! reported (by the library when it saw the session restart, by the CLI's hint otherwise).

use std::time::Duration;

use a2a_lambda_client::{Client, Error, RetryPolicy};
use a2a_test_support::harness::cli::run as a2a;
use a2a_test_support::harness::front::{encode, invocations, session_id};
use a2a_test_support::harness::{Emulator, Value};

const ARN: &str = "arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/stop_cli-Ab12Cd34Ef";

#[test]
fn a2a_stop_session_ends_the_session_and_its_tasks() {
    let emulator = Emulator::start(&[]);
    let url = emulator.url(&invocations(ARN));
    let session = session_id("cli-stop");
    let sent = a2a(&["send", &url, "hello", "--session", &session, "--json"]);
    sent.expect_code(0);
    let sent: Value = serde_json::from_str(sent.stdout.trim()).unwrap();
    let task_id = sent["task"]["id"].as_str().unwrap().to_owned();

    let stopped = a2a(&["stop-session", &url, "--session", &session]);
    stopped.expect_code(0);
    assert_eq!(stopped.stdout, format!("stopped session {session}\n"));

    // Stopped already: AWS's not-found, said as such.
    let again = a2a(&["stop-session", &url, "--session", &session, "--json"]);
    again.expect_code(1);
    let stop_url = emulator.url(&format!("/runtimes/{}/stopruntimesession", encode(ARN)));
    assert_eq!(
        again.stderr.lines().next(),
        Some(
            format!(
                "error: no active session {session} at {stop_url}: \
                 {{\"message\":\"Session {session} not found\"}}"
            )
            .as_str()
        ),
        "{}",
        again.stderr
    );
    let error: Value = serde_json::from_str(again.stdout.trim()).unwrap();
    assert_eq!(error["error"]["httpStatus"], 404, "{error}");
    assert!(
        error["error"]["hint"]
            .as_str()
            .unwrap()
            .starts_with("the session has already ended"),
        "{error}"
    );

    // The task went with the session; the CLI cannot tell across runs, and says why a
    // task may be missing on AgentCore.
    let get = a2a(&["get", &url, &task_id, "--session", &session]);
    get.expect_code(1);
    assert!(get.stderr.contains("-32001"), "{}", get.stderr);
    assert!(
        get.stderr
            .contains("a session that ended (stopped, idle, or lost with its container) took its tasks with it"),
        "{}",
        get.stderr
    );

    // A URL that is not an invocation URL has no session to stop.
    let base = a2a(&["stop-session", emulator.base_url(), "--session", &session]);
    base.expect_code(1);
    assert!(
        base.stderr.contains("stop-session is not supported: ")
            && base.stderr.contains("is not an AgentCore invocation URL"),
        "{}",
        base.stderr
    );
}

fn client(emulator: &Emulator, session: &str) -> Client {
    Client::builder(emulator.url(&invocations(ARN)))
        .session_id(session)
        .retry(
            RetryPolicy::default()
                .with_max_attempts(20)
                .with_initial_backoff(Duration::from_millis(20))
                .with_max_backoff(Duration::from_millis(100)),
        )
        .build()
        .unwrap()
}

#[tokio::test]
async fn the_library_reports_a_task_lost_with_its_stopped_session() {
    let emulator = Emulator::start(&["--session-startup-ms", "100"]);
    let session = session_id("lib-stop");
    let client = client(&emulator, &session);
    let sent = client.send_text("hello").await.unwrap();
    let a2a_lambda_client::model::SendResult::Task(task) = sent else {
        panic!("a task: {sent:?}")
    };
    client.stop_session().await.unwrap();
    // The session is stopping for 100 ms (retried), then starts afresh without the task.
    let error = client.get_task(&task.id, None).await.unwrap_err();
    let Error::SessionRestarted { session: lost, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(lost, &session);
    assert_eq!(error.rpc().map(|rpc| rpc.code_number()), Some(-32001));
    assert_eq!(
        error.to_string(),
        format!(
            "-32001 TaskNotFoundError: Task not found: no task with id {:?}; session \
             {session} was restarted (it was stopped), and the tasks it held are gone",
            task.id
        )
    );
    // The get started the fresh session: stopping it works once, then finds none.
    client.stop_session().await.unwrap();
    let error = client.stop_session().await.unwrap_err();
    let Error::SessionNotFound {
        session: missing, ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(missing, &session);
}

#[tokio::test]
async fn the_library_reports_a_task_lost_with_a_failed_container() {
    let emulator = Emulator::start(&["--fault", "session-lost=0.3", "--seed", "11"]);
    let session = session_id("lib-lost");
    let client = client(&emulator, &session);
    // Some sends lose the session; one goes through.
    let task = loop {
        match client.send_text("hello").await {
            Ok(a2a_lambda_client::model::SendResult::Task(task)) => break task,
            Ok(other) => panic!("a task: {other:?}"),
            Err(error) => assert_eq!(error.http_status(), Some(424), "{error}"),
        }
    };
    for _ in 0..50 {
        match client.get_task(&task.id, None).await {
            Ok(found) => assert_eq!(found.id, task.id),
            Err(Error::SessionRestarted { why, .. }) => {
                assert_eq!(why, "its container failed (RuntimeClientError)");
                return;
            }
            Err(error) => assert_eq!(error.http_status(), Some(424), "{error}"),
        }
    }
    panic!("the session was never lost");
}
