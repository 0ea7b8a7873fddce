//! Each stream has its own queue of the task's updates: a burst of events faster than the
//! scheduler runs the stream reaches it whole, and only a stream that stops reading is
//! cut off, with an error that asks it to resubscribe.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

mod common;

use a2a_lambda_core::card::AgentCard;
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use a2a_test_support::agents::Gated;
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// Says it works, waits for its gate if it has one, then sends `events` artifact updates
/// (`a0`, `a1`, …) one after the other, and completes.
struct Burst {
    events: usize,
    gate: Option<Arc<Notify>>,
}

impl Agent for Burst {
    fn card(&self) -> AgentCard {
        Gated(Arc::new(Notify::new())).card()
    }

    async fn execute(&self, _: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        if let Some(gate) = &self.gate {
            gate.notified().await;
        }
        for index in 0..self.events {
            events
                .artifact(a2a_lambda_server::model::Artifact::text(
                    format!("a{index}"),
                    "x",
                ))
                .await?;
        }
        events.complete().await?;
        Ok(())
    }
}

fn engine(events: usize) -> Engine {
    gated_engine(events, None)
}

fn gated_engine(events: usize, gate: Option<Arc<Notify>>) -> Engine {
    let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
    common::engine(Arc::new(Burst { events, gate }), store)
}

async fn call(engine: &Engine, body: &Value) -> Reply {
    engine
        .handle(body.to_string().as_bytes(), &CallContext::default())
        .await
}

async fn stream(engine: &Engine) -> BoxStream<'static, Vec<u8>> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {
        "message": {"kind": "message", "messageId": "m1", "role": "user",
                    "parts": [{"kind": "text", "text": "go"}]}}});
    match call(engine, &body).await {
        Reply::Stream(events) => events.map(|event| event.to_vec()).boxed(),
        _ => panic!("message/stream answers a stream"),
    }
}

/// Every event of a stream, read until it ends.
async fn read_all(mut events: BoxStream<'static, Vec<u8>>) -> Vec<Value> {
    common::read_rest(&mut events).await
}

fn artifact_ids(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|event| event["result"]["kind"] == "artifact-update")
        .map(|event| {
            event["result"]["artifact"]["artifactId"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn expected_ids(count: usize) -> Vec<String> {
    (0..count).map(|index| format!("a{index}")).collect()
}

async fn a_burst_reaches_the_stream_whole() {
    const EVENTS: usize = 500;
    let engine = engine(EVENTS);
    let events = read_all(stream(&engine).await).await;
    assert!(
        events.iter().all(|event| event.get("error").is_none()),
        "no error in {events:?}"
    );
    assert_eq!(artifact_ids(&events), expected_ids(EVENTS));
    let last = events.last().unwrap();
    assert_eq!(last["result"]["kind"], "status-update");
    assert_eq!(last["result"]["status"]["state"], "completed");
    assert_eq!(last["result"]["final"], true);
}

#[tokio::test(flavor = "current_thread")]
async fn a_burst_of_events_reaches_a_stream_on_one_thread() {
    a_burst_reaches_the_stream_whole().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_events_reaches_a_stream_on_two_threads() {
    a_burst_reaches_the_stream_whole().await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_stream_and_a_subscription_of_one_task_each_get_the_whole_burst() {
    const EVENTS: usize = 300;
    let gate = Arc::new(Notify::new());
    let engine = gated_engine(EVENTS, Some(Arc::clone(&gate)));
    let mut sent = stream(&engine).await;
    let first: Value = serde_json::from_slice(&sent.next().await.unwrap()).unwrap();
    let task_id = first["result"]["id"].as_str().unwrap().to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/resubscribe",
                      "params": {"id": task_id}});
    let Reply::Stream(subscribed) = call(&engine, &body).await else {
        panic!("tasks/resubscribe of a running task answers a stream");
    };
    gate.notify_one();
    let subscribed = subscribed.map(|event| event.to_vec()).boxed();
    let (sent, subscribed) = tokio::join!(read_all(sent), read_all(subscribed));
    for events in [&sent, &subscribed] {
        assert!(events.iter().all(|event| event.get("error").is_none()));
        assert_eq!(artifact_ids(events), expected_ids(EVENTS));
        assert_eq!(
            events.last().unwrap()["result"]["status"]["state"],
            "completed"
        );
    }
}

#[tokio::test]
async fn a_stream_that_stops_reading_is_cut_off_after_its_queue() {
    // More updates than a follower's queue holds (1,024): working, the artifacts, completed.
    const EVENTS: usize = 1100;
    let engine = engine(EVENTS);
    let mut unread = stream(&engine).await;
    // The first event (the task) is ready at once; then nothing is read until the task ends.
    let first: Value = serde_json::from_slice(&unread.next().await.unwrap()).unwrap();
    let task_id = first["result"]["id"].as_str().unwrap().to_owned();
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get",
                     "params": {"id": task_id, "historyLength": 0}});
    let ended = async {
        loop {
            let Reply::Json { body: answer, .. } = call(&engine, &get).await else {
                panic!("tasks/get answers JSON");
            };
            let answer: Value = serde_json::from_slice(&answer).unwrap();
            if answer["result"]["status"]["state"] == "completed" {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let task = tokio::time::timeout(Duration::from_secs(10), ended)
        .await
        .expect("the agent finishes although its stream does not read");
    assert_eq!(
        task["result"]["artifacts"].as_array().unwrap().len(),
        EVENTS
    );

    let events = read_all(unread).await;
    let (error, updates) = events.split_last().unwrap();
    assert_eq!(updates.len(), 1024, "what the queue held is still read");
    assert!(updates.iter().all(|event| event.get("error").is_none()));
    // In order, from the first: the working status, then the artifacts.
    assert_eq!(updates[0]["result"]["status"]["state"], "working");
    assert_eq!(artifact_ids(updates), expected_ids(1023));
    assert_eq!(error["error"]["code"], -32603);
    assert_eq!(
        error["error"]["message"],
        "Internal error: the stream fell more than 1024 events behind; resubscribe"
    );
}
