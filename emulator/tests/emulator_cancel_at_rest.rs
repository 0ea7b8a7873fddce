//! A cancel of a task at rest (waiting for input, its agent returned) reaches a
//! subscriber through the emulator's front, whose stream then ends (A2A v1.0.1 §3.1.6,
//! §3.5.2), in both versions: the front passes the container's SSE through as it comes.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::{Emulator, Op, Version, json};

#[tokio::test]
async fn a_subscriber_to_a_task_waiting_for_input_sees_its_cancel_then_the_end() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let task = emulator
            .send_task(
                version,
                version.send_params(&format!("tck-input-required-rest-{version:?}"), "hi"),
            )
            .await;
        assert_eq!(task["status"]["state"], version.state("input-required"));
        let task_id = task["id"].as_str().unwrap().to_owned();
        // No runner is left: the task rests in the store alone.
        emulator.wait_idle().await;

        let mut stream = emulator
            .stream(version, Op::Subscribe, json!({"id": task_id}))
            .await;
        assert_eq!(
            version.task_in(&stream.next_result().await),
            task,
            "{version:?}"
        );
        let canceled = emulator
            .result(version, Op::Cancel, json!({"id": task_id}))
            .await;
        assert_eq!(canceled["status"]["state"], version.state("canceled"));
        let (task_id, context_id, status) = (&task["id"], &task["contextId"], &canceled["status"]);
        let told = match version {
            Version::V0_3 => json!({"kind": "status-update", "taskId": task_id,
                "contextId": context_id, "status": status, "final": true}),
            Version::V1_0 => json!({"statusUpdate": {"taskId": task_id,
                "contextId": context_id, "status": status}}),
        };
        assert_eq!(stream.next_result().await, told, "{version:?}");
        stream.expect_end().await;
    }
}
