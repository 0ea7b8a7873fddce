//! Platform refusals: AgentCore's table, real non-2xx statuses, a JSON-RPC body that echoes
//! the request id.

use a2a_lambda_core::error::{Error, ErrorProfile, Refusal};
use a2a_lambda_core::jsonrpc::{ErrorResponse, Id};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// The response for a platform refusal. `detail` is logged, never sent: the body is
/// exactly AWS's.
pub fn platform_error(refusal: Refusal, id: Id, detail: &str) -> Response {
    tracing::info!(?refusal, detail, "platform refusal");
    let error = Error::new(refusal, detail);
    let (status, body) = ErrorResponse::from_error(id, &error, ErrorProfile::AgentCore);
    let body = serde_json::to_vec(&body).unwrap_or_default();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}
