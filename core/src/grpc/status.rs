//! Refusals over gRPC: the HTTP+JSON binding's `google.rpc.Status`
//! ([`crate::rest::status`], the specification's §5.4 table) sent as gRPC sends one — its
//! `google.rpc.Code` as the call's status, its message, and its details (`ErrorInfo`, and
//! `BadRequest` for an invalid parameter) encoded in `grpc-status-details-bin`
//! (A2A specification §10.6; gRPC's "richer error model").
//!
//! ```
//! use a2a_lambda_core::error::{Error, Refusal};
//! use a2a_lambda_core::grpc::status;
//! use tonic_types::StatusExt as _;
//!
//! let error = Error::new(Refusal::TaskNotFound, "no task with id \"t-1\"").with_metadata("taskId", "t-1");
//! let grpc = status::from_error(&error);
//! assert_eq!(grpc.code(), tonic::Code::NotFound);
//! let info = grpc.get_error_details().error_info().cloned().unwrap();
//! assert_eq!(info.reason, "TASK_NOT_FOUND");
//! assert_eq!(info.domain, "a2a-protocol.org");
//! assert_eq!(info.metadata["taskId"], "t-1");
//! ```

use serde_json::{Map, Value, json};
use tonic::Code;
use tonic_types::{BadRequest, ErrorDetail, ErrorInfo, FieldViolation, StatusExt as _};

use crate::error::{ERROR_INFO_TYPE, Error};
use crate::rest::status::{self as rest_status, BAD_REQUEST_TYPE, Status, StatusBody};

/// The gRPC status of `error`.
pub fn from_error(error: &Error) -> tonic::Status {
    let (_, body) = rest_status::body(error, None);
    from_body(&body.error)
}

/// The gRPC status of an HTTP+JSON error body (its `google.rpc.Status`); `None` when
/// `bytes` is not one.
///
/// ```
/// use a2a_lambda_core::grpc::status;
///
/// let body = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"Task not found"}}"#;
/// let grpc = status::from_json(body).unwrap();
/// assert_eq!((grpc.code(), grpc.message()), (tonic::Code::NotFound, "Task not found"));
/// assert!(status::from_json(b"not json").is_none());
/// ```
pub fn from_json(bytes: &[u8]) -> Option<tonic::Status> {
    let StatusBody { error } = serde_json::from_slice(bytes).ok()?;
    Some(from_body(&error))
}

/// The gRPC status of a `google.rpc.Status` in its HTTP/JSON form: the code its `status`
/// names, its message, and the details gRPC's richer error model carries.
///
/// ```
/// use a2a_lambda_core::error::{Error, Refusal};
/// use a2a_lambda_core::grpc::status;
///
/// let (_, body) = a2a_lambda_core::rest::status::body(&Error::new(Refusal::Throttled, "slow down"), None);
/// assert_eq!(status::from_body(&body.error).code(), tonic::Code::ResourceExhausted);
/// ```
pub fn from_body(status: &Status) -> tonic::Status {
    let mut details = Vec::new();
    for detail in &status.details {
        match detail.get("@type").and_then(Value::as_str) {
            Some(ERROR_INFO_TYPE) => {
                let text = |name: &str| {
                    detail
                        .get(name)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                let metadata: std::collections::HashMap<String, String> = detail
                    .get("metadata")
                    .and_then(Value::as_object)
                    .map(|members| {
                        members
                            .iter()
                            .filter_map(|(key, value)| {
                                value.as_str().map(|text| (key.clone(), text.to_owned()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                details.push(ErrorDetail::ErrorInfo(ErrorInfo::new(
                    text("reason"),
                    text("domain"),
                    metadata,
                )));
            }
            Some(BAD_REQUEST_TYPE) => {
                let violations: Vec<FieldViolation> = detail
                    .get("fieldViolations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|violation| {
                        let text = |name: &str| {
                            violation
                                .get(name)
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_owned()
                        };
                        FieldViolation::new(text("field"), text("description"))
                    })
                    .collect();
                details.push(ErrorDetail::BadRequest(BadRequest::new(violations)));
            }
            _ => {}
        }
    }
    tonic::Status::with_error_details_vec(code_named(&status.status), &status.message, details)
}

/// The `google.rpc.Code` of its name (`NOT_FOUND`); `UNKNOWN` for a name it does not have.
///
/// ```
/// use a2a_lambda_core::grpc::status::code_named;
///
/// assert_eq!(code_named("FAILED_PRECONDITION"), tonic::Code::FailedPrecondition);
/// assert_eq!(code_named("nonsense"), tonic::Code::Unknown);
/// ```
pub fn code_named(name: &str) -> Code {
    ALL_CODES
        .into_iter()
        .find(|code| code_name(*code) == name)
        .unwrap_or(Code::Unknown)
}

const ALL_CODES: [Code; 17] = [
    Code::Ok,
    Code::Cancelled,
    Code::Unknown,
    Code::InvalidArgument,
    Code::DeadlineExceeded,
    Code::NotFound,
    Code::AlreadyExists,
    Code::PermissionDenied,
    Code::ResourceExhausted,
    Code::FailedPrecondition,
    Code::Aborted,
    Code::OutOfRange,
    Code::Unimplemented,
    Code::Internal,
    Code::Unavailable,
    Code::DataLoss,
    Code::Unauthenticated,
];

/// A gRPC status as the HTTP+JSON binding's error body it stands for: the HTTP status of
/// its code (§5.4's table read backwards) and the `google.rpc.Status` with its details, so
/// a client reads a refusal of either binding with one parser
/// ([`crate::rest::status::parse`]).
///
/// ```
/// use a2a_lambda_core::ErrorCode;
/// use a2a_lambda_core::error::{Error, Refusal};
/// use a2a_lambda_core::grpc::status;
/// use a2a_lambda_core::rest::status::parse;
///
/// let grpc = status::from_error(&Error::new(Refusal::TaskNotCancelable, "t-1 is completed"));
/// let (http_status, body) = status::to_json(&grpc);
/// assert_eq!(http_status, http::StatusCode::BAD_REQUEST);
/// let error = parse(http_status, &body).unwrap();
/// assert_eq!(error.error_code(), ErrorCode::TaskNotCancelable);
/// ```
pub fn to_json(status: &tonic::Status) -> (http::StatusCode, Vec<u8>) {
    let mut details = Vec::new();
    for detail in status.get_error_details_vec() {
        match detail {
            ErrorDetail::ErrorInfo(info) => {
                let metadata: Map<String, Value> = info
                    .metadata
                    .into_iter()
                    .map(|(key, value)| (key, Value::String(value)))
                    .collect();
                details.push(json!({
                    "@type": ERROR_INFO_TYPE,
                    "reason": info.reason,
                    "domain": info.domain,
                    "metadata": metadata,
                }));
            }
            ErrorDetail::BadRequest(bad_request) => {
                let violations: Vec<Value> = bad_request
                    .field_violations
                    .into_iter()
                    .map(|violation| {
                        json!({"field": violation.field, "description": violation.description})
                    })
                    .collect();
                details.push(json!({"@type": BAD_REQUEST_TYPE, "fieldViolations": violations}));
            }
            _ => {}
        }
    }
    let http_status = match status.code() {
        Code::NotFound => http::StatusCode::NOT_FOUND,
        Code::Unimplemented => http::StatusCode::NOT_IMPLEMENTED,
        Code::Internal | Code::Unknown | Code::DataLoss => http::StatusCode::INTERNAL_SERVER_ERROR,
        Code::Unavailable => http::StatusCode::SERVICE_UNAVAILABLE,
        Code::ResourceExhausted => http::StatusCode::TOO_MANY_REQUESTS,
        Code::Aborted => http::StatusCode::CONFLICT,
        Code::Unauthenticated => http::StatusCode::UNAUTHORIZED,
        Code::PermissionDenied => http::StatusCode::FORBIDDEN,
        Code::DeadlineExceeded => http::StatusCode::GATEWAY_TIMEOUT,
        _ => http::StatusCode::BAD_REQUEST,
    };
    let body = StatusBody {
        error: Status {
            code: http_status.as_u16(),
            status: code_name(status.code()).to_owned(),
            message: status.message().to_owned(),
            details,
        },
    };
    (http_status, serde_json::to_vec(&body).unwrap_or_default())
}

/// The `google.rpc.Code` name of a code (`NOT_FOUND`).
///
/// ```
/// assert_eq!(a2a_lambda_core::grpc::status::code_name(tonic::Code::Aborted), "ABORTED");
/// ```
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
        Code::Unknown => "UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Refusal;
    use crate::rest::status::parse;

    #[test]
    fn every_code_name_reads_back_to_its_code() {
        for code in ALL_CODES {
            assert_eq!(code_named(code_name(code)), code);
        }
        assert_eq!(code_named("NO_SUCH_CODE"), Code::Unknown);
    }

    #[test]
    fn every_refusal_crosses_grpc_and_back_with_its_code_and_details() {
        for refusal in [
            Refusal::TaskNotFound,
            Refusal::TaskNotCancelable,
            Refusal::PushNotSupported,
            Refusal::UnsupportedOperation,
            Refusal::ContentTypeNotSupported,
            Refusal::InvalidParams,
            Refusal::Internal,
        ] {
            let error =
                Error::new(refusal, "message.role: is required").with_metadata("taskId", "t-1");
            let (http_status, rest_body) = crate::rest::status::body(&error, None);
            let grpc = from_error(&error);
            assert_eq!(
                code_name(grpc.code()),
                rest_body.error.status,
                "{refusal:?}"
            );
            let (back_status, back) = to_json(&grpc);
            let back: StatusBody = serde_json::from_slice(&back).unwrap();
            assert_eq!(back.error.details, rest_body.error.details, "{refusal:?}");
            assert_eq!(back.error.message, rest_body.error.message, "{refusal:?}");
            let rest_bytes = serde_json::to_vec(&rest_body).unwrap();
            assert_eq!(
                parse(back_status, &serde_json::to_vec(&back).unwrap()).map(|e| e.code),
                parse(http_status, &rest_bytes).map(|e| e.code),
                "{refusal:?}"
            );
        }
    }
}
