//! The emulator as a library: started around an agent in-process, on a free port, with the
//! binary's options as setters.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_lambda_emulator::{Emulator, EmulatorError};
use a2a_lambda_server::agents::EchoAgent;
use serde_json::{Value, json};

const SESSION_A: &str = "session-a-0123456789-0123456789-0123";
const SESSION_B: &str = "session-b-0123456789-0123456789-0123";
const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/my_agent-abcdefghij";

fn send(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": format!("m-{id}"), "role": "user",
        "parts": [{"kind": "text", "text": "hi"}]}}})
}

async fn invoke(url: &str, session: &str, body: &Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(url)
        .header("X-Amzn-Bedrock-AgentCore-Runtime-Session-Id", session)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (
        status,
        serde_json::from_slice(&response.bytes().await.unwrap()).unwrap(),
    )
}

#[tokio::test]
async fn a_factory_gives_each_session_its_own_agent_and_tasks() {
    let made = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&made);
    let emulator = Emulator::per_session(move || {
        counter.fetch_add(1, Ordering::SeqCst);
        EchoAgent
    })
    .start()
    .await
    .unwrap();
    let before = made.load(Ordering::SeqCst);
    let url = emulator.invocation_url(ARN);
    assert!(
        url.starts_with(emulator.url()) && url.ends_with("/invocations"),
        "{url}"
    );

    let (status, answer) = invoke(&url, SESSION_A, &send(1)).await;
    assert_eq!(status, 200, "{answer}");
    let task_id = answer["result"]["id"].as_str().unwrap().to_owned();
    invoke(&url, SESSION_A, &send(2)).await;
    assert_eq!(
        made.load(Ordering::SeqCst),
        before + 1,
        "one agent for session A"
    );

    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"id": task_id}});
    let (_, found) = invoke(&url, SESSION_A, &get).await;
    assert_eq!(found["result"]["id"], task_id.as_str());
    let (status, missing) = invoke(&url, SESSION_B, &get).await;
    assert_eq!(
        (status, &missing["error"]["code"]),
        (200, &json!(-32001)),
        "{missing}"
    );
    assert_eq!(
        made.load(Ordering::SeqCst),
        before + 2,
        "session B made its own"
    );
    emulator.shutdown().await.unwrap();
}

#[tokio::test]
async fn faults_with_a_seed_repeat_and_answer_agentcore_errors() {
    let mut runs = Vec::new();
    for _ in 0..2 {
        let emulator = Emulator::new(EchoAgent)
            .faults("throttle=0.5".parse().unwrap())
            .seed(42)
            .start()
            .await
            .unwrap();
        let url = emulator.invocation_url(ARN);
        let mut statuses = Vec::new();
        for id in 0..12 {
            let (status, answer) = invoke(&url, SESSION_A, &send(id)).await;
            if status == 429 {
                assert_eq!(answer["error"]["code"], -32053, "{answer}");
                assert_eq!(answer["id"], id, "{answer}");
            }
            statuses.push(status);
        }
        assert!(
            statuses.contains(&429) && statuses.contains(&200),
            "{statuses:?}"
        );
        runs.push(statuses);
        emulator.shutdown().await.unwrap();
    }
    assert_eq!(
        runs[0], runs[1],
        "the same seed throttles the same invocations"
    );
}

#[tokio::test]
async fn a_pinned_runtime_arn_is_checked_at_start() {
    let error = Emulator::new(EchoAgent)
        .runtime_arn("not-an-arn")
        .start()
        .await
        .unwrap_err();
    assert!(matches!(error, EmulatorError::Config(_)), "{error:?}");
    assert!(
        error.to_string().contains("not an AgentCore runtime ARN"),
        "{error}"
    );
}

#[tokio::test]
async fn dropping_the_emulator_stops_it() {
    let emulator = Emulator::new(EchoAgent).start().await.unwrap();
    let address = emulator.address();
    drop(emulator);
    let mut refused = false;
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(address).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        refused,
        "{address} still accepts connections after the drop"
    );
}
