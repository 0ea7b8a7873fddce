//! Push notifications from the real function binary against the fake Lambda Runtime and
//! Extensions APIs (`fake_lambda`): a non-blocking v1.0 send carrying a webhook
//! configuration is answered while its task is `submitted`, the webhook (a receiver on
//! 127.0.0.1, allowed by `A2A_PUSH_ALLOW_PRIVATE=true`) gets the completed task with the
//! configuration's token, and the extension holds the invocation — the environment is not
//! frozen — until that delivery is done. With the DynamoDB task store (moto), the
//! configuration and how far it was told live in the task's sibling item. Without the
//! Extensions API, push is off.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fake_lambda;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use fake_lambda::{FAR, FakeApi, Function, STEP, event, get_task};

const FURL_CARD: &str = include_str!("../../lambda/tests/fixtures/function_url_get_card.json");
use serde_json::{Value, json};

/// How long the receiver takes to answer each notification.
const RECEIVER_DELAY: Duration = Duration::from_millis(600);

/// One notification as it arrived, and when the receiver answered it.
#[derive(Debug, Clone)]
struct Seen {
    headers: HeaderMap,
    body: Value,
    answered: Instant,
}

/// A webhook on 127.0.0.1 that answers 200 after [`RECEIVER_DELAY`].
struct Receiver {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Receiver {
    async fn start() -> Self {
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let app = axum::Router::new()
            .route("/hook", post(receive))
            .with_state(Arc::clone(&seen));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The notifications so far, once one shows `state` (waiting for it).
    async fn until_state(&self, state: &str) -> Vec<Seen> {
        let deadline = Instant::now() + STEP;
        loop {
            let seen = self.seen();
            if seen
                .iter()
                .any(|seen| seen.body["task"]["status"]["state"] == state)
            {
                return seen;
            }
            assert!(
                Instant::now() < deadline,
                "no {state} notification: {seen:#?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

async fn receive(
    State(seen): State<Arc<Mutex<Vec<Seen>>>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    tokio::time::sleep(RECEIVER_DELAY).await;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    seen.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(Seen {
            headers,
            body,
            answered: Instant::now(),
        });
    StatusCode::OK
}

/// A Function URL event of `body` in A2A v1.0.
fn event_v1_0(body: &Value) -> String {
    let mut event: Value = serde_json::from_str(&event(body)).unwrap();
    event["headers"]["a2a-version"] = json!("1.0");
    event.to_string()
}

#[tokio::test]
async fn a_non_blocking_send_with_a_webhook_is_told_before_the_environment_is_frozen() {
    let receiver = Receiver::start().await;
    let mut api = FakeApi::start(true).await;
    let function = Function::start(
        &api,
        &[
            ("TCK_STREAMING_TIMEOUT", "0.3"),
            ("A2A_PUSH_ALLOW_PRIVATE", "true"),
        ],
    );
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["push_notifications"], true, "{init}");
    assert_eq!(init["fields"]["push_targets"], "allow-private", "{init}");
    let warned = function.logs().into_iter().any(|log| {
        log["level"] == "WARN"
            && log["fields"]["message"]
                .as_str()
                .is_some_and(|message| message.contains("the Lambda Runtime API included"))
    });
    assert!(
        warned,
        "private targets are warned of: {:#?}",
        function.logs()
    );

    let send = json!({"jsonrpc": "2.0", "id": "push-1", "method": "SendMessage", "params": {
        "message": {"messageId": "tck-delayed-complete-push", "role": "ROLE_USER",
                    "parts": [{"text": "tell my webhook"}]},
        "configuration": {
            "returnImmediately": true,
            "taskPushNotificationConfig": {"url": receiver.url, "token": "tok-lambda"},
        },
    }});
    api.invoke("inv-send", &event_v1_0(&send), FAR);
    let (handed_index, handed) = api.handed("inv-send").await;
    let (_, answer, responded) = api.answer("inv-send").await;
    let task = &answer["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_SUBMITTED", "{answer}");
    let task_id = fake_lambda::task_id(task);
    assert!(
        receiver.seen().is_empty(),
        "answered before any notification"
    );

    // The next invocation is queued at once; the extension lets this one go only once
    // the completed task was delivered (the receiver answered).
    api.invoke("inv-get", &get_task(&task_id), FAR);
    let let_go = api.extension_next(handed_index).await;
    let seen = receiver.until_state("TASK_STATE_COMPLETED").await;
    let completed = seen.last().unwrap();
    assert!(
        let_go >= completed.answered,
        "the environment was let go {:?} before the delivery was done",
        completed.answered - let_go
    );
    assert!(
        let_go - responded >= RECEIVER_DELAY,
        "held for the delivery"
    );

    // Every notification is the whole task in v1.0 (a StreamResponse), with the token.
    for seen in &seen {
        assert_eq!(seen.headers["x-a2a-notification-token"], "tok-lambda");
        assert_eq!(seen.headers["content-type"], "application/a2a+json");
        assert_eq!(seen.body["task"]["id"], task_id.as_str(), "{:#}", seen.body);
    }
    let states: Vec<&str> = seen
        .iter()
        .map(|seen| seen.body["task"]["status"]["state"].as_str().unwrap())
        .collect();
    assert_eq!(states.last(), Some(&"TASK_STATE_COMPLETED"), "{states:?}");
    assert!(
        !states.contains(&"TASK_STATE_SUBMITTED"),
        "submitted is news to nobody: {states:?}"
    );
    let body = &completed.body;
    assert_eq!(
        body["task"]["status"]["message"]["parts"][0]["text"], "Done after delay",
        "{body:#}"
    );
    assert_eq!(
        body["task"]["history"][0]["messageId"],
        "tck-delayed-complete-push"
    );

    // The next invocation sees the task completed; the configuration is listed.
    let (_, answer, _) = api.answer("inv-get").await;
    assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    let list = json!({"jsonrpc": "2.0", "id": "list-1",
                      "method": "ListTaskPushNotificationConfigs",
                      "params": {"taskId": task_id}});
    api.invoke("inv-list", &event_v1_0(&list), FAR);
    let (_, answer, _) = api.answer("inv-list").await;
    let configs = answer["result"]["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 1, "{answer}");
    assert_eq!(configs[0]["url"], receiver.url.as_str());
    assert_eq!(configs[0]["token"], "tok-lambda");
    assert_eq!(configs[0]["taskId"], task_id.as_str());

    eprintln!(
        "push on Lambda: answered after {:?}; the environment let go {:?} after the \
         answer ({} notifications, the receiver taking {RECEIVER_DELAY:?} each)",
        responded - handed,
        let_go - responded,
        seen.len()
    );
}

#[tokio::test]
async fn without_the_extensions_api_push_is_off_and_the_card_says_so() {
    let mut api = FakeApi::start(false).await;
    let function = Function::start(&api, &[]);
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["push_notifications"], false, "{init}");
    api.invoke("inv-card", FURL_CARD, FAR);
    let (_, card, _) = api.answer("inv-card").await;
    assert_eq!(card["capabilities"]["pushNotifications"], false, "{card}");
    let create = json!({"jsonrpc": "2.0", "id": "c-1",
        "method": "CreateTaskPushNotificationConfig",
        "params": {"taskId": "t-1", "url": "https://93.184.215.14/hook"}});
    api.invoke("inv-create", &event_v1_0(&create), FAR);
    let (_, answer, _) = api.answer("inv-create").await;
    assert_eq!(answer["error"]["code"], -32003, "{answer}");
    assert_eq!(
        answer["error"]["data"][0]["reason"],
        "PUSH_NOTIFICATION_NOT_SUPPORTED"
    );
    let warnings: Vec<Value> = function
        .logs()
        .into_iter()
        .filter(|log| log["level"] == "WARN")
        .collect();
    assert_eq!(warnings.len(), 1, "one warning, at init: {warnings:#?}");
    let message = warnings[0]["fields"]["message"].as_str().unwrap();
    assert!(
        message.contains("non-blocking sends are served as blocking ones")
            && message.contains("push notifications are off"),
        "{message}"
    );
}

#[tokio::test]
async fn on_dynamodb_the_configuration_and_its_mark_live_beside_the_task() {
    let settings = a2a_test_support::dynamo::create_table("push-binary").await;
    let endpoint = settings.endpoint.clone().unwrap();
    let receiver = Receiver::start().await;
    let mut api = FakeApi::start(true).await;
    let function = Function::start(
        &api,
        &[
            ("A2A_TASK_TABLE", settings.table.as_str()),
            ("A2A_DYNAMODB_ENDPOINT", endpoint.as_str()),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
            ("A2A_PUSH_ALLOW_PRIVATE", "true"),
        ],
    );
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["task_store"], "dynamodb", "{init}");
    assert_eq!(init["fields"]["push_notifications"], true, "{init}");

    let send = json!({"jsonrpc": "2.0", "id": "push-2", "method": "SendMessage", "params": {
        "message": {"messageId": "tck-complete-task-push", "role": "ROLE_USER",
                    "parts": [{"text": "tell my webhook"}]},
        "configuration": {
            "returnImmediately": true,
            "taskPushNotificationConfig": {"id": "hook", "url": receiver.url, "token": "tok-d"},
        },
    }});
    api.invoke("inv-send", &event_v1_0(&send), FAR);
    let (handed_index, _) = api.handed("inv-send").await;
    let (_, answer, _) = api.answer("inv-send").await;
    let task_id = fake_lambda::task_id(&answer["result"]["task"]);
    api.invoke("inv-get", &get_task(&task_id), FAR);
    let let_go = api.extension_next(handed_index).await;
    let seen = receiver.until_state("TASK_STATE_COMPLETED").await;
    assert!(
        let_go >= seen.last().unwrap().answered,
        "held for the delivery"
    );
    assert_eq!(
        seen.last().unwrap().headers["x-a2a-notification-token"],
        "tok-d"
    );

    // The sibling item holds the configuration and how far it was told: the task's
    // version of the completed write.
    let client = a2a_test_support::dynamo::client(&settings);
    let read = |id: String| {
        let client = client.clone();
        let table = settings.table.clone();
        async move {
            client
                .get_item()
                .table_name(table)
                .key("id", aws_sdk_dynamodb::types::AttributeValue::S(id))
                .consistent_read(true)
                .send()
                .await
                .unwrap()
                .item
                .expect("the item exists")
        }
    };
    let task_item = read(task_id.clone()).await;
    let push_item = read(format!("push#{task_id}")).await;
    assert!(!push_item.contains_key("owner"), "{push_item:?}");
    let config = push_item["configs"].as_m().unwrap()["hook"].as_m().unwrap();
    assert_eq!(config["url"].as_s().unwrap(), &receiver.url);
    assert_eq!(config["token"].as_s().unwrap(), "tok-d");
    assert_eq!(config["protocolVersion"].as_s().unwrap(), "1.0");
    let mark = config["mark"].as_m().unwrap();
    assert_eq!(mark["version"], task_item["version"], "{push_item:?}");
}
