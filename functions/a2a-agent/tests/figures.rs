//! Figures for the guide's Managed Instances section, over the real function binary
//! against the fake Runtime and Extensions APIs (`fake_lambda`): printed by an ignored
//! test, never asserted (a wall-clock figure depends on the machine).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fake_lambda;

use std::time::Instant;

use fake_lambda::{FAR, FakeApi, Function, Record, event};
use serde_json::json;

/// The concurrency of the Managed Instances runs.
const CONCURRENCY: usize = 8;

/// A blocking v0.3 `message/send` of the conformance agent's `message_id`.
fn send(message_id: &str) -> String {
    event(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": message_id, "role": "user",
                        "parts": [{"kind": "text", "text": "at once"}]},
        }}),
    )
}

/// The figures of the guide's Managed Instances section: throughput and the function
/// process's peak resident memory, one invocation at a time (Lambda's default model, the
/// background-work extension holding each invocation) and eight at once (Managed
/// Instances), for an agent that answers at once and one that takes 50 ms. Printed, not
/// asserted (a wall-clock figure depends on the machine). Run it against an optimised
/// build:
///
/// ```text
/// cargo build -p a2a-agent --profile lambda-release
/// A2A_AGENT_BINARY=target/lambda-release/a2a-agent \
///     cargo test -p a2a-agent --test figures -- --ignored --nocapture
/// ```
#[tokio::test]
#[ignore = "prints figures; run it by hand"]
async fn figures_throughput_and_peak_memory_at_one_and_eight_at_once() {
    for (agent, message, count, vars) in [
        ("answers at once", "tck-complete-task", 2_000, vec![]),
        (
            "takes 50 ms",
            "tck-delayed-complete",
            400,
            vec![("TCK_STREAMING_TIMEOUT", "0.05")],
        ),
    ] {
        for concurrency in [1, CONCURRENCY] {
            let mut api = if concurrency == 1 {
                FakeApi::start(true).await
            } else {
                FakeApi::start_managed().await
            };
            let mut all = vars.clone();
            let value = concurrency.to_string();
            if concurrency > 1 {
                all.push(("AWS_LAMBDA_MAX_CONCURRENCY", &value));
            }
            all.push(("RUST_LOG", "warn"));
            let function = Function::start(&api, &all);
            // Init is done once the runtime asks for its first invocation.
            api.find("the first /next", 0, |record| {
                matches!(record, Record::RuntimeNext { .. })
            })
            .await;
            let started = Instant::now();
            for i in 0..count {
                api.invoke(&format!("inv-{i}"), &send(&format!("{message}-{i}")), FAR);
            }
            for i in 0..count {
                let (_, answer, _) = api.answer(&format!("inv-{i}")).await;
                assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
            }
            let took = started.elapsed();
            println!(
                "agent {agent}, {concurrency} at once: {count} blocking sends in {:.2} s = \
                 {:.0} requests/s; peak RSS {} KiB; at most {} in flight",
                took.as_secs_f64(),
                f64::from(u32::try_from(count).unwrap()) / took.as_secs_f64(),
                function.peak_rss_kib(),
                api.peak_in_flight(),
            );
        }
    }
}
