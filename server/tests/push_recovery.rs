//! A notification the instance that made a change did not get to deliver (it stopped) is
//! delivered by the next request that touches the task, on a store other instances share;
//! once, and never for a task whose change is recent or already told.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, PushNotificationConfig, Task};
use a2a_lambda_core::version::ProtocolVersion;
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::push::delivery::{DeliveryPolicy, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use a2a_lambda_server::push::{InMemoryPushConfigs, Push, PushConfigStore, StoredConfig};
use a2a_lambda_server::tasks::{InMemoryTaskStore, StoreError, Stored, TaskStore};
use axum::routing::post;
use serde_json::{Value, json};

/// The in-memory store, saying it is shared (as a DynamoDB table is).
struct Shared(InMemoryTaskStore);

#[async_trait::async_trait]
impl TaskStore for Shared {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        self.0.get(id).await
    }
    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.0.put(task, owner, expected).await
    }
    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError> {
        self.0.list(params, owner).await
    }
    fn is_shared(&self) -> bool {
        true
    }
}

type Got = Arc<Mutex<Vec<Value>>>;

async fn receiver() -> (String, Got) {
    let got: Got = Arc::default();
    let kept = Arc::clone(&got);
    let app = axum::Router::new().route(
        "/hook",
        post(move |body: axum::body::Bytes| {
            let kept = Arc::clone(&kept);
            async move {
                kept.lock()
                    .unwrap()
                    .push(serde_json::from_slice(&body).unwrap());
                ""
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, got)
}

fn engine(store: Arc<dyn TaskStore>, configs: Arc<InMemoryPushConfigs>, grace: Duration) -> Engine {
    let webhooks = Webhooks::new(TargetPolicy::Loopback, DeliveryPolicy::default()).unwrap();
    common::engine(Arc::new(EchoAgent), store)
        .with_push(Push::new(configs, webhooks).recovery_grace(grace))
}

fn v1() -> CallContext {
    CallContext {
        version_header: Some("1.0".into()),
        request_id: "r".into(),
        ..CallContext::default()
    }
}

async fn call(engine: &Engine, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    match engine.handle(body.to_string().as_bytes(), &v1()).await {
        Reply::Json { body, .. } => serde_json::from_slice(&body).unwrap(),
        other => panic!("{other:?}"),
    }
}

/// A completed task, and a config of it that was never told of the change: what an
/// instance that stopped before its delivery leaves behind.
async fn left_behind(
    store: Arc<dyn TaskStore>,
    configs: &InMemoryPushConfigs,
    url: &str,
) -> String {
    let before = common::engine(Arc::new(EchoAgent), store);
    let sent = call(
        &before,
        "SendMessage",
        json!({"message": {"role": "ROLE_USER", "messageId": "m-1", "parts": [{"text": "hi"}]}}),
    )
    .await;
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    configs
        .put_config(
            &task_id,
            StoredConfig {
                config: PushNotificationConfig {
                    id: Some("c".into()),
                    url: url.to_owned(),
                    token: None,
                    authentication: None,
                },
                version: ProtocolVersion::V1_0,
                mark: None,
            },
        )
        .await
        .unwrap();
    task_id
}

#[tokio::test]
async fn the_next_touch_delivers_a_change_nobody_told_once() {
    let (url, got) = receiver().await;
    let store: Arc<dyn TaskStore> = Arc::new(Shared(InMemoryTaskStore::new()));
    let configs = Arc::new(InMemoryPushConfigs::new());
    let task_id = left_behind(Arc::clone(&store), &configs, &url).await;
    let after = engine(Arc::clone(&store), Arc::clone(&configs), Duration::ZERO);
    let got_task = call(&after, "GetTask", json!({"id": task_id})).await;
    assert_eq!(
        got_task["result"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    after.idle().await;
    {
        let got = got.lock().unwrap();
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0]["task"]["id"], json!(task_id));
        assert_eq!(got[0]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    }
    // Told now: another touch delivers nothing.
    call(&after, "GetTask", json!({"id": task_id})).await;
    after.idle().await;
    assert_eq!(got.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_recent_change_is_left_to_the_instance_that_made_it() {
    let (url, got) = receiver().await;
    let store: Arc<dyn TaskStore> = Arc::new(Shared(InMemoryTaskStore::new()));
    let configs = Arc::new(InMemoryPushConfigs::new());
    let task_id = left_behind(Arc::clone(&store), &configs, &url).await;
    let after = engine(store, configs, Duration::from_secs(120));
    call(&after, "GetTask", json!({"id": task_id})).await;
    after.idle().await;
    assert!(got.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_store_of_one_process_never_recovers() {
    let (url, got) = receiver().await;
    let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
    let configs = Arc::new(InMemoryPushConfigs::new());
    let task_id = left_behind(Arc::clone(&store), &configs, &url).await;
    let after = engine(store, configs, Duration::ZERO);
    call(&after, "GetTask", json!({"id": task_id})).await;
    after.idle().await;
    assert!(got.lock().unwrap().is_empty());
}
