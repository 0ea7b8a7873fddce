//! The router the function serves: the shared A2A router plus the Lambda-specific layers.
//!
//! - **Stage prefix**: API Gateway puts a named stage in the path (`/prod/…`); it is
//!   removed, so routes match with and without it.
//! - **Card URL**: without `A2A_PUBLIC_URL`, the card advertises the URL the request came
//!   to: its host, and the stage when there is one.
//! - **API key**: with `A2A_AUTH=api-key`, JSON-RPC requests need `X-API-Key`; the card
//!   and `/ping` stay public (discovery and health).

use std::sync::Arc;

use a2a_core::engine::Engine;
use a2a_core::http::{CARD_PATH, CardUrl, RouterOptions, router};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use lambda_http::RequestExt as _;
use lambda_http::request::RequestContext;

use crate::config::{Auth, Config};

/// The service the function runs: the stage prefix is removed (and the card URL noted)
/// before routing, then the router answers.
pub type App = tower::util::MapRequest<
    Router,
    Box<dyn Fn(Request<lambda_http::Body>) -> Request<lambda_http::Body> + Send + Sync>,
>;

/// The function's service for an engine.
pub fn app(engine: Arc<Engine>, config: &Config) -> App {
    let mut app = router(
        engine,
        RouterOptions {
            max_body_bytes: config.max_body_bytes,
        },
    );
    if let Auth::ApiKey(secret) = &config.auth {
        let secret: Arc<str> = Arc::from(secret.as_str());
        app = app.layer(middleware::from_fn(
            move |request: axum::extract::Request, next: Next| {
                let secret = Arc::clone(&secret);
                async move { require_api_key(&secret, request, next).await }
            },
        ));
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

/// Removes the stage prefix from the path and, when asked, records the card URL.
fn strip_stage<B>(mut request: Request<B>, derive_url: bool) -> Request<B> {
    let stage = stage(&request);
    let mut prefix = String::new();
    if let Some(stage) = &stage {
        let marker = format!("/{stage}");
        let path = request.uri().path();
        let rest = path.strip_prefix(&marker);
        if let Some(rest) = rest.filter(|rest| rest.is_empty() || rest.starts_with('/')) {
            let rest = if rest.is_empty() { "/" } else { rest };
            let target = match request.uri().query() {
                Some(query) => format!("{rest}?{query}"),
                None => rest.to_owned(),
            };
            if let Ok(uri) = target.parse::<Uri>() {
                *request.uri_mut() = uri;
                prefix = marker;
            }
        }
    }
    if derive_url {
        let headers = request.headers();
        let host = headers
            .get(header::HOST)
            .and_then(|value| value.to_str().ok())
            .filter(|host| !host.is_empty());
        if let Some(host) = host {
            let scheme = headers
                .get("x-forwarded-proto")
                .and_then(|value| value.to_str().ok())
                .unwrap_or("https");
            let url = format!("{scheme}://{host}{prefix}/");
            request.extensions_mut().insert(CardUrl(url));
        }
    }
    request
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
