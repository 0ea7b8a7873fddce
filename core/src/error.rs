//! Error codes, the two error tables, and the error type every layer returns.
//!
//! Three pieces, kept apart on purpose:
//!
//! - [`ErrorCode`]: every JSON-RPC, A2A and AgentCore code we know by name, with an open
//!   [`ErrorCode::Other`] for codes we don't (a client must still read them).
//! - [`Refusal`]: *why* we refuse a request, independent of how it is reported.
//! - [`ErrorProfile`]: a table that turns a refusal into a wire row — code, name, HTTP status
//!   and message. [`SPEC_TABLE`] is the A2A specification's (HTTP 200 for every JSON-RPC
//!   error); [`AGENTCORE_TABLE`] is what AWS Bedrock AgentCore Runtime sends in front of a
//!   container (real non-2xx statuses).

use std::fmt;

use http::StatusCode;
use serde_json::{Value, json};

/// A JSON-RPC error code, named where we know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// -32700: the body is not JSON.
    ParseError,
    /// -32600: JSON, but not a valid JSON-RPC request object.
    InvalidRequest,
    /// -32601: no such method.
    MethodNotFound,
    /// -32602: the method's params are missing or malformed.
    InvalidParams,
    /// -32603: the server failed.
    InternalError,
    /// -32001: A2A `TaskNotFoundError`.
    TaskNotFound,
    /// -32002: A2A `TaskNotCancelableError`.
    TaskNotCancelable,
    /// -32003: A2A `PushNotificationNotSupportedError`.
    PushNotificationNotSupported,
    /// -32004: A2A `UnsupportedOperationError`.
    UnsupportedOperation,
    /// -32005: A2A `ContentTypeNotSupportedError`.
    ContentTypeNotSupported,
    /// -32006: A2A `InvalidAgentResponseError`.
    InvalidAgentResponse,
    /// -32007: A2A `AuthenticatedExtendedCardNotConfiguredError`
    /// (v1.0: `ExtendedAgentCardNotConfiguredError`).
    ExtendedAgentCardNotConfigured,
    /// -32008: A2A v1.0 `ExtensionSupportRequiredError`.
    ExtensionSupportRequired,
    /// -32009: A2A v1.0 `VersionNotSupportedError`.
    VersionNotSupported,
    /// -32051: AgentCore `ResourceNotFoundException`.
    ResourceNotFound,
    /// -32052: AgentCore `ValidationException`.
    Validation,
    /// -32053: AgentCore `ThrottlingException`.
    Throttling,
    /// -32054: AgentCore `ConflictException`.
    Conflict,
    /// -32055: AgentCore `RuntimeClientError`.
    RuntimeClientError,
    /// A code we have no name for.
    Other(i64),
}

/// Every named code with its number, in one place so both directions agree.
pub(crate) const NAMED_CODES: [(ErrorCode, i64); 19] = [
    (ErrorCode::ParseError, -32700),
    (ErrorCode::InvalidRequest, -32600),
    (ErrorCode::MethodNotFound, -32601),
    (ErrorCode::InvalidParams, -32602),
    (ErrorCode::InternalError, -32603),
    (ErrorCode::TaskNotFound, -32001),
    (ErrorCode::TaskNotCancelable, -32002),
    (ErrorCode::PushNotificationNotSupported, -32003),
    (ErrorCode::UnsupportedOperation, -32004),
    (ErrorCode::ContentTypeNotSupported, -32005),
    (ErrorCode::InvalidAgentResponse, -32006),
    (ErrorCode::ExtendedAgentCardNotConfigured, -32007),
    (ErrorCode::ExtensionSupportRequired, -32008),
    (ErrorCode::VersionNotSupported, -32009),
    (ErrorCode::ResourceNotFound, -32051),
    (ErrorCode::Validation, -32052),
    (ErrorCode::Throttling, -32053),
    (ErrorCode::Conflict, -32054),
    (ErrorCode::RuntimeClientError, -32055),
];

impl ErrorCode {
    /// The numeric code sent on the wire.
    pub fn code(self) -> i64 {
        match self {
            Self::Other(code) => code,
            named => NAMED_CODES
                .iter()
                .find(|(candidate, _)| *candidate == named)
                .map_or(-32603, |(_, code)| *code),
        }
    }

    /// The named code for a number, or [`ErrorCode::Other`].
    pub fn from_code(code: i64) -> Self {
        NAMED_CODES
            .iter()
            .find(|(_, number)| *number == code)
            .map_or(Self::Other(code), |(named, _)| *named)
    }

    /// The name the specification (or AWS, for -3205x) gives the error.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ParseError => "JSONParseError",
            Self::InvalidRequest => "InvalidRequestError",
            Self::MethodNotFound => "MethodNotFoundError",
            Self::InvalidParams => "InvalidParamsError",
            Self::InternalError => "InternalError",
            Self::TaskNotFound => "TaskNotFoundError",
            Self::TaskNotCancelable => "TaskNotCancelableError",
            Self::PushNotificationNotSupported => "PushNotificationNotSupportedError",
            Self::UnsupportedOperation => "UnsupportedOperationError",
            Self::ContentTypeNotSupported => "ContentTypeNotSupportedError",
            Self::InvalidAgentResponse => "InvalidAgentResponseError",
            Self::ExtendedAgentCardNotConfigured => "ExtendedAgentCardNotConfiguredError",
            Self::ExtensionSupportRequired => "ExtensionSupportRequiredError",
            Self::VersionNotSupported => "VersionNotSupportedError",
            Self::ResourceNotFound => "ResourceNotFoundException",
            Self::Validation => "ValidationException",
            Self::Throttling => "ThrottlingException",
            Self::Conflict => "ConflictException",
            Self::RuntimeClientError => "RuntimeClientError",
            Self::Other(_) => "UnknownError",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

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
/// use a2a_core::ErrorProfile;
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

/// The `domain` of the `google.rpc.ErrorInfo` attached to A2A errors.
pub const ERROR_INFO_DOMAIN: &str = "a2a-protocol.org";

/// The `@type` of a `google.rpc.ErrorInfo` in ProtoJSON.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// A refusal with the detail that makes it specific (which field, which task, which version).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{refusal:?}{}", .detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
pub struct Error {
    refusal: Refusal,
    detail: Option<String>,
    metadata: Vec<(&'static str, String)>,
}

impl Error {
    /// A refusal with a detail the caller may see.
    pub fn new(refusal: Refusal, detail: impl Into<String>) -> Self {
        Self {
            refusal,
            detail: Some(detail.into()),
            metadata: Vec::new(),
        }
    }

    /// A refusal with nothing more to say (also used to hide internal details).
    pub fn bare(refusal: Refusal) -> Self {
        Self {
            refusal,
            detail: None,
            metadata: Vec::new(),
        }
    }

    /// Adds a caller-visible fact (for example `taskId`) to the error's `ErrorInfo`.
    #[must_use]
    pub fn with_metadata(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.metadata.push((key, value.into()));
        self
    }

    /// Why the request was refused.
    pub fn refusal(&self) -> Refusal {
        self.refusal
    }

    /// The caller-visible detail, if any.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The caller-visible facts added with [`Error::with_metadata`].
    pub fn metadata(&self) -> &[(&'static str, String)] {
        &self.metadata
    }

    /// Shorthand for an invalid-params refusal naming the offending field.
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(Refusal::InvalidParams, detail)
    }

    /// Shorthand for an invalid-request refusal.
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::new(Refusal::InvalidRequest, detail)
    }

    /// The JSON-RPC error object and HTTP status under a profile.
    ///
    /// Spec profile (A2A refusals): the message is the table's message followed by the
    /// detail (`"Invalid parameters: params.message.parts[1]: …"`), and `data` is the array
    /// the v1.0 specification asks for, holding one `google.rpc.ErrorInfo` whose `reason` is
    /// the error name in upper snake case (`TASK_NOT_FOUND`) and whose `metadata` carries
    /// the detail and any facts added with [`Error::with_metadata`].
    ///
    /// AgentCore profile and platform refusals: exactly the body AWS documents, code and
    /// message with no `data`; the detail is for the server's log.
    pub fn to_wire(&self, profile: ErrorProfile) -> (StatusCode, ErrorObject) {
        let row = profile.row(self.refusal);
        if profile == ErrorProfile::AgentCore || self.refusal.is_platform() {
            return (
                row.http_status,
                ErrorObject {
                    code: row.code.code(),
                    message: row.message.to_owned(),
                    data: None,
                },
            );
        }
        let message = match &self.detail {
            Some(detail) => format!("{}: {detail}", row.message),
            None => row.message.to_owned(),
        };
        let mut metadata = serde_json::Map::new();
        if let Some(detail) = &self.detail {
            metadata.insert("detail".to_owned(), Value::String(detail.clone()));
        }
        for (key, value) in &self.metadata {
            metadata.insert((*key).to_owned(), Value::String(value.clone()));
        }
        let info = json!([{
            "@type": ERROR_INFO_TYPE,
            "reason": reason(row.name),
            "domain": ERROR_INFO_DOMAIN,
            "metadata": metadata,
        }]);
        (
            row.http_status,
            ErrorObject {
                code: row.code.code(),
                message,
                data: Some(info),
            },
        )
    }
}

/// `TaskNotFoundError` → `TASK_NOT_FOUND`, `JSONParseError` → `JSON_PARSE`.
pub(crate) fn reason(name: &str) -> String {
    let stem = name.strip_suffix("Error").unwrap_or(name);
    let mut out = String::with_capacity(stem.len() + 8);
    let chars: Vec<char> = stem.chars().collect();
    for (index, &current) in chars.iter().enumerate() {
        let previous = index.checked_sub(1).and_then(|at| chars.get(at));
        let next = chars.get(index + 1);
        let starts_word = current.is_ascii_uppercase()
            && index > 0
            && (previous.is_some_and(char::is_ascii_lowercase)
                || next.is_some_and(char::is_ascii_lowercase));
        if starts_word {
            out.push('_');
        }
        out.push(current.to_ascii_uppercase());
    }
    out
}

/// The `error` member of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorObject {
    /// The numeric code.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Further information, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// The named code.
    pub fn error_code(&self) -> ErrorCode {
        ErrorCode::from_code(self.code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_upper_snake_without_error() {
        assert_eq!(reason("TaskNotFoundError"), "TASK_NOT_FOUND");
        assert_eq!(reason("JSONParseError"), "JSON_PARSE");
        assert_eq!(reason("InvalidParamsError"), "INVALID_PARAMS");
        assert_eq!(reason("InternalError"), "INTERNAL");
        assert_eq!(
            reason("PushNotificationNotSupportedError"),
            "PUSH_NOTIFICATION_NOT_SUPPORTED"
        );
    }
}
