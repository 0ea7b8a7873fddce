//! StopRuntimeSession through the platform front, in-process: AWS's answer (200, the
//! session header, the restJson1 errors byte for byte), its effects (streams cut, the
//! container gone, a fresh session after the stopping time), `clientToken` idempotency, and
//! the `session-lost` fault that ends a session the same way.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::front::{
    self, ARN, RUNTIME_ERROR, SESSION_BUSY, SESSION_HEADER, create_task, encode, get_task, invoke,
    send_params, session_id,
};
use a2a_test_support::harness::{Emulator, eventually, header, json};
use futures_util::StreamExt as _;

const TASK_NOT_FOUND: i64 = -32001;

/// `/runtimes/{encoded ARN}/stopruntimesession`.
fn stop_path(arn: &str) -> String {
    format!("/runtimes/{}/stopruntimesession", encode(arn))
}

/// StopRuntimeSession of `session` (none: no header) with `body`.
async fn stop(emulator: &Emulator, path: &str, session: Option<&str>, body: &str) -> front::Reply {
    let headers: Vec<(&str, &str)> = session.map(|s| (SESSION_HEADER, s)).into_iter().collect();
    front::post(emulator, path, &headers, body.as_bytes().to_vec()).await
}

/// Checks AWS's restJson1 error: status, `x-amzn-ErrorType`, a request id, the exact body.
fn assert_aws_error(reply: &front::Reply, status: u16, error_type: &str, message: &str) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(
        header(&reply.headers, "x-amzn-errortype"),
        Some(error_type),
        "{reply:?}"
    );
    assert!(
        header(&reply.headers, "x-amzn-requestid").is_some(),
        "{reply:?}"
    );
    assert_eq!(
        header(&reply.headers, "content-type"),
        Some("application/json")
    );
    assert_eq!(reply.json(), json!({ "message": message }), "{reply:?}");
}

/// Checks StopRuntimeSession's success: 200, the session header, AWS's request id, no body.
fn assert_stopped(reply: &front::Reply, session: &str) {
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.session(), Some(session), "{reply:?}");
    assert!(header(&reply.headers, "x-amzn-requestid").is_some());
    assert_eq!(reply.text, "", "{reply:?}");
}

/// How a stream read to its end ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// The server finished the body.
    Clean,
    /// The connection broke before the body's end.
    Cut,
}

/// Reads the SSE body of `response` until it ends; returns its events' JSON and how it
/// ended. `on_first` runs once the first event has arrived.
async fn read_stream<F, Fut>(
    response: reqwest::Response,
    on_first: F,
) -> (Vec<serde_json::Value>, End)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    assert_eq!(response.status(), 200);
    let mut on_first = Some(on_first);
    let mut body = response.bytes_stream();
    let mut parser = a2a_test_support::sse::SseParser::default();
    let mut events = Vec::new();
    loop {
        let next = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("the stream neither sent nor ended within 10 s");
        match next {
            None => return (events, End::Clean),
            Some(Err(_)) => return (events, End::Cut),
            Some(Ok(chunk)) => {
                for data in parser.push_data(&chunk) {
                    events.push(serde_json::from_str(&data).unwrap());
                }
                if !events.is_empty()
                    && let Some(first) = on_first.take()
                {
                    first().await;
                }
            }
        }
    }
}

/// Opens `message/stream` of a `slow-` task (it works until canceled) in `session`.
async fn open_slow_stream(emulator: &Emulator, session: &str) -> reqwest::Response {
    let id = emulator.next_id();
    let body = front::rpc(&id, "message/stream", send_params("slow-stream", "wait"));
    front::request(
        emulator,
        "POST",
        &front::invocations(ARN),
        &[(SESSION_HEADER, session)],
        body,
    )
    .await
}

#[tokio::test]
async fn a_stopped_session_stops_then_starts_afresh_without_its_tasks() {
    let emulator = Emulator::start(&["--session-startup-ms", "300"]);
    let session = session_id("stop");
    let task_id = create_task(&emulator, &session, "m-stop").await;

    let stopped = stop(&emulator, &stop_path(ARN), Some(&session), "").await;
    assert_stopped(&stopped, &session);
    assert!(stopped.request_id().is_some());

    // Stopping for --session-startup-ms: the retryable conflict.
    let (id, busy) = invoke(
        &emulator,
        Some(&session),
        "tasks/get",
        json!({"id": task_id}),
    )
    .await;
    busy.assert_aws(&id, SESSION_BUSY);
    // Then a fresh session of that id: the old task is gone.
    let reply = eventually("the session to stop", Duration::from_secs(5), || async {
        let reply = get_task(&emulator, Some(&session), &task_id).await;
        (reply.status == 200).then_some(reply)
    })
    .await;
    assert_eq!(reply.error_code(), TASK_NOT_FOUND, "{reply:?}");
    assert_eq!(reply.session(), Some(session.as_str()));
    // The fresh session is a live one: it can be stopped again.
    let again = stop(&emulator, &stop_path(ARN), Some(&session), "{}").await;
    assert_stopped(&again, &session);
}

#[tokio::test]
async fn stopping_a_session_cuts_its_open_streams() {
    let emulator = Emulator::start(&["--agent", "conformance"]);
    let session = session_id("stop-stream");
    let other = session_id("stop-other");
    let response = open_slow_stream(&emulator, &session).await;
    let others = open_slow_stream(&emulator, &other).await;
    let (events, end) = read_stream(response, || async {
        let stopped = stop(&emulator, &stop_path(ARN), Some(&session), "").await;
        assert_stopped(&stopped, &session);
    })
    .await;
    assert_eq!(end, End::Cut, "{events:?}");
    assert_eq!(events[0]["result"]["kind"], "task", "{events:?}");
    assert!(
        events.iter().all(|event| event["result"]["final"] != true),
        "{events:?}"
    );
    // Another session's stream goes on: stopping it ends that one too.
    let (events, end) = read_stream(others, || async {
        let stopped = stop(&emulator, &stop_path(ARN), Some(&other), "").await;
        assert_stopped(&stopped, &other);
    })
    .await;
    assert_eq!(
        (end, events[0]["result"]["kind"].as_str()),
        (End::Cut, Some("task"))
    );
}

#[tokio::test]
async fn stop_refusals_are_awss_own_errors() {
    let emulator = Emulator::start(&["--runtime-arn", ARN]);
    let unknown = session_id("stop-unknown");
    let reply = stop(&emulator, &stop_path(ARN), Some(&unknown), "").await;
    assert_aws_error(
        &reply,
        404,
        "ResourceNotFoundException",
        &format!("Session {unknown} not found"),
    );
    assert_eq!(reply.session(), Some(unknown.as_str()));

    let reply = stop(&emulator, &stop_path(ARN), None, "").await;
    assert_aws_error(
        &reply,
        400,
        "ValidationException",
        "1 validation error detected: Value null at 'runtimeSessionId' failed to satisfy \
         constraint: Member must not be null",
    );
    let reply = stop(&emulator, &stop_path(ARN), Some("short"), "").await;
    assert_aws_error(
        &reply,
        400,
        "ValidationException",
        "1 validation error detected: Value at 'runtimeSessionId' failed to satisfy \
         constraint: Member must have length between 33 and 256",
    );
    let live = session_id("stop-body");
    create_task(&emulator, &live, "m-body").await;
    for (body, message) in [
        ("{oops", "The request body is not valid JSON"),
        ("[]", "The request body must be a JSON object"),
        (
            r#"{"clientToken":"short"}"#,
            "1 validation error detected: Value at 'clientToken' failed to satisfy \
             constraint: Member must have length between 33 and 256 and match pattern \
             [a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}",
        ),
    ] {
        let reply = stop(&emulator, &stop_path(ARN), Some(&live), body).await;
        assert_aws_error(&reply, 400, "ValidationException", message);
    }
    // A runtime the emulator does not serve, and another endpoint.
    let other_arn = front::OTHER_ARN;
    let reply = stop(&emulator, &stop_path(other_arn), Some(&live), "").await;
    assert_aws_error(
        &reply,
        404,
        "ResourceNotFoundException",
        &format!("Runtime {other_arn} not found"),
    );
    let path = format!("{}?qualifier=prod", stop_path(ARN));
    let reply = stop(&emulator, &path, Some(&live), "").await;
    assert_aws_error(
        &reply,
        404,
        "ResourceNotFoundException",
        &format!("Endpoint prod not found for runtime {ARN}"),
    );
    // None of them stopped it.
    let path = format!("{}?qualifier=DEFAULT", stop_path(ARN));
    assert_stopped(&stop(&emulator, &path, Some(&live), "").await, &live);
}

#[tokio::test]
async fn a_client_token_makes_a_stop_idempotent() {
    let emulator = Emulator::start(&[]);
    let session = session_id("token");
    let other = session_id("token-other");
    create_task(&emulator, &session, "m-token").await;
    create_task(&emulator, &other, "m-token-other").await;
    let token = format!(r#"{{"clientToken":"{}"}}"#, "token-".repeat(7) + "x");

    assert_stopped(
        &stop(&emulator, &stop_path(ARN), Some(&session), &token).await,
        &session,
    );
    // The same token: the same answer, though the session is no longer there.
    assert_stopped(
        &stop(&emulator, &stop_path(ARN), Some(&session), &token).await,
        &session,
    );
    // Without it, the session is not found.
    let reply = stop(&emulator, &stop_path(ARN), Some(&session), "").await;
    assert_aws_error(
        &reply,
        404,
        "ResourceNotFoundException",
        &format!("Session {session} not found"),
    );
    // The token names one stop: another session with it is a conflict, and stays live.
    let reply = stop(&emulator, &stop_path(ARN), Some(&other), &token).await;
    assert_aws_error(
        &reply,
        409,
        "ConflictException",
        "The clientToken was already used to stop another session",
    );
    assert_stopped(
        &stop(&emulator, &stop_path(ARN), Some(&other), "").await,
        &other,
    );
}

#[tokio::test]
async fn a_lost_session_answers_424_and_comes_back_empty() {
    let emulator = Emulator::start(&["--fault", "session-lost=0.3", "--seed", "7"]);
    let session = session_id("lost");
    // Draws are seeded: some invocations lose the session, the others go through.
    let mut task_id = None;
    for _ in 0..50 {
        let (id, reply) = invoke(
            &emulator,
            Some(&session),
            "message/send",
            send_params("m-lost", "hi"),
        )
        .await;
        if reply.status == 200 {
            task_id = Some(reply.result()["id"].as_str().unwrap().to_owned());
            break;
        }
        reply.assert_aws(&id, RUNTIME_ERROR);
    }
    let task_id = task_id.expect("a send went through");
    let mut lost = false;
    for _ in 0..50 {
        let (id, reply) = invoke(
            &emulator,
            Some(&session),
            "tasks/get",
            json!({"id": task_id}),
        )
        .await;
        if reply.status == 424 {
            reply.assert_aws(&id, RUNTIME_ERROR);
            assert_eq!(reply.session(), Some(session.as_str()));
            lost = true;
        } else if lost {
            // The first answer after the loss: a new session, without the task.
            assert_eq!(reply.error_code(), TASK_NOT_FOUND, "{reply:?}");
            return;
        } else {
            assert_eq!(reply.result()["id"], task_id.as_str());
        }
    }
    panic!("the session was never lost, or never came back (lost: {lost})");
}

#[tokio::test]
async fn the_agent_id_form_names_the_runtime_for_stops_too() {
    let emulator = Emulator::start(&["--runtime-arn", ARN]);
    let session = session_id("stop-id");
    create_task(&emulator, &session, "m-stop-id").await;
    let by_id = "/runtimes/test_agent-AbCdEf1234/stopruntimesession";
    let reply = stop(&emulator, by_id, Some(&session), "").await;
    assert_aws_error(
        &reply,
        400,
        "ValidationException",
        "runtime id \"test_agent-AbCdEf1234\" without ?accountId=",
    );
    let path = format!("{by_id}?accountId=210987654321");
    let reply = stop(&emulator, &path, Some(&session), "").await;
    assert_aws_error(
        &reply,
        404,
        "ResourceNotFoundException",
        "Runtime test_agent-AbCdEf1234 (account 210987654321) not found",
    );
    let path = format!("{by_id}?accountId=123456789012&qualifier=DEFAULT");
    assert_stopped(&stop(&emulator, &path, Some(&session), "").await, &session);
}
