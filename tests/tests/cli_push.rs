#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a push …` and `a2a send --push-url`: the exact request each version writes
//! and what is printed, against an agent played by wiremock (the emulator's engine does not
//! serve push-notification configs yet); and against the real emulator, whose card says
//! it has no push notifications, the refusal before any request and, without the card,
//! the agent's -32003.

use a2a_test_support::harness::cli::{Run, run};
use a2a_test_support::harness::{Emulator, Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// An agent at `/` whose card offers JSON-RPC `version` ("0.3" or "1.0") at `/rpc`, with
/// push notifications, answering each call with `answer(method, params)`.
async fn agent(
    version: &str,
    answer: impl Fn(&str, &Value) -> Value + Send + Sync + 'static,
) -> MockServer {
    let server = MockServer::start().await;
    let url = format!("{}/rpc", server.uri());
    let capabilities = json!({"streaming": false, "pushNotifications": true});
    let card = if version == "0.3" {
        json!({"name": "pusher", "url": url, "protocolVersion": "0.3.0",
               "preferredTransport": "JSONRPC", "capabilities": capabilities})
    } else {
        json!({"name": "pusher", "capabilities": capabilities, "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})
    };
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(move |request: &Request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            let result = answer(body["method"].as_str().unwrap_or(""), &body["params"]);
            ResponseTemplate::new(200)
                .set_body_json(json!({"jsonrpc": "2.0", "id": body["id"], "result": result}))
        })
        .mount(&server)
        .await;
    server
}

/// The JSON-RPC calls the agent received: `(method, params)`.
async fn calls(server: &MockServer) -> Vec<(String, Value)> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|request| request.method.as_str() == "POST")
        .map(|request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap();
            (
                body["method"].as_str().unwrap().to_owned(),
                body["params"].clone(),
            )
        })
        .collect()
}

/// Runs `a2a ARGS…` off the async runtime (wiremock answers on it).
async fn a2a(args: Vec<String>) -> Run {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&args)
    })
    .await
    .unwrap()
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|arg| (*arg).to_owned()).collect()
}

fn config_v10() -> Value {
    json!({"id": "cfg-1", "taskId": "task-1", "url": "https://client.example/hook",
           "token": "tok-1", "authentication": {"scheme": "Bearer", "credentials": "c-1"}})
}

fn config_v03() -> Value {
    json!({"taskId": "task-1", "pushNotificationConfig": {
        "id": "cfg-1", "url": "https://client.example/hook", "token": "tok-1",
        "authentication": {"schemes": ["Bearer"], "credentials": "c-1"}}})
}

const CREATE: [&str; 10] = [
    "--url",
    "https://client.example/hook",
    "--token",
    "tok-1",
    "--auth-scheme",
    "Bearer",
    "--auth-credentials",
    "c-1",
    "--id",
    "cfg-1",
];

#[tokio::test(flavor = "multi_thread")]
async fn create_writes_each_versions_config_and_prints_what_the_agent_kept() {
    let server = agent("1.0", |_, _| config_v10()).await;
    let mut command = args(&["push", "create", &server.uri(), "task-1"]);
    command.extend(args(&CREATE));
    let created = a2a(command).await;
    created.expect_code(0);
    assert_eq!(
        created.stdout,
        "cfg-1\ttask-1\thttps://client.example/hook\n"
    );
    assert_eq!(
        calls(&server).await,
        [("CreateTaskPushNotificationConfig".to_owned(), config_v10())]
    );

    let server = agent("0.3", |_, _| config_v03()).await;
    let mut command = args(&["push", "create", &server.uri(), "task-1", "--json"]);
    command.extend(args(&CREATE));
    let created = a2a(command).await;
    created.expect_code(0);
    assert_eq!(created.json(), config_v03());
    assert_eq!(
        calls(&server).await,
        [("tasks/pushNotificationConfig/set".to_owned(), config_v03())]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn list_reads_every_page_and_prints_a_line_a_config() {
    let server = agent("1.0", |_, params| match params["pageToken"].as_str() {
        None => json!({"configs": [config_v10()], "nextPageToken": "p2"}),
        _ => json!({"configs": [{"id": "cfg-2", "taskId": "task-1", "url": "https://b.example/"}],
                    "nextPageToken": ""}),
    })
    .await;
    let listed = a2a(args(&["push", "list", &server.uri(), "task-1"])).await;
    listed.expect_code(0);
    assert_eq!(
        listed.stdout,
        "cfg-1\ttask-1\thttps://client.example/hook\ncfg-2\ttask-1\thttps://b.example/\n"
    );
    assert_eq!(listed.stderr, "2 push configs of task task-1\n");
    assert_eq!(
        calls(&server).await,
        [
            (
                "ListTaskPushNotificationConfigs".to_owned(),
                json!({"taskId": "task-1"})
            ),
            (
                "ListTaskPushNotificationConfigs".to_owned(),
                json!({"taskId": "task-1", "pageToken": "p2"})
            ),
        ]
    );

    let server = agent("0.3", |_, _| json!([config_v03()])).await;
    let listed = a2a(args(&["push", "list", &server.uri(), "task-1", "--json"])).await;
    listed.expect_code(0);
    assert_eq!(listed.json(), json!([config_v03()]));
    assert_eq!(
        calls(&server).await,
        [(
            "tasks/pushNotificationConfig/list".to_owned(),
            json!({"id": "task-1"})
        )]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn get_and_delete_name_the_task_and_config() {
    // 0.3's delete answers null.
    let server = agent("0.3", |method, _| match method {
        "tasks/pushNotificationConfig/get" => config_v03(),
        _ => Value::Null,
    })
    .await;
    let got = a2a(args(&[
        "push",
        "get",
        &server.uri(),
        "task-1",
        "cfg-1",
        "--json",
    ]))
    .await;
    got.expect_code(0);
    assert_eq!(got.json(), config_v03());
    let deleted = a2a(args(&["push", "delete", &server.uri(), "task-1", "cfg-1"])).await;
    deleted.expect_code(0);
    assert_eq!(deleted.stdout, "deleted push config cfg-1 of task task-1\n");
    let ids = json!({"id": "task-1", "pushNotificationConfigId": "cfg-1"});
    assert_eq!(
        calls(&server).await,
        [
            ("tasks/pushNotificationConfig/get".to_owned(), ids.clone()),
            ("tasks/pushNotificationConfig/delete".to_owned(), ids),
        ]
    );

    // 1.0's answers google.protobuf.Empty.
    let server = agent("1.0", |_, _| json!({})).await;
    let deleted = a2a(args(&[
        "push",
        "delete",
        &server.uri(),
        "task-1",
        "cfg-1",
        "--json",
    ]))
    .await;
    deleted.expect_code(0);
    assert_eq!(
        deleted.json(),
        json!({"deleted": {"taskId": "task-1", "id": "cfg-1"}})
    );
    assert_eq!(
        calls(&server).await,
        [(
            "DeleteTaskPushNotificationConfig".to_owned(),
            json!({"taskId": "task-1", "id": "cfg-1"})
        )]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn send_with_a_push_url_asks_for_pushes_in_each_version() {
    let task_v10 = json!({"task": {"id": "t-1", "contextId": "c-1",
                                   "status": {"state": "TASK_STATE_SUBMITTED"}}});
    let server = agent("1.0", move |_, _| task_v10.clone()).await;
    let sent = a2a(args(&[
        "send",
        &server.uri(),
        "hi",
        "--no-wait",
        "--push-url",
        "https://client.example/hook",
        "--push-token",
        "tok-1",
    ]))
    .await;
    sent.expect_code(0);
    let (name, params) = calls(&server).await.remove(0);
    assert_eq!(name, "SendMessage");
    assert_eq!(
        params["configuration"],
        json!({"returnImmediately": true, "taskPushNotificationConfig": {
            "url": "https://client.example/hook", "token": "tok-1"}})
    );

    let task_v03 = json!({"kind": "task", "id": "t-1", "contextId": "c-1",
                          "status": {"state": "submitted"}});
    let server = agent("0.3", move |_, _| task_v03.clone()).await;
    let sent = a2a(args(&[
        "send",
        &server.uri(),
        "hi",
        "--push-url",
        "https://client.example/hook",
    ]))
    .await;
    sent.expect_code(0);
    let (name, params) = calls(&server).await.remove(0);
    assert_eq!(name, "message/send");
    assert_eq!(
        params["configuration"],
        // 0.3 spells out the default wait, `blocking: true`.
        json!({"blocking": true, "pushNotificationConfig": {"url": "https://client.example/hook"}})
    );
}

#[test]
fn a_push_token_needs_a_push_url() {
    let refused = run(&["send", "http://127.0.0.1:9/", "hi", "--push-token", "t"]);
    refused.expect_code(2);
    assert!(
        refused.stderr.contains(
            "the following required arguments were not provided:\n  --push-url <WEBHOOK_URL>"
        ),
        "{}",
        refused.stderr
    );
}

#[test]
fn an_emulator_with_push_off_is_refused_from_its_card() {
    let emulator = Emulator::start(&["--push-notifications", "off"]);
    let url = emulator.url("/");
    let refused = run(&["push", "list", &url, "task-1"]);
    refused.expect_code(1);
    assert!(
        refused.stderr.starts_with(
            "error: list push-notification configs is not supported: the agent card of "
        ),
        "{}",
        refused.stderr
    );
    assert!(
        refused
            .stderr
            .contains("does not say capabilities.pushNotifications is true"),
        "{}",
        refused.stderr
    );
    // Without the card the request goes out, and the agent says so itself.
    let answered = run(&["push", "list", &url, "task-1", "--no-card", "--json"]);
    answered.expect_code(1);
    assert_eq!(
        answered.json()["error"]["code"],
        -32003,
        "{}",
        answered.stdout
    );
}

/// The whole loop a client developer runs: `a2a send --push-url` at the emulator's own
/// webhook sink, the emulator's agent delivers there, `a2a push list/delete` manage the
/// config.
#[tokio::test]
async fn a_send_with_push_url_is_delivered_to_the_emulators_sink() {
    let emulator = Emulator::start(&[]);
    let url = emulator.url("/");
    let sink = emulator.url("/_emulator/webhooks/cli");
    let sent = {
        let (url, sink) = (url.clone(), sink.clone());
        tokio::task::spawn_blocking(move || {
            run(&[
                "send",
                &url,
                "hello",
                "--push-url",
                &sink,
                "--push-token",
                "tok-cli",
                "--json",
            ])
        })
        .await
        .unwrap()
    };
    sent.expect_code(0);
    let task_id = sent.json()["task"]["id"].as_str().unwrap().to_owned();
    let http = reqwest::Client::new();
    let deliveries: Value = http
        .get(format!("{sink}?since=0&wait=15"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let last = deliveries["deliveries"]
        .as_array()
        .unwrap()
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["body"]["task"]["id"], json!(task_id), "{deliveries}");
    assert_eq!(
        last["body"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert_eq!(last["headers"]["x-a2a-notification-token"], "****");
    assert_eq!(last["contentType"], "application/a2a+json");

    let listed = tokio::task::spawn_blocking({
        let (url, task_id) = (url.clone(), task_id.clone());
        move || run(&["push", "list", &url, &task_id, "--json"])
    })
    .await
    .unwrap();
    listed.expect_code(0);
    let configs = listed.json();
    let config_id = configs["configs"][0]["id"]
        .as_str()
        .map(str::to_owned)
        .unwrap_or_else(|| {
            panic!("one config listed: {configs}");
        });
    let deleted =
        tokio::task::spawn_blocking(move || run(&["push", "delete", &url, &task_id, &config_id]))
            .await
            .unwrap();
    deleted.expect_code(0);
}
