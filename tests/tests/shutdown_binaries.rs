//! The real binaries stop gracefully on SIGTERM while under load: `a2a-container` and
//! `a2a-emulator` each with a stream open and sends in flight end the stream cleanly (no
//! reset), answer or refuse every send (never a bare 5xx), and exit with status 0 within
//! the grace.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::send_params;
use a2a_test_support::harness::{Emulator, Op, Version};
use serde_json::json;

async fn stops_cleanly_under_load(mut emulator: Emulator) {
    // A stream that lasts until canceled (the conformance agent's `slow-`).
    let mut stream = emulator
        .stream(
            Version::V0_3,
            Op::Stream,
            send_params("slow-sigterm", "hold"),
        )
        .await;
    assert!(stream.next_event().await.is_some());
    let url = emulator.url("/");
    let http = emulator.http().clone();
    let load: Vec<_> = (0..40_u64)
        .map(|n| {
            let (http, url) = (http.clone(), url.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(n * 10)).await;
                let body = json!({"jsonrpc": "2.0", "id": n, "method": "message/send",
                    "params": send_params(&format!("tck-complete-task-{n}"), "hi")});
                match http.post(&url).json(&body).send().await {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let answer: serde_json::Value = response.json().await.unwrap();
                        assert_eq!(answer["jsonrpc"], "2.0", "{status} {answer}");
                        Some(status)
                    }
                    // Refused: the listener had closed.
                    Err(_) => None,
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let stopping = Instant::now();
    emulator.terminate();
    // The stream ends cleanly (a reset would fail `next_event`).
    while stream.next_event().await.is_some() {}
    let status = emulator
        .exited_within(Duration::from_secs(10))
        .await
        .expect("still running 10 s after SIGTERM");
    assert!(status.success(), "exit status {status}");
    assert!(
        stopping.elapsed() < Duration::from_secs(5),
        "{:?}",
        stopping.elapsed()
    );
    let mut answered = 0;
    for client in load {
        if let Some(status) = client.await.unwrap() {
            assert!(status == 200 || status == 503, "{status}");
            answered += 1;
        }
    }
    assert!(answered > 0, "no send was answered before the stop");
}

#[tokio::test]
async fn a2a_container_exits_0_on_sigterm_under_load() {
    let emulator = Emulator::container()
        .env("A2A_AGENT", "conformance")
        .env("A2A_SHUTDOWN_GRACE_SECONDS", "1")
        .start();
    stops_cleanly_under_load(emulator).await;
}

#[tokio::test]
async fn a2a_emulator_exits_0_on_sigterm_under_load() {
    let emulator = Emulator::builder()
        .process()
        .args(["--agent", "conformance", "--shutdown-grace-seconds", "1"])
        .start();
    stops_cleanly_under_load(emulator).await;
}
