//! The DynamoDB task store against moto's DynamoDB-compatible server (started by
//! [`a2a_test_support::moto`]; `make moto` installs it, and without it these tests fail, saying so).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_server::owner::Owner;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::model::{
    Artifact, ListTasksParams, Message, Part, Role, Task, TaskState, TaskStatus,
};
use a2a_lambda_dynamodb::{DEFAULT_RETENTION, DynamoSettings, DynamoTaskStore};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::Engine;
use a2a_lambda_server::tasks::{InMemoryTaskStore, StoreError, TaskStore};
use a2a_test_support::dynamo::{client, create_table, store};
use a2a_test_support::lambda::engine_on;
use a2a_test_support::lambda::rpc;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Tables and stores

async fn raw_item(settings: &DynamoSettings, id: &str) -> HashMap<String, AttributeValue> {
    client(settings)
        .get_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S(id.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .expect("the item exists")
}

fn s<'a>(item: &'a HashMap<String, AttributeValue>, name: &str) -> &'a str {
    item.get(name).unwrap().as_s().unwrap()
}

fn n(item: &HashMap<String, AttributeValue>, name: &str) -> i64 {
    item.get(name).unwrap().as_n().unwrap().parse().unwrap()
}

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

fn task(id: &str, context: &str, state: TaskState, timestamp: &str) -> Task {
    Task {
        id: id.to_owned(),
        context_id: context.to_owned(),
        status: TaskStatus {
            state,
            message: None,
            timestamp: Some(timestamp.to_owned()),
        },
        artifacts: Vec::new(),
        history: vec![
            Message::text(Role::User, format!("{id}-m1"), "first"),
            Message::text(Role::Agent, format!("{id}-m2"), "second"),
            Message::text(Role::User, format!("{id}-m3"), "third"),
        ],
        metadata: None,
    }
}

fn artifact(id: &str, text: &str) -> Artifact {
    Artifact {
        artifact_id: id.to_owned(),
        name: Some(format!("{id} name")),
        description: None,
        parts: vec![Part::text(text)],
        metadata: None,
        extensions: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------
// The store

#[tokio::test]
async fn create_get_update_and_expiry() {
    let settings = create_table("create-get-update").await;
    let store = store(&settings);
    assert!(store.get("nope").await.unwrap().is_none());

    let mut first = task(
        "t-1",
        "ctx-1",
        TaskState::Submitted,
        "2026-01-02T03:04:05.678Z",
    );
    first.status.message = Some(Message::text(Role::Agent, "s-1", "on it"));
    first.artifacts.push(artifact("a-1", "hello"));
    first.metadata = Some(
        json!({"origin": "test", "n": 1})
            .as_object()
            .unwrap()
            .clone(),
    );
    assert_eq!(
        store.put(&first, &Owner::anonymous(), None).await.unwrap(),
        1
    );
    let stored = store.get("t-1").await.unwrap().unwrap();
    assert_eq!(stored.version, 1);
    assert_eq!(stored.task, first, "the task reads back as written");

    // A second create, or a write naming another version, is a conflict.
    assert!(matches!(
        store.put(&first, &Owner::anonymous(), None).await,
        Err(StoreError::Conflict(id)) if id == "t-1"
    ));
    assert!(matches!(
        store.put(&first, &Owner::anonymous(), Some(7)).await,
        Err(StoreError::Conflict(_))
    ));

    let mut second = first.clone();
    second.status = TaskStatus {
        state: TaskState::Working,
        message: None,
        timestamp: Some("2026-01-02T05:04:06.5+02:00".to_owned()),
    };
    assert_eq!(
        store
            .put(&second, &Owner::anonymous(), Some(1))
            .await
            .unwrap(),
        2
    );
    let stored = store.get("t-1").await.unwrap().unwrap();
    assert_eq!((stored.version, &stored.task), (2, &second));

    // The item is readable A2A, with the index attributes and the expiry.
    let item = raw_item(&settings, "t-1").await;
    assert_eq!(s(&item, "contextId"), "ctx-1");
    assert_eq!(s(&item, "state"), "TASK_STATE_WORKING");
    assert_eq!(s(&item, "statusTimestamp"), "2026-01-02T03:04:06.500Z");
    assert_eq!(n(&item, "version"), 2);
    let body: Value = serde_json::from_str(s(&item, "task")).unwrap();
    assert_eq!(body["id"], "t-1");
    assert_eq!(body["contextId"], "ctx-1");
    assert_eq!(body["status"]["state"], "TASK_STATE_WORKING");
    assert_eq!(body["artifacts"][0]["parts"][0]["text"], "hello");
    assert_eq!(body["history"][1]["role"], "ROLE_AGENT");
    let retention = i64::try_from(DEFAULT_RETENTION.as_secs()).unwrap();
    let expires = n(&item, "expiresAt");
    assert!(
        (now() + retention - 60..=now() + retention).contains(&expires),
        "expiresAt {expires} is now + 7 days"
    );

    // The retention is configurable.
    let short = DynamoSettings {
        retention: Duration::from_secs(86_400),
        ..settings.clone()
    };
    DynamoTaskStore::with_client(client(&short), &short)
        .put(
            &task("t-2", "ctx-1", TaskState::Working, "2026-01-02T03:04:05Z"),
            &Owner::anonymous(),
            None,
        )
        .await
        .unwrap();
    let expires = n(&raw_item(&settings, "t-2").await, "expiresAt");
    assert!(
        (now() + 86_400 - 60..=now() + 86_400).contains(&expires),
        "{expires}"
    );

    // An expired task is gone, even before time to live deletes it.
    client(&settings)
        .update_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S("t-2".into()))
        .update_expression("SET expiresAt = :past")
        .expression_attribute_values(":past", AttributeValue::N((now() - 10).to_string()))
        .send()
        .await
        .unwrap();
    assert!(store.get("t-2").await.unwrap().is_none());
    for context_id in [None, Some("ctx-1".to_owned())] {
        let listed = store
            .list(
                &ListTasksParams {
                    context_id,
                    ..ListTasksParams::default()
                },
                &Owner::anonymous(),
            )
            .await
            .unwrap();
        let ids: Vec<&str> = listed.tasks.iter().map(|task| task.id.as_str()).collect();
        assert_eq!((ids, listed.total_size), (vec!["t-1"], 1));
    }
}

/// Lists every page of `params` (following the tokens) from a store.
async fn pages(
    store: &dyn TaskStore,
    params: &ListTasksParams,
) -> Vec<a2a_lambda_core::model::ListTasksResult> {
    let mut pages = Vec::new();
    let mut params = params.clone();
    loop {
        let page = store.list(&params, &Owner::anonymous()).await.unwrap();
        let next = page.next_page_token.clone();
        pages.push(page);
        if next.is_empty() {
            return pages;
        }
        assert!(pages.len() < 20, "paging ends");
        params.page_token = Some(next);
    }
}

#[tokio::test]
async fn list_matches_the_in_memory_store() {
    let settings = create_table("list").await;
    let dynamo = store(&settings);
    let memory = InMemoryTaskStore::new();
    let mut tasks = vec![
        task(
            "a-1",
            "ctx-a",
            TaskState::Completed,
            "2026-03-01T09:00:00.000Z",
        ),
        task(
            "a-2",
            "ctx-a",
            TaskState::InputRequired,
            "2026-03-01T11:00:00.000Z",
        ),
        task(
            "a-3",
            "ctx-a",
            TaskState::Completed,
            "2026-03-01T12:00:00.000+02:00",
        ),
        task(
            "a-4",
            "ctx-a",
            TaskState::Working,
            "2026-03-01T11:00:00.000Z",
        ),
        task(
            "b-1",
            "ctx-b",
            TaskState::Completed,
            "2026-03-01T08:00:00.000Z",
        ),
        task(
            "b-2",
            "ctx-b",
            TaskState::Canceled,
            "2026-03-01T13:30:00.250Z",
        ),
        task(
            "b-3",
            "ctx-b",
            TaskState::Completed,
            "2026-03-01T10:00:00.000Z",
        ),
    ];
    tasks[0].artifacts.push(artifact("x", "one"));
    tasks[5].artifacts.push(artifact("y", "two"));
    for task in &tasks {
        dynamo.put(task, &Owner::anonymous(), None).await.unwrap();
        memory.put(task, &Owner::anonymous(), None).await.unwrap();
    }

    let newest_first = dynamo
        .list(&ListTasksParams::default(), &Owner::anonymous())
        .await
        .unwrap();
    let ids: Vec<&str> = newest_first
        .tasks
        .iter()
        .map(|task| task.id.as_str())
        .collect();
    assert_eq!(ids, ["b-2", "a-2", "a-4", "a-3", "b-3", "a-1", "b-1"]);
    assert_eq!(newest_first.total_size, 7);
    assert!(
        newest_first
            .tasks
            .iter()
            .all(|task| task.artifacts.is_empty())
    );

    let param_sets = [
        ListTasksParams::default(),
        ListTasksParams {
            context_id: Some("ctx-a".into()),
            ..ListTasksParams::default()
        },
        ListTasksParams {
            context_id: Some("ctx-b".into()),
            status: Some(TaskState::Completed),
            ..ListTasksParams::default()
        },
        ListTasksParams {
            status: Some(TaskState::Completed),
            include_artifacts: true,
            ..ListTasksParams::default()
        },
        ListTasksParams {
            status_timestamp_after: Some("2026-03-01T10:00:00Z".into()),
            ..ListTasksParams::default()
        },
        ListTasksParams {
            context_id: Some("ctx-a".into()),
            status_timestamp_after: Some("2026-03-01T12:00:00.000+01:00".into()),
            ..ListTasksParams::default()
        },
        ListTasksParams {
            page_size: Some(2),
            history_length: Some(1),
            include_artifacts: true,
            ..ListTasksParams::default()
        },
        ListTasksParams {
            context_id: Some("ctx-a".into()),
            page_size: Some(3),
            history_length: Some(0),
            ..ListTasksParams::default()
        },
        ListTasksParams {
            context_id: Some("ctx-none".into()),
            ..ListTasksParams::default()
        },
    ];
    for params in &param_sets {
        let expected = pages(&memory, params).await;
        let actual = pages(&dynamo, params).await;
        assert_eq!(actual, expected, "{params:?}");
    }
    let paged = pages(&dynamo, &param_sets[6]).await;
    assert_eq!(paged.len(), 4, "7 tasks in pages of 2");
    assert!(paged.iter().all(|page| page.total_size == 7));
    assert_eq!(paged[0].tasks[0].history.len(), 1);

    let bad = dynamo
        .list(
            &ListTasksParams {
                page_token: Some("not-a-token".into()),
                ..ListTasksParams::default()
            },
            &Owner::anonymous(),
        )
        .await;
    assert!(matches!(bad, Err(StoreError::BadPageToken(token)) if token == "not-a-token"));
}

#[tokio::test]
async fn two_stores_never_lose_an_update() {
    let settings = create_table("conflicts").await;
    let (one, two) = (store(&settings), store(&settings));
    one.put(
        &task("t", "ctx", TaskState::Working, "2026-01-01T00:00:00Z"),
        &Owner::anonymous(),
        None,
    )
    .await
    .unwrap();

    // Both read version 1; the second writer is refused, reads again and keeps both.
    let first = one.get("t").await.unwrap().unwrap();
    let stale = two.get("t").await.unwrap().unwrap();
    let mut changed = first.task.clone();
    changed.artifacts.push(artifact("from-one", "1"));
    assert_eq!(
        one.put(&changed, &Owner::anonymous(), Some(first.version))
            .await
            .unwrap(),
        2
    );
    let mut late = stale.task.clone();
    late.artifacts.push(artifact("from-two", "2"));
    assert!(matches!(
        two.put(&late, &Owner::anonymous(), Some(stale.version)).await,
        Err(StoreError::Conflict(id)) if id == "t"
    ));
    let fresh = two.get("t").await.unwrap().unwrap();
    let mut merged = fresh.task.clone();
    merged.artifacts.push(artifact("from-two", "2"));
    assert_eq!(
        two.put(&merged, &Owner::anonymous(), Some(fresh.version))
            .await
            .unwrap(),
        3
    );
    let ids: Vec<String> = one
        .get("t")
        .await
        .unwrap()
        .unwrap()
        .task
        .artifacts
        .into_iter()
        .map(|artifact| artifact.artifact_id)
        .collect();
    assert_eq!(ids, ["from-one", "from-two"]);

    // Concurrent read-modify-write loops through both stores: every change lands.
    let stores = [Arc::new(one), Arc::new(two)];
    let writers: Vec<_> = (0..8)
        .map(|n| {
            let store = Arc::clone(&stores[n % 2]);
            tokio::spawn(async move {
                let mut conflicts = 0;
                loop {
                    let stored = store.get("t").await.unwrap().unwrap();
                    let mut task = stored.task;
                    task.history
                        .push(Message::text(Role::User, format!("w-{n}"), "concurrent"));
                    match store
                        .put(&task, &Owner::anonymous(), Some(stored.version))
                        .await
                    {
                        Ok(_) => return conflicts,
                        Err(StoreError::Conflict(_)) => conflicts += 1,
                        Err(error) => panic!("{error}"),
                    }
                    assert!(conflicts < 50, "writer {n} starves");
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
    let last = stores[0].get("t").await.unwrap().unwrap();
    assert_eq!(last.version, 3 + 8);
    let mut written: Vec<String> = last
        .task
        .history
        .iter()
        .filter(|message| message.message_id.starts_with("w-"))
        .map(|message| message.message_id.clone())
        .collect();
    written.sort();
    assert_eq!(
        written,
        (0..8).map(|n| format!("w-{n}")).collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------------------------------
// Two instances of the function on one table

fn engine(settings: &DynamoSettings) -> Engine {
    engine_on(BuiltIn::Conformance, Arc::new(store(settings)))
}

fn send(message_id: &str, text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({
        "kind": "message", "messageId": message_id, "role": "user",
        "parts": [{"kind": "text", "text": text}],
    });
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}})
}

fn get(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}})
}

#[tokio::test]
async fn a_task_started_on_one_instance_is_seen_and_continued_on_another() {
    let settings = create_table("instances").await;
    let (a, b) = (engine(&settings), engine(&settings));

    // message/send on A, tasks/get on B.
    let sent = rpc(&a, None, send("tck-complete-task-1", "hi", None)).await;
    assert_eq!(sent["result"]["status"]["state"], "completed", "{sent}");
    let id = sent["result"]["id"].as_str().unwrap();
    let got = rpc(&b, None, get(id)).await;
    assert_eq!(got["result"], sent["result"], "B answers what A stored");

    // A multi-turn task opened on A, continued on B, read back on A.
    let opened = rpc(&a, None, send("m-1", "hello", None)).await;
    assert_eq!(
        opened["result"]["status"]["state"], "input-required",
        "{opened}"
    );
    let id = opened["result"]["id"].as_str().unwrap();
    let context = opened["result"]["contextId"].as_str().unwrap();
    let done = rpc(&b, None, send("m-2", "done", Some(id))).await;
    assert_eq!(done["result"]["status"]["state"], "completed", "{done}");
    let seen = rpc(&a, None, get(id)).await;
    assert_eq!(seen["result"]["status"]["state"], "completed");
    assert_eq!(
        seen["result"]["history"].as_array().unwrap().len(),
        done["result"]["history"].as_array().unwrap().len()
    );

    // ListTasks on B finds A's task by its context.
    let listed = rpc(
        &b,
        Some("1.0"),
        json!({"jsonrpc": "2.0", "id": 3, "method": "ListTasks", "params": {"contextId": context}}),
    )
    .await;
    assert_eq!(listed["result"]["totalSize"], 1, "{listed}");
    assert_eq!(listed["result"]["tasks"][0]["id"], id);
    assert_eq!(
        listed["result"]["tasks"][0]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn a_task_is_canceled_from_another_instance() {
    let settings = create_table("cancel").await;
    let (a, b) = (engine(&settings), engine(&settings));
    let opened = rpc(&a, None, send("m-1", "hello", None)).await;
    assert_eq!(
        opened["result"]["status"]["state"], "input-required",
        "{opened}"
    );
    let id = opened["result"]["id"].as_str().unwrap();

    let canceled = rpc(
        &b,
        None,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {"id": id}}),
    )
    .await;
    assert_eq!(
        canceled["result"]["status"]["state"], "canceled",
        "{canceled}"
    );
    let seen = rpc(&a, None, get(id)).await;
    assert_eq!(seen["result"]["status"]["state"], "canceled");

    // Canceling it again, from either instance, is -32002.
    for engine in [&a, &b] {
        let again = rpc(
            engine,
            None,
            json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/cancel", "params": {"id": id}}),
        )
        .await;
        assert_eq!(again["error"]["code"], -32002, "{again}");
    }
    let unknown = rpc(&b, None, get("no-such-task")).await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
}
