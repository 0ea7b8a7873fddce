//! Two engines over one store, as two Lambda instances over one table: a cancel from one
//! instance is not lost when the other instance's agent writes afterwards.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

mod common;

use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use a2a_test_support::agents::Gated;
use serde_json::{Value, json};
use tokio::sync::Notify;

fn engine(gate: &Arc<Notify>, store: &Arc<InMemoryTaskStore>) -> Engine {
    common::engine(
        Arc::new(Gated(Arc::clone(gate))),
        Arc::clone(store) as Arc<dyn TaskStore>,
    )
}

async fn call(engine: &Engine, body: Value) -> Value {
    match engine
        .handle(body.to_string().as_bytes(), &CallContext::default())
        .await
    {
        Reply::Json { body, .. } => serde_json::from_slice(&body).unwrap(),
        other => panic!("expected JSON, got {other:?}"),
    }
}

#[tokio::test]
async fn a_cancel_from_another_instance_wins_over_a_later_agent_write() {
    let gate = Arc::new(Notify::new());
    let store = Arc::new(InMemoryTaskStore::new());
    let (a, b) = (engine(&gate, &store), engine(&gate, &store));

    let sent = call(
        &a,
        json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": "m1", "role": "user",
                        "parts": [{"kind": "text", "text": "go"}]},
            "configuration": {"blocking": false}}}),
    )
    .await;
    let task_id = sent["result"]["id"].as_str().unwrap().to_owned();

    // Instance B does not run the task: its cancel is a conditional write to the store.
    let canceled = call(
        &b,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/cancel", "params": {"id": task_id}}),
    )
    .await;
    assert_eq!(
        canceled["result"]["status"]["state"], "canceled",
        "{canceled}"
    );

    // Instance A's agent writes afterwards: its write conflicts, and it adopts the cancel.
    gate.notify_one();
    for _ in 0..200 {
        if a.running_tasks() == 0 {
            break;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(a.running_tasks(), 0, "instance A's runner ended");
    for engine in [&a, &b] {
        let got = call(
            engine,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"id": task_id}}),
        )
        .await;
        assert_eq!(got["result"]["status"]["state"], "canceled", "{got}");
        assert!(
            got["result"].get("artifacts").is_none(),
            "the late artifact was not written: {got}"
        );
    }
}
