//! What the engine tests share: an engine over a store, a store that counts its writes,
//! and a reader of streams (the agent that waits for a gate, `Gated`, is in
//! `a2a_test_support::agents`).

#![allow(dead_code, clippy::expect_used)]

use a2a_lambda_server::owner::Owner;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, Task};
use a2a_lambda_server::host::engine::{Engine, EngineConfig};
use a2a_lambda_server::tasks::{InMemoryTaskStore, SharedStored, StoreError, Stored, TaskStore};
use futures_util::{Stream, StreamExt as _};
use serde_json::Value;
use tokio::sync::Notify;

/// An engine for `agent` over `store`, under the spec's error profile.
pub fn engine(agent: impl a2a_lambda_server::IntoAgent, store: Arc<dyn TaskStore>) -> Engine {
    Engine::new(
        agent,
        store,
        EngineConfig {
            public_url: "http://127.0.0.1:9000/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
            background_work: true,
        },
    )
    .expect("a test engine builds")
}

/// An in-memory store that counts its writes, and hands each write's number (from 1) to
/// its hook before it writes (a test's hook may panic, say).
pub struct CountingStore {
    inner: InMemoryTaskStore,
    writes: AtomicUsize,
    hook: Box<dyn Fn(usize) + Send + Sync>,
    /// The next read answers only once this gate opens (what it read stays as read).
    held_read: std::sync::Mutex<Option<Arc<Notify>>>,
}

impl Default for CountingStore {
    fn default() -> Self {
        Self::with_hook(|_| ())
    }
}

impl CountingStore {
    pub fn with_hook(hook: impl Fn(usize) + Send + Sync + 'static) -> Self {
        Self {
            inner: InMemoryTaskStore::new(),
            writes: AtomicUsize::new(0),
            hook: Box::new(hook),
            held_read: std::sync::Mutex::new(None),
        }
    }

    /// Holds the next read of a task until the returned gate opens: the reader gets the
    /// task as it was when read, however it changed meanwhile.
    pub fn hold_next_read(&self) -> Arc<Notify> {
        let gate = Arc::new(Notify::new());
        *self.held_read.lock().expect("not poisoned") = Some(Arc::clone(&gate));
        gate
    }

    /// How many writes it was asked for.
    pub fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }

    fn count(&self) {
        (self.hook)(self.writes.fetch_add(1, Ordering::SeqCst) + 1);
    }
}

#[async_trait::async_trait]
impl TaskStore for CountingStore {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        self.inner.get(id).await
    }

    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.count();
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
        let read = self.inner.get_shared(id).await;
        let held = self.held_read.lock().expect("not poisoned").take();
        if let Some(gate) = held {
            gate.notified().await;
        }
        read
    }

    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.count();
        self.inner.put_shared(task, owner, expected).await
    }
}

/// The JSON of every event left in a stream, read until it ends; each event must come
/// within ten seconds.
pub async fn read_rest<S, B>(events: &mut S) -> Vec<Value>
where
    S: Stream<Item = B> + Unpin,
    B: AsRef<[u8]>,
{
    let mut read = Vec::new();
    while let Some(event) = tokio::time::timeout(std::time::Duration::from_secs(10), events.next())
        .await
        .expect("the stream goes on")
    {
        read.push(serde_json::from_slice(event.as_ref()).expect("an event is JSON"));
    }
    read
}

/// The JSON-RPC body of a refusal: a JSON reply, or a stream whose one event is the error
/// (how a v0.3 stream refused once its request was found valid is answered).
pub async fn refusal(reply: a2a_lambda_server::host::engine::Reply) -> Value {
    match reply {
        a2a_lambda_server::host::engine::Reply::Json { body, .. } => {
            serde_json::from_slice(&body).expect("the refusal is JSON")
        }
        a2a_lambda_server::host::engine::Reply::Stream(mut events) => {
            let read = read_rest(&mut events).await;
            let [event] = read.as_slice() else {
                panic!("expected a stream of one error event, got {read:?}");
            };
            assert!(event.get("error").is_some(), "{event}");
            event.clone()
        }
    }
}
