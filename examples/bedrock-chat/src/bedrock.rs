//! The real model: Amazon Bedrock's ConverseStream API through `aws-sdk-bedrockruntime`.
//!
//! ConverseStream (`POST /model/{modelId}/converse-stream`) answers with an event stream
//! of `messageStart`, `contentBlockStart`, `contentBlockDelta` (the text), `contentBlockStop`,
//! `messageStop` (the stop reason) and `metadata` (token usage) events, or an exception
//! event mid-stream; it requires the `bedrock:InvokeModelWithResponseStream` permission
//! (<https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html>,
//! <https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html>).

use std::time::Duration;

use aws_sdk_bedrockruntime::Client;
use aws_sdk_bedrockruntime::config::retry::RetryConfig;
use aws_sdk_bedrockruntime::config::timeout::TimeoutConfig;
use aws_sdk_bedrockruntime::config::{BehaviorVersion, Region};
use aws_sdk_bedrockruntime::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockruntime::operation::converse_stream::ConverseStreamError;
use aws_sdk_bedrockruntime::primitives::event_stream::EventReceiver;
use aws_sdk_bedrockruntime::types::error::ConverseStreamOutputError;
use aws_sdk_bedrockruntime::types::{
    ContentBlock, ContentBlockDelta, ConversationRole, ConverseStreamOutput,
    InferenceConfiguration, Message, SystemContentBlock, TokenUsage,
};

use crate::config::ModelSettings;
use crate::model::{ChatModel, ModelError, ReplyEvent, ReplyStream, Speaker, Turn, Usage};

/// How long connecting to Bedrock may take. The answer itself streams for as long as the
/// model writes; the agent's idle timeout bounds a stall.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Converses with one Bedrock model, with the system prompt and inference parameters of
/// its [`ModelSettings`].
#[derive(Debug, Clone)]
pub struct BedrockModel {
    client: Client,
    model_id: String,
    system: Option<SystemContentBlock>,
    inference: InferenceConfiguration,
}

impl BedrockModel {
    /// A client for `settings`: credentials from the environment's default chain (the
    /// Lambda or AgentCore execution role, or `AWS_ACCESS_KEY_ID`… locally), the Region
    /// given (so no instance-metadata probe), the SDK's standard retries (throttling
    /// included, 3 attempts). Makes no network call.
    pub async fn from_settings(settings: &ModelSettings) -> Self {
        let shared = aws_config::defaults(BehaviorVersion::latest())
            .region(Region::new(settings.region.clone()))
            .timeout_config(
                TimeoutConfig::builder()
                    .connect_timeout(CONNECT_TIMEOUT)
                    .build(),
            )
            .retry_config(RetryConfig::standard())
            .load()
            .await;
        let mut config = aws_sdk_bedrockruntime::config::Builder::from(&shared);
        if let Some(url) = &settings.endpoint_url {
            config = config.endpoint_url(url);
        }
        Self::with_client(Client::from_conf(config.build()), settings)
    }

    /// A model over a client of yours (another endpoint, credentials, retries: the tests'
    /// local server).
    pub fn with_client(client: Client, settings: &ModelSettings) -> Self {
        let mut inference = InferenceConfiguration::builder().max_tokens(settings.max_tokens);
        if let Some(temperature) = settings.temperature {
            inference = inference.temperature(temperature);
        }
        Self {
            client,
            model_id: settings.model_id.clone(),
            system: settings.system_prompt.clone().map(SystemContentBlock::Text),
            inference: inference.build(),
        }
    }
}

#[a2a_lambda_server::async_trait]
impl ChatModel for BedrockModel {
    async fn answer(&self, turns: Vec<Turn>) -> Result<Box<dyn ReplyStream>, ModelError> {
        let mut request = self
            .client
            .converse_stream()
            .model_id(&self.model_id)
            .inference_config(self.inference.clone());
        if let Some(system) = &self.system {
            request = request.system(system.clone());
        }
        for turn in turns {
            let role = match turn.speaker {
                Speaker::User => ConversationRole::User,
                Speaker::Assistant => ConversationRole::Assistant,
            };
            let message = Message::builder()
                .role(role)
                .content(ContentBlock::Text(turn.text))
                .build()
                .map_err(|error| ModelError::Failed(error.to_string()))?;
            request = request.messages(message);
        }
        let output = request.send().await.map_err(|error| call_error(&error))?;
        Ok(Box::new(BedrockReply {
            stream: output.stream,
        }))
    }
}

/// The answer's event stream; dropping it closes the connection, which ends the model's
/// generation.
struct BedrockReply {
    stream: EventReceiver<ConverseStreamOutput, ConverseStreamOutputError>,
}

#[a2a_lambda_server::async_trait]
impl ReplyStream for BedrockReply {
    async fn next(&mut self) -> Option<Result<ReplyEvent, ModelError>> {
        loop {
            match self.stream.recv().await {
                Ok(None) => return None,
                Err(error) => return Some(Err(stream_error(&error))),
                Ok(Some(event)) => {
                    if let Some(event) = reply_event(event) {
                        return Some(Ok(event));
                    }
                }
            }
        }
    }
}

/// The event the agent cares about, if this is one: text deltas, the stop reason, usage.
/// Tool use, reasoning and citation deltas are not asked for and are skipped.
fn reply_event(event: ConverseStreamOutput) -> Option<ReplyEvent> {
    match event {
        ConverseStreamOutput::ContentBlockDelta(delta) => match delta.delta {
            Some(ContentBlockDelta::Text(text)) if !text.is_empty() => Some(ReplyEvent::Text(text)),
            _ => None,
        },
        ConverseStreamOutput::MessageStop(stop) => {
            Some(ReplyEvent::Stopped(stop.stop_reason.as_str().to_owned()))
        }
        ConverseStreamOutput::Metadata(metadata) => metadata.usage.as_ref().map(usage),
        _ => None,
    }
}

fn usage(usage: &TokenUsage) -> ReplyEvent {
    let count = |tokens: i32| u64::try_from(tokens).unwrap_or(0);
    ReplyEvent::Usage(Usage {
        input_tokens: count(usage.input_tokens),
        output_tokens: count(usage.output_tokens),
        total_tokens: count(usage.total_tokens),
    })
}

/// The error of the call itself (before the stream), by Bedrock's exception.
fn call_error(
    error: &SdkError<ConverseStreamError, aws_sdk_bedrockruntime::config::http::HttpResponse>,
) -> ModelError {
    let detail = detail(error);
    let Some(service) = error.as_service_error() else {
        // Timeout, connection failure, unreadable response.
        return ModelError::Unavailable(detail);
    };
    match service {
        ConverseStreamError::ThrottlingException(_) => ModelError::Throttled(detail),
        ConverseStreamError::ValidationException(_) => ModelError::Invalid(detail),
        ConverseStreamError::AccessDeniedException(_)
        | ConverseStreamError::ResourceNotFoundException(_) => ModelError::AccessDenied(detail),
        ConverseStreamError::ServiceUnavailableException(_)
        | ConverseStreamError::ModelNotReadyException(_)
        | ConverseStreamError::ModelTimeoutException(_)
        | ConverseStreamError::ModelStreamErrorException(_)
        | ConverseStreamError::InternalServerException(_) => ModelError::Unavailable(detail),
        other if other.code() == Some("ServiceQuotaExceededException") => {
            ModelError::Throttled(detail)
        }
        _ => ModelError::Failed(detail),
    }
}

/// An exception event in the middle of the answer. Its frame names the exception in a
/// header (`:exception-type`) rather than in the error's code, so the name is the variant's.
fn stream_error<R: std::fmt::Debug>(error: &SdkError<ConverseStreamOutputError, R>) -> ModelError {
    let Some(service) = error.as_service_error() else {
        return ModelError::Unavailable(detail(error));
    };
    let (name, kind): (&str, fn(String) -> ModelError) = match service {
        ConverseStreamOutputError::ThrottlingException(_) => {
            ("ThrottlingException", ModelError::Throttled)
        }
        ConverseStreamOutputError::ValidationException(_) => {
            ("ValidationException", ModelError::Invalid)
        }
        ConverseStreamOutputError::ModelStreamErrorException(_) => {
            ("ModelStreamErrorException", ModelError::Unavailable)
        }
        ConverseStreamOutputError::ServiceUnavailableException(_) => {
            ("ServiceUnavailableException", ModelError::Unavailable)
        }
        ConverseStreamOutputError::InternalServerException(_) => {
            ("InternalServerException", ModelError::Unavailable)
        }
        other => (other.code().unwrap_or("unknown"), ModelError::Unavailable),
    };
    kind(format!(
        "{name}: {}",
        service.message().unwrap_or("no message")
    ))
}

/// What the logs get: the exception's code and message, or the SDK's description.
fn detail<E, R>(error: &SdkError<E, R>) -> String
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    match error.as_service_error() {
        Some(service) => format!(
            "{}: {}",
            service.code().unwrap_or("unknown"),
            service.message().unwrap_or("no message")
        ),
        None => aws_sdk_bedrockruntime::error::DisplayErrorContext(error).to_string(),
    }
}
