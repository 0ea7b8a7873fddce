//! [`Refusal`]: *why* we refuse a request, and the two tables that say how it is reported.
//!
//! [`ErrorProfile`] picks a table that turns a refusal into a wire row — code, name, HTTP
//! status and message. [`SPEC_TABLE`] is the A2A specification's (HTTP 200 for every
//! JSON-RPC error); [`AGENTCORE_TABLE`] is what AWS Bedrock AgentCore Runtime sends in front
//! of a container (real non-2xx statuses).

use std::fmt;

use http::StatusCode;

use super::ErrorCode;

/// Why a request is refused, independent of how the refusal is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Refusal {
    /// The body is not JSON.
    Parse,
    /// The body is JSON but not a valid JSON-RPC request.
    InvalidRequest,
    /// Unknown method name.
    MethodNotFound,
    /// Missing or malformed params.
    InvalidParams,
    /// The server (or the agent) failed.
    Internal,
    /// No task with that id.
    TaskNotFound,
    /// The task is in a state that cannot be canceled, or that takes no more messages.
    TaskNotCancelable,
    /// Push notifications are not supported.
    PushNotSupported,
    /// The operation is not supported by this agent or host.
    UnsupportedOperation,
    /// The request's content type is not supported.
    ContentTypeNotSupported,
    /// The agent produced a response that breaks the protocol.
    InvalidAgentResponse,
    /// The extended agent card is declared but not configured.
    ExtendedCardNotConfigured,
    /// The client must declare an extension the agent requires.
    ExtensionSupportRequired,
    /// The requested protocol version is not supported.
    VersionNotSupported,
    /// Platform: no such route or runtime.
    UnknownRoute,
    /// Platform: the request failed validation (session id, size, envelope).
    PlatformValidation,
    /// Platform: too many invocations.
    Throttled,
    /// Platform: the resource conflicts with an existing one (not retryable).
    Conflict,
    /// Platform: the session is starting, stopping or busy (retryable).
    SessionBusy,
    /// Platform: the container is unreachable, crashed or timed out.
    RuntimeUnavailable,
}

impl Refusal {
    /// Refusals that only the platform front (AgentCore) produces.
    pub fn is_platform(self) -> bool {
        matches!(
            self,
            Self::UnknownRoute
                | Self::PlatformValidation
                | Self::Throttled
                | Self::Conflict
                | Self::SessionBusy
                | Self::RuntimeUnavailable
        )
    }
}

/// One row of an error table: what goes on the wire for a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorRow {
    /// JSON-RPC code.
    pub code: ErrorCode,
    /// The error's name: the specification's (`TaskNotFoundError`) or AWS's exception
    /// (`RetryableConflictException`). Two AgentCore rows share -32054 and differ here.
    pub name: &'static str,
    /// HTTP status of the response.
    pub http_status: StatusCode,
    /// The `message` member of the JSON-RPC error object.
    pub message: &'static str,
}

/// A row of the specification's table: its name, and HTTP 200.
const fn row(code: ErrorCode, message: &'static str) -> ErrorRow {
    ErrorRow {
        code,
        name: code.name(),
        http_status: StatusCode::OK,
        message,
    }
}

const fn aws(
    code: ErrorCode,
    name: &'static str,
    http_status: StatusCode,
    message: &'static str,
) -> ErrorRow {
    ErrorRow {
        code,
        name,
        http_status,
        message,
    }
}

/// The A2A specification's table: every JSON-RPC error is sent with HTTP 200.
pub const SPEC_TABLE: [ErrorRow; 14] = [
    row(ErrorCode::ParseError, "Invalid JSON payload"),
    row(
        ErrorCode::InvalidRequest,
        "Request payload validation error",
    ),
    row(ErrorCode::MethodNotFound, "Method not found"),
    row(ErrorCode::InvalidParams, "Invalid parameters"),
    row(ErrorCode::InternalError, "Internal error"),
    row(ErrorCode::TaskNotFound, "Task not found"),
    row(ErrorCode::TaskNotCancelable, "Task cannot be canceled"),
    row(
        ErrorCode::PushNotificationNotSupported,
        "Push Notification is not supported",
    ),
    row(
        ErrorCode::UnsupportedOperation,
        "This operation is not supported",
    ),
    row(
        ErrorCode::ContentTypeNotSupported,
        "Incompatible content types",
    ),
    row(ErrorCode::InvalidAgentResponse, "Invalid agent response"),
    row(
        ErrorCode::ExtendedAgentCardNotConfigured,
        "Extended agent card is not configured",
    ),
    row(
        ErrorCode::ExtensionSupportRequired,
        "Extension support is required",
    ),
    row(
        ErrorCode::VersionNotSupported,
        "Protocol version is not supported",
    ),
];

/// AWS Bedrock AgentCore Runtime's table for A2A invocations (real non-2xx statuses).
pub const AGENTCORE_TABLE: [ErrorRow; 7] = [
    aws(
        ErrorCode::ResourceNotFound,
        "ResourceNotFoundException",
        StatusCode::NOT_FOUND,
        "Resource not found - Requested resource does not exist",
    ),
    aws(
        ErrorCode::Validation,
        "ValidationException",
        StatusCode::BAD_REQUEST,
        "Validation error - Invalid request data",
    ),
    aws(
        ErrorCode::Throttling,
        "ThrottlingException",
        StatusCode::TOO_MANY_REQUESTS,
        "Rate limit exceeded - Too many requests",
    ),
    aws(
        ErrorCode::Conflict,
        "ConflictException",
        StatusCode::CONFLICT,
        "Resource conflict - Resource already exists",
    ),
    aws(
        ErrorCode::Conflict,
        "RetryableConflictException",
        StatusCode::CONFLICT,
        "Session operation in progress, please retry",
    ),
    aws(
        ErrorCode::RuntimeClientError,
        "RuntimeClientError",
        StatusCode::FAILED_DEPENDENCY,
        "Runtime client error - Please check your CloudWatch logs for more information",
    ),
    aws(
        ErrorCode::InternalError,
        "InternalServerException",
        StatusCode::INTERNAL_SERVER_ERROR,
        "Internal error - An unexpected error occurred while processing the request",
    ),
];

/// Which table refusals are reported through. Parsed from `spec` or `agentcore`:
///
/// ```
/// use a2a_lambda_core::ErrorProfile;
///
/// assert_eq!("agentcore".parse::<ErrorProfile>(), Ok(ErrorProfile::AgentCore));
/// assert_eq!(ErrorProfile::Spec.to_string(), "spec");
/// assert!("aws".parse::<ErrorProfile>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ErrorProfile {
    /// The A2A specification: HTTP 200 and the A2A code. Platform refusals, which the
    /// specification has no code for, still use the AgentCore row.
    #[default]
    Spec,
    /// AgentCore: every refusal mapped to the AgentCore table with its non-2xx status.
    #[cfg_attr(feature = "clap", value(name = "agentcore"))]
    AgentCore,
}

/// A name that is not an [`ErrorProfile`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown error profile {0:?}: expected spec or agentcore")]
pub struct UnknownErrorProfile(pub String);

impl std::str::FromStr for ErrorProfile {
    type Err = UnknownErrorProfile;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim() {
            "spec" => Ok(Self::Spec),
            "agentcore" => Ok(Self::AgentCore),
            _ => Err(UnknownErrorProfile(name.to_owned())),
        }
    }
}

impl fmt::Display for ErrorProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Spec => "spec",
            Self::AgentCore => "agentcore",
        })
    }
}

impl ErrorProfile {
    /// The wire row for a refusal under this profile.
    pub fn row(self, refusal: Refusal) -> ErrorRow {
        match self {
            Self::Spec if !refusal.is_platform() => spec_row(refusal),
            _ => agentcore_row(refusal),
        }
    }
}

fn spec_row(refusal: Refusal) -> ErrorRow {
    let index = match refusal {
        Refusal::Parse => 0,
        Refusal::InvalidRequest => 1,
        Refusal::MethodNotFound => 2,
        Refusal::InvalidParams => 3,
        Refusal::TaskNotFound => 5,
        Refusal::TaskNotCancelable => 6,
        Refusal::PushNotSupported => 7,
        Refusal::UnsupportedOperation => 8,
        Refusal::ContentTypeNotSupported => 9,
        Refusal::InvalidAgentResponse => 10,
        Refusal::ExtendedCardNotConfigured => 11,
        Refusal::ExtensionSupportRequired => 12,
        Refusal::VersionNotSupported => 13,
        Refusal::Internal
        | Refusal::UnknownRoute
        | Refusal::PlatformValidation
        | Refusal::Throttled
        | Refusal::Conflict
        | Refusal::SessionBusy
        | Refusal::RuntimeUnavailable => 4,
    };
    SPEC_TABLE[index]
}

/// AgentCore's mapping. A2A refusals map by what they mean to the platform: malformed
/// input is a validation error, a missing method or task is a missing resource, a task in
/// the wrong state is a (non-retryable) conflict, a broken agent answer is a runtime
/// client error.
fn agentcore_row(refusal: Refusal) -> ErrorRow {
    let index = match refusal {
        Refusal::UnknownRoute | Refusal::MethodNotFound | Refusal::TaskNotFound => 0,
        Refusal::PlatformValidation
        | Refusal::Parse
        | Refusal::InvalidRequest
        | Refusal::InvalidParams
        | Refusal::PushNotSupported
        | Refusal::UnsupportedOperation
        | Refusal::ContentTypeNotSupported
        | Refusal::ExtendedCardNotConfigured
        | Refusal::ExtensionSupportRequired
        | Refusal::VersionNotSupported => 1,
        Refusal::Throttled => 2,
        Refusal::Conflict | Refusal::TaskNotCancelable => 3,
        Refusal::SessionBusy => 4,
        Refusal::RuntimeUnavailable | Refusal::InvalidAgentResponse => 5,
        Refusal::Internal => 6,
    };
    AGENTCORE_TABLE[index]
}
