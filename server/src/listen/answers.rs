//! The answers the connection layer gives itself, each a JSON-RPC error with `"id": null`
//! (the request's id was never read, or is another layer's): a body that stalled, a
//! connection over the cap, a request still unanswered when the shutdown grace ran out.

use std::time::Duration;

use a2a_lambda_core::error::{Error, ErrorProfile, Refusal};
use a2a_lambda_core::jsonrpc::{ErrorResponse, Id};
use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode, header};

/// The JSON-RPC error body for `error`, `"id": null`.
fn error_body(error: &Error) -> Vec<u8> {
    let (_, response) = ErrorResponse::from_error(Id::Null, error, ErrorProfile::Spec);
    serde_json::to_vec(&response).unwrap_or_default()
}

fn closing(status: StatusCode, body: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// `408 Request Timeout` (RFC 9110 §15.5.9, <https://www.rfc-editor.org/rfc/rfc9110#section-15.5.9>:
/// the server did not receive a complete request in the time it was prepared to wait) with a JSON-RPC `-32600`.
pub(crate) fn body_stalled(bound: Duration) -> Response<Body> {
    let error = Error::invalid_request(format!(
        "the request body stopped arriving: no part of it for {} ms",
        bound.as_millis()
    ));
    closing(StatusCode::REQUEST_TIMEOUT, error_body(&error))
}

/// `503` with a JSON-RPC `-32603`: the grace ran out before the answer was ready.
pub(crate) fn shutting_down() -> Response<Body> {
    let error = Error::new(
        Refusal::Internal,
        "the server is shutting down and this request did not finish in time",
    );
    closing(StatusCode::SERVICE_UNAVAILABLE, error_body(&error))
}

/// The whole HTTP/1.1 answer to a connection over the cap, written straight to its socket
/// (made once, when the server starts): `503`, `Retry-After: 1` (RFC 9110 §10.2.3,
/// <https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3>),
/// `Connection: close`, a JSON-RPC `-32603`.
pub(crate) fn over_capacity(max_connections: usize) -> Vec<u8> {
    let error = Error::new(
        Refusal::Internal,
        format!("the server has {max_connections} connections open, its limit; retry in a second"),
    );
    let body = error_body(&error);
    let mut answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}
