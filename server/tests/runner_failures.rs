//! A runner that stops before its task is settled (here: a task store that panics on a
//! write) does not leave its callers waiting: a blocking send and a stream are answered
//! -32603, the task stops counting as running, and the store marks it failed.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

mod common;

use a2a_lambda_core::card::AgentCard;
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::tasks::TaskStore;
use a2a_test_support::agents::Gated;
use common::CountingStore;
use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// An in-memory store whose write number `panics_on` panics (counted from 1).
fn panics_on_write(panics_on: usize) -> Arc<dyn TaskStore> {
    Arc::new(CountingStore::with_hook(move |write| {
        assert!(write != panics_on, "the store's write {write} panics");
    }))
}

/// An engine over the Gated agent (working, then at the gate an artifact and completed)
/// and the panicking store: the opening write works, the one after the gate panics.
fn engine() -> (Engine, Arc<Notify>) {
    let gate = Arc::new(Notify::new());
    let store = panics_on_write(2);
    (
        common::engine(Arc::new(Gated(Arc::clone(&gate))), store),
        gate,
    )
}

fn message(method: &str) -> Value {
    follow_up(method, "go", None)
}

/// A message, continuing `task_id` when given.
fn follow_up(method: &str, text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({"kind": "message", "messageId": format!("m-{text}"),
                             "role": "user", "parts": [{"kind": "text", "text": text}]});
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"message": message}})
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
    let rest = common::read_rest(&mut events).await;
    let last = rest.last().unwrap();
    assert_eq!(last["error"]["code"], -32603, "{rest:?}");
    assert_eq!(engine.running_tasks(), 0);
    assert_eq!(settled_state(&engine, &task_id).await, "failed");
}

/// Asks for input and, still running, sends an artifact when `first` opens; a follow-up
/// works until `second` opens, then completes.
struct AsksAndLingers {
    first: Arc<Notify>,
    second: Arc<Notify>,
}

impl Agent for AsksAndLingers {
    fn card(&self) -> AgentCard {
        Gated(Arc::new(Notify::new())).card()
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        if context.previous.is_none() {
            events.ask("which one?").await?;
            self.first.notified().await;
            events
                .artifact(a2a_lambda_server::model::Artifact::text("late", "x"))
                .await?;
        } else {
            events.working().await?;
            self.second.notified().await;
            events.complete().await?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn an_earlier_runner_that_panics_leaves_the_follow_ups_stream_alone() {
    let (first, second) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let agent = AsksAndLingers {
        first: Arc::clone(&first),
        second: Arc::clone(&second),
    };
    // Writes: 1 the task asks for input, 2 the follow-up works, 3 the first runner's
    // late artifact: it panics.
    let store = panics_on_write(3);
    let engine = common::engine(Arc::new(agent), store);
    let asked = json_of(handle(&engine, &message("message/send")).await);
    assert_eq!(
        asked["result"]["status"]["state"], "input-required",
        "{asked}"
    );
    let task_id = asked["result"]["id"].as_str().unwrap().to_owned();
    let Reply::Stream(mut events) = handle(
        &engine,
        &follow_up("message/stream", "this one", Some(&task_id)),
    )
    .await
    else {
        panic!("message/stream answers a stream");
    };
    let opening: Value = serde_json::from_slice(&events.next().await.unwrap()).unwrap();
    assert_eq!(opening["result"]["id"], task_id.as_str());
    first.notify_one();
    // The first runner's write panics while the follow-up works.
    tokio::time::sleep(Duration::from_millis(50)).await;
    second.notify_one();
    let rest = common::read_rest(&mut events).await;
    assert!(
        rest.iter().all(|event| event.get("error").is_none()),
        "{rest:?}"
    );
    assert_eq!(
        rest.last().unwrap()["result"]["status"]["state"],
        "completed",
        "{rest:?}"
    );
    assert_eq!(settled_state(&engine, &task_id).await, "completed");
    assert_eq!(engine.running_tasks(), 0);
}
