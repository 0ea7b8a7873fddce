#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a-agent` function binary under the local Lambda: what Lambda does to it
//! that `cargo lambda watch` does not — a streamed Function URL invocation, the
//! environment frozen between invocations while the extension lets background work
//! finish, SIGTERM at shutdown — and the API Gateway event shapes.

mod local_lambda_support;

use std::time::Duration;

use a2a_lambda_emulator::inspector::SessionState;
use a2a_lambda_emulator::lambda::{EventShape, InvokeMode};
use a2a_test_support::lambda::{echo_send_v0_3, redact};
use a2a_test_support::sse::SseReader;
use local_lambda_support::*;
use serde_json::{Value, json};

#[tokio::test]
async fn a_buffered_send_is_answered_and_the_environment_is_frozen_after_it() {
    let lambda = start(agent().env("A2A_AGENT", "echo")).await;
    assert_eq!(
        lambda.pid(),
        None,
        "no environment before the first invocation"
    );
    let send = rpc(
        1,
        "message/send",
        json!({"message": message("m-1", "hello")}),
    );
    let (status, request_id, answer) = post(&format!("{}/", lambda.base_url()), &send).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        redact(&answer),
        echo_send_v0_3(json!(1), &answer, "m-1", "hello")
    );
    let request_id = request_id.expect("the Function URL's x-amzn-RequestId");
    let pid = frozen(&lambda).await;
    assert_eq!(process_state(pid), Some('T'));
    // Lambda's log lines for the invocation, in order.
    let start = log_lines(&lambda, "START", &request_id);
    assert_eq!(
        start,
        [format!("START RequestId: {request_id} Version: $LATEST")]
    );
    assert_eq!(log_lines(&lambda, "END", &request_id).len(), 1);
    let report = log_lines(&lambda, "REPORT", &request_id).pop().unwrap();
    for field in [
        "\tDuration: ",
        "\tBilled Duration: ",
        "\tMemory Size: 128 MB",
        "\tMax Memory Used: ",
        "\tInit Duration: ",
    ] {
        assert!(report.contains(field), "{field} in {report}");
    }
    // The inspector shows the invocation and the environment, frozen.
    let journal = lambda.journal().unwrap();
    let environment = journal.sessions().pop().unwrap();
    assert_eq!(environment.id, "lambda:a2a-agent:1");
    assert_eq!(environment.state, SessionState::Frozen);
    assert_eq!(environment.invocations, 1);
    let record = journal.invocations(&Default::default()).pop().unwrap();
    assert_eq!(record.to_json()["route"], "lambda");
    assert_eq!(record.to_json()["method"], "message/send");
    assert_eq!(record.to_json()["status"], 200);
    assert_eq!(record.to_json()["lambda"]["requestId"], request_id.as_str());
    // The next invocation thaws it; the same process answers.
    let card = reqwest::get(format!("{}/.well-known/agent-card.json", lambda.base_url()))
        .await
        .unwrap();
    assert_eq!(card.status(), 200);
    let card: Value = card.json().await.unwrap();
    assert_eq!(card["url"], format!("{}/", lambda.base_url()));
    assert_eq!(frozen(&lambda).await, pid);
    let thawed = journal.invocations(&Default::default()).pop().unwrap();
    assert_eq!(thawed.to_json()["lambda"]["thawed"], true);
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_streamed_function_url_invocation_streams() {
    let lambda = start(
        agent()
            .env("A2A_STREAMING", "true")
            .env("TCK_STREAMING_TIMEOUT", "1.0")
            .invoke_mode(InvokeMode::ResponseStream)
            .timeout(Duration::from_secs(30)),
    )
    .await;
    let stream = rpc(
        7,
        "message/stream",
        json!({"message": message("tck-delayed-complete-1", "take your time")}),
    );
    let answer = reqwest::Client::new()
        .post(format!("{}/", lambda.base_url()))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(stream.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(
        answer.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let request_id = answer.headers()["x-amzn-requestid"]
        .to_str()
        .unwrap()
        .to_owned();
    let mut events = SseReader::new(answer.bytes_stream(), STEP);
    let first = events.next_json().await.expect("a first event");
    assert_eq!(first["id"], 7);
    assert_eq!(first["result"]["kind"], "task", "{first}");
    // The first event is here while the function is still writing its response: the
    // invocation has not ended, and the journal's entry is still open.
    assert!(log_lines(&lambda, "END", &request_id).is_empty());
    let open = lambda.journal().unwrap().invocations(&Default::default());
    assert!(!open.last().unwrap().done, "the stream is still open");
    let mut last = first;
    while let Some(event) = events.next_json().await {
        last = event;
    }
    assert_eq!(last["result"]["kind"], "status-update", "{last}");
    assert_eq!(last["result"]["status"]["state"], "completed");
    assert_eq!(last["result"]["final"], true);
    frozen(&lambda).await;
    assert_eq!(log_lines(&lambda, "END", &request_id).len(), 1);
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_non_blocking_send_finishes_through_the_extension_then_the_environment_freezes() {
    let lambda = start(
        agent()
            .env("TCK_STREAMING_TIMEOUT", "0.5")
            .timeout(Duration::from_secs(30)),
    )
    .await;
    let url = format!("{}/", lambda.base_url());
    let send = rpc(
        1,
        "message/send",
        json!({"message": message("tck-delayed-complete-2", "later"),
               "configuration": {"blocking": false}}),
    );
    let (status, request_id, answer) = post(&url, &send).await;
    assert_eq!(status, 200, "{answer}");
    let state = answer["result"]["status"]["state"].as_str().unwrap();
    assert!(matches!(state, "submitted" | "working"), "{answer}");
    let task_id = answer["result"]["id"].as_str().unwrap().to_owned();
    // The extension holds the invocation open until the task is done: then, and only
    // then, is the environment frozen.
    let pid = frozen(&lambda).await;
    let request_id = request_id.unwrap();
    assert_eq!(log_lines(&lambda, "END", &request_id).len(), 1);
    assert_eq!(process_state(pid), Some('T'));
    let (status, _, got) = post(&url, &rpc(2, "tasks/get", json!({"id": task_id}))).await;
    assert_eq!(status, 200);
    assert_eq!(got["result"]["status"]["state"], "completed", "{got}");
    assert_eq!(
        got["result"]["status"]["message"]["parts"][0]["text"],
        "Done after delay"
    );
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn sigterm_reaches_the_function_at_shutdown_and_it_fails_its_tasks_at_work() {
    let lambda = start(agent().timeout(Duration::from_secs(60))).await;
    let send = rpc(
        1,
        "message/send",
        json!({"message": message("slow-shutdown", "never done"),
               "configuration": {"blocking": false}}),
    );
    let (status, _, answer) = post(&format!("{}/", lambda.base_url()), &send).await;
    assert_eq!(status, 200, "{answer}");
    // The task works on: the extension holds the environment thawed for it.
    assert!(!lambda.frozen());
    let pid = lambda.pid().unwrap();
    let log = lambda.log();
    let report = lambda.shutdown().await.unwrap();
    assert!(report.environment && report.sigterm, "{report:?}");
    assert!(
        report.exited_in_grace,
        "the function exits within 500 ms: {report:?}"
    );
    assert_eq!(process_state(pid), None, "the process is gone");
    // The host saw SIGTERM: it failed the task still at work in its store.
    let settled: Vec<Value> = log
        .lines()
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| {
            line["fields"]["message"]
                == "environment shutting down: the tasks still at work were failed in the store"
        })
        .collect();
    assert_eq!(settled.len(), 1, "{:#?}", log.lines());
    assert_eq!(settled[0]["fields"]["failed"], 1);
}

#[tokio::test]
async fn api_gateway_events_of_both_versions_reach_the_agent() {
    // HTTP API (v2), default stage.
    let lambda = start(agent().env("A2A_AGENT", "echo").event(EventShape::ApigwV2)).await;
    let send = rpc(
        3,
        "message/send",
        json!({"message": message("v2-1", "via http api")}),
    );
    let (status, _, answer) = post(&format!("{}/", lambda.base_url()), &send).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        redact(&answer),
        echo_send_v0_3(json!(3), &answer, "v2-1", "via http api")
    );
    lambda.shutdown().await.unwrap();

    // REST API (v1) on stage `prod`: the invoke URL carries the stage, and the card
    // advertises it.
    let lambda = start(
        agent()
            .env("A2A_AGENT", "echo")
            .event(EventShape::ApigwV1)
            .stage("prod"),
    )
    .await;
    let base = format!("{}/prod/", lambda.base_url());
    let send = rpc(
        4,
        "message/send",
        json!({"message": message("v1-1", "via rest api")}),
    );
    let (status, _, answer) = post(&base, &send).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        redact(&answer),
        echo_send_v0_3(json!(4), &answer, "v1-1", "via rest api")
    );
    let card: Value = reqwest::get(format!("{base}.well-known/agent-card.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(card["url"].as_str().unwrap().ends_with("/prod/"), "{card}");
    // Outside the stage, API Gateway refuses.
    let outside = reqwest::get(format!("{}/other/", lambda.base_url()))
        .await
        .unwrap();
    assert_eq!(outside.status(), 403);
    assert_eq!(outside.text().await.unwrap(), r#"{"message":"Forbidden"}"#);
    lambda.shutdown().await.unwrap();
}
