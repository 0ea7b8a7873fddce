//! Platform refusals: AgentCore's table, real non-2xx statuses, a JSON-RPC body that echoes
//! the request id, and AWS's `x-amzn-ErrorType` header naming the exception.
//!
//! The body is for A2A clients, which read the JSON-RPC error. The header is for AWS's SDKs
//! (`aws-sdk-bedrockagentcore`, boto3, the JavaScript v3 client), which identify a
//! `restJson1` error by the `x-amzn-ErrorType` header before they look at the body: with
//! it, a throttled `InvokeAgentRuntime` is the modelled `ThrottlingException` (which the
//! SDKs' standard retry retries), a starting session `RetryableConflictException`, and so
//! on, instead of an unmodelled error named by its status. The exception's name is the
//! `name` of the refusal's row in AgentCore's table ([`ErrorProfile::AgentCore`]): that
//! table is the one place a platform error is mapped to its status, JSON-RPC code and
//! exception. (AWS's request id, `x-amzn-RequestId`, is added to every answer by the request
//! id step.)
//!
//! Sources: the errors section of `InvokeAgentRuntime`
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html>)
//! and the SDKs' `InvokeAgentRuntimeError`, whose variants are these names.

use a2a_lambda_core::error::{Error, ErrorProfile, Refusal};
use a2a_lambda_core::jsonrpc::{ErrorResponse, Id};
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::aws_error::ERROR_TYPE_HEADER;

/// The AWS exception a platform refusal is, as AWS's SDKs name it: `ThrottlingException`,
/// `RetryableConflictException`, ….
pub fn exception_name(refusal: Refusal) -> &'static str {
    ErrorProfile::AgentCore.row(refusal).name
}

/// The response for a platform refusal. `detail` is logged, never sent: the body is
/// exactly AWS's.
pub fn platform_error(refusal: Refusal, id: Id, detail: &str) -> Response {
    tracing::info!(?refusal, detail, "platform refusal");
    let error = Error::new(refusal, detail);
    let (status, body) = ErrorResponse::from_error(id, &error, ErrorProfile::AgentCore);
    let body = serde_json::to_vec(&body).unwrap_or_default();
    (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                HeaderName::from_static(ERROR_TYPE_HEADER),
                HeaderValue::from_static(exception_name(refusal)),
            ),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each platform refusal's status and exception, as `InvokeAgentRuntime`'s errors
    /// section lists them.
    #[test]
    fn each_platform_refusal_names_its_aws_exception() {
        for (refusal, status, name) in [
            (Refusal::UnknownRoute, 404, "ResourceNotFoundException"),
            (Refusal::PlatformValidation, 400, "ValidationException"),
            (Refusal::Throttled, 429, "ThrottlingException"),
            (Refusal::Conflict, 409, "ConflictException"),
            (Refusal::SessionBusy, 409, "RetryableConflictException"),
            (Refusal::RuntimeUnavailable, 424, "RuntimeClientError"),
            (Refusal::Internal, 500, "InternalServerException"),
        ] {
            let response = platform_error(refusal, Id::String("a".to_owned()), "test");
            assert_eq!(response.status().as_u16(), status, "{refusal:?}");
            assert_eq!(response.headers()[ERROR_TYPE_HEADER], name, "{refusal:?}");
            assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        }
    }

    /// AWS's own error answers (StopRuntimeSession, SigV4, the session quota) name the same
    /// exceptions with the same statuses as the table the platform refusals use.
    #[test]
    fn awss_own_answers_agree_with_the_table() {
        use crate::front::aws_error::AwsError;
        for (aws, refusal) in [
            (AwsError::ResourceNotFound, Refusal::UnknownRoute),
            (AwsError::Validation, Refusal::PlatformValidation),
            (AwsError::Throttling, Refusal::Throttled),
            (AwsError::Conflict, Refusal::Conflict),
            (AwsError::InternalServer, Refusal::Internal),
        ] {
            let row = ErrorProfile::AgentCore.row(refusal);
            assert_eq!((aws.type_name(), aws.status()), (row.name, row.http_status));
        }
    }

    #[tokio::test]
    async fn the_body_stays_json_rpc_with_the_requests_id() {
        let response = platform_error(Refusal::Throttled, Id::String("a".to_owned()), "rate limit");
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({
                "jsonrpc": "2.0",
                "id": "a",
                "error": {"code": -32053, "message": "Rate limit exceeded - Too many requests"}
            })
        );
    }
}
