//! Tasks belong to their caller on one DynamoDB table (moto, see [`a2a_test_support::moto`]) shared
//! by two instances of the function: another owner's task is -32001 on either instance,
//! `ListTasks` lists only the caller's tasks (with and without a context, page by page)
//! with one `Query` of the owner index and no `Scan`, and an item written before tasks had
//! owners is an anonymous caller's, readable by id only.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use a2a_lambda_core::model::{ListTasksParams, Message, Role, Task, TaskState, TaskStatus};
use a2a_lambda_dynamodb::{DynamoSettings, DynamoTaskStore, OWNER_INDEX};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::Engine;
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::TaskStore;
use a2a_test_support::dynamo::{client, create_table, store};
use a2a_test_support::lambda::{engine_on, rpc_as};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Credentials, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Value, json};

fn alice() -> Owner {
    Owner::jwt(Some("https://idp"), Some("alice"))
}

fn bob() -> Owner {
    Owner::agentcore_user("bob")
}

/// One instance of the function: an engine with its own client on the table.
fn instance(settings: &DynamoSettings) -> Engine {
    engine_on(BuiltIn::Conformance, Arc::new(store(settings)))
}

/// Every DynamoDB operation a client made (its `X-Amz-Target` without the service
/// prefix) with its JSON request, once per operation whatever the retries.
#[derive(Debug, Default, Clone)]
struct Calls(Arc<Mutex<Vec<(String, Value)>>>);

impl Calls {
    fn take(&self) -> Vec<(String, Value)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

impl Intercept for Calls {
    fn name(&self) -> &'static str {
        "test call log"
    }

    fn read_after_serialization(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        let target = request
            .headers()
            .get("x-amz-target")
            .unwrap_or_default()
            .trim_start_matches("DynamoDB_20120810.")
            .to_owned();
        let body = request
            .body()
            .bytes()
            .and_then(|bytes| serde_json::from_slice(bytes).ok())
            .unwrap_or(Value::Null);
        self.0.lock().unwrap().push((target, body));
        Ok(())
    }
}

/// A store whose client logs its calls.
fn logged_store(settings: &DynamoSettings) -> (DynamoTaskStore, Calls) {
    let calls = Calls::default();
    let client = Client::from_conf(
        settings
            .client_config()
            .credentials_provider(Credentials::new("testing", "testing", None, None, "tests"))
            .interceptor(calls.clone())
            .build(),
    );
    (DynamoTaskStore::with_client(client, settings), calls)
}

fn v0_3_send(message_id: &str, text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({
        "kind": "message", "messageId": message_id, "role": "user",
        "parts": [{"kind": "text", "text": text}],
    });
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}})
}

fn on_task(method: &str, task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {"id": task_id}})
}

fn list(params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 3, "method": "ListTasks", "params": params})
}

fn not_found(id: i64, task_id: &str) -> Value {
    let detail = format!("no task with id {task_id:?}");
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": -32001,
        "message": format!("Task not found: {detail}"),
        "data": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "domain": "a2a-protocol.org",
            "metadata": {"detail": detail, "taskId": task_id},
            "reason": "TASK_NOT_FOUND",
        }],
    }})
}

fn ids(list: &Value) -> Vec<String> {
    list["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|task| task["id"].as_str().unwrap().to_owned())
        .collect()
}

fn task(id: &str, context: &str, at: &str) -> Task {
    Task {
        id: id.to_owned(),
        context_id: context.to_owned(),
        status: TaskStatus {
            state: TaskState::InputRequired,
            message: None,
            timestamp: Some(at.to_owned()),
        },
        artifacts: Vec::new(),
        history: vec![Message::text(Role::User, format!("{id}-m1"), "hello")],
        metadata: None,
    }
}

#[tokio::test]
async fn another_owners_task_is_not_found_on_either_instance() {
    let settings = create_table("owners-instances").await;
    let (one, two) = (instance(&settings), instance(&settings));

    let opened = rpc_as(&one, None, &alice(), v0_3_send("m-1", "hello", None)).await;
    assert_eq!(
        opened["result"]["status"]["state"], "input-required",
        "{opened}"
    );
    let id = opened["result"]["id"].as_str().unwrap();
    let item = client(&settings)
        .get_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S(id.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        item.get("owner").unwrap().as_s().unwrap(),
        "jwt:https://idp|alice",
        "the item names its owner"
    );

    for engine in [&one, &two] {
        for stranger in [bob(), Owner::anonymous()] {
            for method in ["tasks/get", "tasks/cancel"] {
                assert_eq!(
                    rpc_as(engine, None, &stranger, on_task(method, id)).await,
                    not_found(2, id),
                    "{method} by {stranger}"
                );
            }
            assert_eq!(
                rpc_as(engine, None, &stranger, v0_3_send("m-x", "done", Some(id))).await,
                not_found(1, id),
                "a follow-up by {stranger}"
            );
            assert_eq!(
                rpc_as(engine, Some("1.0"), &stranger, on_task("GetTask", id)).await,
                not_found(2, id)
            );
        }
    }

    // Alice reads it on the other instance, untouched, and finishes it there.
    let seen = rpc_as(&two, None, &alice(), on_task("tasks/get", id)).await;
    assert_eq!(seen["result"], opened["result"], "{seen}");
    let done = rpc_as(&two, None, &alice(), v0_3_send("m-2", "done", Some(id))).await;
    assert_eq!(done["result"]["status"]["state"], "completed", "{done}");
    // Continued, it is still alice's alone.
    assert_eq!(
        rpc_as(&one, None, &bob(), on_task("tasks/get", id)).await,
        not_found(2, id)
    );
    let listed = rpc_as(&one, Some("1.0"), &alice(), list(json!({}))).await;
    assert_eq!(ids(&listed), [id], "{listed}");
}

#[tokio::test]
async fn list_tasks_reads_only_the_callers_tasks_from_the_owner_index() {
    let settings = create_table("owners-list").await;
    // The table has the owner index and no other: a listing with a context needs none.
    let described = client(&settings)
        .describe_table()
        .table_name(&settings.table)
        .send()
        .await
        .unwrap();
    let indexes: Vec<&str> = described
        .table
        .as_ref()
        .unwrap()
        .global_secondary_indexes()
        .iter()
        .map(|index| index.index_name().unwrap())
        .collect();
    assert_eq!(indexes, [OWNER_INDEX]);

    let writer = store(&settings);
    // Alice: five tasks in two contexts; bob: three, one in alice's context; anonymous: two.
    let mut alices = Vec::new();
    for n in 0..5 {
        let context = if n % 2 == 0 { "ctx-a" } else { "ctx-b" };
        let at = format!("2026-01-01T00:00:0{n}Z");
        let id = format!("alice-{n}");
        writer
            .put(&task(&id, context, &at), &alice(), None)
            .await
            .unwrap();
        alices.push(id);
    }
    for (n, context) in ["ctx-a", "ctx-c", "ctx-c"].iter().enumerate() {
        let at = format!("2026-01-01T00:01:0{n}Z");
        writer
            .put(&task(&format!("bob-{n}"), context, &at), &bob(), None)
            .await
            .unwrap();
    }
    for n in 0..2 {
        let at = format!("2026-01-01T00:02:0{n}Z");
        writer
            .put(
                &task(&format!("anon-{n}"), "ctx-a", &at),
                &Owner::anonymous(),
                None,
            )
            .await
            .unwrap();
    }
    alices.reverse(); // newest first

    // Listed on two instances (another client than the writer's).
    let (logged, calls) = logged_store(&settings);
    let logged = engine_on(BuiltIn::Conformance, Arc::new(logged));
    let other = instance(&settings);
    for engine in [&logged, &other] {
        let all = rpc_as(engine, Some("1.0"), &alice(), list(json!({}))).await;
        assert_eq!(ids(&all), alices, "{all}");
        assert_eq!(all["result"]["totalSize"], 5);
        let in_a = rpc_as(
            engine,
            Some("1.0"),
            &alice(),
            list(json!({"contextId": "ctx-a"})),
        )
        .await;
        assert_eq!(ids(&in_a), ["alice-4", "alice-2", "alice-0"], "{in_a}");
        let bobs = rpc_as(engine, Some("1.0"), &bob(), list(json!({}))).await;
        assert_eq!(ids(&bobs), ["bob-2", "bob-1", "bob-0"], "{bobs}");
        let bobs_in_a = rpc_as(
            engine,
            Some("1.0"),
            &bob(),
            list(json!({"contextId": "ctx-a"})),
        )
        .await;
        assert_eq!(ids(&bobs_in_a), ["bob-0"], "{bobs_in_a}");
        let anonymous = rpc_as(engine, Some("1.0"), &Owner::anonymous(), list(json!({}))).await;
        assert_eq!(ids(&anonymous), ["anon-1", "anon-0"], "{anonymous}");
        let nobody = rpc_as(
            engine,
            Some("1.0"),
            &Owner::agentcore_user("carol"),
            list(json!({"contextId": "ctx-a"})),
        )
        .await;
        assert_eq!(
            nobody,
            json!({"jsonrpc": "2.0", "id": 3, "result": {
                "tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0,
            }})
        );
    }

    // What one listing cost: a Query of the owner index for the caller's key (the context
    // a filter on it), then one BatchGetItem of the page; never a Scan.
    let made = calls.take();
    assert!(
        made.iter().all(|(operation, _)| operation != "Scan"),
        "{made:?}"
    );
    let _ = rpc_as(
        &logged,
        Some("1.0"),
        &bob(),
        list(json!({"contextId": "ctx-a"})),
    )
    .await;
    let made = calls.take();
    let operations: Vec<&str> = made
        .iter()
        .map(|(operation, _)| operation.as_str())
        .collect();
    assert_eq!(operations, ["Query", "BatchGetItem"], "{made:?}");
    let query = &made[0].1;
    assert_eq!(query["IndexName"], OWNER_INDEX, "{query}");
    let key_values = &query["ExpressionAttributeValues"];
    assert_eq!(
        key_values[":owner"],
        json!({"S": "agentcore-user:bob"}),
        "{query}"
    );
    assert_eq!(key_values[":ctx"], json!({"S": "ctx-a"}), "{query}");
    let _ = rpc_as(
        &logged,
        Some("1.0"),
        &Owner::agentcore_user("carol"),
        list(json!({})),
    )
    .await;
    let made = calls.take();
    let operations: Vec<&str> = made
        .iter()
        .map(|(operation, _)| operation.as_str())
        .collect();
    assert_eq!(
        operations,
        ["Query"],
        "an empty listing reads no task: {made:?}"
    );
    assert_eq!(
        made[0].1["ExpressionAttributeValues"][":owner"],
        json!({"S": "agentcore-user:carol"})
    );

    // Paging stays within the owner, on either instance.
    let mut paged = Vec::new();
    let mut token = String::new();
    let mut sizes = Vec::new();
    loop {
        let engine = if sizes.len() % 2 == 0 {
            &logged
        } else {
            &other
        };
        let mut params = json!({"pageSize": 2});
        if !token.is_empty() {
            params["pageToken"] = json!(token);
        }
        let page = rpc_as(engine, Some("1.0"), &alice(), list(params)).await;
        assert_eq!(page["result"]["totalSize"], 5, "{page}");
        sizes.push(ids(&page).len());
        paged.extend(ids(&page));
        token = page["result"]["nextPageToken"].as_str().unwrap().to_owned();
        if token.is_empty() {
            break;
        }
    }
    assert_eq!(sizes, [2, 2, 1]);
    assert_eq!(paged, alices);
    let bobs_page = rpc_as(&other, Some("1.0"), &bob(), list(json!({"pageSize": 2}))).await;
    assert_eq!(ids(&bobs_page), ["bob-2", "bob-1"], "{bobs_page}");
    assert_eq!(bobs_page["result"]["totalSize"], 3);

    // The store answers the same, asked directly.
    let direct = writer
        .list(
            &ListTasksParams {
                context_id: Some("ctx-c".to_owned()),
                ..ListTasksParams::default()
            },
            &alice(),
        )
        .await
        .unwrap();
    assert!(direct.tasks.is_empty(), "{direct:?}");
    assert_eq!(direct.total_size, 0);
}

/// An item written before tasks had owners has no `owner`: an anonymous caller reads it
/// by id (and may continue it), nobody else does, and no listing holds it.
#[tokio::test]
async fn a_task_stored_before_owners_is_an_anonymous_callers_by_id_only() {
    let settings = create_table("owners-legacy").await;
    let writer = store(&settings);
    let legacy = task("legacy-1", "ctx-old", "2026-01-01T00:00:00Z");
    writer
        .put(&legacy, &Owner::anonymous(), None)
        .await
        .unwrap();
    // As the previous release wrote it: the same item without `owner`.
    client(&settings)
        .update_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S("legacy-1".to_owned()))
        .update_expression("REMOVE #owner")
        .expression_attribute_names("#owner", "owner")
        .send()
        .await
        .unwrap();
    let item = client(&settings)
        .get_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S("legacy-1".to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert!(!item.contains_key("owner"), "{item:?}");
    assert!(item.contains_key("task"), "{item:?}");

    let stored = writer.get("legacy-1").await.unwrap().unwrap();
    assert_eq!(stored.task, legacy);
    assert!(stored.owner.is_anonymous());

    let (one, two) = (instance(&settings), instance(&settings));
    let got = rpc_as(
        &one,
        Some("1.0"),
        &Owner::anonymous(),
        on_task("GetTask", "legacy-1"),
    )
    .await;
    assert_eq!(got["result"]["id"], "legacy-1", "{got}");
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{got}"
    );
    for stranger in [alice(), bob()] {
        for method in ["GetTask", "CancelTask"] {
            assert_eq!(
                rpc_as(&two, Some("1.0"), &stranger, on_task(method, "legacy-1")).await,
                not_found(2, "legacy-1"),
                "{method} by {stranger}"
            );
        }
        assert_eq!(
            rpc_as(
                &two,
                None,
                &stranger,
                v0_3_send("m-x", "done", Some("legacy-1"))
            )
            .await,
            not_found(1, "legacy-1")
        );
    }
    for caller in [Owner::anonymous(), alice()] {
        for params in [json!({}), json!({"contextId": "ctx-old"})] {
            let listed = rpc_as(&one, Some("1.0"), &caller, list(params.clone())).await;
            assert!(ids(&listed).is_empty(), "{caller} {params}: {listed}");
        }
    }

    // Continued by an anonymous caller, it is written again as anonymous: listed now.
    let done = rpc_as(
        &two,
        None,
        &Owner::anonymous(),
        v0_3_send("m-2", "done", Some("legacy-1")),
    )
    .await;
    assert_eq!(done["result"]["status"]["state"], "completed", "{done}");
    let listed = rpc_as(&one, Some("1.0"), &Owner::anonymous(), list(json!({}))).await;
    assert_eq!(ids(&listed), ["legacy-1"], "{listed}");
    assert_eq!(
        rpc_as(&one, Some("1.0"), &alice(), on_task("GetTask", "legacy-1")).await,
        not_found(2, "legacy-1")
    );
}
