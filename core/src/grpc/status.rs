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

use crate::error::{ERROR_INFO_TYPE, Error, ErrorObject};
use crate::rest::status::{self as rest_status, BAD_REQUEST_TYPE, Status, StatusBody};

/// The gRPC status of `error`.
pub fn from_error(error: &Error) -> tonic::Status {
    let (_, body) = rest_status::body(error, None);
    from_body(&body.error)
}

/// The gRPC status of an HTTP+JSON error body (its `google.rpc.Status`); `None` when
/// `bytes` is not one.
pub fn from_json(bytes: &[u8]) -> Option<tonic::Status> {
    let StatusBody { error } = serde_json::from_slice(bytes).ok()?;
    Some(from_body(&error))
}

/// The gRPC status of a `google.rpc.Status` in its HTTP/JSON form: the code its `status`
/// names, its message, and the details gRPC's richer error model carries.
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
pub fn code_named(name: &str) -> Code {
    match name {
        "OK" => Code::Ok,
        "CANCELLED" => Code::Cancelled,
        "INVALID_ARGUMENT" => Code::InvalidArgument,
        "DEADLINE_EXCEEDED" => Code::DeadlineExceeded,
        "NOT_FOUND" => Code::NotFound,
        "ALREADY_EXISTS" => Code::AlreadyExists,
        "PERMISSION_DENIED" => Code::PermissionDenied,
        "RESOURCE_EXHAUSTED" => Code::ResourceExhausted,
        "FAILED_PRECONDITION" => Code::FailedPrecondition,
        "ABORTED" => Code::Aborted,
        "OUT_OF_RANGE" => Code::OutOfRange,
        "UNIMPLEMENTED" => Code::Unimplemented,
        "INTERNAL" => Code::Internal,
        "UNAVAILABLE" => Code::Unavailable,
        "DATA_LOSS" => Code::DataLoss,
        "UNAUTHENTICATED" => Code::Unauthenticated,
        _ => Code::Unknown,
    }
}

/// A gRPC status read back as the JSON-RPC error object it stands for (as
/// [`crate::rest::status::parse`] reads an HTTP+JSON error): the code from the
/// `ErrorInfo`'s reason, else from the gRPC code; the details as `data`.
///
/// ```
/// use a2a_lambda_core::ErrorCode;
/// use a2a_lambda_core::error::{Error, Refusal};
/// use a2a_lambda_core::grpc::status;
///
/// let grpc = status::from_error(&Error::new(Refusal::TaskNotCancelable, "t-1 is completed"));
/// let error = status::to_error_object(&grpc);
/// assert_eq!(error.error_code(), ErrorCode::TaskNotCancelable);
/// ```
pub fn to_error_object(status: &tonic::Status) -> ErrorObject {
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
        Code::Internal | Code::Unknown | Code::DataLoss => http::StatusCode::INTERNAL_SERVER_ERROR,
        Code::Unavailable => http::StatusCode::SERVICE_UNAVAILABLE,
        Code::ResourceExhausted => http::StatusCode::TOO_MANY_REQUESTS,
        Code::Aborted => http::StatusCode::CONFLICT,
        _ => http::StatusCode::BAD_REQUEST,
    };
    let body = json!({"error": {
        "code": http_status.as_u16(),
        "message": status.message(),
        "details": details,
    }});
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    rest_status::parse(http_status, &bytes).unwrap_or_else(|| ErrorObject {
        code: crate::ErrorCode::InternalError.code(),
        message: status.message().to_owned(),
        data: None,
    })
}
