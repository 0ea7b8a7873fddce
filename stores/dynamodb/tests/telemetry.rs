//! The DynamoDB store's calls traced (a2a-lambda-server's `otel`): a send through an engine
//! on a moto table exports a `task_store` client span per store call, inside the agent's
//! run, each naming its operation and task. Telemetry is configured by the environment, so
//! the send runs in a child process of this test binary (`send_in_a_child`).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, EngineConfig, Reply};
use a2a_lambda_server::tasks::TaskStore;
use a2a_test_support::dynamo::{create_table, store};
use a2a_test_support::otlp::Receiver;
use tracing::Instrument as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_send_traces_each_dynamodb_call_inside_the_agents_run"]
async fn send_in_a_child() {
    let _logs = a2a_lambda_server::serve::init_logging(a2a_lambda_server::serve::LogFormat::Text);
    assert!(a2a_lambda_server::host::telemetry::is_on());
    let settings = create_table("traced-tasks").await;
    let store: Arc<dyn TaskStore> = Arc::new(store(&settings));
    let engine = Engine::new(
        EchoAgent,
        store,
        EngineConfig {
            public_url: "https://localhost/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
            background_work: true,
        },
    )
    .unwrap();
    let body = br#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#;
    let call = CallContext {
        version_header: Some("1.0".to_owned()),
        ..CallContext::default()
    };
    let reply = engine
        .handle(body, &call)
        .instrument(tracing::info_span!("caller"))
        .await;
    let Reply::Json { body, .. } = reply else {
        panic!("a JSON reply")
    };
    let answer: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{answer}"
    );
    a2a_lambda_server::host::telemetry::flush().await;
}

#[tokio::test]
async fn a_send_traces_each_dynamodb_call_inside_the_agents_run() {
    let receiver = Receiver::start().await;
    let status = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args(["send_in_a_child", "--exact", "--ignored", "--nocapture"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .env("OTEL_METRICS_EXPORTER", "none")
        .status()
        .await
        .unwrap();
    assert!(status.success(), "the traced send failed: {status}");
    let spans = receiver.spans();
    let run = spans
        .iter()
        .find(|span| span.name == "invoke_agent Echo Agent")
        .unwrap_or_else(|| panic!("the agent's run: {spans:#?}"));
    let calls: Vec<_> = spans
        .iter()
        .filter(|span| span.name.starts_with("task_store "))
        .collect();
    assert!(!calls.is_empty(), "store spans: {spans:#?}");
    for call in &calls {
        assert_eq!(call.kind, 3, "SPAN_KIND_CLIENT: {call:#?}");
        assert_eq!(call.trace, run.trace);
        assert_eq!(call.attribute("a2a.task.id"), run.attribute("a2a.task.id"));
        assert_eq!(
            call.name,
            format!("task_store {}", call.attribute("db.operation.name"))
        );
        assert!(!call.error, "{call:#?}");
    }
    assert!(
        calls.iter().any(|call| call.parent == run.id),
        "the run's writes are its children: {calls:#?}"
    );
}
