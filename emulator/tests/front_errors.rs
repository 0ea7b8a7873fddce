//! AgentCore's refusals through the platform front, against the emulator in-process:
//! oversize payloads, the rate limit, injected faults (deterministic with `--seed`), and the
//! two error profiles (container errors passed through in HTTP 200, or mapped to
//! AgentCore's table). (A bad `--fault` and a container that times out, with the binary's
//! log: `tests/tests/front_errors.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{
    self, ARN, INTERNAL, NOT_FOUND, RUNTIME_ERROR, Reply, Row, SESSION_BUSY, SESSION_HEADER,
    THROTTLED, VALIDATION, invocations, invoke, rpc, send_params, session_id,
};
use a2a_test_support::harness::{Emulator, Value, json, spec_error};
use futures_util::future::join_all;

#[tokio::test]
async fn an_oversize_payload_is_a_validation_error() {
    let emulator = Emulator::start(&["--max-body-bytes", "1000"]);
    let session = session_id("oversize");
    let headers = [(SESSION_HEADER, session.as_str())];
    let small = rpc(
        &json!("small"),
        "message/send",
        send_params("m-small", &"a".repeat(500)),
    );
    assert!(small.len() <= 1000, "{}", small.len());
    let big = rpc(
        &json!("big"),
        "message/send",
        send_params("m-big", &"a".repeat(5000)),
    );
    for path in [invocations(ARN), "/".to_owned()] {
        let reply = front::post(&emulator, &path, &headers, small.clone()).await;
        assert_eq!(reply.result()["status"]["state"], "completed", "{path}");
        let reply = front::post(&emulator, &path, &headers, big.clone()).await;
        reply.assert_aws(&Value::Null, VALIDATION);
        assert_eq!(reply.session(), Some(session.as_str()), "{path}");
        assert!(reply.request_id().is_some());
    }
}

#[tokio::test]
async fn a_burst_past_the_rate_limit_is_throttled() {
    let emulator = Emulator::start(&["--rate-limit", "3"]);
    let session = session_id("rate");
    let started = Instant::now();
    let replies: Vec<(Value, Reply)> = join_all((0..10).map(|index| {
        let session = session.clone();
        let emulator = &emulator;
        async move {
            let id = json!(format!("burst-{index}"));
            let reply = front::post(
                emulator,
                &invocations(ARN),
                &[(SESSION_HEADER, session.as_str())],
                rpc(&id, "tasks/get", json!({"id": "x"})),
            )
            .await;
            (id, reply)
        }
    }))
    .await;
    let elapsed = started.elapsed();
    let mut served = 0;
    let mut throttled = 0;
    for (id, reply) in &replies {
        if reply.status == 429 {
            reply.assert_aws(id, THROTTLED);
            assert_eq!(reply.session(), Some(session.as_str()));
            throttled += 1;
        } else {
            assert_eq!(reply.error_code(), -32001, "{reply:?}");
            assert_eq!(reply.json()["id"], *id);
            served += 1;
        }
    }
    // 3 at once, plus what refills (3 a second) while the burst lasts.
    let refill = (elapsed.as_secs_f64() * 3.0).ceil() as usize;
    assert!(
        served >= 3 && served <= 3 + refill,
        "{served} served, {throttled} throttled in {elapsed:?}"
    );
    assert!(throttled > 0);
}

/// Starts an emulator with `--fault fault`; checks two invocations (on both JSON-RPC paths)
/// get `row` echoing their ids, with the session header.
async fn assert_fault(fault: &str, row: Row) {
    let emulator = Emulator::start(&["--fault", fault]);
    let session = session_id("fault");
    for path in [invocations(ARN), "/".to_owned()] {
        let (id, reply) = front::call_at(
            &emulator,
            &path,
            Some(&session),
            "message/send",
            send_params("m-fault", "x"),
        )
        .await;
        reply.assert_aws(&id, row);
        assert_eq!(reply.session(), Some(session.as_str()), "{fault}");
        assert!(reply.request_id().is_some(), "{fault}");
    }
}

#[tokio::test]
async fn injected_throttling_is_429() {
    assert_fault("throttle=1", THROTTLED).await;
}

#[tokio::test]
async fn an_injected_conflict_is_the_retryable_409() {
    assert_fault("conflict=1", SESSION_BUSY).await;
}

#[tokio::test]
async fn an_injected_runtime_error_is_424() {
    assert_fault("runtime-error=1", RUNTIME_ERROR).await;
}

#[tokio::test]
async fn an_injected_internal_error_is_500() {
    assert_fault("internal=1", INTERNAL).await;
}

#[tokio::test]
async fn injected_latency_delays_every_invocation() {
    let emulator = Emulator::start(&["--fault", "latency=300ms"]);
    let session = session_id("latency");
    for index in 0..2 {
        let started = Instant::now();
        let (_, reply) = invoke(
            &emulator,
            Some(&session),
            "message/send",
            send_params(&format!("m-latency-{index}"), "slowly"),
        )
        .await;
        let took = started.elapsed();
        assert_eq!(reply.result()["status"]["state"], "completed");
        assert!(took >= Duration::from_millis(300), "took {took:?}");
    }
}

async fn fault_statuses(seed: &str) -> Vec<u16> {
    let emulator = Emulator::start(&["--seed", seed, "--fault", "throttle=0.5"]);
    let session = session_id("seeded");
    let mut statuses = Vec::new();
    for _ in 0..24 {
        let (id, reply) = invoke(&emulator, Some(&session), "tasks/get", json!({"id": "x"})).await;
        if reply.status == 429 {
            reply.assert_aws(&id, THROTTLED);
        } else {
            assert_eq!(reply.error_code(), -32001, "{reply:?}");
        }
        statuses.push(reply.status);
    }
    statuses
}

#[tokio::test]
async fn faults_are_reproducible_with_a_seed() {
    let (first, second) = tokio::join!(fault_statuses("7"), fault_statuses("7"));
    assert_eq!(first, second);
    assert!(
        first.contains(&200) && first.contains(&429),
        "throttle=0.5 should give both: {first:?}"
    );
    let other = fault_statuses("8").await;
    assert_ne!(first, other, "another seed gives another sequence");
}

/// Sends `body` to the invocation path and to `/` in a session; returns both replies.
async fn both_paths(emulator: &Emulator, body: &[u8]) -> [Reply; 2] {
    let session = session_id("profile");
    let headers = [(SESSION_HEADER, session.as_str())];
    [
        front::post(emulator, &invocations(ARN), &headers, body.to_vec()).await,
        front::post(emulator, "/", &headers, body.to_vec()).await,
    ]
}

#[tokio::test]
async fn the_spec_profile_passes_container_errors_through_in_http_200() {
    let emulator = Emulator::start(&[]);
    let id = json!("spec-1");
    for reply in both_paths(
        &emulator,
        &rpc(&id, "tasks/get", json!({"id": "no-such-task"})),
    )
    .await
    {
        assert_eq!(reply.status, 200, "{reply:?}");
        assert_eq!(
            reply.json(),
            spec_error(
                &id,
                -32001,
                "Task not found",
                "TASK_NOT_FOUND",
                "no task with id \"no-such-task\"",
                &[("taskId", "no-such-task")],
            )
        );
    }
    for reply in both_paths(&emulator, &rpc(&id, "tasks/nope", json!({}))).await {
        assert_eq!(reply.error_code(), -32601, "{reply:?}");
        assert_eq!(reply.json()["id"], id);
    }
    for reply in both_paths(&emulator, &rpc(&id, "tasks/get", json!({}))).await {
        assert_eq!(reply.error_code(), -32602, "{reply:?}");
        assert_eq!(reply.json()["id"], id);
    }
    // The payload is opaque to the front: the container answers -32700.
    for reply in both_paths(&emulator, b"{not json").await {
        assert_eq!(reply.error_code(), -32700, "{reply:?}");
        assert_eq!(reply.json()["id"], Value::Null);
        assert!(reply.json()["error"]["data"].is_array(), "{reply:?}");
    }
}

#[tokio::test]
async fn the_agentcore_profile_maps_container_errors_to_the_aws_table() {
    let emulator = Emulator::start(&["--error-profile", "agentcore"]);
    let id = json!(41);
    let cases: [(Vec<u8>, &Value, Row); 4] = [
        (
            rpc(&id, "tasks/get", json!({"id": "no-such-task"})),
            &id,
            NOT_FOUND,
        ),
        (rpc(&id, "tasks/nope", json!({})), &id, NOT_FOUND),
        (rpc(&id, "tasks/get", json!({})), &id, VALIDATION),
        (b"{not json".to_vec(), &Value::Null, VALIDATION),
    ];
    for (body, echoed, row) in cases {
        for reply in both_paths(&emulator, &body).await {
            reply.assert_aws(echoed, row);
            assert!(reply.session().is_some());
        }
    }
    // Successes are unchanged.
    let session = session_id("agentcore-ok");
    let (_, reply) = invoke(
        &emulator,
        Some(&session),
        "message/send",
        send_params("m-ok", "fine"),
    )
    .await;
    assert_eq!(reply.result()["status"]["state"], "completed");
}
