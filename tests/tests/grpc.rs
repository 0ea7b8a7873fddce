#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The gRPC binding of A2A v1.0 against the real container host
//! (`a2a_lambda_server::serve::Container`) on loopback sockets in-process, called with the
//! `A2AService` client generated from the specification's `a2a.proto`: the card lists
//! `GRPC` only when it is served, every operation with exact results, refusals as
//! `google.rpc.Status` with their `ErrorInfo`, streams and subscriptions, push
//! configurations; `A2A_BINDINGS=grpc` refused behind AgentCore.

use a2a_lambda_core::grpc::v1;
use a2a_lambda_core::grpc::v1::a2a_service_client::A2aServiceClient;
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::{Container, ContainerConfig, Running};
use futures_util::StreamExt;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt as _;

/// A conformance agent's container on 127.0.0.1, free ports, serving `bindings`.
async fn container(bindings: &str) -> Running {
    let config = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" | "A2A_GRPC_PORT" => "0",
                "A2A_BINDINGS" => bindings,
                "A2A_PUSH_ALLOW_PRIVATE" => "loopback",
                _ => return None,
            }
            .to_owned(),
        )
    })
    .unwrap();
    Container::with_config(BuiltIn::Conformance.agent(), config)
        .bind()
        .await
        .unwrap()
}

async fn client(running: &Running) -> A2aServiceClient<Channel> {
    let address = running.grpc_address().expect("serves gRPC");
    let channel = Channel::from_shared(format!("http://{address}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    A2aServiceClient::new(channel)
}

fn send(message_id: &str, text: &str) -> v1::SendMessageRequest {
    v1::SendMessageRequest {
        message: Some(v1::Message {
            message_id: message_id.to_owned(),
            role: v1::Role::User.into(),
            parts: vec![v1::Part {
                content: Some(v1::part::Content::Text(text.to_owned())),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn card(running: &Running) -> serde_json::Value {
    reqwest::get(format!("{}.well-known/agent-card.json", running.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The `(code, ErrorInfo reason, ErrorInfo domain)` of a refusal.
fn refusal(status: &tonic::Status) -> (Code, String, String) {
    let info = status
        .get_error_details()
        .error_info()
        .cloned()
        .expect("an ErrorInfo");
    (status.code(), info.reason, info.domain)
}

#[tokio::test]
async fn the_card_lists_grpc_at_its_own_port_only_when_served() {
    let running = container("jsonrpc,grpc").await;
    let grpc_url = format!("http://{}", running.grpc_address().unwrap());
    let interfaces = card(&running).await["supportedInterfaces"].clone();
    assert_eq!(
        interfaces,
        serde_json::json!([
            {"url": running.url(), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": grpc_url, "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": running.url(), "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ])
    );
    running.shutdown().await.unwrap();

    let running = container("jsonrpc,http+json").await;
    assert_eq!(running.grpc_address(), None);
    let interfaces = card(&running).await["supportedInterfaces"].clone();
    assert!(!interfaces.to_string().contains("GRPC"), "{interfaces}");
    running.shutdown().await.unwrap();
}

#[test]
fn grpc_is_refused_behind_agentcore_with_a_reason() {
    let error = ContainerConfig::from_lookup(|name| match name {
        "A2A_BINDINGS" => Some("jsonrpc,grpc".to_owned()),
        "AGENTCORE_RUNTIME_URL" => Some("https://example.com/invocations".to_owned()),
        _ => None,
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.starts_with(
            "A2A_BINDINGS=\"jsonrpc,grpc\" is not valid: jsonrpc (AGENTCORE_RUNTIME_URL is set"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn send_get_list_and_cancel_give_exact_results() {
    let running = container("grpc").await;
    let mut grpc = client(&running).await;

    let sent = grpc
        .send_message(send("tck-complete-task-grpc-1", "hi"))
        .await
        .unwrap()
        .into_inner();
    let Some(v1::send_message_response::Payload::Task(task)) = sent.payload else {
        panic!("a task: {sent:?}")
    };
    let status = task.status.clone().unwrap();
    assert_eq!(status.state(), v1::TaskState::Completed);
    let said = status.message.unwrap().parts[0].content.clone();
    assert_eq!(
        said,
        Some(v1::part::Content::Text("Hello from TCK".to_owned()))
    );

    let got = grpc
        .get_task(v1::GetTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (got.id.as_str(), got.context_id.as_str()),
        (task.id.as_str(), task.context_id.as_str())
    );
    assert_eq!(got.status.unwrap().state(), v1::TaskState::Completed);

    let listed = grpc
        .list_tasks(v1::ListTasksRequest {
            context_id: task.context_id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<&str> = listed.tasks.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(ids, [task.id.as_str()]);
    assert_eq!(listed.total_size, 1);

    let refused = grpc
        .cancel_task(v1::CancelTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        refusal(&refused),
        (
            Code::FailedPrecondition,
            "TASK_NOT_CANCELABLE".to_owned(),
            "a2a-protocol.org".to_owned()
        )
    );

    let message = grpc
        .send_message(send("tck-message-response-grpc", "hi"))
        .await
        .unwrap()
        .into_inner();
    let Some(v1::send_message_response::Payload::Message(message)) = message.payload else {
        panic!("a message: {message:?}")
    };
    assert_eq!(
        message.parts[0].content,
        Some(v1::part::Content::Text(
            "Direct message response".to_owned()
        ))
    );
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn refusals_are_statuses_with_their_error_info() {
    let running = container("grpc").await;
    let mut grpc = client(&running).await;

    let missing = grpc
        .get_task(v1::GetTaskRequest {
            id: "no-such-task".to_owned(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        refusal(&missing),
        (
            Code::NotFound,
            "TASK_NOT_FOUND".to_owned(),
            "a2a-protocol.org".to_owned()
        )
    );
    let info = missing.get_error_details().error_info().cloned().unwrap();
    assert_eq!(
        info.metadata.get("taskId").map(String::as_str),
        Some("no-such-task")
    );
    assert!(
        missing.message().starts_with("Task not found"),
        "{}",
        missing.message()
    );

    let empty = grpc
        .send_message(v1::SendMessageRequest::default())
        .await
        .unwrap_err();
    assert_eq!(refusal(&empty).0, Code::InvalidArgument, "{empty:?}");
    assert_eq!(refusal(&empty).1, "INVALID_PARAMS");

    let card = grpc
        .get_extended_agent_card(v1::GetExtendedAgentCardRequest::default())
        .await
        .unwrap_err();
    assert_eq!(
        refusal(&card),
        (
            Code::FailedPrecondition,
            "UNSUPPORTED_OPERATION".to_owned(),
            "a2a-protocol.org".to_owned()
        )
    );
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_stream_a_subscription_and_a_cancel() {
    let running = container("grpc").await;
    let mut grpc = client(&running).await;

    let mut stream = grpc
        .send_streaming_message(send("tck-stream-grpc-1", "hi"))
        .await
        .unwrap()
        .into_inner();
    let mut chunks = 0;
    let mut states = Vec::new();
    while let Some(event) = stream.next().await {
        match event.unwrap().payload.unwrap() {
            v1::stream_response::Payload::ArtifactUpdate(_) => chunks += 1,
            v1::stream_response::Payload::StatusUpdate(update) => {
                states.push(update.status.unwrap().state());
            }
            v1::stream_response::Payload::Task(task) => states.push(task.status.unwrap().state()),
            v1::stream_response::Payload::Message(_) => {}
        }
    }
    assert_eq!(chunks, 3);
    assert_eq!(states.last(), Some(&v1::TaskState::Completed), "{states:?}");

    let mut slow = send("slow-grpc-1", "hi");
    slow.configuration = Some(v1::SendMessageConfiguration {
        return_immediately: true,
        ..Default::default()
    });
    let sent = grpc.send_message(slow).await.unwrap().into_inner();
    let Some(v1::send_message_response::Payload::Task(task)) = sent.payload else {
        panic!("a task")
    };
    let mut subscription = grpc
        .subscribe_to_task(v1::SubscribeToTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let first = subscription.next().await.unwrap().unwrap();
    let Some(v1::stream_response::Payload::Task(current)) = first.payload else {
        panic!("the task first: {first:?}")
    };
    assert_eq!(current.status.unwrap().state(), v1::TaskState::Working);

    let canceled = grpc
        .cancel_task(v1::CancelTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(canceled.status.unwrap().state(), v1::TaskState::Canceled);
    let mut last = None;
    while let Some(event) = subscription.next().await {
        if let Some(v1::stream_response::Payload::StatusUpdate(update)) = event.unwrap().payload {
            last = Some(update.status.unwrap().state());
        }
    }
    assert_eq!(last, Some(v1::TaskState::Canceled));

    let finished = grpc
        .subscribe_to_task(v1::SubscribeToTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        refusal(&finished).1,
        "UNSUPPORTED_OPERATION",
        "{finished:?}"
    );
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted() {
    let running = container("grpc").await;
    let mut grpc = client(&running).await;
    let sent = grpc
        .send_message(send("tck-input-required-grpc", "hi"))
        .await
        .unwrap()
        .into_inner();
    let Some(v1::send_message_response::Payload::Task(task)) = sent.payload else {
        panic!("a task")
    };

    let created = grpc
        .create_task_push_notification_config(v1::TaskPushNotificationConfig {
            task_id: task.id.clone(),
            id: "hook-1".to_owned(),
            url: "http://127.0.0.1:9/hook".to_owned(),
            token: "secret".to_owned(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (
            created.task_id.as_str(),
            created.id.as_str(),
            created.url.as_str()
        ),
        (task.id.as_str(), "hook-1", "http://127.0.0.1:9/hook")
    );

    let got = grpc
        .get_task_push_notification_config(v1::GetTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: "hook-1".to_owned(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got, created);

    let listed = grpc
        .list_task_push_notification_configs(v1::ListTaskPushNotificationConfigsRequest {
            task_id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.configs, [created]);

    grpc.delete_task_push_notification_config(v1::DeleteTaskPushNotificationConfigRequest {
        task_id: task.id.clone(),
        id: "hook-1".to_owned(),
        ..Default::default()
    })
    .await
    .unwrap();
    let gone = grpc
        .get_task_push_notification_config(v1::GetTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: "hook-1".to_owned(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(gone.code(), Code::NotFound, "{gone:?}");
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn our_client_speaks_grpc_and_reads_its_refusals() {
    use a2a_lambda_client::model::{SendResult, StreamEvent, TaskState};
    use a2a_lambda_client::{Binding, Client, text_params};

    // The card's HTTP binding unless gRPC is asked for (gRPC is chosen by itself only from
    // a card that offers no other binding).
    let running = container("grpc,jsonrpc").await;
    let client = Client::connect(running.url()).await.unwrap();
    assert_eq!(client.binding(), Binding::JsonRpc);
    let client = Client::builder(running.url())
        .binding(Binding::Grpc)
        .connect()
        .await
        .unwrap();
    assert_eq!(client.binding(), Binding::Grpc);
    assert_eq!(
        client.endpoint_url().as_str().trim_end_matches('/'),
        format!("http://{}", running.grpc_address().unwrap())
    );

    let mut params = text_params("hi");
    params.message.message_id = "tck-complete-task-client".to_owned();
    let SendResult::Task(task) = client.send(&params).await.unwrap() else {
        panic!("a task")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    let got = client.get_task(&task.id, None).await.unwrap();
    assert_eq!(got.id, task.id);

    let refused = client.cancel_task(&task.id).await.unwrap_err();
    let rpc = refused.rpc().expect("a refusal");
    assert_eq!(
        (rpc.code_number(), rpc.http_status),
        (-32002, 400),
        "{refused}"
    );
    let missing = client.get_task("no-such-task", None).await.unwrap_err();
    assert_eq!(
        missing
            .rpc()
            .map(|rpc| (rpc.code_number(), rpc.http_status)),
        Some((-32001, 404)),
        "{missing}"
    );

    let mut streamed = text_params("hi");
    streamed.message.message_id = "tck-stream-client".to_owned();
    let mut stream = client.stream(&streamed).await.unwrap();
    let mut chunks = 0;
    let mut states = Vec::new();
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::ArtifactUpdate(_) => chunks += 1,
            other => states.extend(other.state()),
        }
    }
    assert_eq!(chunks, 3);
    assert_eq!(states.last(), Some(&TaskState::Completed), "{states:?}");
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn owners_and_the_task_store_are_the_other_bindings_own() {
    let running = container("jsonrpc,grpc").await;
    let mut grpc = client(&running).await;
    let sent = grpc
        .send_message(as_user(send("tck-complete-task-owned", "hi"), "alice"))
        .await
        .unwrap()
        .into_inner();
    let Some(v1::send_message_response::Payload::Task(task)) = sent.payload else {
        panic!("a task")
    };
    let get = |who| {
        as_user(
            v1::GetTaskRequest {
                id: task.id.clone(),
                ..Default::default()
            },
            who,
        )
    };
    assert_eq!(
        grpc.get_task(get("alice")).await.unwrap().into_inner().id,
        task.id
    );
    let bob = grpc.get_task(get("bob")).await.unwrap_err();
    assert_eq!(refusal(&bob).1, "TASK_NOT_FOUND");

    // The same task over JSON-RPC, for the same caller only.
    let rpc = |who: &str| {
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": task.id},
        });
        reqwest::Client::new()
            .post(running.url())
            .header("A2A-Version", "1.0")
            .header(a2a_lambda_core::agentcore::USER_ID_HEADER, who)
            .json(&body)
            .send()
    };
    let alice: serde_json::Value = rpc("alice").await.unwrap().json().await.unwrap();
    assert_eq!(alice["result"]["id"], task.id.as_str(), "{alice}");
    let bob: serde_json::Value = rpc("bob").await.unwrap().json().await.unwrap();
    assert_eq!(bob["error"]["code"], -32001, "{bob}");
    running.shutdown().await.unwrap();
}

/// `message` as the AgentCore user `who` sends it (the user id header, trusted under the
/// default `A2A_IDENTITY=agentcore`).
fn as_user<T>(message: T, who: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(
        a2a_lambda_core::agentcore::USER_ID_HEADER,
        who.parse().unwrap(),
    );
    request
}

#[tokio::test]
async fn our_clients_bearer_token_names_the_owner_over_grpc() {
    use a2a_lambda_client::model::SendResult;
    use a2a_lambda_client::{Auth, Binding, Client, text_params};

    let running = container("jsonrpc,grpc").await;
    // A JWT as AgentCore passes it on after checking it: the container reads its claims
    // (`{"iss":"https://issuer.example","sub":"alice"}`), not its signature.
    let token =
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiYWxpY2UifQ.c2ln";
    let alice = Client::builder(running.url())
        .binding(Binding::Grpc)
        .auth(Auth::Bearer(token.to_owned()))
        .connect()
        .await
        .unwrap();
    let mut params = text_params("hi");
    params.message.message_id = "tck-complete-task-bearer".to_owned();
    let SendResult::Task(task) = alice.send(&params).await.unwrap() else {
        panic!("a task")
    };
    assert_eq!(alice.get_task(&task.id, None).await.unwrap().id, task.id);

    let mut anonymous = client(&running).await;
    let refused = anonymous
        .get_task(v1::GetTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refusal(&refused).1, "TASK_NOT_FOUND");
    running.shutdown().await.unwrap();
}

/// Refuses with 401 a request without `x-test-key: k`: a user's authentication layer.
async fn needs_key(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if request
        .headers()
        .get("x-test-key")
        .is_some_and(|key| key == "k")
    {
        next.run(request).await
    } else {
        axum::response::IntoResponse::into_response(axum::http::StatusCode::UNAUTHORIZED)
    }
}

#[tokio::test]
async fn the_users_layers_guard_the_grpc_port_too() {
    let config = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" | "A2A_GRPC_PORT" => "0",
                "A2A_BINDINGS" => "jsonrpc,grpc",
                _ => return None,
            }
            .to_owned(),
        )
    })
    .unwrap();
    let running = Container::with_config(BuiltIn::Conformance.agent(), config)
        .layer(axum::middleware::from_fn(needs_key))
        .bind()
        .await
        .unwrap();
    let mut grpc = client(&running).await;
    let refused = grpc
        .send_message(send("tck-complete-task-layer", "hi"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");
    let mut keyed = tonic::Request::new(send("tck-complete-task-layer", "hi"));
    keyed
        .metadata_mut()
        .insert("x-test-key", "k".parse().unwrap());
    let sent = grpc.send_message(keyed).await.unwrap().into_inner();
    assert!(
        matches!(
            sent.payload,
            Some(v1::send_message_response::Payload::Task(_))
        ),
        "{sent:?}"
    );
    running.shutdown().await.unwrap();
}
