#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The invocation's deadline on the local Lambda: the `Lambda-Runtime-Deadline-Ms` the
//! runtime gets is the time the invocation was handed out plus the function's timeout
//! ("Next invocation",
//! <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html#runtimes-api-next>),
//! and our Lambda host (the real `a2a-agent`) ends an agent's run before it — the
//! background-work extension on Lambda's default model, each run on Managed Instances —
//! so that the invocation is never timed out.

mod local_lambda_support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_lambda_emulator::lambda::LocalLambda;
use local_lambda_support::*;
use serde_json::{Value, json};

/// The status message of a task failed because its invocation's time ran out
/// (`a2a_lambda::OUT_OF_TIME`).
const OUT_OF_TIME: &str = "The agent's Lambda invocation ran out of time before the task finished.";

/// How long before the deadline the host ends the runs (`DEADLINE_MARGIN` of
/// `functions/lambda`'s background work).
const MARGIN: Duration = Duration::from_secs(1);

fn now_ms() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// The time a task's status was last set, in ms since the epoch (its RFC 3339
/// `timestamp`).
fn status_ms(task: &Value) -> u64 {
    let stamp = task["status"]["timestamp"].as_str().unwrap();
    let at = time::OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|error| panic!("{stamp}: {error}"));
    u64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap()
}

#[tokio::test]
async fn the_deadline_handed_out_is_the_hand_out_time_plus_the_timeout() {
    let scratch = Scratch::new("deadline");
    let seen = scratch.path("seen");
    // The runtime notes the deadline header of each invocation.
    let handle = format!(
        r#"deadline=$(tr -d '\r' < "$headers" | grep -i '^lambda-runtime-deadline-ms:' | cut -d' ' -f2)
echo "$deadline" >> '{}'
rm -f "$headers"
{RESPOND_OK}"#,
        seen.display()
    );
    let runtime = shell_function(&scratch.0, "", &handle);
    // `shell_function` removes the headers' file before `handle`: `handle` does.
    let script = std::fs::read_to_string(&runtime).unwrap();
    let script = script.replacen("  rm -f \"$headers\"\n", "", 1);
    std::fs::write(&runtime, script).unwrap();
    let timeout = Duration::from_secs(7);
    let lambda = start(LocalLambda::new(runtime).port(0).timeout(timeout)).await;
    let mut brackets = Vec::new();
    for _ in 0..2 {
        let before = now_ms();
        let answer = reqwest::get(lambda.base_url()).await.unwrap();
        assert_eq!(answer.status(), 200);
        brackets.push((before, now_ms()));
    }
    let deadlines: Vec<u64> = std::fs::read_to_string(&seen)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap_or_else(|_| panic!("{line:?}")))
        .collect();
    assert_eq!(deadlines.len(), 2, "{deadlines:?}");
    // Each invocation's own: handed out between the call and its answer, plus 7 s.
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap();
    for (deadline, (before, after)) in deadlines.iter().zip(&brackets) {
        let handed = deadline - timeout_ms;
        assert!(
            (*before..=*after).contains(&handed),
            "deadline {deadline} - {timeout_ms} ms not within the call [{before}, {after}]"
        );
    }
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_task_still_working_near_the_deadline_is_failed_before_it_and_nothing_times_out() {
    let timeout = Duration::from_secs(3);
    let lambda = start(agent().timeout(timeout)).await;
    let url = format!("{}/", lambda.base_url());
    // `slow-` works until it is told to stop.
    let before = now_ms();
    let send = rpc(
        1,
        "message/send",
        json!({"message": message("slow-deadline", "never done"),
               "configuration": {"blocking": false}}),
    );
    let (status, request_id, answer) = post(&url, &send).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["status"]["state"], "submitted", "{answer}");
    let task_id = answer["result"]["id"].as_str().unwrap().to_owned();
    let pid = lambda.pid().unwrap();
    // The extension holds the environment for the task, then lets it go before the
    // deadline: the environment is frozen, not reset.
    assert_eq!(frozen(&lambda).await, pid);
    let request_id = request_id.unwrap();
    assert_eq!(log_lines(&lambda, "END", &request_id).len(), 1);
    let logs = lambda.logs();
    assert!(
        !logs.iter().any(|line| line.contains("Task timed out")),
        "{logs:#?}"
    );
    let (status, _, got) = post(&url, &rpc(2, "tasks/get", json!({"id": task_id}))).await;
    assert_eq!(status, 200);
    let task = &got["result"];
    assert_eq!(task["status"]["state"], "failed", "{got}");
    assert_eq!(task["status"]["message"]["role"], "agent", "{got}");
    assert_eq!(task["status"]["message"]["parts"][0]["text"], OUT_OF_TIME);
    // Failed before the deadline (which is at least `before` + the timeout).
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap();
    assert!(
        status_ms(task) < before + timeout_ms,
        "failed at {} (deadline after {})",
        status_ms(task),
        before + timeout_ms
    );
    // The same environment serves the get (no reset, no cold start), and the send's
    // invocation ended without an error, held until about a second before its deadline
    // (a lower bound only: the machine may be slower, never faster).
    assert_eq!(lambda.pid(), Some(pid));
    let journal = lambda.journal().unwrap();
    assert_eq!(journal.sessions().len(), 1);
    let invocations = journal.invocations(&Default::default());
    let send_note = invocations
        .iter()
        .map(|invocation| invocation.to_json())
        .find(|json| json["lambda"]["requestId"] == request_id.as_str())
        .expect("the send's invocation in the journal");
    assert_eq!(send_note["lambda"]["error"], Value::Null, "{send_note}");
    let held = send_note["lambda"]["durationMs"].as_f64().unwrap();
    let least = (timeout - MARGIN - Duration::from_millis(200)).as_secs_f64() * 1000.0;
    assert!(held >= least, "held {held} ms, less than {least} ms");
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn on_managed_instances_a_task_ends_at_its_own_invocations_deadline_while_the_others_work_on()
{
    let timeout = Duration::from_secs(4);
    let lambda = start(agent().max_concurrency(8).timeout(timeout)).await;
    let url = format!("{}/", lambda.base_url());
    let send = |id: u64, message_id: &str| {
        rpc(
            id,
            "message/send",
            json!({"message": message(message_id, "never done"),
                   "configuration": {"blocking": false}}),
        )
    };
    // Two `slow-` tasks, the second sent two seconds after the first: each run ends a
    // second before its own invocation's deadline, the first while the second works on.
    let before = now_ms();
    let (status, _, first) = post(&url, &send(1, "slow-first")).await;
    assert_eq!(status, 200, "{first}");
    let first_id = first["result"]["id"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (status, _, second) = post(&url, &send(2, "slow-second")).await;
    assert_eq!(status, 200, "{second}");
    let second_id = second["result"]["id"].as_str().unwrap().to_owned();
    let mut gets = 10;
    let failed = loop {
        gets += 1;
        let (_, _, got) = post(&url, &rpc(gets, "tasks/get", json!({"id": first_id}))).await;
        if got["result"]["status"]["state"] == "failed" {
            break got["result"].clone();
        }
        assert!(gets < 200, "never failed: {got}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (_, _, other) = post(&url, &rpc(1000, "tasks/get", json!({"id": second_id}))).await;
    assert_eq!(
        failed["status"]["message"]["parts"][0]["text"], OUT_OF_TIME,
        "{failed}"
    );
    let timeout_ms = u64::try_from(timeout.as_millis()).unwrap();
    assert!(
        status_ms(&failed) < before + timeout_ms,
        "failed at {} (its deadline after {})",
        status_ms(&failed),
        before + timeout_ms
    );
    assert_eq!(other["result"]["status"]["state"], "working", "{other}");
    // The host ended the run itself: the local Lambda timed nothing out (on Managed
    // Instances it would fail the invocation but not stop the code) and logged why.
    let logs = lambda.logs();
    assert!(
        !logs.iter().any(|line| line.contains("Task timed out")),
        "{logs:#?}"
    );
    let warned = json_logs(
        &lambda,
        "the invocation's time ran out before its task finished: the agent was stopped and \
         the task failed",
    );
    assert_eq!(warned.len(), 1, "{logs:#?}");
    assert_eq!(warned[0]["level"], "WARN", "{:?}", warned[0]);
    assert_eq!(warned[0]["fields"]["task_id"], first_id.as_str());
    assert!(!lambda.frozen());
    lambda.shutdown().await.unwrap();
}
