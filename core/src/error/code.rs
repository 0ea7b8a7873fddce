//! [`ErrorCode`]: every JSON-RPC, A2A and AgentCore code we know by name, with an open
//! [`ErrorCode::Other`] for codes we don't (a client must still read them).

use std::fmt;

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
