//! The real SDK client ([`BedrockModel`]) against a local stand-in for Bedrock Runtime:
//! the request it sends, the answer stream it reads, and Bedrock's errors, before and
//! during the stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::{BehaviorVersion, Credentials, Region};
use bedrock_chat::bedrock::BedrockModel;
use bedrock_chat::config::ModelSettings;
use bedrock_chat::model::{ChatModel, ModelError, ReplyEvent, Speaker, Turn, Usage};
use serde_json::{Value, json};
use wiremock::MockServer;

fn settings() -> ModelSettings {
    ModelSettings {
        model_id: "amazon.nova-micro-v1:0".to_owned(),
        region: "us-east-1".to_owned(),
        system_prompt: Some("Answer briefly.".to_owned()),
        max_tokens: 256,
        temperature: Some(0.5),
        endpoint_url: None,
    }
}

/// The model over an SDK client aimed at `server`, with test credentials and no retries
/// (one request per call, so each mock answers exactly one).
fn model(server: &MockServer) -> BedrockModel {
    let config = aws_sdk_bedrockruntime::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(server.uri())
        .credentials_provider(Credentials::new(
            "AKIDTEST",
            "test-secret",
            None,
            None,
            "test",
        ))
        .retry_config(RetryConfig::disabled())
        .build();
    BedrockModel::with_client(
        aws_sdk_bedrockruntime::Client::from_conf(config),
        &settings(),
    )
}

async fn collect(model: &BedrockModel, turns: Vec<Turn>) -> Result<Vec<ReplyEvent>, ModelError> {
    let mut reply = model.answer(turns).await?;
    let mut events = Vec::new();
    while let Some(event) = reply.next().await {
        events.push(event?);
    }
    Ok(events)
}

#[tokio::test]
async fn the_answer_stream_becomes_text_stop_and_usage() {
    let server = MockServer::start().await;
    support::mount(
        &server,
        support::streaming(support::answer(&["Hel", "lo!"], 21, 4)),
        None,
    )
    .await;
    let turns = vec![
        Turn::new(Speaker::User, "Hi"),
        Turn::new(Speaker::Assistant, "Hello."),
        Turn::new(Speaker::User, "Again?"),
    ];
    let events = collect(&model(&server), turns).await.unwrap();
    assert_eq!(
        events,
        [
            ReplyEvent::Text("Hel".into()),
            ReplyEvent::Text("lo!".into()),
            ReplyEvent::Stopped("end_turn".into()),
            ReplyEvent::Usage(Usage {
                input_tokens: 21,
                output_tokens: 4,
                total_tokens: 25
            }),
        ]
    );

    // The request, as Bedrock receives it: the model in the path, SigV4-signed, the
    // conversation, system prompt and inference parameters in the body.
    let requests = server.received_requests().await.unwrap();
    let [request] = requests.as_slice() else {
        panic!("{} requests", requests.len());
    };
    assert_eq!(
        request.url.path(),
        "/model/amazon.nova-micro-v1%3A0/converse-stream"
    );
    let authorization = request
        .headers
        .get("authorization")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(
        authorization.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
            && authorization.contains("/us-east-1/bedrock/aws4_request"),
        "{authorization}"
    );
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(
        body,
        json!({
            "messages": [
                {"role": "user", "content": [{"text": "Hi"}]},
                {"role": "assistant", "content": [{"text": "Hello."}]},
                {"role": "user", "content": [{"text": "Again?"}]},
            ],
            "system": [{"text": "Answer briefly."}],
            "inferenceConfig": {"maxTokens": 256, "temperature": 0.5},
        })
    );
}

#[tokio::test]
async fn bedrock_errors_become_model_errors_with_a_message_for_the_user() {
    let server = MockServer::start().await;
    let cases = [
        (
            429,
            "ThrottlingException",
            "Too many requests, please wait before trying again.",
        ),
        (
            400,
            "ValidationException",
            "Input is too long for requested model.",
        ),
        (
            403,
            "AccessDeniedException",
            "You don't have access to the model with the specified model ID.",
        ),
    ];
    for (status, error_type, message) in cases {
        support::mount(
            &server,
            support::error(status, error_type, message),
            Some(1),
        )
        .await;
    }
    let model = model(&server);
    let mut errors = Vec::new();
    for _ in cases {
        let error = model
            .answer(vec![Turn::new(Speaker::User, "Hi")])
            .await
            .err()
            .expect("an error");
        errors.push((error.clone(), error.user_message()));
    }
    assert_eq!(
        errors,
        [
            (
                ModelError::Throttled(
                    "ThrottlingException: Too many requests, please wait before trying again."
                        .into()
                ),
                "The model is busy right now (too many requests). Please try again in a moment."
            ),
            (
                ModelError::Invalid(
                    "ValidationException: Input is too long for requested model.".into()
                ),
                "The model could not take this conversation (it may be too long). \
                 Please start a new conversation or shorten your message."
            ),
            (
                ModelError::AccessDenied(
                    "AccessDeniedException: You don't have access to the model with the \
                     specified model ID."
                        .into()
                ),
                "This agent is not allowed to use its model. Please tell its operator."
            ),
        ]
    );
}

#[tokio::test]
async fn an_exception_in_the_stream_ends_it_with_an_error() {
    let server = MockServer::start().await;
    let mut frames = support::event("messageStart", &json!({"role": "assistant"}));
    frames.extend(support::event(
        "contentBlockDelta",
        &json!({"contentBlockIndex": 0, "delta": {"text": "Partial"}}),
    ));
    frames.extend(support::exception(
        "throttlingException",
        "Too many tokens per minute.",
    ));
    support::mount(&server, support::streaming(frames), None).await;

    let mut reply = model(&server)
        .answer(vec![Turn::new(Speaker::User, "Hi")])
        .await
        .unwrap();
    assert_eq!(
        reply.next().await,
        Some(Ok(ReplyEvent::Text("Partial".into())))
    );
    assert_eq!(
        reply.next().await,
        Some(Err(ModelError::Throttled(
            "ThrottlingException: Too many tokens per minute.".into()
        )))
    );
}
