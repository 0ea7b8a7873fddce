//! A runner that stops before its task is settled (here: a task store that panics on a
//! write) does not leave its callers waiting: a blocking send and a stream are answered
//! -32603, the task stops counting as running, and the store marks it failed.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod common;

use a2a_core::engine::{CallContext, Engine, Reply};
use a2a_core::model::{ListTasksParams, ListTasksResult, Task};
use a2a_core::tasks::{InMemoryTaskStore, SharedStored, StoreError, Stored, TaskStore};
use common::Gated;
use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// An in-memory store whose second write panics.
#[derive(Default)]
struct PanicsOnSecondWrite {
    inner: InMemoryTaskStore,
    writes: AtomicUsize,
}

impl PanicsOnSecondWrite {
    fn count(&self) {
        let write = self.writes.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(write != 2, "the store's second write panics");
    }
}

#[async_trait::async_trait]
impl TaskStore for PanicsOnSecondWrite {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        self.inner.get(id).await
    }

    async fn put(&self, task: &Task, expected: Option<u64>) -> Result<u64, StoreError> {
        self.count();
        self.inner.put(task, expected).await
    }

    async fn list(&self, params: &ListTasksParams) -> Result<ListTasksResult, StoreError> {
        self.inner.list(params).await
    }

    async fn get_shared(&self, id: &str) -> Result<Option<SharedStored>, StoreError> {
        self.inner.get_shared(id).await
    }

    async fn put_shared(&self, task: &Arc<Task>, expected: Option<u64>) -> Result<u64, StoreError> {
        self.count();
        self.inner.put_shared(task, expected).await
    }
}

/// An engine over the Gated agent (working, then at the gate an artifact and completed)
/// and the panicking store: the opening write works, the one after the gate panics.
fn engine() -> (Engine, Arc<Notify>) {
    let gate = Arc::new(Notify::new());
    let store: Arc<dyn TaskStore> = Arc::new(PanicsOnSecondWrite::default());
    (
        common::engine(Arc::new(Gated(Arc::clone(&gate))), store),
        gate,
    )
}

fn message(method: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {
        "message": {"kind": "message", "messageId": "m1", "role": "user",
                    "parts": [{"kind": "text", "text": "go"}]}}})
}

async fn handle(engine: &Engine, body: &Value) -> Reply {
    engine
        .handle(body.to_string().as_bytes(), &CallContext::default())
        .await
}

fn json_of(reply: Reply) -> Value {
    let Reply::Json { body, .. } = reply else {
        panic!("expected JSON, got {reply:?}");
    };
    serde_json::from_slice(&body).unwrap()
}

/// The task's state in the store, once it is no longer `working`.
async fn settled_state(engine: &Engine, task_id: &str) -> Value {
    let get = json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": {"id": task_id}});
    let settled = async {
        loop {
            let task = json_of(handle(engine, &get).await);
            let state = task["result"]["status"]["state"].clone();
            if state != "working" {
                return state;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), settled)
        .await
        .expect("the task is settled in the store")
}

#[tokio::test]
async fn a_blocking_send_whose_runner_panics_is_answered_internal_error() {
    let (engine, gate) = engine();
    let send = message("message/send");
    let sending = handle(&engine, &send);
    let opening = async {
        while engine.running_tasks() == 0 {
            tokio::task::yield_now().await;
        }
        gate.notify_one();
    };
    let (answer, ()) = tokio::time::timeout(Duration::from_secs(5), async {
        tokio::join!(sending, opening)
    })
    .await
    .expect("the blocking send is answered");
    let answer = json_of(answer);
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(
        answer["error"]["message"], "Internal error",
        "no detail leaks: {answer}"
    );
    assert_eq!(
        engine.running_tasks(),
        0,
        "the task no longer counts as running"
    );
}

#[tokio::test]
async fn a_stream_whose_runner_panics_ends_with_internal_error_and_the_task_fails() {
    let (engine, gate) = engine();
    let Reply::Stream(mut events) = handle(&engine, &message("message/stream")).await else {
        panic!("message/stream answers a stream");
    };
    let first: Value = serde_json::from_slice(&events.next().await.unwrap()).unwrap();
    let task_id = first["result"]["id"].as_str().unwrap().to_owned();
    gate.notify_one();
    let mut rest = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(5), events.next())
        .await
        .expect("the stream ends")
    {
        rest.push(serde_json::from_slice::<Value>(&event).unwrap());
    }
    let last = rest.last().unwrap();
    assert_eq!(last["error"]["code"], -32603, "{rest:?}");
    assert_eq!(engine.running_tasks(), 0);
    assert_eq!(settled_state(&engine, &task_id).await, "failed");
}
