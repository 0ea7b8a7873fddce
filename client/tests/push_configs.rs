#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Push-notification configurations through the client, against wiremock: the exact
//! request each version writes (create, get, list, delete), its answer read into the
//! model, 1.0's pages followed, and a card without push notifications refused before any
//! request.

mod common;

use a2a_lambda_client::model::{
    PushAuthentication, PushNotificationConfig, TaskPushNotificationConfig,
};
use a2a_lambda_client::{Client, Error, ProtocolVersion};
use common::{echo_error, echo_result, fast_retry, request_id, request_json};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// A card at `/` offering JSON-RPC in `version` at `/rpc`, with push notifications as given.
async fn agent(version: ProtocolVersion, push: bool) -> (MockServer, Client) {
    let server = MockServer::start().await;
    let url = format!("{}/rpc", server.uri());
    let card = match version {
        ProtocolVersion::V0_3 => json!({
            "name": "pusher", "url": url, "protocolVersion": "0.3.0",
            "preferredTransport": "JSONRPC",
            "capabilities": {"streaming": false, "pushNotifications": push}
        }),
        _ => json!({
            "name": "pusher",
            "supportedInterfaces": [
                {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {"streaming": false, "pushNotifications": push}
        }),
    };
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .connect()
        .await
        .unwrap();
    assert_eq!(client.version(), version);
    (server, client)
}

async fn answer(server: &MockServer, result: Value) {
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(echo_result(result))
        .mount(server)
        .await;
}

/// The JSON-RPC requests posted, without their ids (checked to be numbers).
async fn posted(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|request| request.method.as_str() == "POST")
        .map(|request| {
            let mut json = request_json(request);
            assert!(json["id"].is_u64(), "{json}");
            json.as_object_mut().unwrap().remove("id");
            json
        })
        .collect()
}

fn config() -> PushNotificationConfig {
    PushNotificationConfig {
        id: Some("cfg-1".to_owned()),
        url: "https://client.example/hook".to_owned(),
        token: Some("tok-1".to_owned()),
        authentication: Some(PushAuthentication {
            schemes: vec!["Bearer".to_owned()],
            credentials: Some("secret".to_owned()),
        }),
    }
}

fn kept(task_id: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        task_id: task_id.to_owned(),
        config: config(),
    }
}

const V1_0_CONFIG: fn() -> Value = || {
    json!({
        "id": "cfg-1", "taskId": "task-1", "url": "https://client.example/hook",
        "token": "tok-1", "authentication": {"scheme": "Bearer", "credentials": "secret"}
    })
};
const V0_3_CONFIG: fn() -> Value = || {
    json!({
        "taskId": "task-1",
        "pushNotificationConfig": {
            "id": "cfg-1", "url": "https://client.example/hook", "token": "tok-1",
            "authentication": {"schemes": ["Bearer"], "credentials": "secret"}
        }
    })
};

#[tokio::test]
async fn create_writes_each_versions_config_and_reads_the_answer() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    answer(&server, V1_0_CONFIG()).await;
    let created = client
        .create_push_config("task-1", &config())
        .await
        .unwrap();
    assert_eq!(created, kept("task-1"));
    assert_eq!(
        posted(&server).await,
        [json!({
            "jsonrpc": "2.0",
            "method": "CreateTaskPushNotificationConfig",
            "params": V1_0_CONFIG(),
        })]
    );

    let (server, client) = agent(ProtocolVersion::V0_3, true).await;
    answer(&server, V0_3_CONFIG()).await;
    let created = client
        .create_push_config("task-1", &config())
        .await
        .unwrap();
    assert_eq!(created, kept("task-1"));
    assert_eq!(
        posted(&server).await,
        [json!({
            "jsonrpc": "2.0",
            "method": "tasks/pushNotificationConfig/set",
            "params": V0_3_CONFIG(),
        })]
    );
}

#[tokio::test]
async fn a_config_without_an_id_or_secrets_writes_only_its_url() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    // The agent chose the id and left the task out of its answer.
    answer(
        &server,
        json!({"id": "chosen", "url": "https://client.example/hook"}),
    )
    .await;
    let bare = PushNotificationConfig {
        id: None,
        url: "https://client.example/hook".to_owned(),
        token: None,
        authentication: None,
    };
    let created = client.create_push_config("task-9", &bare).await.unwrap();
    assert_eq!(created.task_id, "task-9");
    assert_eq!(created.config.id.as_deref(), Some("chosen"));
    assert_eq!(
        posted(&server).await[0]["params"],
        json!({"taskId": "task-9", "url": "https://client.example/hook"})
    );
}

#[tokio::test]
async fn get_names_the_task_and_config_in_each_version() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    answer(&server, V1_0_CONFIG()).await;
    let got = client.get_push_config("task-1", "cfg-1").await.unwrap();
    assert_eq!(got, kept("task-1"));
    assert_eq!(
        posted(&server).await,
        [json!({
            "jsonrpc": "2.0",
            "method": "GetTaskPushNotificationConfig",
            "params": {"taskId": "task-1", "id": "cfg-1"},
        })]
    );

    let (server, client) = agent(ProtocolVersion::V0_3, true).await;
    answer(&server, V0_3_CONFIG()).await;
    let got = client.get_push_config("task-1", "cfg-1").await.unwrap();
    assert_eq!(got, kept("task-1"));
    assert_eq!(
        posted(&server).await,
        [json!({
            "jsonrpc": "2.0",
            "method": "tasks/pushNotificationConfig/get",
            "params": {"id": "task-1", "pushNotificationConfigId": "cfg-1"},
        })]
    );
}

#[tokio::test]
async fn a_1_0_list_follows_its_pages() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    let page = |request: &Request| {
        let body = request_json(request);
        let result = match body["params"]["pageToken"].as_str() {
            None => json!({"configs": [V1_0_CONFIG()], "nextPageToken": "page-2"}),
            Some("page-2") => json!({
                "configs": [{"id": "cfg-2", "taskId": "task-1", "url": "https://b.example/"}],
                "nextPageToken": ""
            }),
            Some(other) => panic!("page token {other}"),
        };
        ResponseTemplate::new(200).set_body_json(
            json!({"jsonrpc": "2.0", "id": request_id(&request.body), "result": result}),
        )
    };
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(page)
        .mount(&server)
        .await;
    let listed = client.list_push_configs("task-1").await.unwrap();
    let second = TaskPushNotificationConfig {
        task_id: "task-1".to_owned(),
        config: PushNotificationConfig {
            id: Some("cfg-2".to_owned()),
            url: "https://b.example/".to_owned(),
            token: None,
            authentication: None,
        },
    };
    assert_eq!(listed, [kept("task-1"), second]);
    assert_eq!(
        posted(&server).await,
        [
            json!({"jsonrpc": "2.0", "method": "ListTaskPushNotificationConfigs",
                   "params": {"taskId": "task-1"}}),
            json!({"jsonrpc": "2.0", "method": "ListTaskPushNotificationConfigs",
                   "params": {"taskId": "task-1", "pageToken": "page-2"}}),
        ]
    );
}

#[tokio::test]
async fn a_page_token_handed_out_twice_is_an_invalid_answer() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    answer(&server, json!({"configs": [], "nextPageToken": "again"})).await;
    let error = client.list_push_configs("task-1").await.unwrap_err();
    let Error::InvalidResponse { detail, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(detail, "the list handed out page token \"again\" twice");
    assert_eq!(posted(&server).await.len(), 2);
}

#[tokio::test]
async fn a_0_3_list_is_a_bare_array() {
    let (server, client) = agent(ProtocolVersion::V0_3, true).await;
    answer(&server, json!([V0_3_CONFIG()])).await;
    let listed = client.list_push_configs("task-1").await.unwrap();
    assert_eq!(listed, [kept("task-1")]);
    assert_eq!(
        posted(&server).await,
        [
            json!({"jsonrpc": "2.0", "method": "tasks/pushNotificationConfig/list",
                "params": {"id": "task-1"}})
        ]
    );
}

#[tokio::test]
async fn delete_reads_null_in_0_3_and_an_empty_object_in_1_0() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    answer(&server, json!({})).await;
    client.delete_push_config("task-1", "cfg-1").await.unwrap();
    assert_eq!(
        posted(&server).await,
        [
            json!({"jsonrpc": "2.0", "method": "DeleteTaskPushNotificationConfig",
                "params": {"taskId": "task-1", "id": "cfg-1"}})
        ]
    );

    let (server, client) = agent(ProtocolVersion::V0_3, true).await;
    answer(&server, Value::Null).await;
    client.delete_push_config("task-1", "cfg-1").await.unwrap();
    assert_eq!(
        posted(&server).await,
        [
            json!({"jsonrpc": "2.0", "method": "tasks/pushNotificationConfig/delete",
                "params": {"id": "task-1", "pushNotificationConfigId": "cfg-1"}})
        ]
    );
}

#[tokio::test]
async fn the_agents_errors_surface_with_their_code() {
    let (server, client) = agent(ProtocolVersion::V1_0, true).await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(echo_error(200, -32001, "Task not found"))
        .mount(&server)
        .await;
    let error = client.get_push_config("nope", "cfg-1").await.unwrap_err();
    let rpc = error.rpc().unwrap_or_else(|| panic!("{error:?}"));
    assert_eq!(rpc.code_number(), -32001);
    assert_eq!(rpc.message, "Task not found");
}

#[tokio::test]
async fn a_card_without_push_notifications_refuses_before_any_request() {
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let (server, client) = agent(version, false).await;
        let refusals = [
            client.create_push_config("t", &config()).await.unwrap_err(),
            client.get_push_config("t", "c").await.unwrap_err(),
            client.list_push_configs("t").await.unwrap_err(),
            client.delete_push_config("t", "c").await.unwrap_err(),
        ];
        for error in refusals {
            let Error::Unsupported { reason, .. } = &error else {
                panic!("{error:?}")
            };
            assert_eq!(
                reason,
                "the agent card of \"pusher\" does not say capabilities.pushNotifications is true"
            );
        }
        assert_eq!(
            client
                .create_push_config("t", &config())
                .await
                .unwrap_err()
                .to_string(),
            "create a push-notification config is not supported: the agent card of \"pusher\" \
             does not say capabilities.pushNotifications is true"
        );
        assert!(posted(&server).await.is_empty());
    }
}
