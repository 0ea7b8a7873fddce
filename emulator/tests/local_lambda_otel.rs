#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a-agent` function (built with `otel`) under the local Lambda, exporting to
//! an OTLP test receiver: an invocation's spans, a non-blocking send's background run
//! among them, are at the collector by the time the environment is frozen — exported
//! before the runtime and the extension asked for their next event.

mod local_lambda_support;

use std::time::Duration;

use a2a_test_support::otlp::Receiver;
use local_lambda_support::{agent, frozen, message, post, rpc, start};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_blocking_sends_spans_reach_the_collector_before_the_environment_freezes() {
    let receiver = Receiver::start().await;
    let lambda = start(
        agent()
            .env("TCK_STREAMING_TIMEOUT", "0.5")
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
            .env("OTEL_METRICS_EXPORTER", "none")
            .timeout(Duration::from_secs(30)),
    )
    .await;
    let send = rpc(
        1,
        "message/send",
        json!({"message": message("tck-delayed-complete-otel", "later"),
               "configuration": {"blocking": false}}),
    );
    let (status, _, answer) = post(&format!("{}/", lambda.base_url()), &send).await;
    assert_eq!(status, 200, "{answer}");
    let task_id = answer["result"]["id"].as_str().unwrap().to_owned();
    // The answer came before the agent finished: its run goes on in the background.
    assert_ne!(answer["result"]["status"]["state"], "completed", "{answer}");
    frozen(&lambda).await;

    // Frozen now: nothing more can be exported until a next invocation. What the
    // receiver holds is all there is.
    let spans = receiver.spans();
    let send_span = spans
        .iter()
        .find(|span| span.attribute("rpc.method") == "message/send")
        .unwrap_or_else(|| panic!("the send's server span: {spans:#?}"));
    assert_eq!(send_span.kind, 2, "SPAN_KIND_SERVER");
    assert_eq!(send_span.attribute("a2a.task.id"), task_id);
    assert_eq!(send_span.service, "a2a-agent", "named after the function");
    let run = spans
        .iter()
        .find(|span| {
            span.name.starts_with("invoke_agent ") && span.attribute("a2a.task.id") == task_id
        })
        .unwrap_or_else(|| panic!("the background run's span: {spans:#?}"));
    assert_eq!(run.parent, send_span.id);
    assert_eq!(run.kind, 1, "SPAN_KIND_INTERNAL");
    lambda.shutdown().await.unwrap();
}
