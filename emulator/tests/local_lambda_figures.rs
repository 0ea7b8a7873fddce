#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Figures for the guide's Managed Instances section measured on the local Lambda: the
//! real `a2a-agent` binary behind a Function URL front, one invocation at a time (Lambda's
//! default model: the environment frozen and thawed around each one) and eight at once
//! (`--max-concurrency 8`, never frozen). Printed by an ignored test, never asserted (a
//! wall-clock figure depends on the machine). The same figures against the fake Runtime
//! API: `functions/a2a-agent/tests/figures.rs`.

mod local_lambda_support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use a2a_lambda_emulator::lambda::LocalLambda;
use futures_util::StreamExt as _;
use local_lambda_support::*;
use serde_json::{Value, json};

/// Requests the client keeps in flight (more than the concurrency: the front queues them).
const IN_FLIGHT: usize = 16;

/// The function binary: `A2A_AGENT_BINARY` (an optimised build), else the test build.
fn binary() -> PathBuf {
    std::env::var_os("A2A_AGENT_BINARY").map_or_else(agent_binary, PathBuf::from)
}

/// The peak resident memory of process `pid`, in KiB (`VmHWM`).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in the status")
}

/// A blocking v0.3 send of the conformance agent's `message_id`; the task's state.
async fn send(client: &reqwest::Client, url: &str, message_id: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": message_id, "role": "user",
                    "parts": [{"kind": "text", "text": "at once"}]},
    }});
    let answer: Value = client
        .post(url)
        .json(&body)
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["result"]["status"]["state"].clone()
}

/// Throughput and the function process's peak resident memory, one invocation at a time
/// and eight at once, for an agent that answers at once and one that takes 50 ms. Run it
/// against an optimised build:
///
/// ```text
/// cargo build -p a2a-agent --profile lambda-release
/// A2A_AGENT_BINARY=target/lambda-release/a2a-agent \
///     cargo test -p a2a-lambda-emulator --test local_lambda_figures -- --ignored --nocapture
/// ```
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "prints figures; run it by hand"]
async fn figures_throughput_and_peak_memory_at_one_and_eight_at_once() {
    let binary = binary();
    for (agent, message, count, delay) in [
        ("answers at once", "tck-complete-task", 2_000, None),
        ("takes 50 ms", "tck-delayed-complete", 400, Some("0.05")),
    ] {
        for concurrency in [1, 8] {
            let mut lambda = LocalLambda::new(&binary)
                .port(0)
                .env("A2A_AGENT", "conformance")
                .env("RUST_LOG", "warn")
                .timeout(Duration::from_secs(60))
                .inspector(false);
            if let Some(delay) = delay {
                lambda = lambda.env("TCK_STREAMING_TIMEOUT", delay);
            }
            if concurrency > 1 {
                lambda = lambda.max_concurrency(concurrency);
            }
            let lambda = start(lambda).await;
            let url = format!("{}/", lambda.base_url());
            let client = reqwest::Client::new();
            // The cold start is not counted.
            assert_eq!(
                send(&client, &url, &format!("{message}-warm")).await,
                "completed"
            );
            let pid = lambda.pid().unwrap();
            let started = Instant::now();
            futures_util::stream::iter(0..count)
                .map(|i| {
                    let (client, url) = (&client, &url);
                    async move { send(client, url, &format!("{message}-{i}")).await }
                })
                .buffer_unordered(IN_FLIGHT)
                .for_each(|state| async move { assert_eq!(state, "completed") })
                .await;
            let took = started.elapsed();
            println!(
                "agent {agent}, {concurrency} at once: {count} blocking sends in {:.2} s = \
                 {:.0} requests/s; peak RSS {} KiB",
                took.as_secs_f64(),
                f64::from(count) / took.as_secs_f64(),
                peak_rss_kib(pid),
            );
            lambda.shutdown().await.unwrap();
        }
    }
}
