//! AWS's Rust SDK (`aws-sdk-bedrockagentcore`) calling an A2A agent behind the emulator as
//! a Rust user calls one on AgentCore: both protocol versions (v1.0's `A2A-Version` header
//! added by an SDK interceptor, since InvokeAgentRuntime models no such member), a stream
//! read as it arrives, the trace context returned in the output's trace members, and
//! StopRuntimeSession. (Refusals as modelled exceptions: `aws_sdk_errors.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::front::{ARN, rpc, session_id};
use a2a_test_support::harness::{Emulator, Op, Value, Version, json};
use aws_sdk_bedrockagentcore::config::interceptors::BeforeTransmitInterceptorContextMut;
use aws_sdk_bedrockagentcore::config::retry::RetryConfig;
use aws_sdk_bedrockagentcore::config::{
    BehaviorVersion, ConfigBag, Credentials, Intercept, Region, RuntimeComponents,
};
use aws_sdk_bedrockagentcore::error::BoxError;
use aws_sdk_bedrockagentcore::primitives::Blob;

// ANCHOR: interceptor
/// Adds `A2A-Version: {0}` to every request, after signing's inputs are set: what a user
/// writes to speak A2A v1.0 through the SDK.
#[derive(Debug)]
struct A2aVersion(&'static str);

impl Intercept for A2aVersion {
    fn name(&self) -> &'static str {
        "A2aVersion"
    }

    fn modify_before_signing(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _config: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        context
            .request_mut()
            .headers_mut()
            .insert("A2A-Version", self.0);
        Ok(())
    }
}
// ANCHOR_END: interceptor

// ANCHOR: client
/// A client of `emulator` for `version` (the interceptor for v1.0), retries off.
fn client(emulator: &Emulator, version: Version) -> aws_sdk_bedrockagentcore::Client {
    let mut config = aws_sdk_bedrockagentcore::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(emulator.base_url())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new(
            "AKIDSDK",
            "sdk-secret",
            None,
            None,
            "test",
        ))
        .retry_config(RetryConfig::disabled());
    if let Some(header) = version.header() {
        config = config.interceptor(A2aVersion(header));
    }
    aws_sdk_bedrockagentcore::Client::from_conf(config.build())
}
// ANCHOR_END: client

/// `op` with `params` as an invocation in `session`; the output (within 30 s).
async fn call(
    client: &aws_sdk_bedrockagentcore::Client,
    session: &str,
    payload: Vec<u8>,
) -> aws_sdk_bedrockagentcore::operation::invoke_agent_runtime::InvokeAgentRuntimeOutput {
    tokio::time::timeout(
        Duration::from_secs(30),
        client
            .invoke_agent_runtime()
            .agent_runtime_arn(ARN)
            .runtime_session_id(session)
            .content_type("application/json")
            .accept("application/json, text/event-stream")
            .payload(Blob::new(payload))
            .send(),
    )
    .await
    .expect("the SDK's call ends")
    .unwrap()
}

async fn json_of(
    output: aws_sdk_bedrockagentcore::operation::invoke_agent_runtime::InvokeAgentRuntimeOutput,
) -> Value {
    let bytes = output.response.collect().await.unwrap().into_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn both_versions_answer_through_the_sdk_v1_0_by_an_interceptor() {
    let emulator = Emulator::start(&[]);
    for version in Version::ALL {
        let session = session_id("sdk-version");
        let payload = rpc(
            &json!("v-1"),
            version.method(Op::Send),
            version.send_params("v-1", "hello"),
        );
        let body = json_of(call(&client(&emulator, version), &session, payload).await).await;
        let state = match version {
            Version::V0_3 => &body["result"]["status"]["state"],
            Version::V1_0 => &body["result"]["task"]["status"]["state"],
        };
        let expected = match version {
            Version::V0_3 => "completed",
            Version::V1_0 => "TASK_STATE_COMPLETED",
        };
        assert_eq!(state, expected, "{version:?}: {body}");
    }
    // Without the interceptor, v1.0's method reaches the agent as v0.3, which refuses it.
    let payload = rpc(
        &json!("v-2"),
        Version::V1_0.method(Op::Send),
        Version::V1_0.send_params("v-2", "hello"),
    );
    let session = session_id("sdk-no-version");
    let body = json_of(call(&client(&emulator, Version::V0_3), &session, payload).await).await;
    assert!(body["error"]["code"].is_i64(), "{body}");
}

#[tokio::test]
async fn a_stream_is_read_as_it_arrives_and_ends_when_its_task_does() {
    let emulator = Emulator::conformance();
    let client = client(&emulator, Version::V0_3);
    let session = session_id("sdk-stream");
    let payload = rpc(
        &json!("s-1"),
        "message/stream",
        Version::V0_3.send_params("slow-sdk-stream", "wait"),
    );
    let mut output = call(&client, &session, payload).await;
    assert!(
        output.content_type().starts_with("text/event-stream"),
        "{output:?}"
    );
    // The first event arrives while the task still works: nothing has ended the stream.
    let mut text = String::new();
    let task_id = loop {
        let chunk = tokio::time::timeout(Duration::from_secs(20), output.response.next())
            .await
            .expect("an event while the task works")
            .expect("the stream is open")
            .unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
        if let Some(event) = text
            .lines()
            .find_map(|line| line.strip_prefix("data:"))
            .and_then(|data| serde_json::from_str::<Value>(data.trim()).ok())
        {
            break event["result"]["id"].as_str().unwrap().to_owned();
        }
    };
    // Canceled through a second invocation, the task ends and so does the stream.
    let cancel = rpc(&json!("c-1"), "tasks/cancel", json!({"id": task_id}));
    let canceled = json_of(call(&client, &session, cancel).await).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "canceled",
        "{canceled}"
    );
    let rest = tokio::time::timeout(Duration::from_secs(20), output.response.collect())
        .await
        .expect("the stream ends")
        .unwrap()
        .into_bytes();
    text.push_str(std::str::from_utf8(&rest).unwrap());
    let last: Value = text
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .unwrap();
    assert_eq!(last["result"]["final"], true, "{last}");
    assert_eq!(last["result"]["status"]["state"], "canceled", "{last}");
}

#[tokio::test]
async fn the_trace_context_sent_comes_back_in_the_output() {
    let emulator = Emulator::start(&[]);
    let trace_id = "Root=1-67891233-abcdef012345678912345678;Sampled=1";
    let parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let output = client(&emulator, Version::V0_3)
        .invoke_agent_runtime()
        .agent_runtime_arn(ARN)
        .runtime_session_id(session_id("sdk-trace"))
        .trace_id(trace_id)
        .trace_parent(parent)
        .trace_state("vendor=1")
        .baggage("userId=alice")
        .payload(Blob::new(rpc(
            &json!("t-1"),
            "message/send",
            Version::V0_3.send_params("t-1", "hello"),
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(output.trace_id(), Some(trace_id));
    assert_eq!(output.trace_parent(), Some(parent));
    assert_eq!(output.trace_state(), Some("vendor=1"));
    assert_eq!(output.baggage(), Some("userId=alice"));
}

#[tokio::test]
async fn stop_runtime_session_ends_the_session_and_a_second_stop_is_not_found() {
    let emulator = Emulator::start(&[]);
    let client = client(&emulator, Version::V0_3);
    let session = session_id("sdk-stop");
    let payload = rpc(
        &json!("st-1"),
        "message/send",
        Version::V0_3.send_params("st-1", "hi"),
    );
    let task = json_of(call(&client, &session, payload).await).await;
    let task_id = task["result"]["id"].as_str().unwrap().to_owned();
    let stopped = client
        .stop_runtime_session()
        .agent_runtime_arn(ARN)
        .runtime_session_id(&session)
        .client_token("sdk-stop-token-000000000000000000000")
        .send()
        .await
        .unwrap();
    assert_eq!(stopped.runtime_session_id(), Some(session.as_str()));
    assert_eq!(stopped.status_code(), Some(200));
    // The session's tasks went with it: the next call (retried by the SDK's standard retry
    // while the session stops) is served by a new session, without the task.
    let retrying = aws_sdk_bedrockagentcore::Client::from_conf(
        client
            .config()
            .to_builder()
            .retry_config(RetryConfig::standard().with_max_attempts(5))
            .build(),
    );
    let get = rpc(&json!("g-1"), "tasks/get", json!({"id": task_id}));
    let again = json_of(call(&retrying, &session, get).await).await;
    assert_eq!(again["error"]["code"], -32001, "{again}");
    let error = client
        .stop_runtime_session()
        .agent_runtime_arn(ARN)
        .runtime_session_id(session_id("sdk-never-started"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(error.is_resource_not_found_exception(), "{error:?}");
}
