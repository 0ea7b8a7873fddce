//! The headers that reach the container through the platform front, as AgentCore passes
//! them: only the allowlisted caller headers (values up to 4 KB), and the platform's own
//! under their real names (request id, `WorkloadAccessToken`, user id), as an agent sees
//! them in its `RequestContext`. In-process (the emulator library); the binary's refusal of
//! an allowlist against AgentCore's rules and its log of drops: `tests/tests/front_headers.rs`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_client::{Client, Error, ProtocolVersion};
use a2a_lambda_emulator::Emulator;
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::card::{AgentCard, Skill};
use a2a_test_support::harness::front::{ARN, REQUEST_ID_HEADER, SESSION_HEADER, session_id};
use a2a_test_support::harness::{Value, header, json};

const USER_ID_HEADER: &str = "X-Amzn-Bedrock-AgentCore-Runtime-User-Id";

const TOKEN_PREFIX: &str = "a2a-emulator-workload-token-";

/// Replies with what it saw of the platform, as JSON text.
struct Reporter;

impl Agent for Reporter {
    fn card(&self) -> AgentCard {
        AgentCard::new("Reporter", "Reports the platform's headers.", "1.0.0").with_skill(
            Skill::new("report", "Report", "Reports what it saw.", ["headers"]),
        )
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let platform = &context.platform;
        let headers: serde_json::Map<String, Value> = platform
            .headers
            .iter()
            .map(|(name, value)| (name.to_owned(), Value::from(value)))
            .collect();
        let seen = json!({
            "session_id": context.session_id,
            "context_request_id": context.request_id,
            "request_id": platform.request_id,
            "user_id": platform.user_id,
            "token": platform.workload_access_token.as_ref().map(|token| token.secret()),
            "headers": headers,
        });
        events.reply(seen.to_string()).await?;
        Ok(())
    }
}

async fn start(allowlist: Option<&[&str]>) -> a2a_lambda_emulator::Running {
    let mut emulator = Emulator::new(Reporter);
    if let Some(names) = allowlist {
        emulator = emulator.request_header_allowlist(names.iter().copied());
    }
    emulator.start().await.unwrap()
}

/// What the agent saw of one `message/send` to the invocation path with `headers`, and
/// the response's request id.
async fn seen(
    emulator: &a2a_lambda_emulator::Running,
    headers: &[(&str, &str)],
) -> (Value, Option<String>) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m-1", "role": "user",
                    "parts": [{"kind": "text", "text": "hi"}]}}});
    let mut request = reqwest::Client::new()
        .post(emulator.invocation_url(ARN))
        .header("content-type", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let request_id = header(response.headers(), REQUEST_ID_HEADER).map(str::to_owned);
    let answer: Value = response.json().await.unwrap();
    let text = answer["result"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no reply text: {answer}"));
    (serde_json::from_str(text).unwrap(), request_id)
}

#[tokio::test]
async fn a_v1_0_client_needs_a2a_version_on_the_allowlist() {
    // Without A2A-Version the container takes the request for v0.3, where SendMessage is
    // a v1.0 method: -32009 VersionNotSupported, saying which header is missing.
    let nothing = start(Some(&[])).await;
    let client = Client::builder(nothing.url())
        .version(ProtocolVersion::V1_0)
        .connect()
        .await
        .unwrap();
    match client.send_text("hi").await {
        Err(Error::Rpc(error)) => {
            assert_eq!(
                (error.http_status, error.code.code(), error.message.as_str()),
                (
                    200,
                    -32009,
                    "Protocol version is not supported: SendMessage is an A2A 1.0 method; \
                     send the header `A2A-Version: 1.0` (this request speaks 0.3)"
                ),
                "{error:?}"
            );
        }
        other => panic!("expected -32009 VersionNotSupported, got {other:?}"),
    }
    // The default allowlist (what infra deploys) passes it.
    let default = start(None).await;
    let client = Client::builder(default.url())
        .version(ProtocolVersion::V1_0)
        .connect()
        .await
        .unwrap();
    let answer = client.send_text("hi").await.unwrap();
    assert!(
        matches!(answer, a2a_lambda_client::model::SendResult::Message(_)),
        "{answer:?}"
    );
}

#[tokio::test]
async fn the_agent_sees_allowlisted_headers_and_the_platforms_own_under_their_names() {
    let emulator = start(Some(&[
        "X-Tenant",
        "X-Amzn-Bedrock-AgentCore-Runtime-Custom-Trace",
    ]))
    .await;
    let session = session_id("headers");
    let caller = [
        (SESSION_HEADER, session.as_str()),
        ("X-Tenant", "acme"),
        ("X-Amzn-Bedrock-AgentCore-Runtime-Custom-Trace", "t-1"),
        ("X-Custom-Signature", "not allowlisted"),
        ("A2A-Extensions", "not allowlisted here"),
        ("Cookie", "restricted"),
        (USER_ID_HEADER, "alice"),
        ("WorkloadAccessToken", "forged by the caller"),
        (REQUEST_ID_HEADER, "forged by the caller"),
        ("x-request-id", "forged by the caller"),
    ];
    let (first, request_id) = seen(&emulator, &caller).await;
    let request_id = request_id.expect("the response's request id");
    let token = first["token"].as_str().expect("a workload access token");
    assert!(
        token.starts_with(TOKEN_PREFIX) && token.len() == TOKEN_PREFIX.len() + 64,
        "{token}"
    );
    assert_eq!(
        first,
        json!({
            "session_id": session,
            "context_request_id": request_id,
            "request_id": request_id,
            "user_id": "alice",
            "token": token,
            "headers": {
                "x-tenant": "acme",
                "x-amzn-bedrock-agentcore-runtime-custom-trace": "t-1",
            },
        })
    );
    // A new token and request id for each invocation.
    let (second, second_id) = seen(&emulator, &caller).await;
    assert_ne!(second["token"], first["token"]);
    assert_ne!(second_id.as_deref(), Some(request_id.as_str()));
    assert_eq!(second["request_id"].as_str(), second_id.as_deref());
}

#[tokio::test]
async fn without_a_user_there_is_no_workload_token() {
    let emulator = start(None).await;
    let (seen, request_id) = seen(&emulator, &[("A2A-Extensions", "https://ext")]).await;
    assert_eq!(seen["token"], Value::Null);
    assert_eq!(seen["user_id"], Value::Null);
    assert_eq!(seen["request_id"].as_str(), request_id.as_deref());
    assert_eq!(seen["headers"], json!({"a2a-extensions": "https://ext"}));
}

#[tokio::test]
async fn a_value_over_4_kb_does_not_reach_the_container() {
    let emulator = start(Some(&["X-Long", "X-Fits"])).await;
    let long = "l".repeat(4097);
    let fits = "f".repeat(4096);
    let (seen, _) = seen(&emulator, &[("X-Long", &long), ("X-Fits", &fits)]).await;
    assert_eq!(seen["headers"], json!({"x-fits": fits}));
}
