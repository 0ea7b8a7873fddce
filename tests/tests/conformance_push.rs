//! The push-notification requirements of the public A2A conformance suite (the TCK,
//! a2aproject/a2a-tck): v1.0's PUSH-CREATE-*, PUSH-GET-*, PUSH-LIST-*, PUSH-DEL-* and
//! PUSH-DELIVER-* (`tck/requirements/push_notifications.py`, the scenarios of
//! `tests/compatibility/core_operations/test_push_notifications.py`), and the v0.3
//! webhook-delivery scenarios (`test_push_notification_delivery.py`), against the real
//! emulator serving the `conformance` agent, with a local webhook receiver standing in
//! for the suite's. The facts checked are the suite's; the code is ours.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::conformance::{conformance_emulator, tck_id, unique_id};
use a2a_test_support::harness::{Emulator, Op, Value, Version, eventually, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// The suite's delivery timeout.
const DELIVERY_TIMEOUT: Duration = Duration::from_secs(15);

async fn webhook_receiver() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    server
}

async fn first_delivery(server: &MockServer) -> Request {
    eventually("a webhook delivery", DELIVERY_TIMEOUT, || async {
        server
            .received_requests()
            .await
            .unwrap_or_default()
            .into_iter()
            .next()
    })
    .await
}

/// `create_completed_task`: a task the agent completed.
async fn completed_task(emulator: &Emulator, v: Version) -> String {
    let task = emulator
        .send_task(
            v,
            v.send_params(&tck_id("complete-task"), "TCK prerequisite task creation"),
        )
        .await;
    task["id"].as_str().unwrap().to_owned()
}

/// The suite's `_push_config()`: a session-stable id and a URL that never receives.
fn push_config() -> Value {
    json!({"id": tck_id("push"), "url": "https://example.com/tck-push-webhook"})
}

async fn create(emulator: &Emulator, task_id: &str, config: &Value) -> Value {
    let mut params = config.clone();
    params["taskId"] = json!(task_id);
    emulator.call_op(Version::V1_0, Op::SetPush, params).await
}

/// PUSH-CREATE-001 (MUST): CreateTaskPushNotificationConfig returns the config with its id.
/// PUSH-CREATE-002 (MUST): the config persists and can be got after creation.
/// PUSH-GET-001 (MUST): Get returns the config's details.
#[tokio::test]
async fn push_create_001_002_get_001_a_config_is_created_and_kept() {
    let emulator = conformance_emulator();
    let card = emulator.card().await;
    assert_eq!(card["capabilities"]["pushNotifications"], true, "{card}");
    let task_id = completed_task(&emulator, Version::V1_0).await;
    let config = push_config();
    let created = create(&emulator, &task_id, &config).await;
    assert_eq!(created["result"]["id"], config["id"], "{created}");
    assert_eq!(created["result"]["url"], config["url"], "{created}");
    let got = emulator
        .call_op(
            Version::V1_0,
            Op::GetPush,
            json!({"taskId": task_id, "id": config["id"]}),
        )
        .await;
    assert_eq!(got["result"], created["result"], "{got}");
}

/// PUSH-GET-002 (MUST): Get of a config that does not exist fails.
#[tokio::test]
async fn push_get_002_a_config_that_does_not_exist_is_an_error() {
    let emulator = conformance_emulator();
    let task_id = completed_task(&emulator, Version::V1_0).await;
    let response = emulator
        .call_op(
            Version::V1_0,
            Op::GetPush,
            json!({"taskId": task_id, "id": tck_id("nonexistent")}),
        )
        .await;
    assert_eq!(response["error"]["code"], -32001, "{response}");
}

/// PUSH-LIST-001 (MUST): List returns every active config of the task.
#[tokio::test]
async fn push_list_001_the_list_holds_the_created_configs() {
    let emulator = conformance_emulator();
    let task_id = completed_task(&emulator, Version::V1_0).await;
    let (first, second) = (push_config(), push_config());
    create(&emulator, &task_id, &first).await;
    create(&emulator, &task_id, &second).await;
    let listed = emulator
        .result(Version::V1_0, Op::ListPush, json!({"taskId": task_id}))
        .await;
    let ids: Vec<&Value> = listed["configs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|config| &config["id"])
        .collect();
    assert_eq!(ids, [&first["id"], &second["id"]], "{listed}");
}

/// PUSH-DEL-001 (MUST): Delete removes the config (Get fails after).
/// PUSH-DEL-002 (MUST): Delete is idempotent (a second delete succeeds).
#[tokio::test]
async fn push_del_001_002_delete_removes_and_is_idempotent() {
    let emulator = conformance_emulator();
    let task_id = completed_task(&emulator, Version::V1_0).await;
    let config = push_config();
    create(&emulator, &task_id, &config).await;
    let ids = json!({"taskId": task_id, "id": config["id"]});
    let deleted = emulator
        .call_op(Version::V1_0, Op::DeletePush, ids.clone())
        .await;
    assert!(deleted.get("result").is_some(), "{deleted}");
    let got = emulator
        .call_op(Version::V1_0, Op::GetPush, ids.clone())
        .await;
    assert!(got.get("error").is_some(), "{got}");
    let again = emulator.call_op(Version::V1_0, Op::DeletePush, ids).await;
    assert!(again.get("result").is_some(), "{again}");
}

/// The suite's `_setup_push_and_trigger`: a send carrying the config makes a task that
/// asks for input, a follow-up completes it. The config as sent.
async fn setup_push_and_trigger(emulator: &Emulator, webhook_url: &str) -> (Value, String) {
    let v = Version::V1_0;
    let config = json!({
        "id": tck_id("push"),
        "url": webhook_url,
        "authentication": {"scheme": "Bearer", "credentials": format!("tck-test-token-{}", tck_id("auth"))},
    });
    let mut params = v.send_params(&tck_id("input-required"), "TCK prerequisite task creation");
    params["configuration"] = json!({"taskPushNotificationConfig": config});
    let task = emulator.send_task(v, params).await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    let mut follow_up = v.user_message(
        &tck_id("complete-task"),
        "TCK trigger push notification delivery",
    );
    follow_up["taskId"] = json!(task_id);
    emulator.send_task(v, json!({"message": follow_up})).await;
    (config, task_id)
}

/// PUSH-DELIVER-001 (MUST): the webhook request carries the config's authentication.
/// PUSH-DELIVER-002 (MUST): delivery is attempted at least once.
/// PUSH-DELIVER-003 (MUST): the payload is a StreamResponse with exactly one of task,
/// message, statusUpdate, artifactUpdate.
#[tokio::test]
async fn push_deliver_001_002_003_the_webhook_gets_a_stream_response_with_auth() {
    let receiver = webhook_receiver().await;
    let emulator = conformance_emulator();
    let (config, task_id) =
        setup_push_and_trigger(&emulator, &format!("{}/webhook", receiver.uri())).await;
    let request = first_delivery(&receiver).await;
    let credentials = config["authentication"]["credentials"].as_str().unwrap();
    assert_eq!(
        request.headers["authorization"],
        format!("Bearer {credentials}").as_str()
    );
    let payload: Value = serde_json::from_slice(&request.body).unwrap();
    let members: Vec<&String> = payload.as_object().unwrap().keys().collect();
    assert_eq!(members.len(), 1, "{payload}");
    assert!(
        ["task", "message", "statusUpdate", "artifactUpdate"].contains(&members[0].as_str()),
        "{payload}"
    );
    assert_eq!(payload["task"]["id"], json!(task_id), "{payload}");
}

/// v0.3 `test_push_notification_delivery_*`: a config set on a task, then a follow-up that
/// changes its state; the webhook gets the token, the authentication, and the bare task
/// (`kind: "task"`, not a StreamResponse).
#[tokio::test]
async fn v0_3_delivery_carries_token_auth_and_the_bare_task() {
    let receiver = webhook_receiver().await;
    let emulator = conformance_emulator();
    let v = Version::V0_3;
    let task = emulator
        .send_task(
            v,
            v.send_params(
                &unique_id("test-push-delivery"),
                "Task for push notification delivery test",
            ),
        )
        .await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    let token = unique_id("tck-notification-token");
    emulator
        .result(
            v,
            Op::SetPush,
            json!({"taskId": task_id, "pushNotificationConfig": {
                "url": format!("{}/webhook", receiver.uri()),
                "token": token,
                "authentication": {"schemes": ["Bearer"], "credentials": "tck-credentials"},
            }}),
        )
        .await;
    let mut follow_up = v.user_message(
        &unique_id("test-push-trigger"),
        "Complete the task to trigger push notification",
    );
    follow_up["taskId"] = json!(task_id);
    emulator
        .result(v, Op::Send, json!({"message": follow_up}))
        .await;
    let request = first_delivery(&receiver).await;
    assert_eq!(request.headers["x-a2a-notification-token"], token.as_str());
    assert_eq!(request.headers["authorization"], "Bearer tck-credentials");
    let payload: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(payload["kind"], "task", "{payload}");
    assert_eq!(payload["id"], json!(task_id), "{payload}");
    assert!(payload.get("status").is_some(), "{payload}");
    for wrapper in ["task", "message", "statusUpdate", "artifactUpdate"] {
        assert!(payload.get(wrapper).is_none(), "{payload}");
    }
}
