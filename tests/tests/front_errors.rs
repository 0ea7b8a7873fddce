//! AgentCore's refusals through the front of the real binary: a bad `--fault` stops it with
//! a clear message, and a container that does not answer in time is 424 and holds an
//! exclusive session (as its log says). (The rest, in-process:
//! `emulator/tests/front_errors.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{
    self, ARN, RUNTIME_ERROR, SESSION_BUSY, SESSION_HEADER, invocations, invoke, rpc, send_params,
    session_id,
};
use a2a_test_support::harness::{Emulator, eventually, json};

#[test]
fn a_bad_fault_spec_stops_the_binary_with_a_clear_message() {
    for (spec, says) in [
        ("boom=0.1", "unknown fault \"boom\""),
        ("throttle=2", "throttle=2 is not a probability"),
        ("throttle", "has no value"),
        ("latency=soon", "latency=soon is not a duration"),
    ] {
        let exit = front::run_to_exit(&["--fault", spec]);
        assert!(!exit.status.success(), "{spec}: {exit:?}");
        assert!(
            exit.stderr.contains("--fault") && exit.stderr.contains(says),
            "{spec}: {exit:?}"
        );
        assert!(!exit.stdout.contains("listening on"), "{exit:?}");
    }
}

#[tokio::test]
async fn a_container_that_does_not_answer_in_time_is_424_and_holds_an_exclusive_session() {
    let mut emulator = Emulator::builder()
        .args([
            "--agent",
            "conformance",
            "--exclusive-sessions",
            "--request-timeout",
            "1",
        ])
        .process()
        .start();
    let session = session_id("timeout");
    // A blocking send to a task that works until canceled.
    let http = emulator.http().clone();
    let url = emulator.url(&invocations(ARN));
    let blocking_session = session.clone();
    let started = Instant::now();
    let blocking = tokio::spawn(async move {
        let response = http
            .post(url)
            .header("content-type", "application/json")
            .header(SESSION_HEADER, blocking_session)
            .body(rpc(
                &json!("blocking"),
                "message/send",
                send_params("slow-timeout", "wait"),
            ))
            .send()
            .await
            .expect("the blocking send is answered");
        (front::read(response).await, started.elapsed())
    });
    // Once it has started the session, the session is busy with it.
    front::wait_for_log(
        &mut emulator,
        &["session started", &session],
        Duration::from_secs(5),
    )
    .await;
    let (id, busy) = invoke(&emulator, Some(&session), "tasks/get", json!({"id": "x"})).await;
    busy.assert_aws(&id, SESSION_BUSY);

    let (reply, took) = tokio::time::timeout(Duration::from_secs(10), blocking)
        .await
        .expect("the blocking send ends")
        .unwrap();
    reply.assert_aws(&json!("blocking"), RUNTIME_ERROR);
    assert_eq!(reply.session(), Some(session.as_str()));
    assert!(took >= Duration::from_secs(1), "took {took:?}");

    // The invocation is over: the session is free again.
    let code = eventually(
        "the session to take invocations",
        Duration::from_secs(2),
        || async {
            let reply = invoke(&emulator, Some(&session), "tasks/get", json!({"id": "x"}))
                .await
                .1;
            (reply.status != 409).then(|| reply.error_code())
        },
    )
    .await;
    assert_eq!(code, -32001);
}
