//! Refusals as the HTTP+JSON binding reports them: an HTTP status and a `google.rpc.Status`
//! body (A2A specification §11.6, AIP-193), from the mapping table of §5.4.
//!
//! ```json
//! {"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found: no task with id \"t-1\"",
//!   "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "TASK_NOT_FOUND",
//!     "domain": "a2a-protocol.org", "metadata": {"detail": "no task with id \"t-1\"", "taskId": "t-1"}}]}}
//! ```
//!
//! Every refusal carries an `ErrorInfo` whose `reason` is the error's name in upper snake
//! case without `Error` (the specification requires it of A2A errors; the JSON-RPC ones get
//! one too, so a client reads every refusal the same way). An invalid parameter also
//! carries a `google.rpc.BadRequest` naming the field. A platform refusal, which the
//! specification has no row for, is reported by what it means to HTTP.
//!
//! The statuses are v1.0.1's table. v1.0.0 had 409 for `TaskNotCancelableError`, 415 for
//! `ContentTypeNotSupportedError` and 502 for `InvalidAgentResponseError`; v1.0.1 made them
//! 400, 400 and 500, and this module follows it.

use http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::{
    ERROR_INFO_DOMAIN, ERROR_INFO_TYPE, Error, ErrorCode, ErrorObject, ErrorProfile, NAMED_CODES,
    Refusal, reason,
};

/// The `@type` of a `google.rpc.BadRequest` in ProtoJSON.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

/// One row of the HTTP+JSON error table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusRow {
    /// The HTTP status, also the body's `error.code`.
    pub http_status: StatusCode,
    /// The body's `error.status`: the google.rpc.Code name.
    pub status: &'static str,
}

const fn status(http_status: StatusCode, status: &'static str) -> StatusRow {
    StatusRow {
        http_status,
        status,
    }
}

/// The HTTP status and `google.rpc.Code` of a refusal (§5.4).
pub const fn row(refusal: Refusal) -> StatusRow {
    match refusal {
        Refusal::Parse
        | Refusal::InvalidRequest
        | Refusal::InvalidParams
        | Refusal::ContentTypeNotSupported
        | Refusal::PlatformValidation => status(StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        Refusal::MethodNotFound | Refusal::TaskNotFound | Refusal::UnknownRoute => {
            status(StatusCode::NOT_FOUND, "NOT_FOUND")
        }
        Refusal::TaskNotCancelable
        | Refusal::PushNotSupported
        | Refusal::UnsupportedOperation
        | Refusal::ExtendedCardNotConfigured
        | Refusal::ExtensionSupportRequired
        | Refusal::VersionNotSupported => status(StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Refusal::Throttled => status(StatusCode::TOO_MANY_REQUESTS, "RESOURCE_EXHAUSTED"),
        Refusal::Conflict | Refusal::SessionBusy => status(StatusCode::CONFLICT, "ABORTED"),
        Refusal::RuntimeUnavailable => status(StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE"),
        Refusal::Internal | Refusal::InvalidAgentResponse => {
            status(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL")
        }
    }
}

/// The body of an HTTP+JSON error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusBody {
    /// The `google.rpc.Status`.
    pub error: Status,
}

/// A `google.rpc.Status` in its HTTP/JSON form (AIP-193).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The HTTP status code.
    pub code: u16,
    /// The `google.rpc.Code` name (`NOT_FOUND`).
    #[serde(default)]
    pub status: String,
    /// What went wrong, for a person.
    #[serde(default)]
    pub message: String,
    /// `google.protobuf.Any` objects, each with its `@type`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Value>,
}

/// The status and body that report `error` (`status_override` replaces the table's status,
/// for a refusal HTTP names more precisely: 405 for a method a route does not take).
///
/// ```
/// use a2a_lambda_core::error::{Error, Refusal};
/// use a2a_lambda_core::rest::status;
///
/// let error = Error::new(Refusal::TaskNotFound, "no task with id \"t-1\"").with_metadata("taskId", "t-1");
/// let (code, body) = status::body(&error, None);
/// assert_eq!(code, http::StatusCode::NOT_FOUND);
/// assert_eq!(body.error.status, "NOT_FOUND");
/// assert_eq!(body.error.details[0]["reason"], "TASK_NOT_FOUND");
/// assert_eq!(body.error.details[0]["metadata"]["taskId"], "t-1");
/// ```
pub fn body(error: &Error, status_override: Option<StatusCode>) -> (StatusCode, StatusBody) {
    let row = row(error.refusal());
    let http_status = status_override.unwrap_or(row.http_status);
    // The name and the short message are the JSON-RPC table's; platform refusals have no
    // A2A row, and their detail stays in the server's log as it does over JSON-RPC.
    let spec = ErrorProfile::Spec.row(error.refusal());
    let detail = (!error.refusal().is_platform())
        .then(|| error.detail())
        .flatten()
        .map(strip_params_prefix);
    let message = match detail {
        Some(detail) => format!("{}: {detail}", spec.message),
        None => spec.message.to_owned(),
    };
    let mut metadata = Map::new();
    if let Some(detail) = detail {
        metadata.insert("detail".to_owned(), Value::String(detail.to_owned()));
    }
    for (key, value) in error.metadata() {
        metadata.insert((*key).to_owned(), Value::String(value.clone()));
    }
    let mut details = vec![json!({
        "@type": ERROR_INFO_TYPE,
        "reason": reason(spec.name),
        "domain": ERROR_INFO_DOMAIN,
        "metadata": metadata,
    })];
    if error.refusal() == Refusal::InvalidParams
        && let Some((field, description)) = detail.and_then(field_violation)
    {
        details.push(json!({
            "@type": BAD_REQUEST_TYPE,
            "fieldViolations": [{"field": field, "description": description}],
        }));
    }
    (
        http_status,
        StatusBody {
            error: Status {
                code: http_status.as_u16(),
                status: if status_override.is_some() {
                    override_status(http_status).to_owned()
                } else {
                    row.status.to_owned()
                },
                message,
                details,
            },
        },
    )
}

/// The JSON bytes of [`body`].
pub fn to_bytes(error: &Error, status_override: Option<StatusCode>) -> (StatusCode, Vec<u8>) {
    let (status, body) = body(error, status_override);
    let bytes = serde_json::to_vec(&body).unwrap_or_else(|_| {
        br#"{"error":{"code":500,"status":"INTERNAL","message":"Internal error"}}"#.to_vec()
    });
    (status, bytes)
}

/// The `google.rpc.Code` name for a status set by HTTP rather than the table.
fn override_status(status: StatusCode) -> &'static str {
    match status {
        StatusCode::METHOD_NOT_ALLOWED | StatusCode::NOT_IMPLEMENTED => "UNIMPLEMENTED",
        StatusCode::NOT_FOUND => "NOT_FOUND",
        StatusCode::PAYLOAD_TOO_LARGE => "OUT_OF_RANGE",
        status if status.is_server_error() => "INTERNAL",
        _ => "INVALID_ARGUMENT",
    }
}

/// The engine's details name JSON-RPC's `params` (`params.message.role: …`); a REST body is
/// the params object itself.
fn strip_params_prefix(detail: &str) -> &str {
    detail.strip_prefix("params.").unwrap_or(detail)
}

/// `message.role: a client's message …` → (`message.role`, `a client's message …`).
fn field_violation(detail: &str) -> Option<(&str, &str)> {
    let (field, description) = detail.split_once(": ")?;
    let is_path = !field.is_empty()
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '[' | ']' | '_'));
    is_path.then_some((field, description))
}

/// Reads an HTTP+JSON error response as the JSON-RPC error object it stands for: the code
/// from the `ErrorInfo`'s reason (else from the HTTP status), the message, and the details
/// as `data`. `None` when the body is not a `google.rpc.Status`.
///
/// ```
/// use a2a_lambda_core::ErrorCode;
/// use a2a_lambda_core::rest::status::parse;
///
/// let body = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"Task not found",
///   "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
/// let error = parse(http::StatusCode::NOT_FOUND, body).unwrap();
/// assert_eq!(error.error_code(), ErrorCode::TaskNotFound);
/// ```
pub fn parse(http_status: StatusCode, body: &[u8]) -> Option<ErrorObject> {
    let StatusBody { error } = serde_json::from_slice(body).ok()?;
    let named = error
        .details
        .iter()
        .filter(|detail| detail.get("@type").and_then(Value::as_str) == Some(ERROR_INFO_TYPE))
        .find_map(|detail| detail.get("reason").and_then(Value::as_str))
        .and_then(code_of_reason);
    let code = named.unwrap_or(if http_status.is_server_error() {
        ErrorCode::InternalError
    } else if http_status == StatusCode::NOT_FOUND {
        ErrorCode::MethodNotFound
    } else {
        ErrorCode::InvalidRequest
    });
    Some(ErrorObject {
        code: code.code(),
        message: error.message,
        data: (!error.details.is_empty()).then_some(Value::Array(error.details)),
    })
}

/// The named code whose error name has this reason (`TASK_NOT_FOUND` → -32001).
pub fn code_of_reason(reason_text: &str) -> Option<ErrorCode> {
    NAMED_CODES
        .iter()
        .map(|(code, _)| *code)
        .find(|code| reason(code.name()) == reason_text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_a2a_reason_reads_back_to_its_code() {
        for (code, number) in NAMED_CODES.iter().take(14) {
            assert_eq!(
                code_of_reason(&reason(code.name())),
                Some(*code),
                "{number}"
            );
        }
        assert_eq!(code_of_reason("NO_SUCH_REASON"), None);
    }

    #[test]
    fn invalid_params_name_the_field_without_the_params_prefix() {
        let error = Error::invalid_params(
            "params.message.role: a client's message must have the user role",
        );
        let (status, body) = body(&error, None);
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            body.error.message,
            "Invalid parameters: message.role: a client's message must have the user role"
        );
        assert_eq!(body.error.details[1]["@type"], BAD_REQUEST_TYPE);
        assert_eq!(
            body.error.details[1]["fieldViolations"][0]["field"],
            "message.role"
        );
    }

    #[test]
    fn platform_refusals_keep_their_detail_to_the_log() {
        let error = Error::new(Refusal::Throttled, "session s-1 over its quota");
        let (status, body) = body(&error, None);
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert!(
            !body.error.message.contains("s-1"),
            "{}",
            body.error.message
        );
    }

    #[test]
    fn a_method_not_allowed_is_405_unimplemented() {
        let error = Error::new(
            Refusal::MethodNotFound,
            "GET is not allowed on /message:send",
        );
        let (status, body) = body(&error, Some(StatusCode::METHOD_NOT_ALLOWED));
        assert_eq!((status.as_u16(), body.error.code), (405, 405));
        assert_eq!(body.error.status, "UNIMPLEMENTED");
    }
}
