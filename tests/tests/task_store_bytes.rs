//! The in-memory task stores are bounded in bytes, all sessions together: 80 sends of
//! 1 MiB through the real emulator (each task holds the message in its history and the
//! echo in its artifact, about 2 MiB; 160 MiB in all, measured 200 MiB of resident
//! memory without a bound) leave its resident memory within the bound and a margin, and the
//! oldest finished tasks answer -32001.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::{Emulator, Value, json};

const MIB: u64 = 1024 * 1024;
const SENDS: usize = 80;
const SESSION: &str = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id";

/// The process's peak resident memory (VmHWM) in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

fn session(n: usize) -> String {
    format!("store-bytes-session-{:0>24}", n % 4)
}

async fn post(http: &reqwest::Client, emulator: &Emulator, session: &str, body: Value) -> Value {
    serde_json::from_str(&post_text(http, emulator, session, body.to_string()).await).unwrap()
}

async fn post_text(
    http: &reqwest::Client,
    emulator: &Emulator,
    session: &str,
    body: String,
) -> String {
    let response = http
        .post(emulator.url("/"))
        .header("content-type", "application/json")
        .header(SESSION, session)
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

#[tokio::test]
async fn eighty_large_sends_stay_within_the_bound_and_the_oldest_tasks_go() {
    let bound = 8 * MIB;
    let mut emulator = Emulator::builder()
        .args([
            "--agent",
            "echo",
            "--rate-limit",
            "0",
            "--task-store-bytes",
            &bound.to_string(),
        ])
        .process()
        .start();
    let http = reqwest::Client::new();
    let text = "x".repeat(MIB as usize);
    let mut ids = Vec::new();
    let mut baseline = 0;
    for n in 0..SENDS {
        // Written by hand: a debug build's serde takes seconds over megabytes.
        let send = format!(
            r#"{{"jsonrpc":"2.0","id":{n},"method":"message/send","params":{{"configuration":{{"historyLength":0}},"message":{{"kind":"message","messageId":"big-{n}","role":"user","parts":[{{"kind":"text","text":"{text}"}}]}}}}}}"#
        );
        let answer = post_text(&http, &emulator, &session(n), send).await;
        let head = &answer[..answer.len().min(300)];
        let id = head
            .split(r#""id":""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{n}: {head}"));
        assert!(answer.contains(r#""state":"completed""#), "{n}: {head}");
        if n == 0 {
            baseline = peak_rss(emulator.pid());
        }
        ids.push(id.to_owned());
    }
    let peak = peak_rss(emulator.pid());
    let growth = peak.saturating_sub(baseline);
    eprintln!(
        "peak RSS {} MiB, {} MiB over the first send's",
        peak / MIB,
        growth / MIB
    );
    // 80 MiB of messages and 80 of echoes went through; without the bound all of it
    // stays. The margin covers the requests in flight and the allocator's slack.
    let margin = 64 * MIB;
    assert!(
        growth < bound + margin,
        "RSS grew {} MiB: over the {} MiB bound + {} MiB",
        growth / MIB,
        bound / MIB,
        margin / MIB
    );
    let get = |n: usize| {
        json!({"jsonrpc": "2.0", "id": "g", "method": "tasks/get",
                                "params": {"id": ids[n], "historyLength": 0}})
    };
    let oldest = post(&http, &emulator, &session(0), get(0)).await;
    assert_eq!(oldest["error"]["code"], -32001, "the oldest task is kept");
    let newest = post(&http, &emulator, &session(SENDS - 1), get(SENDS - 1)).await;
    assert_eq!(newest["result"]["status"]["state"], "completed");
    let log = emulator.stderr();
    assert!(
        log.contains("finished task forgotten: the in-memory task store is over its bytes"),
        "evictions are logged"
    );
}
