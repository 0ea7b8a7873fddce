//! The emulator through AWS's own client: `aws-sdk-bedrockagentcore`'s
//! `invoke_agent_runtime`, pointed at an in-process emulator, gets what it gets from AWS. A
//! success is the agent's answer with the session id echoed; each platform refusal is the
//! modelled `InvokeAgentRuntimeError` variant (the emulator names it in `x-amzn-ErrorType`,
//! as AWS does), while the body stays the JSON-RPC error A2A clients read; the SDK's
//! standard retry retries a throttle or a session that is starting; a streamed answer is
//! read as server-sent events; and the SDK's SigV4 signature passes `--auth sigv4`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_test_support::harness::front::{
    self, ARN, OTHER_ARN, SESSION_HEADER, THROTTLED, invocations, rpc, send_params, session_id,
};
use a2a_test_support::harness::{Emulator, Value, json};
use aws_sdk_bedrockagentcore::config::retry::RetryConfig;
use aws_sdk_bedrockagentcore::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_bedrockagentcore::error::{ProvideErrorMetadata as _, SdkError};
use aws_sdk_bedrockagentcore::operation::invoke_agent_runtime::{
    InvokeAgentRuntimeError, InvokeAgentRuntimeOutput,
};
use aws_sdk_bedrockagentcore::primitives::Blob;

/// The access key id of the tests' credentials.
const ACCESS_KEY: &str = "AKIDEMULATORTEST";
/// Their secret.
const SECRET: &str = "emulator-test-secret";

/// A client of the emulator at `emulator`: the tests' credentials (an emulator without
/// `--auth` reads no signature), a region, and `retry`.
fn client(emulator: &Emulator, retry: RetryConfig) -> aws_sdk_bedrockagentcore::Client {
    signing_with(emulator, SECRET, retry)
}

/// [`client`], signing with `secret`.
fn signing_with(
    emulator: &Emulator,
    secret: &str,
    retry: RetryConfig,
) -> aws_sdk_bedrockagentcore::Client {
    let config = aws_sdk_bedrockagentcore::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(emulator.base_url())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new(ACCESS_KEY, secret, None, None, "test"))
        .retry_config(retry)
        .build();
    aws_sdk_bedrockagentcore::Client::from_conf(config)
}

/// A client that does not retry: each call is one invocation.
fn no_retry(emulator: &Emulator) -> aws_sdk_bedrockagentcore::Client {
    client(emulator, RetryConfig::disabled())
}

/// `message/send` with id `id` as an invocation payload.
fn send(id: &str) -> Blob {
    Blob::new(rpc(&json!(id), "message/send", send_params(id, "hello")))
}

/// Invokes runtime `arn` (at `qualifier`, if any) in `session` with `payload`.
async fn invoke(
    client: &aws_sdk_bedrockagentcore::Client,
    arn: &str,
    qualifier: Option<&str>,
    session: &str,
    payload: Blob,
) -> Result<InvokeAgentRuntimeOutput, SdkError<InvokeAgentRuntimeError>> {
    tokio::time::timeout(
        Duration::from_secs(30),
        client
            .invoke_agent_runtime()
            .agent_runtime_arn(arn)
            .set_qualifier(qualifier.map(str::to_owned))
            .runtime_session_id(session)
            .content_type("application/json")
            .accept("application/json, text/event-stream")
            .payload(payload)
            .send(),
    )
    .await
    .expect("the SDK's call ends")
}

/// The body of a successful invocation, as JSON.
async fn payload_of(output: InvokeAgentRuntimeOutput) -> Value {
    let bytes = output.response.collect().await.unwrap().into_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

/// The modelled error of a failed call, with its code and request id checked.
fn service_error(
    result: Result<InvokeAgentRuntimeOutput, SdkError<InvokeAgentRuntimeError>>,
    code: &str,
    status: u16,
) -> InvokeAgentRuntimeError {
    let error = match result {
        Ok(output) => panic!("expected {code}, got a success: {output:?}"),
        Err(error) => error,
    };
    assert_eq!(
        error.raw_response().map(|raw| raw.status().as_u16()),
        Some(status),
        "{error:?}"
    );
    let error = error.into_service_error();
    assert_eq!(error.code(), Some(code), "{error:?}");
    assert!(
        aws_sdk_bedrockagentcore::operation::RequestId::request_id(&error).is_some(),
        "{error:?}"
    );
    error
}

#[tokio::test]
async fn a_success_is_the_agents_answer_with_the_session_echoed() {
    let emulator = Emulator::start(&[]);
    let session = session_id("sdk-ok");
    let output = invoke(&no_retry(&emulator), ARN, None, &session, send("ok-1"))
        .await
        .unwrap();
    assert_eq!(output.status_code(), Some(200));
    assert_eq!(output.runtime_session_id(), Some(session.as_str()));
    assert!(
        output.content_type().starts_with("application/json"),
        "{output:?}"
    );
    assert!(
        aws_sdk_bedrockagentcore::operation::RequestId::request_id(&output).is_some(),
        "{output:?}"
    );
    let body = payload_of(output).await;
    assert_eq!(body["id"], "ok-1", "{body}");
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");
}

#[tokio::test]
async fn a_streamed_answer_reaches_the_sdk_as_server_sent_events() {
    let emulator = Emulator::start(&[]);
    let session = session_id("sdk-sse");
    let payload = Blob::new(rpc(
        &json!("sse-1"),
        "message/stream",
        send_params("sse-1", "hello"),
    ));
    let output = invoke(&no_retry(&emulator), ARN, None, &session, payload)
        .await
        .unwrap();
    assert!(
        output.content_type().starts_with("text/event-stream"),
        "{output:?}"
    );
    assert_eq!(output.runtime_session_id(), Some(session.as_str()));
    let bytes = output.response.collect().await.unwrap().into_bytes();
    let events: Vec<Value> = String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect();
    assert!(!events.is_empty());
    assert!(
        events.iter().all(|event| event["id"] == "sse-1"),
        "{events:?}"
    );
    let last = events.last().unwrap();
    assert_eq!(last["result"]["final"], true, "{last}");
}

#[tokio::test]
async fn an_unknown_runtime_or_qualifier_is_resource_not_found() {
    let emulator = Emulator::start(&["--runtime-arn", OTHER_ARN]);
    let client = no_retry(&emulator);
    let session = session_id("sdk-404");
    let error = service_error(
        invoke(&client, ARN, None, &session, send("nf-1")).await,
        "ResourceNotFoundException",
        404,
    );
    assert!(error.is_resource_not_found_exception(), "{error:?}");
    let error = service_error(
        invoke(&client, OTHER_ARN, Some("nope"), &session, send("nf-2")).await,
        "ResourceNotFoundException",
        404,
    );
    assert!(error.is_resource_not_found_exception(), "{error:?}");
    // The pinned runtime at its endpoint answers.
    let output = invoke(&client, OTHER_ARN, Some("DEFAULT"), &session, send("nf-3"))
        .await
        .unwrap();
    assert_eq!(payload_of(output).await["id"], "nf-3");
}

#[tokio::test]
async fn a_too_short_session_id_is_a_validation_error() {
    let emulator = Emulator::start(&[]);
    let error = service_error(
        invoke(&no_retry(&emulator), ARN, None, "too-short", send("v-1")).await,
        "ValidationException",
        400,
    );
    assert!(error.is_validation_exception(), "{error:?}");
}

/// Each fault the emulator injects, with retries off: the modelled variant.
#[tokio::test]
async fn injected_faults_are_the_modelled_exceptions() {
    type Is = fn(&InvokeAgentRuntimeError) -> bool;
    let cases: [(&str, &str, u16, Is); 5] = [
        (
            "throttle=1",
            "ThrottlingException",
            429,
            InvokeAgentRuntimeError::is_throttling_exception,
        ),
        (
            "conflict=1",
            "RetryableConflictException",
            409,
            InvokeAgentRuntimeError::is_retryable_conflict_exception,
        ),
        (
            "runtime-error=1",
            "RuntimeClientError",
            424,
            InvokeAgentRuntimeError::is_runtime_client_error,
        ),
        (
            "internal=1",
            "InternalServerException",
            500,
            InvokeAgentRuntimeError::is_internal_server_exception,
        ),
        (
            "access-denied=1",
            "AccessDeniedException",
            403,
            InvokeAgentRuntimeError::is_access_denied_exception,
        ),
    ];
    for (fault, code, status, is) in cases {
        let emulator = Emulator::start(&["--fault", fault]);
        let session = session_id("sdk-fault");
        let error = service_error(
            invoke(&no_retry(&emulator), ARN, None, &session, send("f-1")).await,
            code,
            status,
        );
        assert!(is(&error), "{fault}: {error:?}");
    }
}

#[tokio::test]
async fn a_session_past_the_quota_is_service_quota_exceeded() {
    let emulator = Emulator::start(&["--max-sessions", "1"]);
    let client = no_retry(&emulator);
    invoke(&client, ARN, None, &session_id("sdk-q1"), send("q-1"))
        .await
        .unwrap();
    let error = service_error(
        invoke(&client, ARN, None, &session_id("sdk-q2"), send("q-2")).await,
        "ServiceQuotaExceededException",
        402,
    );
    assert!(error.is_service_quota_exceeded_exception(), "{error:?}");
}

/// The raw answer a throttled A2A client gets: AgentCore's JSON-RPC body with the request's
/// id, and the headers AWS's SDKs read.
#[tokio::test]
async fn a_refusal_keeps_its_json_rpc_body_beside_the_aws_headers() {
    let emulator = Emulator::start(&["--fault", "throttle=1"]);
    let session = session_id("sdk-raw");
    let id = json!("raw-1");
    let reply = front::post(
        &emulator,
        &invocations(ARN),
        &[(SESSION_HEADER, session.as_str())],
        rpc(&id, "tasks/get", json!({"id": "x"})),
    )
    .await;
    reply.assert_aws(&id, THROTTLED);
    let header = |name: &str| reply.headers.get(name).and_then(|v| v.to_str().ok());
    assert_eq!(header("x-amzn-errortype"), Some("ThrottlingException"));
    let request_id = header("x-amzn-requestid");
    assert!(request_id.is_some(), "{reply:?}");
    assert_eq!(request_id, reply.request_id(), "{reply:?}");
    assert_eq!(reply.session(), Some(session.as_str()));
}

/// A seed for which `--fault {fault}=0.5` refuses the first invocation and passes the
/// second, found by asking an emulator with that seed (the draws follow the seed only).
async fn seed_failing_once(fault: &str) -> String {
    let spec = format!("{fault}=0.5");
    for seed in 0..64_u32 {
        let seed = seed.to_string();
        let probe = Emulator::start(&["--fault", &spec, "--seed", &seed]);
        let session = session_id("sdk-probe");
        let mut statuses = Vec::new();
        for index in 0..2 {
            let reply = front::post(
                &probe,
                &invocations(ARN),
                &[(SESSION_HEADER, session.as_str())],
                rpc(&json!(index), "tasks/get", json!({"id": "x"})),
            )
            .await;
            statuses.push(reply.status);
        }
        if statuses[0] != 200 && statuses[1] == 200 {
            return seed;
        }
    }
    panic!("no seed in 0..64 refuses once then passes with {spec}");
}

/// With the SDK's standard retry (its default), a throttle or a session that is starting
/// (`RetryableConflictException`) is retried, and the retry succeeds.
#[tokio::test]
async fn the_sdks_standard_retry_retries_a_throttle_and_a_starting_session() {
    for fault in ["throttle", "conflict"] {
        let seed = seed_failing_once(fault).await;
        let spec = format!("{fault}=0.5");
        let emulator = Emulator::start(&["--fault", &spec, "--seed", &seed]);
        let retrying = client(
            &emulator,
            RetryConfig::standard()
                .with_max_attempts(2)
                .with_initial_backoff(Duration::from_millis(10)),
        );
        let session = session_id("sdk-retry");
        let output = invoke(&retrying, ARN, None, &session, send("r-1"))
            .await
            .unwrap_or_else(|error| panic!("{fault}: not retried: {error:?}"));
        assert_eq!(payload_of(output).await["id"], "r-1", "{fault}");
        // The same first refusal without retries, for contrast.
        let again = Emulator::start(&["--fault", &spec, "--seed", &seed]);
        let refused = invoke(&no_retry(&again), ARN, None, &session, send("r-2")).await;
        assert!(refused.is_err(), "{fault}: {refused:?}");
    }
}

/// Under `--auth sigv4`, the SDK's own signature passes, and one made with another secret
/// is the modelled `AccessDeniedException`.
#[tokio::test]
async fn the_sdks_signature_passes_sigv4_auth_and_a_wrong_one_is_access_denied() {
    let credentials = format!("{ACCESS_KEY}:{SECRET}");
    let emulator = Emulator::start(&["--auth", "sigv4", "--sigv4-credentials", &credentials]);
    let session = session_id("sdk-sigv4");
    let output = invoke(&no_retry(&emulator), ARN, None, &session, send("sig-1"))
        .await
        .unwrap();
    assert_eq!(payload_of(output).await["id"], "sig-1");
    let other = signing_with(&emulator, "another-secret", RetryConfig::disabled());
    let error = service_error(
        invoke(&other, ARN, None, &session, send("sig-2")).await,
        "AccessDeniedException",
        403,
    );
    assert!(error.is_access_denied_exception(), "{error:?}");
}
