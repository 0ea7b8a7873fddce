//! Push configurations in the engine: capability gating, owner scoping, bounds, and the
//! checks made before a configuration is kept, in both versions.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::push::delivery::{DeliveryPolicy, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use a2a_lambda_server::push::{InMemoryPushConfigs, MAX_CONFIGS_PER_TASK, Push};
use a2a_lambda_server::tasks::InMemoryTaskStore;
use serde_json::{Value, json};

fn engine(push: bool) -> Engine {
    let engine = common::engine(Arc::new(EchoAgent), Arc::new(InMemoryTaskStore::new()));
    if push {
        let webhooks = Webhooks::new(TargetPolicy::PublicHttps, DeliveryPolicy::default()).unwrap();
        engine.with_push(Push::new(Arc::new(InMemoryPushConfigs::new()), webhooks))
    } else {
        engine
    }
}

fn as_owner(owner: Owner, v1: bool) -> CallContext {
    CallContext {
        owner,
        version_header: v1.then(|| "1.0".to_owned()),
        request_id: "r".into(),
        ..CallContext::default()
    }
}

async fn call(engine: &Engine, call: &CallContext, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    match engine.handle(body.to_string().as_bytes(), call).await {
        Reply::Json { body, .. } => serde_json::from_slice(&body).unwrap(),
        other => panic!("{method}: {other:?}"),
    }
}

async fn new_task(engine: &Engine, call: &CallContext) -> String {
    let sent = call_send(engine, call, json!({})).await;
    sent["result"]["task"]["id"].as_str().unwrap().to_owned()
}

async fn call_send(engine: &Engine, call: &CallContext, configuration: Value) -> Value {
    let params = json!({
        "message": {"role": "ROLE_USER", "messageId": a2a_lambda_core::model::new_id(), "parts": [{"text": "hi"}]},
        "configuration": configuration,
    });
    self::call(engine, call, "SendMessage", params).await
}

fn alice() -> Owner {
    Owner::agentcore_user("alice")
}

#[tokio::test]
async fn the_card_says_push_only_when_the_host_delivers() {
    assert!(engine(true).card().capabilities.push_notifications);
    assert!(!engine(false).card().capabilities.push_notifications);
}

#[tokio::test]
async fn without_push_the_methods_and_a_send_config_are_minus_32003() {
    let engine = engine(false);
    let alice = as_owner(alice(), true);
    let task = new_task(&engine, &alice).await;
    let created = call(
        &engine,
        &alice,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "url": "https://hooks.example.com/"}),
    )
    .await;
    assert_eq!(created["error"]["code"], -32003, "{created}");
    let sent = call_send(
        &engine,
        &alice,
        json!({"taskPushNotificationConfig": {"url": "https://hooks.example.com/"}}),
    )
    .await;
    assert_eq!(sent["error"]["code"], -32003, "{sent}");
    assert!(
        sent["error"]["message"]
            .as_str()
            .unwrap()
            .contains("send without a push notification config"),
        "{sent}"
    );
}

#[tokio::test]
async fn another_owners_task_is_not_found_for_every_method_of_both_versions() {
    let engine = engine(true);
    let alice_v1 = as_owner(alice(), true);
    let task = new_task(&engine, &alice_v1).await;
    let created = call(
        &engine,
        &alice_v1,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "id": "c1", "url": "https://93.184.215.14/hook"}),
    )
    .await;
    assert_eq!(created["result"]["id"], "c1", "{created}");
    for stranger in [Owner::agentcore_user("bob"), Owner::anonymous()] {
        let v1 = as_owner(stranger.clone(), true);
        for (method, params) in [
            (
                "CreateTaskPushNotificationConfig",
                json!({"taskId": task, "url": "https://93.184.215.14/x"}),
            ),
            (
                "GetTaskPushNotificationConfig",
                json!({"taskId": task, "id": "c1"}),
            ),
            ("ListTaskPushNotificationConfigs", json!({"taskId": task})),
            (
                "DeleteTaskPushNotificationConfig",
                json!({"taskId": task, "id": "c1"}),
            ),
        ] {
            let answer = call(&engine, &v1, method, params).await;
            assert_eq!(answer["error"]["code"], -32001, "{method}: {answer}");
        }
        let v0 = as_owner(stranger, false);
        for (method, params) in [
            (
                "tasks/pushNotificationConfig/set",
                json!({"taskId": task, "pushNotificationConfig": {"url": "https://93.184.215.14/x"}}),
            ),
            ("tasks/pushNotificationConfig/get", json!({"id": task})),
            ("tasks/pushNotificationConfig/list", json!({"id": task})),
            (
                "tasks/pushNotificationConfig/delete",
                json!({"id": task, "pushNotificationConfigId": "c1"}),
            ),
        ] {
            let answer = call(&engine, &v0, method, params).await;
            assert_eq!(answer["error"]["code"], -32001, "{method}: {answer}");
        }
    }
    // Nothing a stranger asked for happened.
    let listed = call(
        &engine,
        &alice_v1,
        "ListTaskPushNotificationConfigs",
        json!({"taskId": task}),
    )
    .await;
    assert_eq!(
        listed["result"]["configs"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
}

#[tokio::test]
async fn a_task_holds_a_bounded_number_of_configs() {
    let engine = engine(true);
    let alice = as_owner(alice(), true);
    let task = new_task(&engine, &alice).await;
    for n in 0..MAX_CONFIGS_PER_TASK {
        let created = call(
            &engine,
            &alice,
            "CreateTaskPushNotificationConfig",
            json!({"taskId": task, "id": format!("c{n}"), "url": "https://93.184.215.14/hook"}),
        )
        .await;
        assert!(created.get("result").is_some(), "{created}");
    }
    let one_more = call(
        &engine,
        &alice,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "id": "extra", "url": "https://93.184.215.14/hook"}),
    )
    .await;
    assert_eq!(one_more["error"]["code"], -32602, "{one_more}");
    assert!(
        one_more["error"]["message"]
            .as_str()
            .unwrap()
            .contains("delete one first"),
        "{one_more}"
    );
    // Replacing one that exists is no new config.
    let replaced = call(
        &engine,
        &alice,
        "CreateTaskPushNotificationConfig",
        json!({"taskId": task, "id": "c0", "url": "https://93.184.215.14/other"}),
    )
    .await;
    assert_eq!(
        replaced["result"]["url"], "https://93.184.215.14/other",
        "{replaced}"
    );
}

#[tokio::test]
async fn configs_that_would_break_a_header_or_call_inside_are_refused() {
    let engine = engine(true);
    let alice = as_owner(alice(), true);
    let task = new_task(&engine, &alice).await;
    for (config, member) in [
        (
            json!({"url": "http://93.184.215.14/"}),
            "params.url: must use https",
        ),
        (
            json!({"url": "https://127.0.0.1/"}),
            "params.url: 127.0.0.1 is a loopback address",
        ),
        (
            json!({"url": "https://localhost/"}),
            "params.url: localhost resolves to a loopback address",
        ),
        (
            json!({"url": "https://93.184.215.14/", "token": "a\nb"}),
            "params.token:",
        ),
        (
            json!({"url": "https://93.184.215.14/", "authentication": {"scheme": "Bea rer"}}),
            "params.authentication:",
        ),
        (
            json!({"url": "https://93.184.215.14/", "authentication": {"scheme": "Bearer", "credentials": "x\r\ny"}}),
            "params.authentication.credentials:",
        ),
        (
            json!({"url": format!("https://93.184.215.14/{}", "a".repeat(3000))}),
            "params.url: longer than",
        ),
    ] {
        let mut params = config.clone();
        params["taskId"] = json!(task);
        let answer = call(&engine, &alice, "CreateTaskPushNotificationConfig", params).await;
        assert_eq!(answer["error"]["code"], -32602, "{config}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(member), "{config}: {message}");
    }
    // A send's config is checked the same way, before the task starts.
    let sent = call_send(
        &engine,
        &alice,
        json!({"taskPushNotificationConfig": {"url": "https://169.254.169.254/"}}),
    )
    .await;
    assert_eq!(sent["error"]["code"], -32602, "{sent}");
    assert!(
        sent["error"]["message"]
            .as_str()
            .unwrap()
            .contains("params.configuration.taskPushNotificationConfig.url: 169.254.169.254 is a link-local address"),
        "{sent}"
    );
}
