//! The HTTP+JSON (REST) binding of A2A v1.0: a front of its own over the same engine,
//! task store and owner rules as JSON-RPC (A2A specification §11).
//!
//! A request is matched to its operation by [`a2a_lambda_core::rest::routes`], its parameters
//! gathered from the path, the query and the body into the v1.0 request object (module
//! `params`), and served by
//! [`Engine::handle_operation`](crate::engine::Engine::handle_operation); the reply is
//! written by module `response`.
//!
//! What the binding asks of a request, and what it is answered when it fails:
//!
//! | request | answer |
//! |---|---|
//! | a path of the binding with a method it does not take | 405 `METHOD_NOT_FOUND`, `Allow` |
//! | no `A2A-Version: 1.0` (header or query): a request without one speaks 0.3 (§3.2.6), which is served over JSON-RPC only | 400 `VERSION_NOT_SUPPORTED` |
//! | a body whose `Content-Type` is not JSON | 415 `CONTENT_TYPE_NOT_SUPPORTED` |
//! | a body that is not a JSON object | 400 `JSON_PARSE` / `INVALID_REQUEST` |
//! | a query parameter the route does not take | 400 `INVALID_PARAMS` |
//! | a body larger than the router's limit | 413 |
//!
//! Responses are `application/json`, or `application/a2a+json` when the request's `Accept`
//! names it (§11.1 says `application/a2a+json` SHOULD be used; the conformance suite reads
//! `application/json`, and so does every client that does not ask).

mod params;
mod response;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use crate::http::AppState;
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::rest::routes::{self, RouteError};
use a2a_lambda_core::version::{self, ProtocolVersion};

pub use response::MediaType;

/// The path relative to the binding's base (the interface URL's path removed), when it is
/// one of the binding's routes (whatever the method).
pub(crate) fn binding_path(state: &AppState, path: &str) -> Option<String> {
    let relative = match &state.interface_path {
        Some(prefix) => match path.strip_prefix(prefix.as_str()) {
            Some(rest) if rest.starts_with('/') => rest,
            _ => path,
        },
        None => path,
    };
    (!routes::allowed_methods(relative).is_empty()).then(|| relative.to_owned())
}

/// Serves one request of the binding; `path` is relative to the binding's base.
pub(crate) async fn serve(state: Arc<AppState>, path: String, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let media = MediaType::accepted(&parts.headers);
    let matched = match routes::resolve(&parts.method, &path) {
        Ok(matched) => matched,
        Err(error) => return route_refusal(&error, media),
    };
    let call = crate::http::call_context(&parts);
    let refused_content_type = crate::http::refused_content_type(&parts.headers);
    // The body is read only for the routes that take one.
    let bytes = if parts.method == Method::POST {
        match axum::body::to_bytes(body, state.max_body_bytes).await {
            Ok(bytes) => bytes,
            Err(_) => {
                let error = Error::invalid_request(format!(
                    "the body could not be read, or is larger than {} bytes",
                    state.max_body_bytes
                ));
                return response::refusal(&error, Some(StatusCode::PAYLOAD_TOO_LARGE), media);
            }
        }
    } else {
        Bytes::new()
    };
    if let Err(error) = speaks_1_0(call.version_header.as_deref(), call.query.as_deref()) {
        return response::refusal(&error, None, media);
    }
    if let Some(text) = refused_content_type
        && !bytes.iter().all(u8::is_ascii_whitespace)
    {
        let error = Error::new(
            Refusal::ContentTypeNotSupported,
            format!(
                "Content-Type {text:?} is not supported; send application/json or {}",
                a2a_lambda_core::rest::MEDIA_TYPE
            ),
        );
        return response::refusal(&error, Some(StatusCode::UNSUPPORTED_MEDIA_TYPE), media);
    }
    let params = match params::build(&matched, parts.uri.query(), &bytes) {
        Ok(params) => params,
        Err(error) => return response::refusal(&error, None, media),
    };
    let reply = state
        .engine
        .handle_operation(matched.operation, params.as_deref(), &call)
        .await;
    response::reply(reply, media)
}

/// The binding speaks A2A 1.0 only: the request must ask for it.
fn speaks_1_0(header: Option<&str>, query: Option<&str>) -> Result<(), Error> {
    match version::negotiate(header, query)? {
        ProtocolVersion::V1_0 => Ok(()),
        ProtocolVersion::V0_3 => Err(Error::new(
            Refusal::VersionNotSupported,
            "the HTTP+JSON binding speaks A2A 1.0: send the header `A2A-Version: 1.0` \
             (a request without it speaks 0.3, which this agent serves over JSON-RPC)",
        )),
    }
}

/// The `Allow` header for a 405.
fn allow_header(allowed: &[Method]) -> HeaderValue {
    let text = allowed
        .iter()
        .map(Method::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("GET, POST"))
}

/// The answer to a path the binding has with a method it does not take, or with a path
/// parameter it cannot read.
fn route_refusal(refused: &RouteError, media: MediaType) -> Response {
    match refused {
        RouteError::MethodNotAllowed { allowed, .. } => {
            let error = Error::new(Refusal::MethodNotFound, refused.to_string());
            let mut answer = response::refusal(&error, Some(StatusCode::METHOD_NOT_ALLOWED), media);
            answer
                .headers_mut()
                .insert(header::ALLOW, allow_header(allowed));
            answer
        }
        RouteError::BadParameter { .. } => {
            response::refusal(&Error::invalid_params(refused.to_string()), None, media)
        }
        _ => response::refusal(
            &Error::new(Refusal::MethodNotFound, refused.to_string()),
            None,
            media,
        ),
    }
}
