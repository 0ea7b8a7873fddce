//! AWS's own error answers, for what AgentCore refuses before any JSON-RPC is read (SigV4,
//! StopRuntimeSession): the `restJson1` shape every AWS data plane uses — the HTTP status,
//! `x-amzn-ErrorType: {Name}Exception`, `x-amzn-RequestId`, and a JSON body
//! `{"message": "…"}`.
//!
//! Sources: the "Common Errors" page of the AgentCore API reference
//! (<https://docs.aws.amazon.com/bedrock-agentcore-control/latest/APIReference/CommonErrors.html>)
//! and the errors section of each data-plane action
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html>).

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The header that names an AWS error's type.
pub const ERROR_TYPE_HEADER: &str = "x-amzn-errortype";
/// The header that carries AWS's request id on an error.
pub const AWS_REQUEST_ID_HEADER: &str = "x-amzn-requestid";

/// An error AWS answers in its own shape, not JSON-RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[allow(
    dead_code,
    reason = "AWS's whole table: the front answers only some of its rows so far"
)]
pub enum AwsError {
    /// 403 `AccessDeniedException`: unsigned, badly signed or unauthorized.
    AccessDenied,
    /// 404 `ResourceNotFoundException`: no such runtime, endpoint or session.
    ResourceNotFound,
    /// 400 `ValidationException`: a malformed parameter.
    Validation,
    /// 402 `ServiceQuotaExceededException`: a quota (for example active sessions) is used up.
    ServiceQuotaExceeded,
    /// 429 `ThrottlingException`: too many requests.
    Throttling,
    /// 409 `ConflictException`: the resource is in a state that refuses the request.
    Conflict,
    /// 500 `InternalServerException`.
    InternalServer,
}

impl AwsError {
    /// The HTTP status AWS answers with.
    pub fn status(self) -> StatusCode {
        match self {
            Self::AccessDenied => StatusCode::FORBIDDEN,
            Self::ResourceNotFound => StatusCode::NOT_FOUND,
            Self::Validation => StatusCode::BAD_REQUEST,
            Self::ServiceQuotaExceeded => StatusCode::PAYMENT_REQUIRED,
            Self::Throttling => StatusCode::TOO_MANY_REQUESTS,
            Self::Conflict => StatusCode::CONFLICT,
            Self::InternalServer => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error's type name, as in `x-amzn-ErrorType` and the SDKs' exception names.
    pub fn type_name(self) -> &'static str {
        match self {
            Self::AccessDenied => "AccessDeniedException",
            Self::ResourceNotFound => "ResourceNotFoundException",
            Self::Validation => "ValidationException",
            Self::ServiceQuotaExceeded => "ServiceQuotaExceededException",
            Self::Throttling => "ThrottlingException",
            Self::Conflict => "ConflictException",
            Self::InternalServer => "InternalServerException",
        }
    }

    /// The answer: status, AWS's headers, `{"message": message}`. `message` is sent to the
    /// caller (AWS's messages are meant for them); put internal detail in logs instead.
    pub fn response(self, message: &str, request_id: Option<&HeaderValue>) -> Response {
        let body = serde_json::json!({ "message": message }).to_string();
        let mut response = (
            self.status(),
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response();
        let headers = response.headers_mut();
        headers.insert(
            HeaderName::from_static(ERROR_TYPE_HEADER),
            HeaderValue::from_static(self.type_name()),
        );
        if let Some(id) = request_id {
            headers.insert(HeaderName::from_static(AWS_REQUEST_ID_HEADER), id.clone());
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_answer_is_awss_rest_json_shape() {
        let id = HeaderValue::from_static("req-1");
        let response = AwsError::AccessDenied.response("Access denied", Some(&id));
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        let headers = response.headers();
        assert_eq!(headers[ERROR_TYPE_HEADER], "AccessDeniedException");
        assert_eq!(headers[AWS_REQUEST_ID_HEADER], "req-1");
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        assert_eq!(&body[..], br#"{"message":"Access denied"}"#);
    }

    #[test]
    fn statuses_follow_the_common_errors_table() {
        assert_eq!(AwsError::ServiceQuotaExceeded.status().as_u16(), 402);
        assert_eq!(AwsError::ResourceNotFound.status().as_u16(), 404);
        assert_eq!(AwsError::Validation.type_name(), "ValidationException");
    }
}
