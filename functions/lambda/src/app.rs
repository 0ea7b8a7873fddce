//! The router the function serves: the shared A2A router plus the Lambda-specific layers.
//!
//! - **Stage prefix**: API Gateway puts a named stage in the path (`/prod/…`); it is
//!   removed, so routes match with and without it.
//! - **Card URL**: without `A2A_PUBLIC_URL`, the card advertises the URL the request came
//!   to: its host, and the stage when there is one.
//! - **API key**: with `A2A_AUTH=api-key`, JSON-RPC requests need `X-API-Key`; the card
//!   and `/ping` stay public (discovery and health).

use std::sync::Arc;

use a2a_server::engine::Engine;
use a2a_server::http::{CARD_PATH, CardUrl, RouterOptions, router};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use lambda_http::RequestExt as _;
use lambda_http::request::RequestContext;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::config::{Auth, Config};

/// The service the function runs: the stage prefix is removed (and the card URL noted)
/// before routing, then the router answers.
pub type App = tower::util::MapRequest<
    Router,
    Box<dyn Fn(Request<lambda_http::Body>) -> Request<lambda_http::Body> + Send + Sync>,
>;

/// The function's service for an engine, with the user's layers applied to the router in
/// order (see [`crate::Lambda::layer`]).
pub fn app(
    engine: Arc<Engine>,
    config: &Config,
    layers: Vec<Box<dyn FnOnce(Router) -> Router + Send>>,
) -> App {
    let mut app = router(
        engine,
        RouterOptions {
            max_body_bytes: config.max_body_bytes,
        },
    );
    for layer in layers {
        app = layer(app);
    }
    if let Auth::ApiKey(secret) = &config.auth {
        let secret: Arc<str> = Arc::from(secret.as_str());
        // The check sits outside the router, so it gets the router's request id and
        // tracing layers again: a refusal carries the id and is logged.
        app = app
            .layer(middleware::from_fn(
                move |request: axum::extract::Request, next: Next| {
                    let secret = Arc::clone(&secret);
                    async move { require_api_key(&secret, request, next).await }
                },
            ))
            .layer(TraceLayer::new_for_http())
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid));
    }
    let derive_url = config.public_url.is_none();
    tower::util::MapRequest::new(
        app,
        Box::new(move |request| strip_stage(request, derive_url)),
    )
}

/// The API Gateway stage of a request, when it names one (not `$default`).
fn stage<B>(request: &Request<B>) -> Option<String> {
    let stage = match request.request_context_ref()? {
        RequestContext::ApiGatewayV1(context) => context.stage.clone(),
        RequestContext::ApiGatewayV2(context) => context.stage.clone(),
        _ => None,
    }?;
    (!stage.is_empty() && stage != "$default").then_some(stage)
}

/// Routes on the path without its stage and, when asked, records the card URL.
///
/// The path comes from lambda_http's raw path (the event's own path: REST v1 leaves the
/// stage out, HTTP API v2 keeps it) with a leading `/{stage}` removed, so `/prod/`,
/// `/prod` and `/` all reach `/`, whatever `AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH` says.
/// The card URL is the request's host (the `Host` header, else the host lambda_http put
/// in the URI from the event's domain name) followed by the stage.
fn strip_stage<B>(mut request: Request<B>, derive_url: bool) -> Request<B> {
    let stage = stage(&request);
    let raw = request.raw_http_path();
    let path = if raw.is_empty() {
        request.uri().path().to_owned()
    } else {
        raw.to_owned()
    };
    let prefix = stage
        .as_ref()
        .map(|stage| format!("/{stage}"))
        .unwrap_or_default();
    let routed = match path.strip_prefix(&prefix) {
        Some(rest) if !prefix.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            if rest.is_empty() {
                "/".to_owned()
            } else {
                rest.to_owned()
            }
        }
        _ => path,
    };
    if routed != request.uri().path() {
        let target = match request.uri().query() {
            Some(query) => format!("{routed}?{query}"),
            None => routed,
        };
        let mut parts = request.uri().clone().into_parts();
        if let Ok(path_and_query) = target.parse() {
            parts.path_and_query = Some(path_and_query);
            if let Ok(uri) = Uri::from_parts(parts) {
                *request.uri_mut() = uri;
            }
        }
    }
    if derive_url && let Some(url) = card_url(&request, &prefix) {
        request.extensions_mut().insert(CardUrl(url));
    }
    request
}

/// `scheme://host{prefix}/` for the request, when its host is known.
fn card_url<B>(request: &Request<B>, prefix: &str) -> Option<String> {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .filter(|host| !host.is_empty())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(ToString::to_string))?;
    let scheme = headers
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .or_else(|| request.uri().scheme_str())
        .unwrap_or("https");
    Some(format!("{scheme}://{host}{prefix}/"))
}

async fn require_api_key(secret: &str, request: axum::extract::Request, next: Next) -> Response {
    let public = request.uri().path() == CARD_PATH || request.uri().path() == "/ping";
    let given = request
        .headers()
        .get(a2a_core::card::security::API_KEY_HEADER)
        .and_then(|value| value.to_str().ok());
    if public || given.is_some_and(|given| constant_time_eq(given.as_bytes(), secret.as_bytes())) {
        return next.run(request).await;
    }
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Unauthorized: send a valid X-API-Key header"}}"#;
    (
        StatusCode::UNAUTHORIZED,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("ApiKey header=\"X-API-Key\""),
            ),
        ],
        Body::from(body),
    )
        .into_response()
}

/// Compares without stopping at the first difference.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
