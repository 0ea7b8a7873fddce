#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The local Lambda's lifecycle on functions that show one behaviour each: a timeout and
//! its reset, invoke and init errors as each front answers them, background work of a
//! function without an extension stalled while frozen, and Managed Instances'
//! concurrency. The functions are custom runtimes in shell scripts (and the real
//! `a2a-agent` where it can show the behaviour).

mod local_lambda_support;

use std::time::Duration;

use a2a_lambda_emulator::lambda::{EventShape, LocalLambda};
use local_lambda_support::*;
use serde_json::json;

fn shell(scratch: &Scratch, init: &str, handle: &str) -> LocalLambda {
    LocalLambda::new(shell_function(&scratch.0, init, handle)).port(0)
}

async fn get(url: &str) -> (u16, String) {
    let answer = reqwest::Client::new()
        .get(url)
        .timeout(STEP)
        .send()
        .await
        .expect("the front answers");
    (answer.status().as_u16(), answer.text().await.unwrap())
}

#[tokio::test]
async fn a_timeout_is_reported_as_lambda_reports_it_and_the_environment_is_reset() {
    let scratch = Scratch::new("timeout");
    let lambda = start(
        shell(
            &scratch,
            "",
            &format!(r#"case "$event" in *slow*) sleep 30;; esac; {RESPOND_OK}"#),
        )
        .timeout(Duration::from_secs(1)),
    )
    .await;
    let (status, body) = get(&format!("{}/fast", lambda.base_url())).await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    let first = lambda.pid().unwrap();
    let (status, body) = get(&format!("{}/slow", lambda.base_url())).await;
    // A Function URL's answer to a function error.
    assert_eq!((status, body.as_str()), (502, "Internal Server Error"));
    let logs = lambda.logs();
    let timed_out: Vec<&String> = logs
        .iter()
        .filter(|line| line.ends_with("Task timed out after 1.00 seconds"))
        .collect();
    assert_eq!(timed_out.len(), 1, "{logs:#?}");
    assert!(
        logs.iter()
            .any(|line| line.starts_with("REPORT") && line.ends_with("\tStatus: timeout")),
        "{logs:#?}"
    );
    // The environment was reset: its process is gone, the next call starts another.
    eventually("the timed-out process gone", || {
        (process_state(first).is_none()).then_some(())
    })
    .await;
    let (status, body) = get(&format!("{}/again", lambda.base_url())).await;
    assert_eq!((status, body.as_str()), (200, "ok"));
    assert_ne!(lambda.pid().unwrap(), first);
    let journal = lambda.journal().unwrap();
    let environments = journal.sessions();
    assert_eq!(environments.len(), 2, "{environments:#?}");
    assert_eq!(
        environments[0].why.as_deref(),
        Some("the invocation timed out")
    );
    let slow = &journal.invocations(&Default::default())[1];
    assert_eq!(slow.to_json()["lambda"]["error"], "Sandbox.Timedout");
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_invoke_error_is_answered_as_each_front_answers_it() {
    let scratch = Scratch::new("invoke-error");
    let cases = [
        (EventShape::FunctionUrl, 502, "Internal Server Error"),
        (
            EventShape::ApigwV2,
            500,
            r#"{"message":"Internal Server Error"}"#,
        ),
        (
            EventShape::ApigwV1,
            502,
            r#"{"message": "Internal server error"}"#,
        ),
    ];
    for (shape, expected_status, expected_body) in cases {
        let lambda = start(shell(&scratch, "", "post_error Function.Boom").event(shape)).await;
        let (status, body) = get(&format!("{}/", lambda.base_url())).await;
        assert_eq!(
            (status, body.as_str()),
            (expected_status, expected_body),
            "{shape:?}"
        );
        let logs = lambda.logs();
        assert!(
            logs.iter().any(|line| line.contains("ERROR Invoke Error")
                && line.contains(r#""errorType":"Function.Boom""#)),
            "{logs:#?}"
        );
        // An invoke error does not reset the environment.
        let pid = frozen(&lambda).await;
        let (status, _) = get(&format!("{}/", lambda.base_url())).await;
        assert_eq!(status, expected_status);
        assert_eq!(lambda.pid(), Some(pid));
        lambda.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn an_init_error_of_the_real_function_is_a_function_error() {
    // The a2a-agent refuses a configuration it cannot serve at init
    // (`/runtime/init/error`), as on Lambda.
    let lambda = start(agent().env("A2A_AUTH", "bogus")).await;
    let (status, body) = get(&format!(
        "{}/.well-known/agent-card.json",
        lambda.base_url()
    ))
    .await;
    assert_eq!((status, body.as_str()), (502, "Internal Server Error"));
    let logs = lambda.logs();
    assert!(
        logs.iter()
            .any(|line| line.starts_with("INIT_REPORT") && line.contains("Status: error")),
        "{logs:#?}"
    );
    let journal = lambda.journal().unwrap();
    let call = journal.invocations(&Default::default()).pop().unwrap();
    assert_eq!(call.status, 502);
    assert!(call.lambda.unwrap().error.is_some());
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn background_work_without_an_extension_stalls_while_frozen_as_on_lambda() {
    let scratch = Scratch::new("stall");
    let ticks = scratch.path("ticks");
    // Each invocation starts work in the background and answers at once: nothing holds
    // the environment, so Lambda freezes it with the work half done.
    let handle = format!(
        r#"( i=0; while [ $i -lt 100000 ]; do echo tick >> '{}'; i=$((i+1)); sleep 0.01; done ) &
{RESPOND_OK}"#,
        ticks.display()
    );
    let lambda = start(shell(&scratch, "", &handle).timeout(Duration::from_secs(5))).await;
    let (status, _) = get(&format!("{}/", lambda.base_url())).await;
    assert_eq!(status, 200);
    let pid = frozen(&lambda).await;
    // Every process of the environment (the runtime's shell, the work's subshell, its
    // `sleep`) is stopped, not only the runtime.
    eventually("every process of the group stopped", || {
        let states = group_states(pid);
        (states.len() >= 2 && states.iter().all(|state| *state == 'T')).then_some(())
    })
    .await;
    let count = || {
        std::fs::read_to_string(&ticks)
            .map(|text| text.lines().count())
            .unwrap_or(0)
    };
    // Frozen: the whole process group is stopped, the work with it.
    let stalled = count();
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(process_state(pid), Some('T'));
        assert_eq!(count(), stalled, "the background work ran while frozen");
    }
    // The next invocation thaws it, and the work goes on.
    let (status, _) = get(&format!("{}/", lambda.base_url())).await;
    assert_eq!(status, 200);
    eventually("the background work going on after the thaw", || {
        (count() > stalled || !lambda.frozen()).then_some(())
    })
    .await;
    let journal = lambda.journal().unwrap();
    let environment = journal.sessions().pop().unwrap();
    assert!(
        environment
            .events
            .iter()
            .any(|event| event.state.as_str() == "frozen"),
        "{environment:#?}"
    );
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn managed_instances_run_invocations_at_once_and_never_freeze() {
    let scratch = Scratch::new("concurrency");
    let dir = scratch.0.display().to_string();
    // N runtime workers, as a Managed Instances runtime starts them; each invocation
    // waits until all N are in flight at once, so one at a time would never finish.
    let n = 4;
    let init = format!(
        r#"worker() {{ while true; do
  headers=$(mktemp)
  event=$(curl -sS -D "$headers" "$api/invocation/next")
  id=$(tr -d '\r' < "$headers" | grep -i '^lambda-runtime-aws-request-id:' | cut -d' ' -f2)
  rm -f "$headers"
  touch '{dir}/in-flight-'"$id"
  while [ "$(ls '{dir}' | grep -c in-flight-)" -lt {n} ]; do sleep 0.02; done
  post_response '{{"statusCode":200,"body":"together"}}'
done; }}
i=1; while [ $i -lt {n} ]; do worker & i=$((i+1)); done
worker"#
    );
    let lambda = start(
        shell(&scratch, &init, "")
            .max_concurrency(n)
            .timeout(Duration::from_secs(15)),
    )
    .await;
    let calls = (0..n).map(|_| get(lambda.base_url()));
    let answers = futures_util::future::join_all(calls).await;
    for (status, body) in answers {
        assert_eq!((status, body.as_str()), (200, "together"));
    }
    assert!(!lambda.frozen());
    let environment = lambda.journal().unwrap().sessions().pop().unwrap();
    assert!(
        !environment
            .events
            .iter()
            .any(|event| event.state.as_str() == "frozen"),
        "{environment:#?}"
    );
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_real_function_serves_concurrent_sends_with_max_concurrency() {
    let lambda = start(
        agent()
            .env("A2A_AGENT", "echo")
            .max_concurrency(8)
            .timeout(Duration::from_secs(30)),
    )
    .await;
    let url = format!("{}/", lambda.base_url());
    let sends = (0..8).map(|i| {
        let url = url.clone();
        async move {
            post(
                &url,
                &rpc(
                    i,
                    "message/send",
                    json!({"message": message(&format!("c-{i}"), "hi")}),
                ),
            )
            .await
        }
    });
    for (status, _, answer) in futures_util::future::join_all(sends).await {
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    }
    assert!(!lambda.frozen());
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_external_extension_gets_invoke_events_and_the_shutdown_event() {
    let scratch = Scratch::new("external");
    let events = scratch.path("events");
    let extension = scratch.path("recorder");
    std::fs::write(
        &extension,
        format!(
            r#"#!/bin/sh
api="http://$AWS_LAMBDA_RUNTIME_API/2020-01-01/extension"
headers=$(mktemp)
curl -sS -D "$headers" -o /dev/null -X POST "$api/register" -H 'Lambda-Extension-Name: recorder' -d '{{"events":["INVOKE","SHUTDOWN"]}}'
id=$(tr -d '\r' < "$headers" | grep -i '^lambda-extension-identifier:' | cut -d' ' -f2)
while true; do
  event=$(curl -sS -H "Lambda-Extension-Identifier: $id" "$api/event/next")
  echo "$event" >> '{}'
  case "$event" in *SHUTDOWN*) exit 0;; esac
done
"#,
            events.display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&extension).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&extension, permissions).unwrap();
    let lambda = start(shell(&scratch, "", RESPOND_OK).extension(&extension)).await;
    let answer = reqwest::get(lambda.base_url()).await.unwrap();
    assert_eq!(answer.status(), 200);
    let request_id = answer.headers()["x-amzn-requestid"]
        .to_str()
        .unwrap()
        .to_owned();
    // The extension is frozen with the function, once both asked for their next event.
    let pid = frozen(&lambda).await;
    let read = || -> Vec<serde_json::Value> {
        std::fs::read_to_string(&events)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    };
    let invoke = read();
    assert_eq!(invoke.len(), 1, "{invoke:?}");
    assert_eq!(invoke[0]["eventType"], "INVOKE");
    assert_eq!(invoke[0]["requestId"], request_id.as_str());
    assert_eq!(
        invoke[0]["invokedFunctionArn"],
        "arn:aws:lambda:us-east-1:123456789012:function:bootstrap"
    );
    let report = lambda.shutdown().await.unwrap();
    assert_eq!(report.shutdown_events, 1, "{report:?}");
    assert!(report.sigterm && report.exited_in_grace, "{report:?}");
    assert_eq!(process_state(pid), None);
    let shutdown = read().pop().unwrap();
    assert_eq!(shutdown["eventType"], "SHUTDOWN", "{shutdown}");
    assert_eq!(shutdown["shutdownReason"], "spindown");
    assert!(shutdown["deadlineMs"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn a_runtime_that_exits_after_answering_gets_a_new_environment_each_time() {
    let scratch = Scratch::new("one-shot");
    let lambda = start(shell(&scratch, "", &format!("{RESPOND_OK}; exit 3"))).await;
    for _ in 0..3 {
        let (status, body) = get(lambda.base_url()).await;
        assert_eq!((status, body.as_str()), (200, "ok"));
    }
    let logs = lambda.logs();
    let starts = logs.iter().filter(|line| line.starts_with("START")).count();
    assert_eq!(starts, 3, "{logs:#?}");
    let environments = lambda.journal().unwrap().sessions();
    assert_eq!(environments.len(), 3, "{environments:#?}");
    assert!(
        environments[0]
            .why
            .as_deref()
            .is_some_and(|why| why.contains("exit status: 3")),
        "{environments:#?}"
    );
    lambda.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_internal_extension_may_not_register_for_shutdown_but_may_for_invoke() {
    let scratch = Scratch::new("internal-shutdown");
    let file = scratch.path("registrations");
    // Registrations from the runtime's own process are internal extensions'.
    let init = format!(
        r#"ext="http://$AWS_LAMBDA_RUNTIME_API/2020-01-01/extension/register"
curl -sS -w ' %{{http_code}}\n' -X POST "$ext" -H 'Lambda-Extension-Name: both' -d '{{"events":["INVOKE","SHUTDOWN"]}}' >> '{file}'
curl -sS -o /dev/null -w '%{{http_code}}\n' -X POST "$ext" -H 'Lambda-Extension-Name: invoke' -d '{{"events":["INVOKE"]}}' >> '{file}'
curl -sS -w ' %{{http_code}}\n' -X POST "$ext" -d '{{"events":["INVOKE"]}}' >> '{file}'"#,
        file = file.display()
    );
    let lambda = start(shell(&scratch, &init, RESPOND_OK)).await;
    // The first call starts the environment (and waits: the extension registered for
    // INVOKE never asks for its next event, so init does not end); only the
    // registrations are looked at here.
    let url = lambda.base_url().to_owned();
    let call = tokio::spawn(async move { get(&url).await });
    let lines = eventually("three registrations", || {
        let text = std::fs::read_to_string(&file).ok()?;
        // Whole lines only: curl writes a body and its `-w` status apart.
        (text.ends_with('\n') && text.lines().count() == 3).then_some(text)
    })
    .await;
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"errorMessage":"both: an internal extension cannot register for the SHUTDOWN event","errorType":"ShutdownEventNotSupportedForInternalExtension"} 403"#
    );
    assert_eq!(lines[1], "200");
    assert_eq!(
        lines[2],
        r#"{"errorMessage":"the Lambda-Extension-Name header is missing","errorType":"InvalidRequest"} 400"#
    );
    call.abort();
    drop(lambda);
}

#[tokio::test]
async fn a_stream_cut_by_the_timeout_ends_in_an_error_after_what_was_written() {
    let scratch = Scratch::new("stream-timeout");
    // A streamed HTTP integration response: the prelude, eight NUL bytes, a first chunk,
    // then nothing until long after the deadline.
    let handle = r#"{ printf '{"statusCode":201,"headers":{"content-type":"text/plain"}}'; printf '\000\000\000\000\000\000\000\000'; echo first; sleep 30; } | curl -sS -o /dev/null -X POST -H 'Lambda-Runtime-Function-Response-Mode: streaming' -H 'Content-Type: application/vnd.awslambda.http-integration-response' -T - "$api/invocation/$id/response""#;
    let lambda = start(
        shell(&scratch, "", handle)
            .invoke_mode(a2a_lambda_emulator::lambda::InvokeMode::ResponseStream)
            .timeout(Duration::from_secs(2)),
    )
    .await;
    let answer = reqwest::Client::new()
        .get(lambda.base_url())
        .timeout(STEP)
        .send()
        .await
        .unwrap();
    // The prelude's head, at once.
    assert_eq!(answer.status(), 201);
    assert_eq!(answer.headers()["content-type"], "text/plain");
    let mut body = answer.bytes_stream();
    use futures_util::StreamExt as _;
    let first = body.next().await.unwrap().unwrap();
    assert_eq!(&first[..], b"first\n");
    // Then the deadline: the stream fails rather than ending as if complete.
    let rest = body.next().await;
    assert!(
        matches!(rest, Some(Err(_))),
        "the stream ended without an error: {rest:?}"
    );
    let logs = lambda.logs();
    assert!(
        logs.iter()
            .any(|line| line.ends_with("Task timed out after 2.00 seconds")),
        "{logs:#?}"
    );
    lambda.shutdown().await.unwrap();
}
