#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The `a2a-lambda-client` library over the HTTP+JSON binding, against the real container host
//! (`a2a_lambda_server::serve::Container`) on a loopback socket in-process: the binding chosen
//! from the card or forced, every operation with exact results, refusals read back to
//! their JSON-RPC codes with the binding's HTTP status, streams and subscriptions.
//!
//! Most tests use a container that serves HTTP+JSON only (`A2A_BINDINGS=http+json`), whose
//! router has no JSON-RPC route: an answer there could only have come over REST.

use a2a_lambda_client::model::{
    self, PartContent, PushNotificationConfig, SendResult, StreamEvent, TaskState,
};
use a2a_lambda_client::{Binding, Client, Error, text_params};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::{Container, ContainerConfig, Running};
use futures_util::StreamExt;

/// A conformance agent's container on 127.0.0.1, a free port, serving `bindings`.
async fn container(bindings: &str) -> Running {
    let config = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" => "0",
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

fn params(message_id: &str) -> model::SendMessageParams {
    let mut params = text_params("hi");
    params.message.message_id = message_id.to_owned();
    params
}

fn texts(parts: &[model::Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The JSON-RPC code and HTTP status of a refusal.
fn refusal(error: &Error) -> (i64, u16) {
    let rpc = error
        .rpc()
        .unwrap_or_else(|| panic!("not a refusal: {error:?}"));
    (rpc.code_number(), rpc.http_status)
}

#[tokio::test]
async fn the_card_order_picks_the_binding_and_a_forced_one_wins() {
    for (bindings, chosen) in [
        ("http+json,jsonrpc", Binding::HttpJson),
        ("jsonrpc,http+json", Binding::JsonRpc),
    ] {
        let running = container(bindings).await;
        let client = Client::connect(running.url()).await.unwrap();
        assert_eq!(client.binding(), chosen, "{bindings}");
        assert_eq!(client.endpoint_url().as_str(), running.url(), "{bindings}");
        for forced in [Binding::HttpJson, Binding::JsonRpc] {
            let client = Client::builder(running.url())
                .binding(forced)
                .connect()
                .await
                .unwrap();
            assert_eq!(client.binding(), forced, "{bindings}");
            let SendResult::Message(reply) = client
                .send(&params("tck-message-response-1"))
                .await
                .unwrap()
            else {
                panic!("a message")
            };
            assert_eq!(reply.joined_text(), "Direct message response");
        }
        running.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn json_rpc_cannot_be_forced_on_a_card_without_it() {
    let running = container("http+json").await;
    let error = Client::builder(running.url())
        .binding(Binding::JsonRpc)
        .version(a2a_lambda_client::ProtocolVersion::V1_0)
        .connect()
        .await
        .unwrap_err();
    let Error::Card { detail, .. } = &error else {
        panic!("a card error, not {error:?}")
    };
    assert_eq!(
        detail,
        "offers no JSON-RPC in 1.0 (it offers: HTTP+JSON 1.0, JSONRPC 0.3.0)"
    );
}

#[tokio::test]
async fn send_get_and_list_give_exact_results_over_rest() {
    let running = container("http+json").await;
    let client = Client::connect(running.url()).await.unwrap();
    assert_eq!(client.binding(), Binding::HttpJson);

    let SendResult::Task(task) = client.send(&params("tck-artifact-text-1")).await.unwrap() else {
        panic!("a task")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(texts(&task.artifacts[0].parts), "Generated text content");

    let got = client.get_task(&task.id, Some(0)).await.unwrap();
    assert_eq!(
        (
            &got.id,
            &got.context_id,
            got.status.state,
            got.history.len()
        ),
        (&task.id, &task.context_id, TaskState::Completed, 0)
    );

    let listed = client
        .list_tasks(&model::ListTasksParams {
            context_id: Some(task.context_id.clone()),
            include_artifacts: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let ids: Vec<&str> = listed.tasks.iter().map(|task| task.id.as_str()).collect();
    assert_eq!(
        (ids, listed.total_size, listed.next_page_token.as_str()),
        (vec![task.id.as_str()], 1, "")
    );
    assert_eq!(
        texts(&listed.tasks[0].artifacts[0].parts),
        "Generated text content"
    );
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn refusals_carry_their_json_rpc_codes_and_the_bindings_statuses() {
    let running = container("http+json").await;
    let client = Client::connect(running.url()).await.unwrap();

    let unknown = client.get_task("no-such-task", None).await.unwrap_err();
    assert_eq!(refusal(&unknown), (-32001, 404));

    let SendResult::Task(done) = client.send(&params("tck-complete-task-1")).await.unwrap() else {
        panic!("a task")
    };
    let not_cancelable = client.cancel_task(&done.id).await.unwrap_err();
    assert_eq!(refusal(&not_cancelable), (-32002, 400));

    let no_page = client
        .list_tasks(&model::ListTasksParams {
            page_size: Some(0),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(refusal(&no_page), (-32602, 400));

    let no_push = client
        .get_push_config("no-such-task", "p1")
        .await
        .unwrap_err();
    assert_eq!(refusal(&no_push), (-32001, 404));
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_stream_a_subscription_and_a_cancel_over_rest() {
    let running = container("http+json").await;
    let client = Client::connect(running.url()).await.unwrap();

    let mut stream = client.stream(&params("tck-stream-rest-1")).await.unwrap();
    let mut states = Vec::new();
    let mut chunks = 0;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::ArtifactUpdate(_) => chunks += 1,
            other => states.extend(other.state()),
        }
    }
    assert_eq!(chunks, 3);
    assert_eq!(states.last(), Some(&TaskState::Completed), "{states:?}");

    let mut slow = params("slow-rest-1");
    slow.configuration = Some(model::SendConfiguration {
        return_immediately: true,
        ..Default::default()
    });
    let SendResult::Task(task) = client.send(&slow).await.unwrap() else {
        panic!("a task")
    };
    let mut subscription = client.resubscribe(&task.id).await.unwrap();
    let first = subscription.next().await.unwrap().unwrap();
    assert_eq!(first.state(), Some(TaskState::Working), "{first:?}");

    let canceled = client.cancel_task(&task.id).await.unwrap();
    assert_eq!(
        (canceled.id.as_str(), canceled.status.state),
        (task.id.as_str(), TaskState::Canceled)
    );
    let mut last = None;
    while let Some(event) = subscription.next().await {
        last = event.unwrap().state();
    }
    assert_eq!(last, Some(TaskState::Canceled));
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn push_configs_are_created_read_listed_and_deleted_over_rest() {
    let running = container("http+json").await;
    let client = Client::connect(running.url()).await.unwrap();
    let SendResult::Task(task) = client.send(&params("tck-complete-task-2")).await.unwrap() else {
        panic!("a task")
    };
    let config = PushNotificationConfig {
        id: Some("p1".to_owned()),
        url: "http://127.0.0.1:9/hook".to_owned(),
        token: Some("tok".to_owned()),
        authentication: None,
    };
    let created = client.create_push_config(&task.id, &config).await.unwrap();
    assert_eq!(
        (created.task_id.as_str(), &created.config),
        (task.id.as_str(), &config)
    );
    let got = client.get_push_config(&task.id, "p1").await.unwrap();
    assert_eq!(got, created);
    assert_eq!(
        client.list_push_configs(&task.id).await.unwrap(),
        vec![created]
    );
    client.delete_push_config(&task.id, "p1").await.unwrap();
    let gone = client.get_push_config(&task.id, "p1").await.unwrap_err();
    assert_eq!(refusal(&gone), (-32001, 404));
    running.shutdown().await.unwrap();
}
