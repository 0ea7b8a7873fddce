//! A runner saves the agent's events in as few writes as it can: the events an agent has
//! already sent when the runner gets to them go to the store together, while streams
//! still receive every event, in order.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

mod common;

use a2a_lambda_core::model::TaskState;
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::tasks::TaskStore;
use a2a_test_support::agents::Gated;
use common::CountingStore;
use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::Notify;

fn engine(agent: impl a2a_lambda_server::IntoAgent, store: &Arc<CountingStore>) -> Engine {
    common::engine(agent, Arc::clone(store) as Arc<dyn TaskStore>)
}

fn send(method: &str, text: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {
        "message": {"kind": "message", "messageId": "m1", "role": "user",
                    "parts": [{"kind": "text", "text": text}]}}})
    .to_string()
    .into_bytes()
}

#[tokio::test]
async fn an_agent_that_answers_at_once_costs_one_write_and_never_shows_busy() {
    let store = Arc::new(CountingStore::default());
    let engine = engine(Arc::new(EchoAgent), &store);

    let Reply::Json { body, .. } = engine
        .handle(&send("message/send", "hi"), &CallContext::default())
        .await
    else {
        panic!("a send answers JSON");
    };
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["result"]["status"]["state"], "completed");
    assert_eq!(answer["result"]["artifacts"][0]["parts"][0]["text"], "hi");

    // Submitted, working, the artifact and completed: one write, holding all of it.
    assert_eq!(store.writes(), 1);
    let id = answer["result"]["id"].as_str().unwrap();
    let stored = store.get(id).await.unwrap().unwrap();
    assert_eq!(stored.version, 1);
    assert_eq!(stored.task.status.state, TaskState::Completed);
    assert_eq!(stored.task.artifacts.len(), 1);
    assert_eq!(stored.task.history.len(), 1);
    assert_eq!(engine.running_tasks(), 0);
    assert_eq!(
        serde_json::to_value(engine.health().ping()).unwrap()["status"],
        "Healthy"
    );
}

#[tokio::test]
async fn events_apart_in_time_are_written_apart_and_streamed_in_order() {
    let store = Arc::new(CountingStore::default());
    let gate = Arc::new(Notify::new());
    let engine = engine(Arc::new(Gated(Arc::clone(&gate))), &store);

    let Reply::Stream(mut stream) = engine
        .handle(&send("message/stream", "go"), &CallContext::default())
        .await
    else {
        panic!("a stream answers SSE");
    };
    let next = |item: Option<a2a_lambda_server::host::engine::StreamItem>| -> Value {
        serde_json::from_slice::<Value>(&item.expect("another event")).unwrap()["result"].clone()
    };
    let first = next(stream.next().await);
    assert_eq!(first["kind"], "task");
    let working = next(stream.next().await);
    assert_eq!(working["status"]["state"], "working");
    // The task runs: it shows, and its first write (submitted + working) is done.
    assert_eq!(engine.running_tasks(), 1);
    assert_eq!(store.writes(), 1);

    gate.notify_one();
    let artifact = next(stream.next().await);
    assert_eq!(artifact["kind"], "artifact-update");
    assert_eq!(artifact["artifact"]["parts"][0]["text"], "late");
    let completed = next(stream.next().await);
    assert_eq!(completed["status"]["state"], "completed");
    assert_eq!(completed["final"], true);
    assert!(
        stream.next().await.is_none(),
        "the stream ends at completed"
    );

    // The artifact and the completion came together: one more write.
    assert_eq!(store.writes(), 2);
    let stored = store
        .get(first["id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.task.status.state, TaskState::Completed);
}
