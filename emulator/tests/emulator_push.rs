//! Push notifications through the real emulator: the configuration methods of both
//! versions (exact JSON), their refusals, and deliveries to a local receiver (wiremock on
//! loopback, which the emulator allows by default) with the token, the authentication,
//! the body of each version, in order, and retried when the receiver fails.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::{Emulator, Op, Value, Version, eventually, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A completed task of the echo agent; its id.
async fn echo_task(emulator: &Emulator, version: Version) -> String {
    let task = emulator
        .send_task(version, version.send_params(&unique("m"), "hello"))
        .await;
    task["id"].as_str().unwrap().to_owned()
}

fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

async fn receiver() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&server)
        .await;
    server
}

/// The JSON bodies the receiver got, in arrival order.
async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

/// Waits until the receiver got a body whose task is in `state` (either version's body).
async fn wait_for_state(server: &MockServer, state: &str) -> Vec<Value> {
    eventually(
        &format!("a notification of {state}"),
        Duration::from_secs(15),
        || async {
            let seen = bodies(server).await;
            seen.iter()
                .any(|body| task_state(body) == state)
                .then_some(seen)
        },
    )
    .await
}

fn task_state(body: &Value) -> &str {
    let task = body.get("task").unwrap_or(body);
    task["status"]["state"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn v1_0_configs_are_created_got_listed_and_deleted() {
    let emulator = Emulator::start(&[]);
    let card = emulator.card().await;
    assert_eq!(card["capabilities"]["pushNotifications"], true, "{card}");
    let v = Version::V1_0;
    let task_id = echo_task(&emulator, v).await;
    let config = json!({
        "id": "cfg-1",
        "url": "https://hooks.example.com/a2a",
        "token": "tok-1",
        "authentication": {"scheme": "Bearer", "credentials": "secret"}
    });
    let mut params = config.clone();
    params["taskId"] = json!(task_id);
    let created = emulator.result(v, Op::SetPush, params.clone()).await;
    assert_eq!(created, params);
    let got = emulator
        .result(v, Op::GetPush, json!({"taskId": task_id, "id": "cfg-1"}))
        .await;
    assert_eq!(got, params);
    let listed = emulator
        .result(v, Op::ListPush, json!({"taskId": task_id}))
        .await;
    assert_eq!(listed, json!({"configs": [params], "nextPageToken": ""}));

    // Without an id, the config gets one.
    let anonymous = emulator
        .result(
            v,
            Op::SetPush,
            json!({"taskId": task_id, "url": "https://hooks.example.com/b"}),
        )
        .await;
    let second = anonymous["id"].as_str().unwrap();
    assert!(!second.is_empty() && second != "cfg-1", "{anonymous}");
    let page = emulator
        .result(v, Op::ListPush, json!({"taskId": task_id, "pageSize": 1}))
        .await;
    assert_eq!(page["configs"].as_array().unwrap().len(), 1, "{page}");
    assert_eq!(page["nextPageToken"], "1", "{page}");
    let rest = emulator
        .result(
            v,
            Op::ListPush,
            json!({"taskId": task_id, "pageToken": "1"}),
        )
        .await;
    assert_eq!(rest["configs"][0]["id"], second, "{rest}");
    assert_eq!(rest["nextPageToken"], "", "{rest}");

    let deleted = emulator
        .result(v, Op::DeletePush, json!({"taskId": task_id, "id": "cfg-1"}))
        .await;
    assert_eq!(deleted, json!({}));
    // Idempotent (A2A v1.0 §3.1.10).
    let again = emulator
        .result(v, Op::DeletePush, json!({"taskId": task_id, "id": "cfg-1"}))
        .await;
    assert_eq!(again, json!({}));
    let gone = emulator
        .call_op(v, Op::GetPush, json!({"taskId": task_id, "id": "cfg-1"}))
        .await;
    assert_eq!(gone["error"]["code"], -32001, "{gone}");
    assert_eq!(
        gone["error"]["data"][0]["metadata"]["configId"], "cfg-1",
        "{gone}"
    );
}

#[tokio::test]
async fn v0_3_configs_take_the_task_id_and_list_as_an_array() {
    let emulator = Emulator::start(&[]);
    let v = Version::V0_3;
    let task_id = echo_task(&emulator, v).await;
    let set = emulator
        .result(
            v,
            Op::SetPush,
            json!({"taskId": task_id, "pushNotificationConfig": {"url": "https://hooks.example.com/a2a", "token": "t"}}),
        )
        .await;
    let expected = json!({
        "taskId": task_id,
        "pushNotificationConfig": {"id": task_id, "url": "https://hooks.example.com/a2a", "token": "t"}
    });
    assert_eq!(set, expected);
    let got = emulator
        .result(v, Op::GetPush, json!({"id": task_id}))
        .await;
    assert_eq!(got, expected);
    let listed = emulator
        .result(v, Op::ListPush, json!({"id": task_id}))
        .await;
    assert_eq!(listed, json!([expected]));
    let deleted = emulator
        .result(
            v,
            Op::DeletePush,
            json!({"id": task_id, "pushNotificationConfigId": task_id}),
        )
        .await;
    assert_eq!(deleted, Value::Null);
    let listed = emulator
        .result(v, Op::ListPush, json!({"id": task_id}))
        .await;
    assert_eq!(listed, json!([]));
}

#[tokio::test]
async fn bad_configs_and_unknown_tasks_are_refused() {
    let emulator = Emulator::start(&[]);
    let v = Version::V1_0;
    let task_id = echo_task(&emulator, v).await;
    let unknown = emulator
        .call_op(
            v,
            Op::SetPush,
            json!({"taskId": "no-such-task", "url": "https://hooks.example.com/"}),
        )
        .await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    for op in [Op::GetPush, Op::DeletePush] {
        let response = emulator
            .call_op(v, op, json!({"taskId": "no-such-task", "id": "c"}))
            .await;
        assert_eq!(response["error"]["code"], -32001, "{response}");
    }
    for (url, reason) in [
        ("http://10.1.2.3:8080/hook", "private"),
        (
            "https://localhost.localdomain.invalid@[fe80::1]/",
            "user:password",
        ),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://10.0.0.7/hook", "private"),
        ("ftp://hooks.example.com/", "https"),
        ("not a url", "url"),
    ] {
        let response = emulator
            .call_op(v, Op::SetPush, json!({"taskId": task_id, "url": url}))
            .await;
        assert_eq!(response["error"]["code"], -32602, "{url}: {response}");
        let message = response["error"]["data"][0]["metadata"]["detail"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| response["error"].to_string());
        assert!(message.contains(reason), "{url}: {response}");
    }
    let header_breaking = emulator
        .call_op(
            v,
            Op::SetPush,
            json!({"taskId": task_id, "url": "https://hooks.example.com/", "token": "a\r\nX-Evil: 1"}),
        )
        .await;
    assert_eq!(
        header_breaking["error"]["code"], -32602,
        "{header_breaking}"
    );
}

#[tokio::test]
async fn a_v1_0_send_with_a_config_tells_the_webhook_of_each_status_in_order() {
    let server = receiver().await;
    let emulator = Emulator::start(&[]);
    let v = Version::V1_0;
    let mut params = v.send_params(&unique("m"), "hello");
    params["configuration"] = json!({
        "taskPushNotificationConfig": {
            "url": format!("{}/hook", server.uri()),
            "token": "tok-42",
            "authentication": {"scheme": "Bearer", "credentials": "cred-42"}
        }
    });
    let task = emulator.send_task(v, params).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    let seen = wait_for_state(&server, "TASK_STATE_COMPLETED").await;
    // Every body is a StreamResponse holding the task; the last one is its end.
    for body in &seen {
        assert_eq!(body.as_object().unwrap().len(), 1, "{body}");
        assert_eq!(body["task"]["id"], task["id"], "{body}");
    }
    assert_eq!(seen.last().map(task_state), Some("TASK_STATE_COMPLETED"));
    assert_eq!(seen.last().unwrap()["task"]["artifacts"], task["artifacts"]);
    let requests = server.received_requests().await.unwrap();
    for request in &requests {
        assert_eq!(request.headers["x-a2a-notification-token"], "tok-42");
        assert_eq!(request.headers["authorization"], "Bearer cred-42");
        assert_eq!(request.headers["content-type"], "application/a2a+json");
    }
    // No status is told twice, and working (if told) comes before completed.
    let states: Vec<&str> = seen.iter().map(task_state).collect();
    let mut deduped = states.clone();
    deduped.dedup();
    assert_eq!(states, deduped, "{states:?}");
}

#[tokio::test]
async fn a_v0_3_config_is_told_with_the_bare_task() {
    let server = receiver().await;
    let emulator = Emulator::start(&["--agent", "conformance"]);
    let v = Version::V0_3;
    // Input required first, so that the config set now sees the next change.
    let task = emulator
        .send_task(v, v.send_params(&unique("tck-input-required"), "start"))
        .await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    emulator
        .result(
            v,
            Op::SetPush,
            json!({"taskId": task_id, "pushNotificationConfig": {"url": format!("{}/hook", server.uri()), "token": "t3"}}),
        )
        .await;
    let mut follow_up = v.user_message(&unique("tck-complete-task"), "done");
    follow_up["taskId"] = json!(task_id);
    emulator.send_task(v, json!({"message": follow_up})).await;
    let seen = wait_for_state(&server, "completed").await;
    let last = seen.last().unwrap();
    assert_eq!(last["kind"], "task", "{last}");
    assert_eq!(last["id"], json!(task_id), "{last}");
    // The config was set while the task waited for input: that state is not news.
    assert!(
        seen.iter().all(|body| task_state(body) != "input-required"),
        "{seen:?}"
    );
    let request = &server.received_requests().await.unwrap()[0];
    assert_eq!(request.headers["content-type"], "application/json");
    assert_eq!(request.headers["x-a2a-notification-token"], "t3");
}

#[tokio::test]
async fn a_failing_receiver_is_retried_and_the_task_is_unharmed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .with_priority(2)
        .mount(&server)
        .await;
    let emulator = Emulator::start(&["--agent", "conformance"]);
    let v = Version::V1_0;
    let task = emulator
        .send_task(v, v.send_params(&unique("tck-input-required"), "start"))
        .await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    emulator
        .result(
            v,
            Op::SetPush,
            json!({"taskId": task_id, "url": format!("{}/hook", server.uri())}),
        )
        .await;
    let mut follow_up = v.user_message(&unique("tck-complete-task"), "done");
    follow_up["taskId"] = json!(task_id);
    let done = emulator.send_task(v, json!({"message": follow_up})).await;
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED");
    let seen = eventually("three attempts", Duration::from_secs(20), || async {
        let seen = bodies(&server).await;
        (seen.len() >= 3).then_some(seen)
    })
    .await;
    // Two refusals, then the same notification again: three requests, one body.
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!(task_state(&seen[0]), "TASK_STATE_COMPLETED");
    assert!(seen.windows(2).all(|pair| pair[0] == pair[1]), "{seen:?}");
}
