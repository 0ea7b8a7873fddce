//! The official A2A Rust SDK's client (`a2a-client-lf`, with `a2a-grpc`'s transport)
//! against our hosts: `a2a-container` over its three bindings, JSON-RPC, HTTP+JSON and gRPC
//! (card, send, stream, get, list, cancel, subscribe, push configs; a refusal's code), and the emulator's AgentCore invocation URL with the session header added by
//! a client interceptor, as AgentCore needs it. `A2A_CONTAINER_BIN` and `A2A_EMULATOR_BIN`
//! name our binaries (tests/interop/run.sh sets them); without them the tests are skipped
//! with a line saying so.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use a2a::{
    A2AError, TRANSPORT_PROTOCOL_GRPC, TRANSPORT_PROTOCOL_HTTP_JSON, TRANSPORT_PROTOCOL_JSONRPC,
};
use a2a_client::agent_card::AgentCardResolver;
use a2a_client::middleware::CallInterceptor;
use a2a_client::{A2AClient, A2AClientFactory, ServiceParams, Transport};
use futures::StreamExt as _;
use serde_json::{Value, json};

/// One of our binaries, killed on drop, and the base URL it printed.
struct Host {
    child: Child,
    url: String,
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The binary named by `variable` with `args` and `env`, once it prints its listening
/// line; `None` (skipped) when the variable is not set.
fn start(variable: &str, args: &[&str], env: &[(&str, &str)]) -> Option<Host> {
    let Ok(binary) = std::env::var(variable) else {
        eprintln!("{variable} not set: skipped (tests/interop/run.sh sets it)");
        return None;
    };
    let mut command = Command::new(binary);
    command
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .env_remove("A2A_PUBLIC_URL")
        .env_remove("AGENTCORE_RUNTIME_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|line| {
            let (_, rest) = line.split_once("listening on ")?;
            Some(
                rest.split_whitespace()
                    .next()?
                    .trim_end_matches('/')
                    .to_owned(),
            )
        })
        .expect("a listening line");
    // Keep draining stdout so the host never blocks on it.
    std::thread::spawn(move || lines.for_each(drop));
    Some(Host { child, url })
}

/// `a2a-container` with the conformance agent, its three bindings (gRPC on a port of its
/// own, which the card names).
fn container() -> Option<Host> {
    start(
        "A2A_CONTAINER_BIN",
        &[],
        &[
            ("PORT", "0"),
            ("A2A_HOST", "127.0.0.1"),
            ("A2A_AGENT", "conformance"),
            ("A2A_BINDINGS", "jsonrpc,http+json,grpc"),
            ("A2A_GRPC_PORT", "0"),
        ],
    )
}

/// The official client for the card at `base`, preferring `binding`.
async fn client(
    base: &str,
    binding: &str,
    interceptor: Option<Arc<dyn CallInterceptor>>,
) -> A2AClient<Box<dyn Transport>> {
    let card = AgentCardResolver::new(None).resolve(base).await.unwrap();
    let mut factory = A2AClientFactory::builder()
        .register(Arc::new(a2a_grpc::GrpcTransportFactory::new()))
        .preferred_bindings(vec![binding.to_owned()]);
    if let Some(interceptor) = interceptor {
        factory = factory.with_interceptor(interceptor);
    }
    factory.build().create_from_card(&card).await.unwrap()
}

/// A request of the SDK's type from its ProtoJSON.
fn request<T: serde::de::DeserializeOwned>(json: Value) -> T {
    serde_json::from_value(json).unwrap()
}

/// `SendMessage` params for a user message `message_id` saying `text`.
fn message(message_id: &str, text: &str, at_once: bool) -> Value {
    json!({
        "message": {"role": "ROLE_USER", "messageId": message_id, "parts": [{"text": text}]},
        "configuration": {"returnImmediately": at_once},
    })
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

/// Send, stream, get, list, cancel, subscribe and push configs through `client`.
async fn exercise(client: &A2AClient<Box<dyn Transport>>, binding: &str) {
    let tag = binding.replace('+', "-").to_lowercase();
    // A completed task.
    let sent = client
        .send_message(&request(message(
            &format!("tck-complete-task-{tag}-1"),
            "hello",
            false,
        )))
        .await
        .unwrap();
    let task = to_json(&sent)["task"].clone();
    assert_eq!(
        task["status"]["state"], "TASK_STATE_COMPLETED",
        "{binding}: {task}"
    );
    let id = task["id"].as_str().unwrap().to_owned();
    let got = client.get_task(&request(json!({"id": id}))).await.unwrap();
    assert_eq!(to_json(&got)["id"], id.as_str(), "{binding}");
    let listed = client.list_tasks(&request(json!({}))).await.unwrap();
    assert!(
        listed
            .tasks
            .iter()
            .any(|task| to_json(task)["id"] == id.as_str()),
        "{binding}"
    );

    // A stream, to its final event.
    let events: Vec<Value> = client
        .send_streaming_message(&request(message(
            &format!("tck-complete-task-{tag}-2"),
            "stream me",
            false,
        )))
        .await
        .unwrap()
        .map(|event| to_json(&event.unwrap()))
        .collect()
        .await;
    let last = events.last().unwrap();
    let state = last["statusUpdate"]["status"]["state"]
        .as_str()
        .or(last["task"]["status"]["state"].as_str());
    assert_eq!(state, Some("TASK_STATE_COMPLETED"), "{binding}: {events:?}");

    // A task that works until canceled: subscribed to, given a push config, canceled.
    let working = client
        .send_message(&request(message(&format!("slow-{tag}-3"), "wait", true)))
        .await
        .unwrap();
    let working = to_json(&working)["task"].clone();
    let slow = working["id"].as_str().unwrap().to_owned();
    let mut subscribed = client
        .subscribe_to_task(&request(json!({"id": slow})))
        .await
        .unwrap();
    let first = to_json(&subscribed.next().await.unwrap().unwrap());
    assert_eq!(first["task"]["id"], slow.as_str(), "{binding}: {first}");

    let config = client
        .create_push_config(&request(json!({
            "taskId": slow, "id": "cfg-1", "url": "https://hooks.example.com/a2a", "token": "t-1",
        })))
        .await
        .unwrap();
    assert_eq!(
        to_json(&config)["url"],
        "https://hooks.example.com/a2a",
        "{binding}"
    );
    let fetched = client
        .get_push_config(&request(json!({"taskId": slow, "id": "cfg-1"})))
        .await
        .unwrap();
    assert_eq!(to_json(&fetched)["id"], "cfg-1", "{binding}");
    let configs = client
        .list_push_configs(&request(json!({"taskId": slow})))
        .await
        .unwrap();
    assert_eq!(
        to_json(&configs)["configs"][0]["id"],
        "cfg-1",
        "{binding}: {}",
        to_json(&configs)
    );
    client
        .delete_push_config(&request(json!({"taskId": slow, "id": "cfg-1"})))
        .await
        .unwrap();

    let canceled = client
        .cancel_task(&request(json!({"id": slow})))
        .await
        .unwrap();
    assert_eq!(
        to_json(&canceled)["status"]["state"],
        "TASK_STATE_CANCELED",
        "{binding}"
    );
    // The subscription ends with the cancellation.
    let rest: Vec<Value> = subscribed
        .map(|event| to_json(&event.unwrap()))
        .collect()
        .await;
    let end = rest
        .last()
        .map(|last| last["statusUpdate"]["status"]["state"].clone());
    assert_eq!(
        end,
        Some(json!("TASK_STATE_CANCELED")),
        "{binding}: {rest:?}"
    );
}

#[tokio::test]
async fn the_official_client_speaks_the_three_bindings_with_our_container() {
    let Some(host) = container() else { return };
    for binding in [
        TRANSPORT_PROTOCOL_JSONRPC,
        TRANSPORT_PROTOCOL_HTTP_JSON,
        TRANSPORT_PROTOCOL_GRPC,
    ] {
        let client = client(&host.url, binding, None).await;
        exercise(&client, binding).await;
        // A refusal reaches the SDK with its A2A code: over gRPC, from the status's
        // ErrorInfo (A2A specification §10.6).
        let missing = client
            .get_task(&request(json!({"id": "no-such-task"})))
            .await
            .unwrap_err();
        assert_eq!(
            missing.code,
            a2a::error_code::TASK_NOT_FOUND,
            "{binding}: {missing:?}"
        );
    }
}

/// Adds AgentCore's session header to every call, as the official client is told to.
struct SessionHeader(String);

#[async_trait::async_trait]
impl CallInterceptor for SessionHeader {
    async fn before(&self, _method: &str, params: &mut ServiceParams) -> Result<(), A2AError> {
        params.insert(
            "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id".to_owned(),
            vec![self.0.clone()],
        );
        Ok(())
    }
}

#[tokio::test]
async fn the_official_client_works_through_the_emulators_invocation_url() {
    let Some(host) = start(
        "A2A_EMULATOR_BIN",
        &[
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--rate-limit",
            "0",
            "--agent",
            "conformance",
        ],
        &[],
    ) else {
        return;
    };
    let arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/lf_client-0123456789";
    let invocations = format!(
        "{}/runtimes/{}/invocations/",
        host.url,
        arn.replace(':', "%3A").replace('/', "%2F")
    );
    let session = format!("lf-client-session-{}", std::process::id()).repeat(2);
    let client = client(
        &invocations,
        TRANSPORT_PROTOCOL_JSONRPC,
        Some(Arc::new(SessionHeader(session))),
    )
    .await;
    exercise(&client, TRANSPORT_PROTOCOL_JSONRPC).await;
}
