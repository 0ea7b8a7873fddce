//! The DynamoDB push-configuration store against moto's DynamoDB-compatible server (started
//! by [`a2a_test_support::moto`]), and against a stand-in that fails (wiremock, as in
//! `dynamo_failures.rs`).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;

use a2a_lambda_core::model::{
    ListTasksParams, PushAuthentication, PushNotificationConfig, Task, TaskState, TaskStatus,
};
use a2a_lambda_core::version::ProtocolVersion;
use a2a_lambda_dynamodb::push::PUT_ATTEMPTS;
use a2a_lambda_dynamodb::{DEFAULT_RETENTION, DynamoPushConfigStore, DynamoSettings};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::push::{
    ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, PushConfigStore, StoredConfig,
};
use a2a_lambda_server::tasks::{StoreError, TaskStore};
use a2a_test_support::dynamo::{client, counting_client, create_table, store};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Credentials;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn configs_on(settings: &DynamoSettings) -> DynamoPushConfigStore {
    DynamoPushConfigStore::with_client(client(settings), settings)
}

fn config(id: &str, url: &str, version: ProtocolVersion) -> StoredConfig {
    StoredConfig {
        config: PushNotificationConfig {
            id: Some(id.to_owned()),
            url: url.to_owned(),
            token: None,
            authentication: None,
        },
        version,
        mark: None,
    }
}

fn ids(configs: &[StoredConfig]) -> Vec<&str> {
    configs.iter().map(StoredConfig::id).collect()
}

fn mark(version: u64, status_at: &str) -> Mark {
    Mark {
        version,
        status_at: status_at.to_owned(),
    }
}

async fn raw_item(settings: &DynamoSettings, id: &str) -> Option<HashMap<String, AttributeValue>> {
    client(settings)
        .get_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S(id.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
}

fn n(item: &HashMap<String, AttributeValue>, name: &str) -> i64 {
    item.get(name).unwrap().as_n().unwrap().parse().unwrap()
}

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

fn task(id: &str, context: &str) -> Task {
    Task {
        id: id.to_owned(),
        context_id: context.to_owned(),
        status: TaskStatus {
            state: TaskState::Working,
            message: None,
            timestamp: Some("2026-01-02T03:04:05.678Z".to_owned()),
        },
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    }
}

#[tokio::test]
async fn configurations_of_both_versions_read_back_oldest_first() {
    let settings = create_table("push-round-trip").await;
    let store = configs_on(&settings);
    assert!(store.configs("t-1").await.unwrap().is_empty(), "none yet");

    let full = StoredConfig {
        config: PushNotificationConfig {
            id: Some("z-first".to_owned()),
            url: "https://hooks.example.com/a2a?x=1".to_owned(),
            token: Some("tok-1".to_owned()),
            authentication: Some(PushAuthentication {
                schemes: vec!["Bearer".to_owned(), "Basic".to_owned()],
                credentials: Some("cred-1".to_owned()),
            }),
        },
        version: ProtocolVersion::V0_3,
        mark: None,
    };
    let bare = config(
        "a-second",
        "https://other.example/hook",
        ProtocolVersion::V1_0,
    );
    let no_schemes = StoredConfig {
        config: PushNotificationConfig {
            authentication: Some(PushAuthentication {
                schemes: Vec::new(),
                credentials: None,
            }),
            ..config("m-third", "https://third.example/", ProtocolVersion::V1_0).config
        },
        ..config("m-third", "https://third.example/", ProtocolVersion::V1_0)
    };
    store.put_config("t-1", full.clone()).await.unwrap();
    store.put_config("t-1", bare.clone()).await.unwrap();
    store.put_config("t-1", no_schemes.clone()).await.unwrap();

    // Oldest first, whatever the ids' own order; every field as written.
    let read = store.configs("t-1").await.unwrap();
    assert_eq!(read, vec![full, bare, no_schemes]);
    // Another task's are its own.
    assert!(store.configs("t-2").await.unwrap().is_empty());

    // The sibling item: no owner, the retention's expiry, the count.
    let item = raw_item(&settings, "push#t-1").await.unwrap();
    assert!(!item.contains_key("owner"), "{item:?}");
    assert!(!item.contains_key("statusTimestamp"), "{item:?}");
    assert_eq!(n(&item, "count"), 3);
    let expected = now() + DEFAULT_RETENTION.as_secs() as i64;
    assert!(
        (expected - 5..=expected + 5).contains(&n(&item, "expiresAt")),
        "{item:?}"
    );
}

#[tokio::test]
async fn a_replaced_configuration_keeps_its_place() {
    let settings = create_table("push-replace").await;
    let store = configs_on(&settings);
    for id in ["one", "two", "three"] {
        store
            .put_config(
                "t-1",
                config(id, "https://a.example/", ProtocolVersion::V1_0),
            )
            .await
            .unwrap();
    }
    let mut replaced = config("one", "https://b.example/new", ProtocolVersion::V0_3);
    replaced.config.token = Some("new-token".to_owned());
    store.put_config("t-1", replaced.clone()).await.unwrap();
    let read = store.configs("t-1").await.unwrap();
    assert_eq!(ids(&read), ["one", "two", "three"]);
    assert_eq!(read[0], replaced, "replaced as given");

    // A configuration deleted and made again is the newest.
    assert!(store.delete_config("t-1", "one").await.unwrap());
    store
        .put_config(
            "t-1",
            config("one", "https://c.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    assert_eq!(
        ids(&store.configs("t-1").await.unwrap()),
        ["two", "three", "one"]
    );
    let item = raw_item(&settings, "push#t-1").await.unwrap();
    assert_eq!(n(&item, "count"), 3);
}

#[tokio::test]
async fn the_first_configuration_costs_one_write_and_later_ones_two() {
    let settings = create_table("push-attempts").await;
    let (counted, calls) = counting_client(&settings);
    let store = DynamoPushConfigStore::with_client(counted, &settings);
    store
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    assert_eq!(calls.take(), ["UpdateItem"]);
    // Another instance (its own client) adds one: the creation fails, the add is made.
    configs_on(&settings)
        .put_config(
            "t-1",
            config("b", "https://b.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    store
        .put_config(
            "t-1",
            config("c", "https://c.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    assert_eq!(calls.take(), ["UpdateItem", "UpdateItem"]);
    store
        .put_config(
            "t-1",
            config("b", "https://b2.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    assert_eq!(calls.take(), ["UpdateItem", "UpdateItem"], "a replace, too");
    store.configs("t-1").await.unwrap();
    assert_eq!(calls.take(), ["GetItem"]);
    assert_eq!(ids(&store.configs("t-1").await.unwrap()), ["a", "b", "c"]);
}

#[tokio::test]
async fn a_task_holds_at_most_the_bound() {
    let settings = create_table("push-bound").await;
    let store = configs_on(&settings);
    let made: Vec<String> = (0..MAX_CONFIGS_PER_TASK)
        .map(|i| format!("c-{i:02}"))
        .collect();
    for id in &made {
        store
            .put_config(
                "t-1",
                config(id, "https://a.example/", ProtocolVersion::V1_0),
            )
            .await
            .unwrap();
    }
    let extra = store
        .put_config(
            "t-1",
            config("extra", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await;
    assert!(
        matches!(&extra, Err(ConfigWriteError::Full(task)) if task == "t-1"),
        "{extra:?}"
    );
    // Replacing one of them is no new one.
    store
        .put_config(
            "t-1",
            config("c-03", "https://b.example/", ProtocolVersion::V0_3),
        )
        .await
        .unwrap();
    let read = store.configs("t-1").await.unwrap();
    assert_eq!(
        ids(&read),
        made.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(read[3].config.url, "https://b.example/");
    // A deleted one makes room for exactly one.
    assert!(store.delete_config("t-1", "c-00").await.unwrap());
    store
        .put_config(
            "t-1",
            config("extra", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    assert!(matches!(
        store
            .put_config(
                "t-1",
                config("more", "https://a.example/", ProtocolVersion::V1_0)
            )
            .await,
        Err(ConfigWriteError::Full(_))
    ));
    let read = store.configs("t-1").await.unwrap();
    assert_eq!(read.len(), MAX_CONFIGS_PER_TASK);
    assert_eq!(read.last().unwrap().id(), "extra");
    assert_eq!(
        n(&raw_item(&settings, "push#t-1").await.unwrap(), "count"),
        MAX_CONFIGS_PER_TASK as i64
    );
}

#[tokio::test]
async fn a_delete_is_idempotent() {
    let settings = create_table("push-delete").await;
    let store = configs_on(&settings);
    assert!(!store.delete_config("t-1", "a").await.unwrap(), "no item");
    assert!(
        raw_item(&settings, "push#t-1").await.is_none(),
        "a delete makes no item"
    );
    store
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    store
        .put_config(
            "t-1",
            config("b", "https://b.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    assert!(!store.delete_config("t-1", "nope").await.unwrap());
    assert!(store.delete_config("t-1", "a").await.unwrap());
    assert!(
        !store.delete_config("t-1", "a").await.unwrap(),
        "already gone"
    );
    assert_eq!(ids(&store.configs("t-1").await.unwrap()), ["b"]);
    assert!(store.delete_config("t-1", "b").await.unwrap());
    assert!(store.configs("t-1").await.unwrap().is_empty());
    assert_eq!(
        n(&raw_item(&settings, "push#t-1").await.unwrap(), "count"),
        0
    );
    // An emptied item takes new configurations again.
    store
        .put_config(
            "t-1",
            config("c", "https://c.example/", ProtocolVersion::V0_3),
        )
        .await
        .unwrap();
    assert_eq!(ids(&store.configs("t-1").await.unwrap()), ["c"]);
}

#[tokio::test]
async fn a_mark_only_moves_forward() {
    let settings = create_table("push-mark").await;
    let store = configs_on(&settings);
    store
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    store
        .put_config(
            "t-1",
            config("b", "https://b.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    let marks = |configs: Vec<StoredConfig>| -> Vec<Option<Mark>> {
        configs.into_iter().map(|config| config.mark).collect()
    };
    assert_eq!(marks(store.configs("t-1").await.unwrap()), [None, None]);

    store
        .mark("t-1", "a", &mark(2, "2026-01-02T03:04:05.000Z"))
        .await
        .unwrap();
    store
        .mark("t-1", "a", &mark(1, "2026-01-02T03:04:04.000Z"))
        .await
        .unwrap();
    store
        .mark("t-1", "a", &mark(2, "2026-01-02T03:04:09.000Z"))
        .await
        .unwrap();
    assert_eq!(
        marks(store.configs("t-1").await.unwrap()),
        [Some(mark(2, "2026-01-02T03:04:05.000Z")), None],
        "an older or equal mark is ignored"
    );
    store
        .mark("t-1", "a", &mark(5, "2026-01-02T03:04:10.000Z"))
        .await
        .unwrap();
    store.mark("t-1", "b", &mark(3, "")).await.unwrap();
    assert_eq!(
        marks(store.configs("t-1").await.unwrap()),
        [Some(mark(5, "2026-01-02T03:04:10.000Z")), Some(mark(3, ""))]
    );

    // A mark of a configuration or task that is gone makes nothing.
    store.mark("t-1", "gone", &mark(9, "x")).await.unwrap();
    assert_eq!(ids(&store.configs("t-1").await.unwrap()), ["a", "b"]);
    store.mark("t-2", "a", &mark(9, "x")).await.unwrap();
    assert!(raw_item(&settings, "push#t-2").await.is_none());

    // A replace writes the configuration as given, its mark included.
    let mut again = config("a", "https://a2.example/", ProtocolVersion::V1_0);
    again.mark = Some(mark(6, "later"));
    store.put_config("t-1", again.clone()).await.unwrap();
    assert_eq!(store.configs("t-1").await.unwrap()[0], again);
}

#[tokio::test]
async fn ids_with_odd_characters_name_exactly_their_configuration() {
    let settings = create_table("push-odd-ids").await;
    let store = configs_on(&settings);
    let odd = [
        "a.b",
        "#x",
        ":y",
        "configs",
        "a b",
        "[0]",
        "ünïcødé-日本語-🚀",
        "#cid",
        ":cfg",
    ];
    for (i, id) in odd.iter().enumerate() {
        store
            .put_config(
                "t-1",
                config(id, &format!("https://h{i}.example/"), ProtocolVersion::V1_0),
            )
            .await
            .unwrap();
    }
    let read = store.configs("t-1").await.unwrap();
    assert_eq!(ids(&read), odd);
    for (i, stored) in read.iter().enumerate() {
        assert_eq!(stored.config.url, format!("https://h{i}.example/"));
    }
    // The item holds them as keys of `configs`, nothing else.
    let item = raw_item(&settings, "push#t-1").await.unwrap();
    let mut keys: Vec<&String> = item.keys().collect();
    keys.sort();
    assert_eq!(keys, ["configs", "count", "expiresAt", "id", "seq"]);

    store.mark("t-1", "a.b", &mark(4, "t")).await.unwrap();
    store.mark("t-1", "#x", &mark(5, "t")).await.unwrap();
    assert!(store.delete_config("t-1", ":y").await.unwrap());
    assert!(
        !store.delete_config("t-1", "a").await.unwrap(),
        "no prefix match"
    );
    let read = store.configs("t-1").await.unwrap();
    let by_id: HashMap<&str, &StoredConfig> =
        read.iter().map(|config| (config.id(), config)).collect();
    assert_eq!(by_id["a.b"].mark, Some(mark(4, "t")));
    assert_eq!(by_id["#x"].mark, Some(mark(5, "t")));
    assert_eq!(by_id["configs"].mark, None);
    assert!(!by_id.contains_key(":y"));
    assert_eq!(read.len(), odd.len() - 1);
}

#[tokio::test]
async fn the_sibling_item_is_no_task_of_anyone() {
    let settings = create_table("push-no-task").await;
    let tasks = store(&settings);
    let configs = tasks.push_configs();
    let alice = Owner::jwt(Some("https://idp"), Some("alice"));
    tasks
        .put(&task("t-1", "ctx-1"), &alice, None)
        .await
        .unwrap();
    tasks
        .put(&task("t-2", "ctx-1"), &Owner::anonymous(), None)
        .await
        .unwrap();
    configs
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    configs
        .put_config(
            "t-2",
            config("a", "https://a.example/", ProtocolVersion::V0_3),
        )
        .await
        .unwrap();

    // The task is untouched: same version, and the lists are the tasks alone.
    assert_eq!(tasks.get("t-1").await.unwrap().unwrap().version, 1);
    for (owner, expected) in [(&alice, "t-1"), (&Owner::anonymous(), "t-2")] {
        for params in [
            ListTasksParams::default(),
            ListTasksParams {
                context_id: Some("ctx-1".to_owned()),
                ..ListTasksParams::default()
            },
        ] {
            let listed = tasks.list(&params, owner).await.unwrap();
            let listed: Vec<&str> = listed.tasks.iter().map(|task| task.id.as_str()).collect();
            assert_eq!(listed, [expected], "{owner:?} {params:?}");
        }
    }
    // Nor is it found as a task, nor followed as one.
    assert!(tasks.get("push#t-1").await.unwrap().is_none());
    assert!(tasks.since("push#t-1", 0).await.unwrap().is_none());
    assert!(tasks.get_leased("push#t-1").await.unwrap().is_none());
}

#[tokio::test]
async fn an_expired_item_holds_no_configurations() {
    let settings = create_table("push-expired").await;
    let store = configs_on(&settings);
    store
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    client(&settings)
        .update_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S("push#t-1".to_owned()))
        .update_expression("SET expiresAt = :past")
        .expression_attribute_values(":past", AttributeValue::N((now() - 10).to_string()))
        .send()
        .await
        .unwrap();
    assert!(store.configs("t-1").await.unwrap().is_empty());
    // It is gone for every write too: nothing is marked or deleted, and a new
    // configuration starts a new item, the old one not revived.
    store.mark("t-1", "a", &mark(1, "t")).await.unwrap();
    assert!(!store.delete_config("t-1", "a").await.unwrap());
    assert!(store.configs("t-1").await.unwrap().is_empty());
    store
        .put_config(
            "t-1",
            config("b", "https://b.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap();
    let read = store.configs("t-1").await.unwrap();
    assert_eq!(ids(&read), ["b"]);
    let item = raw_item(&settings, "push#t-1").await.unwrap();
    assert_eq!(n(&item, "count"), 1);
    assert!(n(&item, "expiresAt") > now());
}

// ---------------------------------------------------------------------------------------
// A failing DynamoDB

async fn stand_in(response: ResponseTemplate) -> (MockServer, DynamoPushConfigStore) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(&server)
        .await;
    let settings = DynamoSettings {
        endpoint: Some(server.uri()),
        ..DynamoSettings::new("tasks", "us-east-1")
    };
    let config = settings
        .client_config()
        .credentials_provider(Credentials::new("testing", "testing", None, None, "tests"))
        .build();
    let store = DynamoPushConfigStore::with_client(Client::from_conf(config), &settings);
    (server, store)
}

fn error(status: u16, kind: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("content-type", "application/x-amz-json-1.0")
        .set_body_string(json!({"__type": kind, "message": "simulated"}).to_string())
}

#[tokio::test]
async fn an_outage_is_a_backend_error() {
    let (_server, store) = stand_in(error(
        500,
        "com.amazonaws.dynamodb.v20120810#InternalServerError",
    ))
    .await;
    let read = store.configs("t-1").await.unwrap_err();
    assert!(
        matches!(&read, StoreError::Backend(detail)
            if detail.contains("GetItem of the push configurations of task t-1 on table tasks")),
        "{read:?}"
    );
    let put = store
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&put, ConfigWriteError::Store(StoreError::Backend(detail))
            if detail.contains("InternalServerError")),
        "{put:?}"
    );
    assert!(matches!(
        store.delete_config("t-1", "a").await,
        Err(StoreError::Backend(_))
    ));
    assert!(matches!(
        store.mark("t-1", "a", &mark(1, "t")).await,
        Err(StoreError::Backend(_))
    ));
}

#[tokio::test]
async fn a_failed_condition_that_says_nothing_is_never_full() {
    // A condition failure without the old item: the store cannot tell why, so it retries
    // its creation and then gives up with a backend error, not `Full`.
    let (server, store) = stand_in(error(
        400,
        "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
    ))
    .await;
    let put = store
        .put_config(
            "t-1",
            config("a", "https://a.example/", ProtocolVersion::V1_0),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&put, ConfigWriteError::Store(StoreError::Backend(detail))
            if detail.contains("other writers changed")),
        "{put:?}"
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        PUT_ATTEMPTS,
        "a bounded number of attempts"
    );
    // For a delete and a mark, a failed condition is an answer.
    assert!(!store.delete_config("t-1", "a").await.unwrap());
    store.mark("t-1", "a", &mark(1, "t")).await.unwrap();
}
