//! Following a task wherever it runs, and resuming a stream that was cut: every event has
//! an SSE id, a subscription on an instance where the task does not run reads the store's
//! event log (every event, in order, a bounded number of reads), and `Last-Event-ID`
//! resumes after the event it names, without a gap or a repeat.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, StreamEvent, Task};
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply, StreamItem};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{
    InMemoryTaskStore, Lease, SharedStored, Since, StoreError, Stored, TaskStore,
};
use a2a_test_support::agents::Ticker;
use futures_util::StreamExt as _;
use serde_json::{Value, json};

const CHUNKS: usize = 5;
const GAP: Duration = Duration::from_millis(120);

/// Works, then sends `CHUNKS` chunks of one artifact `GAP` apart, then completes.
const TICKER: Ticker = Ticker {
    chunks: CHUNKS,
    gap: GAP,
    done: Some("done"),
};

/// An in-memory store that says other processes write it too (as a DynamoDB table shared
/// by instances), and counts its reads of a task's log.
#[derive(Default)]
struct Shared {
    inner: InMemoryTaskStore,
    since: AtomicUsize,
}

#[async_trait::async_trait]
impl TaskStore for Shared {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        self.inner.get(id).await
    }
    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.inner.put(task, owner, expected).await
    }
    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError> {
        self.inner.list(params, owner).await
    }
    async fn get_shared(&self, id: &str) -> Result<Option<SharedStored>, StoreError> {
        self.inner.get_shared(id).await
    }
    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.inner.put_shared(task, owner, expected).await
    }
    async fn put_logged(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
        events: &[StreamEvent],
        lease: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        self.inner
            .put_logged(task, owner, expected, events, lease)
            .await
    }
    async fn since(&self, id: &str, version: u64) -> Result<Option<Since>, StoreError> {
        self.since.fetch_add(1, Ordering::SeqCst);
        self.inner.since(id, version).await
    }
    fn is_shared(&self) -> bool {
        true
    }
}

fn call(version: Option<&str>, last_event_id: Option<String>) -> CallContext {
    CallContext {
        version_header: version.map(str::to_owned),
        request_id: "test".to_owned(),
        last_event_id,
        ..CallContext::default()
    }
}

async fn json(engine: &Engine, body: Value) -> Value {
    match engine
        .handle(body.to_string().as_bytes(), &call(Some("1.0"), None))
        .await
    {
        Reply::Json { body, .. } => serde_json::from_slice(&body).unwrap(),
        other => panic!("expected JSON, got {other:?}"),
    }
}

/// Every item of a stream reply, until it ends (each within ten seconds).
async fn items(reply: Reply) -> Vec<StreamItem> {
    let Reply::Stream(mut stream) = reply else {
        panic!("expected a stream, got {reply:?}");
    };
    let mut read = Vec::new();
    while let Some(item) = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("the stream goes on")
    {
        read.push(item);
    }
    read
}

fn result(item: &StreamItem) -> Value {
    let value: Value = serde_json::from_slice(&item.json).unwrap();
    value["result"].clone()
}

/// What a v1.0 stream told, without ids or timestamps: kind, state or chunk.
fn told(items: &[StreamItem]) -> Vec<String> {
    items
        .iter()
        .map(|item| {
            let result = result(item);
            if let Some(task) = result.get("task") {
                format!("task {}", task["status"]["state"].as_str().unwrap())
            } else if let Some(status) = result.get("statusUpdate") {
                format!("status {}", status["status"]["state"].as_str().unwrap())
            } else if let Some(artifact) = result.get("artifactUpdate") {
                format!(
                    "chunk {} append={}",
                    artifact["artifact"]["parts"][0]["text"].as_str().unwrap(),
                    artifact["append"].as_bool().unwrap_or(false)
                )
            } else {
                format!("other {result}")
            }
        })
        .collect()
}

fn send(text: &str, stream: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": 1,
        "method": if stream { "SendStreamingMessage" } else { "SendMessage" },
        "params": {
            "message": {"messageId": format!("m-{text}"), "role": "ROLE_USER",
                        "parts": [{"text": text}]},
            "configuration": {"returnImmediately": true}}})
}

fn subscribe(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": task_id}})
}

fn expected_updates() -> Vec<String> {
    let mut told = vec!["status TASK_STATE_WORKING".to_owned()];
    for index in 0..CHUNKS {
        told.push(format!("chunk tick {index}  append={}", index > 0));
    }
    told.push("status TASK_STATE_COMPLETED".to_owned());
    told
}

#[tokio::test]
async fn a_subscription_on_another_instance_sees_every_event_in_order() {
    let store = Arc::new(Shared::default());
    let a = common::engine(Arc::new(TICKER), Arc::clone(&store) as Arc<dyn TaskStore>);
    let b = common::engine(Arc::new(TICKER), Arc::clone(&store) as Arc<dyn TaskStore>);

    let sent = json(&a, send("go", false)).await;
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let started = Instant::now();
    let reply = b
        .handle(
            subscribe(&task_id).to_string().as_bytes(),
            &call(Some("1.0"), None),
        )
        .await;
    let read = items(reply).await;
    let elapsed = started.elapsed();

    let told = told(&read);
    // The task as B read it first, then every update A's agent made after that read, in
    // order: each chunk on its own, none coalesced, and the stream ends at the end.
    assert!(told[0].starts_with("task "), "{told:?}");
    let updates = expected_updates();
    let rest = &told[1..];
    assert!(updates.ends_with(rest) && rest.len() > CHUNKS, "{told:?}");
    // Every event has an id naming its place, strictly increasing.
    let ids: Vec<&str> = read
        .iter()
        .map(|item| item.id.as_deref().unwrap())
        .collect();
    assert!(
        ids.iter().all(|id| id.starts_with(&format!("{task_id}:"))),
        "{ids:?}"
    );
    let places: Vec<(u64, u32)> = ids
        .iter()
        .map(|id| {
            let place = id.rsplit_once(':').unwrap().1;
            match place.split_once('.') {
                Some((version, n)) => (version.parse().unwrap(), n.parse().unwrap()),
                None => (place.parse().unwrap(), u32::MAX),
            }
        })
        .collect();
    assert!(places.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");

    // A few reads a second at most: one per quarter second while events flow.
    let reads = store.since.load(Ordering::SeqCst);
    let bound = (elapsed.as_secs_f64() * 4.0).ceil() as usize + 2;
    assert!(
        reads >= 2 && reads <= bound,
        "{reads} reads in {elapsed:?} (bound {bound})"
    );
}

#[tokio::test]
async fn a_cut_stream_resumes_after_its_last_event_without_a_gap_or_a_repeat() {
    for shared in [false, true] {
        let store: Arc<dyn TaskStore> = if shared {
            Arc::new(Shared::default())
        } else {
            Arc::new(InMemoryTaskStore::new())
        };
        let engine = common::engine(Arc::new(TICKER), Arc::clone(&store));
        let reply = engine
            .handle(
                send("go", true).to_string().as_bytes(),
                &call(Some("1.0"), None),
            )
            .await;
        let Reply::Stream(mut stream) = reply else {
            panic!("expected a stream");
        };
        // The client reads the task and two updates, then its connection is cut.
        let mut before = Vec::new();
        for _ in 0..3 {
            before.push(stream.next().await.expect("an event"));
        }
        drop(stream);
        let task_id = result(&before[0])["task"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let last = before[2].id.clone().expect("an id");

        let resumed = items(
            engine
                .handle(
                    subscribe(&task_id).to_string().as_bytes(),
                    &call(Some("1.0"), Some(last)),
                )
                .await,
        )
        .await;
        let mut all = told(&before);
        all.extend(told(&resumed));
        let mut expected = vec!["task TASK_STATE_SUBMITTED".to_owned()];
        expected.extend(expected_updates());
        assert_eq!(all, expected, "shared store: {shared}");
    }
}

#[tokio::test]
async fn a_finished_task_resumes_with_what_was_missed_then_ends() {
    let engine = common::engine(Arc::new(TICKER), Arc::new(InMemoryTaskStore::new()));
    let full = items(
        engine
            .handle(
                send("go", true).to_string().as_bytes(),
                &call(Some("1.0"), None),
            )
            .await,
    )
    .await;
    assert_eq!(full.len(), CHUNKS + 3, "{:?}", told(&full));
    let task_id = result(&full[0])["task"]["id"].as_str().unwrap().to_owned();
    let resume = |index: usize| {
        let last = full[index].id.clone().unwrap();
        let body = subscribe(&task_id).to_string();
        let engine = &engine;
        async move {
            items(
                engine
                    .handle(body.as_bytes(), &call(Some("1.0"), Some(last)))
                    .await,
            )
            .await
        }
    };
    // Cut before the last chunk: the rest, as first sent (ids and results).
    let rest = resume(CHUNKS - 1).await;
    let sent = |items: &[StreamItem]| -> Vec<(Option<String>, Value)> {
        items
            .iter()
            .map(|item| (item.id.clone(), result(item)))
            .collect()
    };
    assert_eq!(sent(&rest), sent(&full[CHUNKS..]));
    // Cut after the end: nothing more, and the stream closes.
    assert!(resume(full.len() - 1).await.is_empty());
    // Without an id, a finished task still has nothing to subscribe to.
    let refused = json(&engine, subscribe(&task_id)).await;
    assert_eq!(refused["error"]["code"], -32004, "{refused}");
}

#[tokio::test]
async fn an_id_of_another_task_or_not_ours_is_no_resume() {
    let engine = common::engine(Arc::new(TICKER), Arc::new(InMemoryTaskStore::new()));
    for last in ["other-task:3", "garbage", "{task}:x", "{task}:1.x"] {
        let sent = json(&engine, send("go", false)).await;
        let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
        let last = last.replace("{task}", &task_id);
        let last = last.as_str();
        let read = items(
            engine
                .handle(
                    subscribe(&task_id).to_string().as_bytes(),
                    &call(Some("1.0"), Some(last.to_owned())),
                )
                .await,
        )
        .await;
        let told = told(&read);
        assert!(told[0].starts_with("task "), "{last}: {told:?}");
        assert_eq!(
            told.last().unwrap(),
            "status TASK_STATE_COMPLETED",
            "{last}"
        );
    }
}
