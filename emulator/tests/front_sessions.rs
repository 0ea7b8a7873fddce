//! AgentCore sessions through the platform front, in-process: the session header
//! (validated, generated, returned everywhere), the request id, one isolated container per
//! session, lifetime ends, startup and exclusive-session conflicts, and streaming with the
//! session header. (Idle and restarting sessions, seen in the binary's log:
//! `tests/tests/front_sessions.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{
    self, ARN, NOT_FOUND, SESSION_BUSY, SESSION_HEADER, VALIDATION, create_task, get_task,
    invocations, invoke, send_params, session_id,
};
use a2a_test_support::harness::{Emulator, Value, eventually, header, json};

const TASK_NOT_FOUND: i64 = -32001;

fn id_of_length(length: usize) -> String {
    "s".repeat(length)
}

#[tokio::test]
async fn session_ids_must_have_33_to_256_characters() {
    let emulator = Emulator::start(&[]);
    let card = format!("{}.well-known/agent-card.json", invocations(ARN));
    for length in [0, 1, 32, 257, 1000] {
        let session = id_of_length(length);
        let headers = [(SESSION_HEADER, session.as_str())];
        for path in [invocations(ARN), "/".to_owned()] {
            let reply = front::post(
                &emulator,
                &path,
                &headers,
                front::rpc(&json!("bad-session"), "tasks/get", json!({"id": "x"})),
            )
            .await;
            // The id is echoed: the payload is readable.
            reply.assert_aws(&json!("bad-session"), VALIDATION);
            assert!(reply.request_id().is_some(), "{length} {path}: {reply:?}");
        }
        // Nothing to echo: a payload that is not JSON, or none (the card).
        let reply = front::post(&emulator, &invocations(ARN), &headers, b"{oops".to_vec()).await;
        reply.assert_aws(&Value::Null, VALIDATION);
        let reply = front::get(&emulator, &card, &headers).await;
        reply.assert_aws(&Value::Null, VALIDATION);
    }
    for length in [33, 34, 255, 256] {
        let session = id_of_length(length);
        let (id, reply) = invoke(&emulator, Some(&session), "tasks/get", json!({"id": "x"})).await;
        assert_eq!(reply.error_code(), TASK_NOT_FOUND, "{length}: {reply:?}");
        assert_eq!(reply.json()["id"], id);
        assert_eq!(reply.session(), Some(session.as_str()), "{length}");
        let reply = front::get(&emulator, &card, &[(SESSION_HEADER, &session)]).await;
        assert_eq!(reply.status, 200, "{length}: {reply:?}");
        assert_eq!(reply.session(), Some(session.as_str()), "{length}");
    }
}

#[tokio::test]
async fn invocations_without_the_header_each_get_a_new_session() {
    let emulator = Emulator::start(&[]);
    let (_, first) = invoke(
        &emulator,
        None,
        "message/send",
        send_params("m-generated", "hi"),
    )
    .await;
    let task_id = first.result()["id"].as_str().unwrap().to_owned();
    let generated = first.session().expect("a generated session").to_owned();
    assert!(generated.len() >= 33, "{generated}");

    // The next call without the header is another session: the task is not there.
    let second = get_task(&emulator, None, &task_id).await;
    assert_eq!(second.error_code(), TASK_NOT_FOUND, "{second:?}");
    let other = second.session().expect("a generated session").to_owned();
    assert!(other.len() >= 33, "{other}");
    assert_ne!(other, generated);

    // The generated id is a real session: sending it back finds the task.
    let again = get_task(&emulator, Some(&generated), &task_id).await;
    assert_eq!(again.result()["id"], task_id.as_str());

    // The card on the invocation path gets a session too.
    let card = front::get(
        &emulator,
        &format!("{}.well-known/agent-card.json", invocations(ARN)),
        &[],
    )
    .await;
    assert_eq!(card.status, 200);
    let card_session = card.session().expect("a session on the card");
    assert!(card_session.len() >= 33);
    assert!(card_session != generated && card_session != other);
}

#[tokio::test]
async fn the_container_paths_without_the_header_share_the_default_session() {
    let emulator = Emulator::start(&[]);
    let (_, first) = front::call_at(
        &emulator,
        "/",
        None,
        "message/send",
        send_params("m-default", "hi"),
    )
    .await;
    let task_id = first.result()["id"].as_str().unwrap().to_owned();
    let default = first.session().expect("the default session").to_owned();
    assert!(default.len() >= 33, "{default}");

    let (_, second) =
        front::call_at(&emulator, "/", None, "tasks/get", json!({"id": task_id})).await;
    assert_eq!(second.result()["id"], task_id.as_str());
    assert_eq!(second.session(), Some(default.as_str()));

    // The card and ping use it as well, and it can be named on the invocation path.
    let card = front::get(&emulator, "/.well-known/agent-card.json", &[]).await;
    assert_eq!((card.status, card.session()), (200, Some(default.as_str())));
    let ping = front::get(&emulator, "/ping", &[]).await;
    assert_eq!((ping.status, ping.session()), (200, Some(default.as_str())));
    let named = get_task(&emulator, Some(&default), &task_id).await;
    assert_eq!(named.result()["id"], task_id.as_str());
}

#[tokio::test]
async fn the_session_and_a_fresh_request_id_are_on_every_response() {
    let emulator = Emulator::start(&["--agent", "conformance"]);
    let session = session_id("every");
    let headers = [(SESSION_HEADER, session.as_str())];
    let mut request_ids = Vec::new();
    let mut check = |what: &str, headers: &a2a_test_support::harness::HeaderMap| {
        assert_eq!(
            header(headers, SESSION_HEADER),
            Some(session.as_str()),
            "{what}"
        );
        let request_id = header(headers, front::REQUEST_ID_HEADER)
            .unwrap_or_else(|| panic!("{what}: no request id"));
        assert!(!request_id.is_empty());
        request_ids.push(request_id.to_owned());
    };

    let task = create_task(&emulator, &session, "tck-complete-task-every").await;
    let found = get_task(&emulator, Some(&session), &task).await;
    check("tasks/get", &found.headers);
    let missing = get_task(&emulator, Some(&session), "no-such-task").await;
    assert_eq!(missing.error_code(), TASK_NOT_FOUND);
    check("a -32001 error", &missing.headers);
    let unknown = front::post(
        &emulator,
        "/runtimes/nope/invocations",
        &headers,
        b"{}".to_vec(),
    )
    .await;
    unknown.assert_aws(&Value::Null, NOT_FOUND);
    check("a 404", &unknown.headers);
    let not_json = front::post(&emulator, &invocations(ARN), &headers, b"{oops".to_vec()).await;
    assert_eq!(not_json.error_code(), -32700, "{not_json:?}");
    check("a parse error", &not_json.headers);
    let card = front::get(
        &emulator,
        &format!("{}.well-known/agent-card.json", invocations(ARN)),
        &headers,
    )
    .await;
    check("the card", &card.headers);
    let ping = front::get(&emulator, "/ping", &headers).await;
    check("ping", &ping.headers);
    let mut stream = front::open_stream(
        &emulator,
        &invocations(ARN),
        &headers,
        "message/stream",
        send_params("tck-stream-every", "s"),
    )
    .await;
    check("an SSE stream", &stream.headers.clone());
    assert_eq!(stream.rest().await.len(), 6);

    let count = request_ids.len();
    request_ids.sort();
    request_ids.dedup();
    assert_eq!(request_ids.len(), count, "request ids repeat");
}

#[tokio::test]
async fn sessions_are_isolated() {
    let emulator = Emulator::start(&[]);
    let a = session_id("iso-a");
    let b = session_id("iso-b");
    let task_id = create_task(&emulator, &a, "m-iso").await;

    let from_b = get_task(&emulator, Some(&b), &task_id).await;
    assert_eq!(from_b.status, 200, "{from_b:?}");
    let body = from_b.json();
    assert_eq!(body["error"]["code"], TASK_NOT_FOUND, "{body}");
    assert_eq!(from_b.session(), Some(b.as_str()));
    // B's listing is empty; A's holds the task.
    for (session, expected) in [(&b, 0), (&a, 1)] {
        let reply = front::post(
            &emulator,
            &invocations(ARN),
            &[(SESSION_HEADER, session.as_str()), ("A2A-Version", "1.0")],
            front::rpc(&json!("list"), "ListTasks", json!({})),
        )
        .await;
        let listed = reply.result();
        assert_eq!(listed["totalSize"], expected, "{session}: {listed}");
    }

    let from_a = get_task(&emulator, Some(&a), &task_id).await;
    assert_eq!(from_a.result()["id"], task_id.as_str());
    assert_eq!(from_a.result()["status"]["state"], "completed");
    // The default session of `/` is yet another one.
    let (_, from_default) =
        front::call_at(&emulator, "/", None, "tasks/get", json!({"id": task_id})).await;
    assert_eq!(from_default.error_code(), TASK_NOT_FOUND);
}

#[tokio::test]
async fn a_stream_through_the_invocation_path_keeps_its_session() {
    let emulator = Emulator::start(&["--agent", "conformance"]);
    let session = session_id("stream");
    let headers = [(SESSION_HEADER, session.as_str())];
    let mut stream = front::open_stream(
        &emulator,
        &invocations(ARN),
        &headers,
        "message/stream",
        send_params("tck-stream-front", "stream it"),
    )
    .await;
    assert_eq!(
        header(&stream.headers, SESSION_HEADER),
        Some(session.as_str())
    );
    assert!(header(&stream.headers, front::REQUEST_ID_HEADER).is_some());
    let events: Vec<Value> = stream
        .rest()
        .await
        .into_iter()
        .map(|event| {
            assert!(event.get("error").is_none(), "{event}");
            event["result"].clone()
        })
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "task",
            "status-update",
            "artifact-update",
            "artifact-update",
            "artifact-update",
            "status-update"
        ],
        "{events:?}"
    );
    assert_eq!(events[0]["status"]["state"], "submitted");
    assert_eq!(events[1]["status"]["state"], "working");
    let chunks: Vec<&str> = events[2..5]
        .iter()
        .map(|event| event["artifact"]["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(chunks, ["Streaming ", "chunk ", "content"]);
    assert_eq!(events[5]["status"]["state"], "completed");
    assert_eq!(events[5]["final"], true);
    let task_id = events[0]["id"].as_str().unwrap();
    for event in &events[1..] {
        assert_eq!(event["taskId"], task_id, "{event}");
    }

    // v1.0 too, on the path without the trailing slash.
    let path = invocations(ARN);
    let mut stream = front::open_stream(
        &emulator,
        path.trim_end_matches('/'),
        &[(SESSION_HEADER, session.as_str()), ("A2A-Version", "1.0")],
        "SendStreamingMessage",
        json!({"message": {"role": "ROLE_USER", "messageId": "tck-stream-v1",
            "parts": [{"text": "stream it"}]}}),
    )
    .await;
    assert_eq!(
        header(&stream.headers, SESSION_HEADER),
        Some(session.as_str())
    );
    let events = stream.rest().await;
    assert_eq!(events.len(), 6, "{events:?}");
    assert!(events[0]["result"]["task"].is_object(), "{events:?}");
    assert_eq!(
        events[5]["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    // The streamed task lives in the session.
    let task = get_task(&emulator, Some(&session), task_id).await;
    assert_eq!(task.result()["status"]["state"], "completed");
}

/// Polls `tasks/get` in `session` until the task is gone; every answer on the way is the
/// task or, when `tolerate_busy`, the retryable 409. Returns the 409s seen.
async fn poll_until_gone(
    emulator: &Emulator,
    session: &str,
    task_id: &str,
    tolerate_busy: bool,
) -> usize {
    let busy = std::cell::Cell::new(0);
    eventually(
        "the session to end at its lifetime",
        Duration::from_secs(8),
        || async {
            let reply = get_task(emulator, Some(session), task_id).await;
            if reply.status == 409 {
                let id = reply.json()["id"].clone();
                reply.assert_aws(&id, SESSION_BUSY);
                assert!(
                    tolerate_busy,
                    "a retryable 409 with no startup time: {reply:?}"
                );
                busy.set(busy.get() + 1);
                return None;
            }
            match reply.error_code_or_result() {
                Err(code) => {
                    assert_eq!(code, TASK_NOT_FOUND, "{reply:?}");
                    Some(())
                }
                Ok(task) => {
                    assert_eq!(task["id"], task_id);
                    None
                }
            }
        },
    )
    .await;
    busy.get()
}

trait ErrorOrResult {
    fn error_code_or_result(&self) -> Result<Value, i64>;
}

impl ErrorOrResult for front::Reply {
    fn error_code_or_result(&self) -> Result<Value, i64> {
        assert_eq!(self.status, 200, "{self:?}");
        let body = self.json();
        match body["error"]["code"].as_i64() {
            Some(code) => Err(code),
            None => Ok(body["result"].clone()),
        }
    }
}

#[tokio::test]
async fn a_session_ends_at_its_max_lifetime_even_when_used() {
    let emulator = Emulator::start(&["--max-lifetime", "2"]);
    let session = session_id("lifetime");
    let started = Instant::now();
    let task_id = create_task(&emulator, &session, "m-lifetime").await;
    poll_until_gone(&emulator, &session, &task_id, true).await;
    assert!(started.elapsed() >= Duration::from_secs(2));
    // The session id starts a new session, which works.
    let fresh = create_task(&emulator, &session, "m-lifetime-2").await;
    assert_ne!(fresh, task_id);
}

/// With no startup time (the default), a session that reaches its lifetime has no
/// stopping phase: the next invocation starts a new session instead of a retryable 409.
#[tokio::test]
async fn a_session_ended_by_its_lifetime_is_not_busy_without_a_startup_time() {
    let emulator = Emulator::start(&["--max-lifetime", "1"]);
    let session = session_id("lifetime-409");
    let task_id = create_task(&emulator, &session, "m-lifetime-409").await;
    poll_until_gone(&emulator, &session, &task_id, false).await;
}

#[tokio::test]
async fn a_starting_session_makes_the_first_invocation_wait_and_refuses_a_concurrent_one() {
    let emulator = Emulator::start(&["--session-startup-ms", "1500"]);
    let session = session_id("startup");
    let started = Instant::now();
    let one = async {
        let reply = invoke(
            &emulator,
            Some(&session),
            "message/send",
            send_params("m-s1", "one"),
        )
        .await;
        (reply, started.elapsed())
    };
    let two = async {
        let reply = invoke(
            &emulator,
            Some(&session),
            "message/send",
            send_params("m-s2", "two"),
        )
        .await;
        (reply, started.elapsed())
    };
    let (one, two) = tokio::join!(one, two);
    let (waited, refused) = if one.0.1.status == 200 {
        (one, two)
    } else {
        (two, one)
    };
    let ((_, waited_reply), waited_for) = waited;
    let ((refused_id, refused_reply), _) = refused;
    assert_eq!(waited_reply.result()["status"]["state"], "completed");
    assert!(
        waited_for >= Duration::from_millis(1500),
        "the first invocation took {waited_for:?}"
    );
    refused_reply.assert_aws(&refused_id, SESSION_BUSY);
    assert_eq!(refused_reply.session(), Some(session.as_str()));
    assert!(refused_reply.request_id().is_some());

    // Started: the next invocations are served, concurrently too.
    let (a, b) = tokio::join!(
        invoke(&emulator, Some(&session), "tasks/get", json!({"id": "x"})),
        invoke(&emulator, Some(&session), "tasks/get", json!({"id": "y"})),
    );
    assert_eq!(a.1.error_code(), TASK_NOT_FOUND);
    assert_eq!(b.1.error_code(), TASK_NOT_FOUND);
}

#[tokio::test]
async fn an_exclusive_session_is_free_again_when_its_client_drops_a_stream() {
    let emulator = Emulator::start(&["--agent", "conformance", "--exclusive-sessions"]);
    let session = session_id("exclusive-drop");
    let headers = [(SESSION_HEADER, session.as_str())];
    let mut stream = front::open_stream(
        &emulator,
        &invocations(ARN),
        &headers,
        "message/stream",
        send_params("slow-exclusive-drop", "wait"),
    )
    .await;
    let task_id = stream.next_result().await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (id, busy) = invoke(
        &emulator,
        Some(&session),
        "tasks/get",
        json!({"id": task_id}),
    )
    .await;
    busy.assert_aws(&id, SESSION_BUSY);
    drop(stream);
    let task = eventually(
        "the session to take invocations",
        Duration::from_secs(5),
        || async {
            let reply = get_task(&emulator, Some(&session), &task_id).await;
            (reply.status != 409).then(|| reply.result())
        },
    )
    .await;
    assert_eq!(task["status"]["state"], "working");
    let (_, canceled) = invoke(
        &emulator,
        Some(&session),
        "tasks/cancel",
        json!({"id": task_id}),
    )
    .await;
    assert_eq!(canceled.result()["status"]["state"], "canceled");
}

/// `/ping` reports the container's health; an invocation in flight on the default session
/// makes it `HealthyBusy`, not a session conflict.
#[tokio::test]
async fn ping_answers_while_an_exclusive_default_session_streams() {
    let emulator = Emulator::start(&["--agent", "conformance", "--exclusive-sessions"]);
    let mut stream = front::open_stream(
        &emulator,
        "/",
        &[],
        "message/stream",
        send_params("slow-ping-exclusive", "wait"),
    )
    .await;
    let task_id = stream.next_result().await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let default = header(&stream.headers, SESSION_HEADER).unwrap().to_owned();
    let ping = front::get(&emulator, "/ping", &[]).await;
    assert_eq!(ping.status, 200, "{ping:?}");
    assert_eq!(ping.json()["status"], "HealthyBusy", "{ping:?}");
    assert_eq!(ping.session(), Some(default.as_str()));
    drop(stream);
    let task = eventually(
        "the session to take invocations",
        Duration::from_secs(5),
        || async {
            let reply = get_task(&emulator, Some(&default), &task_id).await;
            (reply.status != 409).then(|| reply.result())
        },
    )
    .await;
    assert_eq!(task["status"]["state"], "working");
}
