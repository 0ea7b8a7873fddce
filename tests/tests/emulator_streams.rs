//! Streams of the real binary whose task works for the conformance agent's
//! `TCK_STREAMING_TIMEOUT` (read from the process environment, so the binary): every
//! subscriber gets every event, and a client that disconnects does not stop the task.
//! (The rest, in-process: `emulator/tests/emulator_streams.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::streams::{ids_of, results, status_event, task_event, user};
use a2a_test_support::harness::{Emulator, Op, Version, json, redact};

#[tokio::test]
async fn every_subscriber_gets_every_event() {
    // test-resubscribe-message-id works for 2 × 1.0 s, then completes.
    let emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .env("TCK_STREAMING_TIMEOUT", "1.0")
        .start();
    let message_id = "test-resubscribe-message-id-1";
    let mut origin = emulator
        .stream(
            Version::V1_0,
            Op::Stream,
            Version::V1_0.send_params(message_id, "hold"),
        )
        .await;
    let first = origin.next_result().await;
    let (task_id, context_id) = ids_of(Version::V1_0, &first);
    let ids = (task_id.as_str(), context_id.as_str());
    assert_eq!(
        redact(&origin.next_result().await),
        status_event(Version::V1_0, ids, "working", false)
    );

    // Two more subscribers, one per version, to the same task.
    let mut subscribers = Vec::new();
    for version in Version::ALL {
        let mut stream = emulator
            .stream(version, Op::Subscribe, json!({"id": task_id}))
            .await;
        let history = vec![user(version, message_id, "hold", &task_id, &context_id)];
        assert_eq!(
            redact(&stream.next_result().await),
            task_event(version, ids, "working", history)
        );
        subscribers.push((version, stream));
    }
    // Everyone sees the completion, then the end of the stream.
    assert_eq!(
        results(&origin.rest().await),
        vec![status_event(Version::V1_0, ids, "completed", true)]
    );
    for (version, mut stream) in subscribers {
        assert_eq!(
            results(&stream.rest().await),
            vec![status_event(version, ids, "completed", true)],
            "{version:?}"
        );
    }
}

#[tokio::test]
async fn a_client_that_disconnects_does_not_stop_the_task() {
    let emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .env("TCK_STREAMING_TIMEOUT", "0.75")
        .start();
    for version in Version::ALL {
        let message_id = format!("test-resubscribe-message-id-{version:?}");
        let mut stream = emulator
            .stream(
                version,
                Op::Stream,
                version.send_params(&message_id, "hold"),
            )
            .await;
        let (task_id, context_id) = ids_of(version, &stream.next_result().await);
        let ids = (task_id.as_str(), context_id.as_str());
        assert_eq!(
            redact(&stream.next_result().await),
            status_event(version, ids, "working", false)
        );
        // Hang up mid-stream.
        drop(stream);

        // The task still runs: a new subscriber sees it working, then completing.
        let mut again = emulator
            .stream(version, Op::Subscribe, json!({"id": task_id}))
            .await;
        let history = vec![user(version, &message_id, "hold", &task_id, &context_id)];
        assert_eq!(
            redact(&again.next_result().await),
            task_event(version, ids, "working", history)
        );
        assert_eq!(
            results(&again.rest().await),
            vec![status_event(version, ids, "completed", true)]
        );
        let task = emulator.get_task(version, &task_id).await;
        assert_eq!(task["status"]["state"], version.state("completed"));
    }
}
