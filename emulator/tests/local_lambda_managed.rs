//! Lambda Managed Instances on the local Lambda (`--max-concurrency 8`, which sets
//! `AWS_LAMBDA_MAX_CONCURRENCY=8` for the function): the real `a2a-agent` serves eight
//! invocations at once in one environment, which is never frozen, and a non-blocking
//! send's background work finishes after its invocation was answered.
#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod local_lambda_support;

use std::time::Duration;

use local_lambda_support::*;
use serde_json::{Value, json};

/// The conformance agent on Managed Instances, its delayed tasks taking one second.
fn managed() -> a2a_lambda_emulator::lambda::LocalLambda {
    agent()
        .env("TCK_STREAMING_TIMEOUT", "1")
        .max_concurrency(8)
        .timeout(Duration::from_secs(30))
}

#[tokio::test]
async fn eight_blocking_sends_are_in_flight_at_once_and_complete() {
    let lambda = start(managed()).await;
    let url = format!("{}/", lambda.base_url());
    let sends = (0..8).map(|i| {
        let url = url.clone();
        async move {
            let params = json!({"message": message(&format!("tck-delayed-complete-mi-{i}"), "go")});
            post(&url, &rpc(i, "message/send", params)).await
        }
    });
    let answers = futures_util::future::join_all(sends).await;
    for (status, _, answer) in &answers {
        assert_eq!(*status, 200, "{answer}");
        assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    }
    // All eight were in flight at once: every START line comes before the first END.
    let logs = lambda.logs();
    let starts: Vec<usize> = positions(&logs, "START RequestId:");
    let first_end = positions(&logs, "END RequestId:")[0];
    assert_eq!(starts.len(), 8, "{logs:#?}");
    assert!(starts.iter().all(|start| *start < first_end), "{logs:#?}");
    assert!(!lambda.frozen());
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn eight_non_blocking_sends_at_once_finish_their_background_work_with_nothing_frozen() {
    // Each background run takes three seconds.
    let lambda = start(managed().env("TCK_STREAMING_TIMEOUT", "3")).await;
    let url = format!("{}/", lambda.base_url());
    let sends = (0..8).map(|i| {
        let url = url.clone();
        async move {
            let params = json!({
                "message": message(&format!("tck-delayed-complete-bg-{i}"), "go"),
                "configuration": {"blocking": false},
            });
            post(&url, &rpc(i, "message/send", params)).await
        }
    });
    let mut ids = Vec::new();
    let mut accepted_at = Vec::new();
    for (status, _, answer) in futures_util::future::join_all(sends).await {
        assert_eq!(status, 200, "{answer}");
        let state = answer["result"]["status"]["state"].as_str().unwrap();
        assert!(matches!(state, "submitted" | "working"), "{answer}");
        ids.push(answer["result"]["id"].as_str().unwrap().to_owned());
        accepted_at.push(timestamp(&answer["result"]));
    }
    assert!(!lambda.frozen());
    // Each task completes in the background, each get an invocation of its own.
    let mut completed_at = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let task = eventually_completed(&url, 100 + i as u64, id).await;
        assert_eq!(
            task["status"]["message"]["parts"][0]["text"], "Done after delay",
            "{task}"
        );
        completed_at.push(timestamp(&task));
    }
    // The eight background runs were at work together: every task was accepted before
    // any of them completed (one at a time, each would complete three seconds before
    // the next is accepted). The timestamps are the agent's own, RFC 3339 in UTC with
    // milliseconds, which order as strings.
    let last_accepted = accepted_at.iter().max().unwrap();
    let first_completed = completed_at.iter().min().unwrap();
    assert!(
        last_accepted < first_completed,
        "accepted {accepted_at:?}, completed {completed_at:?}"
    );
    // No invocation was held for the background run it started (that would keep its
    // slot three seconds, and the others waiting): each send's invocation was over well
    // before its run could have ended.
    let journal = lambda.journal().unwrap();
    let sends: Vec<Value> = journal
        .invocations(&Default::default())
        .iter()
        .map(|invocation| invocation.to_json())
        .filter(|invocation| invocation["method"] == "message/send")
        .collect();
    assert_eq!(sends.len(), 8, "{sends:#?}");
    for send in &sends {
        let held = send["lambda"]["durationMs"].as_f64().unwrap();
        assert!(held < 3_000.0, "held {held} ms: {send}");
    }
    let environments = journal.sessions();
    assert_eq!(environments.len(), 1, "one environment: {environments:#?}");
    assert!(
        !environments[0]
            .events
            .iter()
            .any(|event| event.state.as_str() == "frozen"),
        "{environments:#?}"
    );
    lambda.shutdown().await.unwrap();
}

/// The task's status timestamp.
fn timestamp(task: &Value) -> String {
    task["status"]["timestamp"]
        .as_str()
        .unwrap_or_else(|| panic!("a status timestamp: {task}"))
        .to_owned()
}

/// Reads task `id` back (`tasks/get`) until it is completed; the task.
async fn eventually_completed(url: &str, rpc_id: u64, id: &str) -> Value {
    let mut task = Value::Null;
    for _ in 0..100 {
        let (_, _, got) = post(url, &rpc(rpc_id, "tasks/get", json!({"id": id}))).await;
        task = got["result"].clone();
        if task["status"]["state"] == "completed" {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("task {id} never completed: {task}");
}

/// The indices of the lines that start with `prefix`.
fn positions(logs: &[String], prefix: &str) -> Vec<usize> {
    logs.iter()
        .enumerate()
        .filter(|(_, line)| line.starts_with(prefix))
        .map(|(index, _)| index)
        .collect()
}

#[tokio::test]
async fn an_internal_extension_registers_for_no_event_there() {
    let scratch = Scratch::new("managed-internal");
    let file = scratch.path("registrations");
    let init = format!(
        r#"ext="http://$AWS_LAMBDA_RUNTIME_API/2020-01-01/extension/register"
curl -sS -w ' %{{http_code}}\n' -X POST "$ext" -H 'Lambda-Extension-Name: invoke' -d '{{"events":["INVOKE"]}}' >> '{file}'
curl -sS -o /dev/null -w '%{{http_code}}\n' -X POST "$ext" -H 'Lambda-Extension-Name: none' -d '{{"events":[]}}' >> '{file}'"#,
        file = file.display()
    );
    let lambda = start(
        a2a_lambda_emulator::lambda::LocalLambda::new(shell_function(
            &scratch.0, &init, RESPOND_OK,
        ))
        .port(0)
        .max_concurrency(2),
    )
    .await;
    let url = lambda.base_url().to_owned();
    let call = tokio::spawn(async move { reqwest::get(url).await });
    let text = eventually("two registrations", || {
        let text = std::fs::read_to_string(&file).ok()?;
        // Whole lines only: curl writes a body and its `-w` status apart.
        (text.ends_with('\n') && text.lines().count() == 2).then_some(text)
    })
    .await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"errorMessage":"invoke: no events allowed for internal extensions on Lambda Managed Instances","errorType":"Extension.InvalidEventType"} 403"#
    );
    assert_eq!(lines[1], "200");
    call.abort();
    drop(lambda);
}
