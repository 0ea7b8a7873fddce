//! What can go wrong when calling an agent, as one enum.
//!
//! The split that matters to a caller: [`Error::Rpc`] is the agent (or AgentCore) answering
//! with a JSON-RPC error — whatever the HTTP status was — while [`Error::Http`] is an HTTP
//! error whose body is not JSON-RPC (an HTML 413 from a proxy, a plain 403 from IAM), and
//! [`Error::Transport`] is not getting an answer at all.

use std::fmt;
use std::time::Duration;

use a2a_lambda_core::error::{AGENTCORE_TABLE, ErrorCode};
use serde_json::Value;

/// An error from the client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error object.
    #[error(transparent)]
    Rpc(#[from] RpcError),
    /// A non-2xx HTTP response whose body is not a JSON-RPC response.
    #[error("HTTP {status} from {url}{}: {body}", content_type.as_deref().map(|t| format!(" ({t})")).unwrap_or_default())]
    Http {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The response's `Content-Type`, if any.
        content_type: Option<String>,
        /// The start of the body, for the reader (at most 200 characters, one line).
        body: String,
    },
    /// No HTTP response: connection refused, DNS, TLS, timeout, reset.
    #[error("cannot reach {url}: {detail}")]
    Transport {
        /// The URL called.
        url: String,
        /// What failed, with its causes.
        detail: String,
        /// The underlying error.
        #[source]
        source: reqwest::Error,
    },
    /// No gRPC answer (feature `grpc`): the connection failed, or the call was cut
    /// without an A2A status.
    #[error("no gRPC answer from {url}: {detail}")]
    GrpcTransport {
        /// The URL called.
        url: String,
        /// What failed, with its causes.
        detail: String,
    },
    /// A 2xx response that is not the JSON-RPC answer A2A promises.
    #[error("invalid response from {url}: {detail}")]
    InvalidResponse {
        /// The URL called.
        url: String,
        /// What is wrong with it.
        detail: String,
    },
    /// The agent card could not be used: not found, not JSON, no interface we speak.
    #[error("agent card {url}: {detail}")]
    Card {
        /// The card's URL.
        url: String,
        /// What is wrong with it.
        detail: String,
    },
    /// A stream ended, or broke, before the task reached a final or interrupted state.
    #[error(
        "the stream from {url} ended early: {detail} (the task may still be running: resubscribe or get it)"
    )]
    StreamInterrupted {
        /// The URL called.
        url: String,
        /// How it ended.
        detail: String,
    },
    /// A stream was cut before its end and the one resubscription to its task
    /// (`tasks/resubscribe`, `SubscribeToTask`) was refused or failed; `source` says how
    /// (a server without resubscription answers -32004 UnsupportedOperation, say).
    #[error(
        "the stream from {url} was cut ({cut}) and resubscribing to task {task_id} failed: {source}"
    )]
    StreamResumeFailed {
        /// The URL called.
        url: String,
        /// The task resubscribed to.
        task_id: String,
        /// How the stream was cut.
        cut: String,
        /// Why the resubscription failed.
        source: Box<Error>,
    },
    /// The operation is not available with this agent or protocol version.
    #[error("{operation} is not supported: {reason}")]
    Unsupported {
        /// The operation asked for.
        operation: &'static str,
        /// Why not.
        reason: String,
    },
    /// Every attempt of a retryable refusal failed; `last` is the final answer.
    #[error("gave up after {attempts} attempts in {:.1}s: {last}", elapsed.as_secs_f64())]
    RetriesExhausted {
        /// Attempts made.
        attempts: u32,
        /// Time spent, backoff included.
        elapsed: Duration,
        /// The last attempt's error.
        last: Box<Error>,
    },
    /// The client was configured with something it cannot use (a bad URL, a bad header).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// SigV4 signing failed (no credentials, no region).
    #[error("signing the request: {0}")]
    Signing(String),
    /// HTTP 401: the endpoint wants a bearer token (an AgentCore runtime with a JWT
    /// authorizer names its OAuth metadata in `WWW-Authenticate`).
    #[error("unauthorized by {url}: {message}{}", resource_metadata.as_deref().map(|m| format!(" (OAuth metadata: {m})")).unwrap_or_default())]
    Unauthorized {
        /// The URL called.
        url: String,
        /// The server's message.
        message: String,
        /// The `resource_metadata` URL of the `Bearer` challenge (RFC 9728), if any.
        resource_metadata: Option<String>,
    },
    /// HTTP 403 `AccessDeniedException` from AWS: the SigV4 signature, the credentials or
    /// their permissions (or a runtime that wants a bearer token instead).
    #[error("access denied by {url}: {message}")]
    AccessDenied {
        /// The URL called.
        url: String,
        /// AWS's message.
        message: String,
    },
    /// A task is missing from a session that restarted under this client (its container
    /// failed, or it was stopped): AgentCore keeps tasks in the session's microVM, so they
    /// went with it. `last` is the answer (-32001).
    #[error("{last}; session {session} was restarted ({why}), and the tasks it held are gone")]
    SessionRestarted {
        /// The session id.
        session: String,
        /// Why it restarted.
        why: &'static str,
        /// The answer that found the task missing.
        last: Box<Error>,
    },
    /// StopRuntimeSession found no active session of that id (AWS's 404
    /// ResourceNotFoundException).
    #[error("no active session {session} at {url}: {detail}")]
    SessionNotFound {
        /// The StopRuntimeSession URL.
        url: String,
        /// The session id.
        session: String,
        /// AWS's answer, shortened.
        detail: String,
    },
}

impl Error {
    /// The JSON-RPC error, looking through [`Error::RetriesExhausted`].
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            Self::Rpc(error) => Some(error),
            Self::RetriesExhausted { last, .. } | Self::SessionRestarted { last, .. } => last.rpc(),
            Self::StreamResumeFailed { source, .. } => source.rpc(),
            _ => None,
        }
    }

    /// The HTTP status of the answer, if there was one.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            Self::Rpc(error) => Some(error.http_status),
            Self::Http { status, .. } => Some(*status),
            Self::Unauthorized { .. } => Some(401),
            Self::AccessDenied { .. } => Some(403),
            Self::SessionNotFound { .. } => Some(404),
            Self::RetriesExhausted { last, .. } | Self::SessionRestarted { last, .. } => {
                last.http_status()
            }
            _ => None,
        }
    }

    /// A hint for a person reading the error, where there is a likely cause.
    pub fn hint(&self) -> Option<&'static str> {
        match self {
            Self::Rpc(error) => error.hint(),
            Self::RetriesExhausted { last, .. } => last.hint(),
            Self::Unauthorized { .. } => Some(
                "a bearer token is needed: pass --bearer TOKEN (or A2A_BEARER_TOKEN) from the issuer the OAuth metadata names; for the emulator, `a2a-emulator token` prints one",
            ),
            Self::AccessDenied { .. } => Some(
                "check the SigV4 credentials (--sigv4, the AWS environment) and that they allow bedrock-agentcore:InvokeAgentRuntime; a runtime with a JWT authorizer wants --bearer instead",
            ),
            Self::SessionRestarted { .. } => Some(
                "send the work again: the new session starts empty (on AgentCore a session's tasks live and end with its microVM)",
            ),
            Self::SessionNotFound { .. } => Some(
                "the session has already ended (stopped, idle or past its lifetime), or the session id is not the one that was used (--session)",
            ),
            Self::Http { status: 403, .. } => Some(
                "access denied: check the credentials and that they allow bedrock-agentcore:InvokeAgentRuntime (use --sigv4 for AgentCore)",
            ),
            Self::Http { status: 401, .. } => {
                Some("unauthorized: pass a bearer token (--bearer) or an API key (--api-key)")
            }
            Self::Http { status: 413, .. } => {
                Some("the request body is too large for the server or a proxy in front of it")
            }
            Self::Http { status: 404, .. } => Some(
                "nothing at that URL: is it the agent's base URL (the card is at .well-known/agent-card.json under it)?",
            ),
            Self::Transport { .. } | Self::GrpcTransport { .. } => Some(
                "is the agent running and the URL right? (`make run` serves one on http://127.0.0.1:9000/)",
            ),
            Self::Card { .. } => Some(
                "the URL should be the agent's base URL; its card is read from .well-known/agent-card.json under it",
            ),
            Self::StreamInterrupted { .. } => None,
            _ => None,
        }
    }

    pub(crate) fn transport(url: &str, source: reqwest::Error) -> Self {
        // reqwest's own message repeats the URL; its causes say what happened.
        let mut causes = Vec::new();
        let mut cause = std::error::Error::source(&source);
        while let Some(inner) = cause {
            let text = inner.to_string();
            if !causes.iter().any(|seen: &String| seen.contains(&text)) {
                causes.push(text);
            }
            cause = inner.source();
        }
        let detail = if causes.is_empty() {
            source.to_string()
        } else {
            causes.join(": ")
        };
        Self::Transport {
            url: url.to_owned(),
            detail,
            source,
        }
    }

    pub(crate) fn invalid(url: &str, detail: impl Into<String>) -> Self {
        Self::InvalidResponse {
            url: url.to_owned(),
            detail: detail.into(),
        }
    }
}

/// A JSON-RPC error object as the server sent it, with the HTTP status it came with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The code, named where we know it (`ErrorCode::Other` keeps the number otherwise).
    pub code: ErrorCode,
    /// The server's message.
    pub message: String,
    /// The server's `data`, if any.
    pub data: Option<Value>,
    /// The HTTP status of the response: 200 from an A2A server, the real status from
    /// AgentCore's front (409, 429, 424, …).
    pub http_status: u16,
    /// The error's name: AWS's exception for AgentCore codes
    /// (`RetryableConflictException`, `ThrottlingException`), the specification's name
    /// otherwise (`TaskNotFoundError`).
    pub name: &'static str,
}

impl RpcError {
    /// Reads an error object's members, naming it from the tables we know.
    pub fn new(code: i64, message: String, data: Option<Value>, http_status: u16) -> Self {
        let code = ErrorCode::from_code(code);
        let name = name_for(code, &message, http_status);
        Self {
            code,
            message,
            data,
            http_status,
            name,
        }
    }

    /// The numeric code.
    pub fn code_number(&self) -> i64 {
        self.code.code()
    }

    /// True for AgentCore's "Session operation in progress, please retry" (409, -32054)
    /// and throttling (429, -32053): the two refusals a client should retry.
    pub fn is_retryable(&self) -> bool {
        match self.code {
            ErrorCode::Throttling => true,
            ErrorCode::Conflict => self.name == "RetryableConflictException",
            _ => false,
        }
    }

    /// A hint for a person reading the error.
    pub fn hint(&self) -> Option<&'static str> {
        Some(match self.code {
            ErrorCode::RuntimeClientError => {
                "the container did not answer: is it listening on 0.0.0.0:9000 and answering /ping? Its logs say why"
            }
            ErrorCode::Throttling => {
                "too many requests: slow down, or raise the retry budget (--retries)"
            }
            ErrorCode::Conflict if self.is_retryable() => {
                "the session is busy with another request: retry later, or use another session (--session)"
            }
            ErrorCode::Conflict => "the resource already exists: this is not retryable",
            ErrorCode::Validation => {
                "the request was refused before reaching the agent: check the session id (33-256 characters) and the payload size"
            }
            ErrorCode::ResourceNotFound => {
                "no such runtime or endpoint: check the runtime ARN (URL-encoded) and the qualifier"
            }
            ErrorCode::TaskNotFound => {
                "no such task: task ids are per agent, and per session on AgentCore, where a session that ended (stopped, idle, or lost with its container) took its tasks with it"
            }
            ErrorCode::TaskNotCancelable => "the task has already finished",
            ErrorCode::UnsupportedOperation => {
                "the agent does not offer this here: check its card's capabilities (a resubscribe to a task that has already finished is refused too: get it instead)"
            }
            ErrorCode::VersionNotSupported => {
                "try the other protocol version (--protocol 0.3 or 1.0)"
            }
            ErrorCode::ContentTypeNotSupported => {
                "the agent does not accept this content type: see defaultInputModes in its card"
            }
            ErrorCode::MethodNotFound => {
                "the agent does not know this method: try the other protocol version (--protocol)"
            }
            _ => return None,
        })
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.code_number(), self.name, self.message)?;
        if self.http_status != 200 {
            write!(f, " (HTTP {})", self.http_status)?;
        }
        Ok(())
    }
}

impl std::error::Error for RpcError {}

/// AgentCore's name for its codes (the two -32054 rows told apart by message, its 500 by
/// status), else the specification's name.
fn name_for(code: ErrorCode, message: &str, http_status: u16) -> &'static str {
    if code == ErrorCode::Conflict {
        return if message.to_ascii_lowercase().contains("in progress") {
            "RetryableConflictException"
        } else {
            "ConflictException"
        };
    }
    AGENTCORE_TABLE
        .iter()
        .find(|row| row.code == code && row.http_status == http_status && http_status != 200)
        .map_or(code.name(), |row| row.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agentcore_rows_are_named_and_only_two_retry() {
        for row in AGENTCORE_TABLE {
            let error = RpcError::new(
                row.code.code(),
                row.message.to_owned(),
                None,
                row.http_status.as_u16(),
            );
            assert_eq!(error.name, row.name, "{row:?}");
            let retry = matches!(
                row.name,
                "ThrottlingException" | "RetryableConflictException"
            );
            assert_eq!(error.is_retryable(), retry, "{row:?}");
        }
    }

    #[test]
    fn spec_errors_keep_the_spec_name() {
        let error = RpcError::new(-32001, "Task not found".into(), None, 200);
        assert_eq!(error.name, "TaskNotFoundError");
        assert_eq!(
            error.to_string(),
            "-32001 TaskNotFoundError: Task not found"
        );
        let unknown = RpcError::new(-31999, "odd".into(), None, 200);
        assert_eq!(unknown.code, ErrorCode::Other(-31999));
        assert!(!unknown.is_retryable());
    }

    #[test]
    fn display_names_the_status_when_not_200() {
        let error = RpcError::new(
            -32055,
            "Runtime client error - Please check your CloudWatch logs for more information".into(),
            None,
            424,
        );
        assert_eq!(
            error.to_string(),
            "-32055 RuntimeClientError: Runtime client error - Please check your CloudWatch logs for more information (HTTP 424)"
        );
        assert!(error.hint().is_some_and(|hint| hint.contains("9000")));
    }
}
