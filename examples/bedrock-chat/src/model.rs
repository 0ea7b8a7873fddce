//! The model behind the agent, as a small trait: the agent's logic is tested with a scripted
//! model, and [`crate::bedrock::BedrockModel`] is the real one.

use std::fmt;

/// Who said a turn of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Speaker {
    /// The person chatting (an A2A `user` message).
    User,
    /// The model (an A2A `agent` message).
    Assistant,
}

/// One turn of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Who said it.
    pub speaker: Speaker,
    /// What was said.
    pub text: String,
}

impl Turn {
    /// A turn of `speaker`.
    pub fn new(speaker: Speaker, text: impl Into<String>) -> Self {
        Self {
            speaker,
            text: text.into(),
        }
    }
}

/// What the model used for one answer, as Bedrock counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens of the prompt (system prompt and conversation).
    pub input_tokens: u64,
    /// Tokens of the answer.
    pub output_tokens: u64,
    /// Both.
    pub total_tokens: u64,
}

/// One thing the model's answer stream reports.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplyEvent {
    /// More text of the answer.
    Text(String),
    /// Why the model stopped (Bedrock's `stopReason`, for example `end_turn` or
    /// `max_tokens`).
    Stopped(String),
    /// The tokens the answer used (sent once, near the end).
    Usage(Usage),
}

/// Why the model could not answer. The detail is for the logs; [`ModelError::user_message`]
/// is what the person chatting sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// Too many requests or tokens for the account's quota (Bedrock's
    /// `ThrottlingException`, `ServiceQuotaExceededException`).
    #[error("throttled: {0}")]
    Throttled(String),
    /// The request was refused as invalid (`ValidationException`: too long a
    /// conversation, a model that does not take these parameters).
    #[error("invalid request: {0}")]
    Invalid(String),
    /// The caller may not use the model (`AccessDeniedException`: no IAM permission, or
    /// model access not granted in the account), or the model does not exist
    /// (`ResourceNotFoundException`).
    #[error("access denied: {0}")]
    AccessDenied(String),
    /// The service or the model is unavailable, timed out or failed mid-stream
    /// (`ServiceUnavailableException`, `ModelNotReadyException`, `ModelTimeoutException`,
    /// `ModelStreamErrorException`, `InternalServerException`, a network failure).
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Anything else.
    #[error("model call failed: {0}")]
    Failed(String),
}

impl ModelError {
    /// The status message the failed task carries: says what happened and what to do,
    /// without the service's detail.
    pub fn user_message(&self) -> &'static str {
        match self {
            Self::Throttled(_) => {
                "The model is busy right now (too many requests). Please try again in a moment."
            }
            Self::Invalid(_) => {
                "The model could not take this conversation (it may be too long). \
                 Please start a new conversation or shorten your message."
            }
            Self::AccessDenied(_) => {
                "This agent is not allowed to use its model. Please tell its operator."
            }
            Self::Unavailable(_) => {
                "The model is unavailable right now. Please try again in a moment."
            }
            Self::Failed(_) => "The model could not answer. Please try again.",
        }
    }
}

/// The answer as it streams from the model. Dropping it stops the model's stream.
#[a2a_lambda_server::async_trait]
pub trait ReplyStream: Send {
    /// The next event; `None` once the answer is over.
    async fn next(&mut self) -> Option<Result<ReplyEvent, ModelError>>;
}

/// A chat model: the conversation in, its answer streamed out.
#[a2a_lambda_server::async_trait]
pub trait ChatModel: Send + Sync + 'static {
    /// Starts answering `turns` (oldest first, alternating speakers, starting with the
    /// user's). The system prompt and inference parameters are the model's own
    /// configuration.
    async fn answer(&self, turns: Vec<Turn>) -> Result<Box<dyn ReplyStream>, ModelError>;
}

impl fmt::Debug for dyn ChatModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ChatModel")
    }
}
