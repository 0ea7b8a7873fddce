//! Streaming methods of both versions against the emulator in-process: `message/stream` /
//! `SendStreamingMessage` and `tasks/resubscribe` / `SubscribeToTask`, read event by event
//! from the SSE body. (Those that need the conformance agent's `TCK_STREAMING_TIMEOUT`, so
//! a process: `tests/tests/emulator_streams.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::streams::{
    chunk_event, ids_of, results, status_event, task_event, user,
};
use a2a_test_support::harness::{
    Emulator, Op, Value, Version, eventually, header, json, redact, spec_error,
};

/// Polls `tasks/get` until the task is working.
async fn wait_working(emulator: &Emulator, version: Version, task_id: &str) {
    eventually("the task to be working", Duration::from_secs(5), || async {
        let task = emulator.get_task(version, task_id).await;
        (task["status"]["state"] == version.state("working")).then_some(())
    })
    .await;
}

#[tokio::test]
async fn stream_sends_task_working_chunks_completed_in_order() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let message_id = format!("tck-stream-{version:?}");
        let mut stream = emulator
            .stream(
                version,
                Op::Stream,
                version.send_params(&message_id, "stream it"),
            )
            .await;
        assert_eq!(
            header(&stream.headers, "content-type"),
            Some("text/event-stream")
        );
        let first = stream.next_result().await;
        let (task_id, context_id) = ids_of(version, &first);
        let ids = (task_id.as_str(), context_id.as_str());
        let mut events = vec![json!({"jsonrpc": "2.0", "id": stream.id, "result": first})];
        events.extend(stream.rest().await);
        assert_eq!(
            results(&events),
            vec![
                task_event(
                    version,
                    ids,
                    "submitted",
                    vec![user(
                        version,
                        &message_id,
                        "stream it",
                        &task_id,
                        &context_id
                    )]
                ),
                status_event(version, ids, "working", false),
                chunk_event(version, ids, "Streaming ", false, false),
                chunk_event(version, ids, "chunk ", true, false),
                chunk_event(version, ids, "content", true, true),
                status_event(version, ids, "completed", true),
            ],
            "{version:?}"
        );

        // The chunks were appended into one artifact.
        let task = emulator.get_task(version, &task_id).await;
        assert_eq!(task["status"]["state"], version.state("completed"));
        let parts = task["artifacts"][0]["parts"].as_array().unwrap();
        let text: String = parts
            .iter()
            .map(|part| part["text"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Streaming chunk content", "{task}");
        assert_eq!(task["artifacts"].as_array().unwrap().len(), 1);
    }
}

#[tokio::test]
async fn stream_of_a_direct_reply_is_one_message() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let mut params = version.send_params("tck-message-response-s", "hi");
        params["message"]["contextId"] = json!("ctx-s");
        let mut stream = emulator.stream(version, Op::Stream, params).await;
        let events = stream.rest().await;
        let reply = match version {
            Version::V0_3 => json!({"kind": "message", "messageId": "<uuid>", "role": "agent",
                "parts": [{"kind": "text", "text": "Direct message response"}], "contextId": "ctx-s"}),
            Version::V1_0 => json!({"message": {"messageId": "<uuid>", "contextId": "ctx-s",
                "role": "ROLE_AGENT", "parts": [{"text": "Direct message response"}]}}),
        };
        assert_eq!(results(&events), vec![reply], "{version:?}");
    }
}

#[tokio::test]
async fn stream_closes_when_the_task_asks_for_input() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let mut stream = emulator
            .stream(
                version,
                Op::Stream,
                version.send_params("tck-input-required-s", "hi"),
            )
            .await;
        let events = stream.rest().await;
        let kinds: Vec<Value> = results(&events)
            .iter()
            .map(|event| match version {
                Version::V0_3 => json!([event["kind"], event["status"]["state"], event["final"]]),
                Version::V1_0 => json!([
                    event.as_object().unwrap().keys().next().unwrap(),
                    event["task"]["status"]["state"]
                        .as_str()
                        .or(event["statusUpdate"]["status"]["state"].as_str())
                ]),
            })
            .collect();
        let expected = match version {
            Version::V0_3 => vec![
                json!(["task", "submitted", null]),
                json!(["status-update", "working", false]),
                json!(["status-update", "input-required", true]),
            ],
            Version::V1_0 => vec![
                json!(["task", "TASK_STATE_SUBMITTED"]),
                json!(["statusUpdate", "TASK_STATE_WORKING"]),
                json!(["statusUpdate", "TASK_STATE_INPUT_REQUIRED"]),
            ],
        };
        assert_eq!(kinds, expected, "{version:?}");
    }
}

#[tokio::test]
async fn subscribe_to_a_running_task_sees_the_cancel_then_closes() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let message_id = format!("slow-subscribe-{version:?}");
        let sent = version.task_in(
            &emulator
                .result(
                    version,
                    Op::Send,
                    version.send_params_at_once(&message_id, "wait"),
                )
                .await,
        );
        let task_id = sent["id"].as_str().unwrap().to_owned();
        let context_id = sent["contextId"].as_str().unwrap().to_owned();
        let ids = (task_id.as_str(), context_id.as_str());
        wait_working(&emulator, version, &task_id).await;

        let mut stream = emulator
            .stream(version, Op::Subscribe, json!({"id": task_id}))
            .await;
        assert_eq!(
            redact(&stream.next_result().await),
            task_event(
                version,
                ids,
                "working",
                vec![user(version, &message_id, "wait", &task_id, &context_id)]
            )
        );
        // Cancel from another request: the subscriber sees it, then the stream closes.
        let canceled = emulator
            .result(version, Op::Cancel, json!({"id": task_id}))
            .await;
        assert_eq!(canceled["status"]["state"], version.state("canceled"));
        assert_eq!(
            redact(&stream.next_result().await),
            status_event(version, ids, "canceled", true)
        );
        stream.expect_end().await;
    }
    emulator.wait_idle().await;
}

#[tokio::test]
async fn two_subscribers_both_see_a_cancel() {
    let emulator = Emulator::conformance();
    let version = Version::V0_3;
    let sent = version.task_in(
        &emulator
            .result(
                version,
                Op::Send,
                version.send_params_at_once("slow-two", "wait"),
            )
            .await,
    );
    let task_id = sent["id"].as_str().unwrap().to_owned();
    let context_id = sent["contextId"].as_str().unwrap().to_owned();
    let ids = (task_id.as_str(), context_id.as_str());
    wait_working(&emulator, version, &task_id).await;
    let mut one = emulator
        .stream(version, Op::Subscribe, json!({"id": task_id}))
        .await;
    let mut two = emulator
        .stream(version, Op::Subscribe, json!({"id": task_id}))
        .await;
    let expected_first = redact(&one.next_result().await);
    assert_eq!(redact(&two.next_result().await), expected_first);
    assert_eq!(expected_first["status"]["state"], "working");
    emulator
        .result(version, Op::Cancel, json!({"id": task_id}))
        .await;
    for stream in [&mut one, &mut two] {
        assert_eq!(
            results(&stream.rest().await),
            vec![status_event(version, ids, "canceled", true)]
        );
    }
}

#[tokio::test]
async fn a_slow_task_survives_its_stream_being_dropped() {
    let emulator = Emulator::conformance();
    let version = Version::V1_0;
    let mut stream = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params("slow-drop", "wait"),
        )
        .await;
    let (task_id, _) = ids_of(version, &stream.next_result().await);
    assert_eq!(
        stream.next_result().await["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    drop(stream);
    // Still working and still busy, as seen by later requests; then it can be canceled.
    let mut again = emulator
        .stream(version, Op::Subscribe, json!({"id": task_id}))
        .await;
    assert_eq!(
        again.next_result().await["task"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    assert_eq!(emulator.ping().await["status"], "HealthyBusy");
    emulator
        .result(version, Op::Cancel, json!({"id": task_id}))
        .await;
    let rest = again.rest().await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(
        rest[0]["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_CANCELED"
    );
    emulator.wait_idle().await;
}

/// A subscription stays open across input-required and ends with the task (v1.0
/// STREAM-SUB-002: "The SubscribeToTask stream MUST terminate when the task reaches a
/// terminal state"), unlike a send stream, which ends at the interruption.
#[tokio::test]
async fn subscribe_to_an_interrupted_task_follows_it_until_it_ends() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let open = emulator
            .send_task(version, version.send_params("tck-input-required-sub", "go"))
            .await;
        let task_id = open["id"].as_str().unwrap().to_owned();
        emulator.wait_idle().await;
        let mut stream = emulator
            .stream(version, Op::Subscribe, json!({"id": task_id}))
            .await;
        let first = stream.next_result().await;
        assert_eq!(version.task_in(&first), open, "{version:?}");

        let mut follow_up = version.user_message(&format!("sub-done-{version:?}"), "done");
        follow_up["taskId"] = json!(task_id);
        let done = emulator
            .send_task(version, json!({"message": follow_up}))
            .await;
        assert_eq!(done["status"]["state"], version.state("completed"));

        let rest = stream.rest().await;
        let last = &rest.last().expect("updates after the follow-up")["result"];
        let status = if version == Version::V1_0 {
            &last["statusUpdate"]["status"]
        } else {
            &last["status"]
        };
        assert_eq!(status["state"], version.state("completed"), "{rest:?}");
    }
}

#[tokio::test]
async fn subscribe_to_a_finished_task_is_refused() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let done = emulator
            .send_task(version, version.send_params("tck-complete-task-sub", "hi"))
            .await;
        let task_id = done["id"].as_str().unwrap();
        let response = emulator
            .call_op(version, Op::Subscribe, json!({"id": task_id}))
            .await;
        assert_eq!(
            response,
            spec_error(
                &response["id"],
                -32004,
                "This operation is not supported",
                "UNSUPPORTED_OPERATION",
                &format!("task {task_id} is completed; there is nothing left to subscribe to"),
                &[("taskId", task_id)],
            ),
            "{version:?}"
        );
    }
}
