//! The AgentCore platform front: what AWS Bedrock AgentCore Runtime does in front of an
//! A2A container, kept apart from the container itself (the shared router).
//!
//! It routes the container's paths and AWS's invocation paths, validates and returns the
//! session header, adds a request id, throttles, injects faults, keeps one container per
//! session, and turns platform failures into AgentCore's JSON-RPC errors with their real
//! HTTP statuses. A2A errors the container returns pass through unchanged.

mod arn;
pub use arn::is_runtime_arn;
pub mod container;
mod errors;
pub mod limits;
pub mod sessions;

use std::sync::Arc;
use std::time::Duration;

use a2a_core::error::Refusal;
use a2a_core::jsonrpc::{self, Id};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use tracing::Instrument as _;

use container::RuntimeFailure;
use errors::platform_error;
use limits::{Fault, FaultInjector, RateLimiter};
use sessions::{Sessions, Unavailable};

/// The session header.
pub const SESSION_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-session-id";
/// The per-request id header the platform adds.
pub const REQUEST_ID_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-request-id";
use a2a_core::http::CARD_PATH;
pub use a2a_core::http::SESSION_ID_LENGTH;

/// How the front behaves.
pub struct FrontConfig {
    /// The emulator's own base URL (`http://127.0.0.1:9000`), for invocation-path cards.
    pub base_url: String,
    /// Only this runtime ARN is served, when set.
    pub runtime_arn: Option<String>,
    /// Largest invocation payload.
    pub max_body_bytes: usize,
    /// Invocations a second (`None`: no limit).
    pub rate_limit: Option<RateLimiter>,
    /// Injected faults.
    pub faults: Option<FaultInjector>,
    /// How long a synchronous invocation may take.
    pub request_timeout: Duration,
    /// The session that requests without a session header on the container paths use.
    pub default_session: String,
    /// The path of the container's public URL (without its trailing slash), when not `/`:
    /// JSON-RPC is served there too, as the container does.
    pub interface_path: Option<String>,
}

struct Front {
    config: FrontConfig,
    sessions: Arc<Sessions>,
    /// A container outside any session, for cards: fetching a card starts no session.
    template: container::Container,
}

/// The front's router over `sessions`.
pub fn router(
    config: FrontConfig,
    sessions: Arc<Sessions>,
    template: container::Container,
) -> Router {
    let front = Arc::new(Front {
        config,
        sessions,
        template,
    });
    Router::new().fallback(handle).with_state(front)
}

/// Where a request goes.
enum Route {
    /// JSON-RPC; `arn` set on the AWS invocation path.
    Invoke { arn: Option<String> },
    /// The card; `arn` set on the AWS invocation path.
    Card { arn: Option<String> },
    /// Health.
    Ping,
}

fn route(method: &Method, path: &str, interface: Option<&str>) -> Result<Route, String> {
    let known = match path {
        "/" => Some((Method::POST, Route::Invoke { arn: None })),
        "/ping" => Some((Method::GET, Route::Ping)),
        CARD_PATH => Some((Method::GET, Route::Card { arn: None })),
        _ if Some(path.trim_end_matches('/')) == interface => {
            Some((Method::POST, Route::Invoke { arn: None }))
        }
        _ => None,
    };
    let (expected, route) = match known {
        Some(found) => found,
        None => {
            let rest = path
                .strip_prefix("/runtimes/")
                .ok_or_else(|| format!("no route {method} {path}"))?;
            let (encoded, tail) = rest
                .split_once('/')
                .ok_or_else(|| format!("no route {method} {path}"))?;
            let arn = arn::percent_decode(encoded)
                .filter(|arn| arn::is_runtime_arn(arn))
                .ok_or_else(|| format!("{encoded:?} is not a URL-encoded AgentCore runtime ARN"))?;
            match tail {
                "invocations" | "invocations/" => (Method::POST, Route::Invoke { arn: Some(arn) }),
                "invocations/.well-known/agent-card.json" => {
                    (Method::GET, Route::Card { arn: Some(arn) })
                }
                _ => return Err(format!("no route {method} {path}")),
            }
        }
    };
    // The container answers a wrong method on its JSON-RPC path itself (405, Allow: POST).
    if *method == expected || matches!(route, Route::Invoke { .. }) {
        Ok(route)
    } else {
        Err(format!("{method} {path} is not served; use {expected}"))
    }
}

async fn handle(State(front): State<Arc<Front>>, request: Request) -> Response {
    let request_id = a2a_core::model::new_id();
    let (mut parts, body) = request.into_parts();
    let span = tracing::info_span!("invocation", request_id, path = parts.uri.path());
    // The container logs the platform's request id as its own.
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        parts.headers.insert("x-request-id", value);
    }
    let mut response = front.answer(parts, body).instrument(span).await;
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}

/// The JSON-RPC id of a payload, or null when it cannot be read.
fn request_id_of(body: &[u8]) -> Id {
    match jsonrpc::parse_request(body) {
        Ok(request) => request.response_id(),
        Err(rejection) => rejection.id,
    }
}

/// The client's session id, if it sent one; an error for one of the wrong length.
fn session_id(headers: &HeaderMap) -> Result<Option<String>, String> {
    let Some(value) = headers.get(SESSION_HEADER) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| "the session id is not visible ASCII".to_owned())?;
    if SESSION_ID_LENGTH.contains(&text.len()) {
        Ok(Some(text.to_owned()))
    } else {
        Err(format!(
            "the session id has {} characters; AgentCore accepts 33 to 256",
            text.len()
        ))
    }
}

impl Front {
    /// Checks the session header, serves the request, and returns the session id on the
    /// response.
    async fn answer(&self, parts: axum::http::request::Parts, body: Body) -> Response {
        match session_id(&parts.headers) {
            Err(detail) => {
                // Echo the request's id when the payload can be read.
                let id = match axum::body::to_bytes(body, self.config.max_body_bytes).await {
                    Ok(bytes) => request_id_of(&bytes),
                    Err(_) => Id::Null,
                };
                platform_error(Refusal::PlatformValidation, id, &detail)
            }
            Ok(session) => {
                let (mut response, session) = self.serve(parts, body, session.as_deref()).await;
                if let Ok(value) = HeaderValue::from_str(&session) {
                    response.headers_mut().insert(SESSION_HEADER, value);
                }
                response
            }
        }
    }

    /// Serves one request; returns the response and the session id to put on it.
    async fn serve(
        &self,
        parts: axum::http::request::Parts,
        body: Body,
        session: Option<&str>,
    ) -> (Response, String) {
        let route = route(
            &parts.method,
            parts.uri.path(),
            self.config.interface_path.as_deref(),
        );
        let on_invocation_path = matches!(
            route,
            Ok(Route::Invoke { arn: Some(_) } | Route::Card { arn: Some(_) })
        );
        let session = match session {
            Some(id) => id.to_owned(),
            // AgentCore starts a new session for an invocation without one; the container
            // paths keep one default session so a plain A2A client can come back to its tasks.
            None if on_invocation_path => format!("session-{}", uuid::Uuid::new_v4()),
            None => self.config.default_session.clone(),
        };
        let response = match route {
            Err(detail) => platform_error(Refusal::UnknownRoute, Id::Null, &detail),
            Ok(route) => self.route(route, parts, body, &session).await,
        };
        (response, session)
    }

    async fn route(
        &self,
        route: Route,
        parts: axum::http::request::Parts,
        body: Body,
        session: &str,
    ) -> Response {
        let arn = match &route {
            Route::Invoke { arn } | Route::Card { arn } => arn.clone(),
            Route::Ping => None,
        };
        if let (Some(arn), Some(pinned)) = (&arn, &self.config.runtime_arn)
            && arn != pinned
        {
            return platform_error(
                Refusal::UnknownRoute,
                Id::Null,
                &format!("runtime {arn} does not exist here (serving {pinned})"),
            );
        }
        match route {
            Route::Invoke { .. } => self.invoke(parts, body, session).await,
            Route::Card { arn } => self.card(parts, session, arn.as_deref()).await,
            Route::Ping => self.ping(parts.headers, session).await,
        }
    }

    async fn invoke(
        &self,
        parts: axum::http::request::Parts,
        body: Body,
        session: &str,
    ) -> Response {
        // The container sees `/` with the client's query (`?A2A-Version=1.0` included).
        let target = match parts.uri.query() {
            Some(query) => format!("/?{query}"),
            None => "/".to_owned(),
        };
        if parts.method != Method::POST {
            return self
                .forward(
                    parts.method.clone(),
                    &target,
                    parts.headers,
                    Bytes::new(),
                    session,
                )
                .await;
        }
        let body = match axum::body::to_bytes(body, self.config.max_body_bytes).await {
            Ok(body) => body,
            Err(_) => {
                return platform_error(
                    Refusal::PlatformValidation,
                    Id::Null,
                    &format!(
                        "the payload is larger than {} bytes (or could not be read)",
                        self.config.max_body_bytes
                    ),
                );
            }
        };
        // The payload is opaque to the platform, as InvokeAgentRuntime's is: a body that is
        // not JSON reaches the container, which answers -32700 as the A2A spec says. Its id
        // is read only when the platform refuses it.
        if let Some(limiter) = &self.config.rate_limit
            && !limiter.try_acquire()
        {
            return platform_error(Refusal::Throttled, request_id_of(&body), "rate limit");
        }
        if let Some(faults) = &self.config.faults {
            if !faults.latency().is_zero() {
                tokio::time::sleep(faults.latency()).await;
            }
            if let Some(fault) = faults.draw() {
                let refusal = match fault {
                    Fault::Throttle => Refusal::Throttled,
                    Fault::Conflict => Refusal::SessionBusy,
                    Fault::RuntimeError => Refusal::RuntimeUnavailable,
                    Fault::Internal => Refusal::Internal,
                };
                let detail = format!("injected fault {fault:?}");
                return platform_error(refusal, request_id_of(&body), &detail);
            }
        }
        tracing::debug!(session_id = session, "invoking the container");
        self.forward(Method::POST, &target, parts.headers, body, session)
            .await
    }

    async fn card(
        &self,
        parts: axum::http::request::Parts,
        session: &str,
        arn: Option<&str>,
    ) -> Response {
        let Some(arn) = arn else {
            return self
                .forward(Method::GET, CARD_PATH, parts.headers, Bytes::new(), session)
                .await;
        };
        let url = format!(
            "{}/runtimes/{}/invocations/",
            self.config.base_url,
            arn::percent_encode(arn)
        );
        let json = match self.template.card_json(&url) {
            Some(json) => Ok(json),
            None => self.upstream_card(&self.template, &url).await,
        };
        match json {
            Ok(json) => (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::CACHE_CONTROL, "public, max-age=300"),
                ],
                json,
            )
                .into_response(),
            Err(failure) => {
                platform_error(Refusal::RuntimeUnavailable, Id::Null, &failure.to_string())
            }
        }
    }

    /// The upstream's card with every URL pointing at the invocation path.
    async fn upstream_card(
        &self,
        container: &container::Container,
        url: &str,
    ) -> Result<Vec<u8>, RuntimeFailure> {
        let response = container
            .call(
                Method::GET,
                CARD_PATH,
                HeaderMap::new(),
                Bytes::new(),
                self.config.request_timeout,
            )
            .await?;
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .map_err(|error| RuntimeFailure::Unreachable(error.to_string()))?;
        let mut card: serde_json::Value = serde_json::from_slice(&bytes).map_err(|error| {
            RuntimeFailure::Unreachable(format!("the container's card is not JSON: {error}"))
        })?;
        if card.get("url").is_some() {
            card["url"] = serde_json::Value::from(url);
        }
        for list in ["supportedInterfaces", "additionalInterfaces"] {
            if let Some(interfaces) = card.get_mut(list).and_then(|v| v.as_array_mut()) {
                for interface in interfaces {
                    interface["url"] = serde_json::Value::from(url);
                }
            }
        }
        serde_json::to_vec(&card).map_err(|error| RuntimeFailure::Unreachable(error.to_string()))
    }

    /// Enters the session and calls its container; the in-flight mark lives as long as the
    /// response body, so a stream keeps its session busy until it ends. A refusal echoes
    /// the payload's id.
    async fn forward(
        &self,
        method: Method,
        path: &str,
        mut headers: HeaderMap,
        body: Bytes,
        session: &str,
    ) -> Response {
        let (entered, mark) = match self.enter(session, &body).await {
            Ok(entered) => entered,
            Err(response) => return response,
        };
        if let Ok(value) = HeaderValue::from_str(session) {
            headers.insert(SESSION_HEADER, value);
        }
        match entered
            .container
            .call(
                method,
                path,
                headers,
                body.clone(),
                self.config.request_timeout,
            )
            .await
        {
            Ok(response) => {
                let streaming = response
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
                if !streaming && entered.container.answers_whole() {
                    // A whole answer: the invocation is over when it is handed back.
                    return response;
                }
                let (parts, body) = response.into_parts();
                let stream = body.into_data_stream().map(move |chunk| {
                    let _still_in_flight = &mark;
                    chunk
                });
                Response::from_parts(parts, Body::from_stream(stream))
            }
            Err(failure) => platform_error(
                Refusal::RuntimeUnavailable,
                request_id_of(&body),
                &failure.to_string(),
            ),
        }
    }

    /// The session's container's `/ping`, answered even while the session is busy or
    /// starting: a health check is not an invocation.
    async fn ping(&self, headers: HeaderMap, session: &str) -> Response {
        let entered = match self.sessions.enter_for_health(session) {
            Ok(entered) => entered,
            Err(Unavailable::Busy(_, why)) => {
                return platform_error(
                    Refusal::SessionBusy,
                    Id::Null,
                    &format!("session {session} is {why}"),
                );
            }
            Err(Unavailable::Container(error)) => {
                return platform_error(
                    Refusal::Internal,
                    Id::Null,
                    &format!("the container could not start: {error}"),
                );
            }
        };
        match entered
            .container
            .call(
                Method::GET,
                "/ping",
                headers,
                Bytes::new(),
                self.config.request_timeout,
            )
            .await
        {
            Ok(response) => response,
            Err(failure) => {
                platform_error(Refusal::RuntimeUnavailable, Id::Null, &failure.to_string())
            }
        }
    }

    /// Enters a session, waiting out the start of one this call began.
    async fn enter(
        &self,
        session: &str,
        payload: &[u8],
    ) -> Result<(Arc<sessions::Session>, sessions::InFlight), Response> {
        match self.sessions.enter(session) {
            Ok((session, mark, wait)) => {
                if !wait.is_zero() {
                    tokio::time::sleep(wait).await;
                }
                Ok((session, mark))
            }
            Err(Unavailable::Busy(_, why)) => Err(platform_error(
                Refusal::SessionBusy,
                request_id_of(payload),
                &format!("session {session} is {why}"),
            )),
            Err(Unavailable::Container(error)) => Err(platform_error(
                Refusal::Internal,
                request_id_of(payload),
                &format!("the container could not start: {error}"),
            )),
        }
    }
}
