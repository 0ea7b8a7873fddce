#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The `a2a-lambda-client` library against the real emulator, through AgentCore's invocation URL:
//! both versions, streams, task operations, and the platform's retryable refusals (a
//! session still starting, injected throttling and busy sessions) survived.

use std::time::Duration;

use a2a_lambda_client::model::{PartContent, SendResult, StreamEvent, TaskState};
use a2a_lambda_client::{Client, ClientBuilder, Error, ProtocolVersion, RetryPolicy, text_params};
use a2a_test_support::harness::Emulator;
use a2a_test_support::harness::front::{invocations, session_id};

const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/library-Zz98Yy76Xx";

/// Retries fast enough for tests, patient enough for a few refusals in a row.
fn quick_retries() -> RetryPolicy {
    RetryPolicy::default()
        .with_max_attempts(15)
        .with_initial_backoff(Duration::from_millis(20))
        .with_max_backoff(Duration::from_millis(200))
}

fn builder(emulator: &Emulator, label: &str) -> ClientBuilder {
    Client::builder(emulator.url(&invocations(ARN)))
        .session_id(session_id(label))
        .retry(quick_retries())
}

fn artifact_text(result: &SendResult) -> String {
    let SendResult::Task(task) = result else {
        panic!("a task, not {result:?}")
    };
    task.artifacts
        .iter()
        .flat_map(|artifact| &artifact.parts)
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn both_versions_send_get_list_and_refuse_a_cancel_of_a_finished_task() {
    let emulator = Emulator::start(&[]);
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let client = builder(&emulator, "versions")
            .version(version)
            .connect()
            .await
            .unwrap();
        assert_eq!(client.version(), version);
        assert_eq!(
            client.endpoint_url().as_str(),
            emulator.url(&invocations(ARN))
        );
        let sent = client.send_text("echo me").await.unwrap();
        assert_eq!(artifact_text(&sent), "echo me");
        let SendResult::Task(task) = sent else {
            unreachable!()
        };
        let got = client.get_task(&task.id, Some(0)).await.unwrap();
        assert_eq!(
            (got.id.as_str(), got.status.state),
            (task.id.as_str(), TaskState::Completed)
        );
        assert!(got.history.is_empty(), "historyLength 0");

        let error = client.cancel_task(&task.id).await.unwrap_err();
        let rpc = error.rpc().expect("a JSON-RPC error");
        assert_eq!(
            (rpc.code_number(), rpc.http_status, rpc.name),
            (-32002, 200, "TaskNotCancelableError")
        );

        let listed = client.list_tasks(&Default::default()).await;
        match version {
            ProtocolVersion::V1_0 => assert!(listed.unwrap().tasks.iter().any(|t| t.id == task.id)),
            _ => assert!(matches!(listed, Err(Error::Unsupported { .. }))),
        }
    }
}

#[tokio::test]
async fn a_stream_yields_typed_events_in_order_and_ends_after_completion() {
    let emulator = Emulator::conformance();
    let client = Client::builder(emulator.base_url())
        .connect()
        .await
        .unwrap();
    let mut params = text_params("stream please");
    params.message.message_id = "tck-stream-library".to_owned();
    let mut events = client.stream(&params).await.unwrap();
    let mut seen = Vec::new();
    let mut text = String::new();
    while let Some(event) = events.next_event().await {
        match event.unwrap() {
            StreamEvent::Task(task) => seen.push(format!("task {:?}", task.status.state)),
            StreamEvent::StatusUpdate(update) => {
                seen.push(format!("status {:?}", update.status.state))
            }
            StreamEvent::ArtifactUpdate(update) => {
                for part in &update.artifact.parts {
                    if let PartContent::Text(chunk) = &part.content {
                        text.push_str(chunk);
                    }
                }
                seen.push("artifact".to_owned());
            }
            StreamEvent::Message(_) => seen.push("message".to_owned()),
        }
    }
    assert_eq!(text, "Streaming chunk content");
    assert_eq!(
        seen.first().map(String::as_str),
        Some("task Submitted"),
        "{seen:?}"
    );
    assert_eq!(
        seen.last().map(String::as_str),
        Some("status Completed"),
        "{seen:?}"
    );
    assert_eq!(
        seen.iter().filter(|event| *event == "artifact").count(),
        3,
        "{seen:?}"
    );
}

/// Two sends at once on a new session: the first starts it (and waits), the second
/// arrives while it is starting.
async fn two_sends_on_a_new_session(client: &Client) -> Vec<Result<SendResult, Error>> {
    let first = client.send_text("first");
    let second = client.send_text("second");
    let (first, second) = tokio::join!(first, second);
    vec![first, second]
}

#[tokio::test]
async fn a_session_still_starting_is_retried_until_it_answers() {
    let emulator = Emulator::builder()
        .args(["--session-startup-ms", "500"])
        .start();
    let patient = builder(&emulator, "starting").connect().await.unwrap();
    for result in two_sends_on_a_new_session(&patient).await {
        assert!(matches!(result, Ok(SendResult::Task(_))), "{result:?}");
    }

    // Without retries the same situation is the raw refusal, named.
    let impatient = builder(&emulator, "impatient")
        .retry(RetryPolicy::none())
        .connect()
        .await
        .unwrap();
    let refused: Vec<Error> = two_sends_on_a_new_session(&impatient)
        .await
        .into_iter()
        .filter_map(Result::err)
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    let rpc = refused[0].rpc().expect("a JSON-RPC error");
    assert_eq!(
        (rpc.code_number(), rpc.http_status, rpc.name),
        (-32054, 409, "RetryableConflictException")
    );
    assert!(rpc.is_retryable());
}

#[tokio::test]
async fn injected_faults_are_survived_in_sends_and_streams() {
    let emulator = Emulator::builder()
        .args(["--fault", "throttle=0.3,conflict=0.3", "--seed", "11"])
        .start();
    let client = builder(&emulator, "faults").connect().await.unwrap();
    for round in 0..15 {
        let text = format!("round {round}");
        let sent = client.send_text(&text).await.unwrap();
        assert_eq!(artifact_text(&sent), text);
    }
    let mut events = client.stream(&text_params("streamed")).await.unwrap();
    let mut last = None;
    while let Some(event) = events.next_event().await {
        last = Some(event.unwrap());
    }
    assert!(
        matches!(&last, Some(StreamEvent::StatusUpdate(update)) if update.status.state == TaskState::Completed),
        "{last:?}"
    );
}

#[tokio::test]
async fn busy_exclusive_sessions_are_retried_for_concurrent_sends() {
    let emulator = Emulator::builder()
        .args(["--exclusive-sessions", "--fault", "latency=100ms"])
        .start();
    let client = builder(&emulator, "exclusive").connect().await.unwrap();
    let sends = (0..4).map(|n| {
        let client = &client;
        async move { client.send_text(&format!("concurrent {n}")).await }
    });
    let results = futures_util::future::join_all(sends).await;
    for (n, result) in results.into_iter().enumerate() {
        assert_eq!(artifact_text(&result.unwrap()), format!("concurrent {n}"));
    }
}
