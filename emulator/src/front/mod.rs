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

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::error::Refusal;
use a2a_core::jsonrpc::{self, Id};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::{Either, ready};
use futures_util::{FutureExt as _, StreamExt as _};
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
    /// `config.default_session` as a header value.
    default_session: HeaderValue,
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
    // The emulator makes this id from letters, digits and dashes: always a header value.
    let default_session = HeaderValue::try_from(config.default_session.as_str())
        .unwrap_or_else(|_| HeaderValue::from_static("a2a-emulator-default-session"));
    let front = Arc::new(Front {
        default_session,
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

/// The session header's name, for inserting without parsing the name each time.
static SESSION: HeaderName = HeaderName::from_static(SESSION_HEADER);
/// The platform's request id header.
static PLATFORM_REQUEST_ID: HeaderName = HeaderName::from_static(REQUEST_ID_HEADER);
/// The request id header the container reads (and logs as its own).
static CONTAINER_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Serves one request. What to do is decided before anything is awaited, and the future
/// axum keeps per request is made of combinators over the chosen path, so it holds only
/// what that path needs while it waits (an `async fn` chain keeps every argument at every
/// level: this one was 4 KB). The rarer cards, pings and refusals that wait are boxed.
fn handle(
    State(front): State<Arc<Front>>,
    request: Request,
) -> impl Future<Output = Response> + Send {
    let request_id = a2a_core::model::new_id();
    let (mut parts, body) = request.into_parts();
    let span = tracing::info_span!("invocation", request_id, path = parts.uri.path());
    let request_id = HeaderValue::try_from(request_id).ok();
    if let Some(value) = &request_id {
        // The container logs the platform's request id as its own.
        parts.headers.insert(&CONTAINER_REQUEST_ID, value.clone());
    }
    let (answer, session) = match front.plan(parts, body) {
        Plan::Answered(response, session) => (Either::Left(ready(response)), session),
        Plan::Invoke(invocation) => {
            let session = Some(invocation.session.clone());
            (Either::Right(Either::Left(invocation.run())), session)
        }
        Plan::Wait(answer, session) => (Either::Right(Either::Right(answer)), session),
    };
    answer.instrument(span).map(move |mut response| {
        let headers = response.headers_mut();
        if let Some(session) = session {
            headers.insert(&SESSION, session);
        }
        if let Some(value) = request_id {
            headers.insert(&PLATFORM_REQUEST_ID, value);
        }
        response
    })
}

/// A response still to come, boxed.
type Later = Pin<Box<dyn Future<Output = Response> + Send>>;

/// What the front does with a request; the session it names goes on the response.
enum Plan {
    /// Answered without waiting.
    Answered(Response, Option<HeaderValue>),
    /// JSON-RPC for the session's container: the common case, kept unboxed.
    Invoke(Invocation),
    /// Anything else that waits.
    Wait(Later, Option<HeaderValue>),
}

/// A POST of a JSON-RPC payload for the session's container.
struct Invocation {
    front: Arc<Front>,
    /// `/` with the client's query.
    target: Uri,
    headers: HeaderMap,
    body: Body,
    session: HeaderValue,
}

/// The JSON-RPC id of a payload, or null when it cannot be read.
fn request_id_of(body: &[u8]) -> Id {
    match jsonrpc::parse_request(body) {
        Ok(request) => request.response_id(),
        Err(rejection) => rejection.id,
    }
}

/// The client's session id, if it sent one; an error for one of the wrong length.
fn session_id(headers: &HeaderMap) -> Result<Option<HeaderValue>, String> {
    let Some(value) = headers.get(&SESSION) else {
        return Ok(None);
    };
    let text = value
        .to_str()
        .map_err(|_| "the session id is not visible ASCII".to_owned())?;
    if SESSION_ID_LENGTH.contains(&text.len()) {
        Ok(Some(value.clone()))
    } else {
        Err(format!(
            "the session id has {} characters; AgentCore accepts 33 to 256",
            text.len()
        ))
    }
}

/// The URI the container sees: `/` with the client's query (`?A2A-Version=1.0` included).
fn container_target(uri: &Uri) -> Uri {
    match uri.query() {
        None => Uri::from_static("/"),
        Some(_) if uri.path() == "/" => uri.clone(),
        Some(query) => format!("/?{query}")
            .parse()
            .unwrap_or_else(|_| Uri::from_static("/")),
    }
}

impl Front {
    /// Decides what to do with a request: checks the session header and the route, names
    /// the session.
    fn plan(self: &Arc<Self>, parts: Parts, body: Body) -> Plan {
        let session = match session_id(&parts.headers) {
            Ok(session) => session,
            Err(detail) => {
                // Echo the request's id when the payload can be read.
                let limit = self.config.max_body_bytes;
                let answer = async move {
                    let id = match axum::body::to_bytes(body, limit).await {
                        Ok(bytes) => request_id_of(&bytes),
                        Err(_) => Id::Null,
                    };
                    platform_error(Refusal::PlatformValidation, id, &detail)
                };
                return Plan::Wait(Box::pin(answer), None);
            }
        };
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
            Some(session) => session,
            // AgentCore starts a new session for an invocation without one; the container
            // paths keep one default session so a plain A2A client can come back to its tasks.
            None if on_invocation_path => {
                match HeaderValue::try_from(format!("session-{}", uuid::Uuid::new_v4())) {
                    Ok(session) => session,
                    Err(_) => self.default_session.clone(),
                }
            }
            None => self.default_session.clone(),
        };
        let route = match route {
            Ok(route) => route,
            Err(detail) => {
                let refused = platform_error(Refusal::UnknownRoute, Id::Null, &detail);
                return Plan::Answered(refused, Some(session));
            }
        };
        if let (Route::Invoke { arn: Some(arn) } | Route::Card { arn: Some(arn) }, Some(pinned)) =
            (&route, &self.config.runtime_arn)
            && arn != pinned
        {
            let detail = format!("runtime {arn} does not exist here (serving {pinned})");
            let refused = platform_error(Refusal::UnknownRoute, Id::Null, &detail);
            return Plan::Answered(refused, Some(session));
        }
        let front = Arc::clone(self);
        let answer: Later = match route {
            Route::Invoke { .. } if parts.method == Method::POST => {
                return Plan::Invoke(Invocation {
                    front,
                    target: container_target(&parts.uri),
                    headers: parts.headers,
                    body,
                    session,
                });
            }
            // The container answers a wrong method on its JSON-RPC path itself (405).
            Route::Invoke { .. } => {
                let target = container_target(&parts.uri);
                let session = session.clone();
                Box::pin(front.forward(parts.method, target, parts.headers, Bytes::new(), session))
            }
            Route::Card { arn } => {
                let session = session.clone();
                Box::pin(async move { front.card(parts.headers, session, arn.as_deref()).await })
            }
            Route::Ping => {
                let session = session.clone();
                Box::pin(async move { front.ping(parts.headers, &session).await })
            }
        };
        Plan::Wait(answer, Some(session))
    }

    async fn card(&self, headers: HeaderMap, session: HeaderValue, arn: Option<&str>) -> Response {
        let Some(arn) = arn else {
            let target = Uri::from_static(CARD_PATH);
            return self
                .forward(Method::GET, target, headers, Bytes::new(), session)
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
                Uri::from_static(CARD_PATH),
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
    /// the payload's id. The session is entered (or refused) before the future is made.
    fn forward(
        &self,
        method: Method,
        target: Uri,
        mut headers: HeaderMap,
        body: Bytes,
        session: HeaderValue,
    ) -> impl Future<Output = Response> + Send + use<> {
        let Ok(name) = session.to_str() else {
            // Every session id is checked (or made) as visible ASCII before it gets here.
            let detail = "the session id is not visible ASCII";
            let refused = platform_error(Refusal::PlatformValidation, request_id_of(&body), detail);
            return Either::Left(ready(refused));
        };
        let (entered, mark, wait) = match self.sessions.enter(name) {
            Ok(entered) => entered,
            Err(unavailable) => return Either::Left(ready(refused_entry(&unavailable, &body))),
        };
        headers.insert(&SESSION, session);
        let timeout = self.config.request_timeout;
        if wait.is_zero() {
            let call = entered
                .container
                .call(method, target, headers, body.clone(), timeout);
            return Either::Right(Either::Left(
                call.map(move |answered| settle(answered, &entered.container, mark, &body)),
            ));
        }
        // The invocation that starts a session waits for it, then has its full time.
        let started = async move {
            tokio::time::sleep(wait).await;
            let answered = entered
                .container
                .call(method, target, headers, body.clone(), timeout)
                .await;
            settle(answered, &entered.container, mark, &body)
        };
        Either::Right(Either::Right(Box::pin(started) as Later))
    }

    /// The session's container's `/ping`, answered even while the session is busy or
    /// starting: a health check is not an invocation.
    async fn ping(&self, headers: HeaderMap, session: &HeaderValue) -> Response {
        let Ok(name) = session.to_str() else {
            let detail = "the session id is not visible ASCII";
            return platform_error(Refusal::PlatformValidation, Id::Null, detail);
        };
        let entered = match self.sessions.enter_for_health(name) {
            Ok(entered) => entered,
            Err(unavailable) => return refused_entry(&unavailable, &[]),
        };
        match entered
            .container
            .call(
                Method::GET,
                Uri::from_static("/ping"),
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
}

/// AgentCore's answer when a session cannot take a request; echoes the payload's id.
fn refused_entry(unavailable: &Unavailable, payload: &[u8]) -> Response {
    match unavailable {
        Unavailable::Busy(session, why) => platform_error(
            Refusal::SessionBusy,
            request_id_of(payload),
            &format!("session {session} is {why}"),
        ),
        Unavailable::Container(error) => platform_error(
            Refusal::Internal,
            request_id_of(payload),
            &format!("the container could not start: {error}"),
        ),
    }
}

/// The container's answer as the client gets it: a whole answer as it is, a stream with
/// the in-flight mark riding along until its end, a failure as AgentCore's 424.
fn settle(
    answered: Result<Response, RuntimeFailure>,
    container: &container::Container,
    mark: sessions::InFlight,
    payload: &[u8],
) -> Response {
    match answered {
        Ok(response) => {
            let streaming = response
                .headers()
                .get(header::CONTENT_TYPE)
                .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
            if !streaming && container.answers_whole() {
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
            request_id_of(payload),
            &failure.to_string(),
        ),
    }
}

impl Invocation {
    /// Reads the payload, applies the rate limit and injected faults, and forwards it.
    fn run(self) -> impl Future<Output = Response> + Send {
        let Self {
            front,
            target,
            headers,
            body,
            session,
        } = self;
        let limit = front.config.max_body_bytes;
        axum::body::to_bytes(body, limit).then(move |read| {
            let Ok(body) = read else {
                let detail =
                    format!("the payload is larger than {limit} bytes (or could not be read)");
                let refused = platform_error(Refusal::PlatformValidation, Id::Null, &detail);
                return Either::Left(ready(refused));
            };
            // The payload is opaque to the platform, as InvokeAgentRuntime's is: a body that
            // is not JSON reaches the container, which answers -32700 as the A2A spec says.
            // Its id is read only when the platform refuses it.
            if let Some(limiter) = &front.config.rate_limit
                && !limiter.try_acquire()
            {
                let refused =
                    platform_error(Refusal::Throttled, request_id_of(&body), "rate limit");
                return Either::Left(ready(refused));
            }
            if front.config.faults.is_some() {
                let faulty = async move { front.with_faults(target, headers, body, session).await };
                return Either::Right(Either::Right(Box::pin(faulty) as Later));
            }
            tracing::debug!(
                session_id = session.to_str().unwrap_or_default(),
                "invoking the container"
            );
            let forwarded = front.forward(Method::POST, target, headers, body, session);
            Either::Right(Either::Left(forwarded))
        })
    }
}

impl Front {
    /// An invocation under `--fault`: the injected latency, then maybe a fault, else the
    /// container.
    async fn with_faults(
        &self,
        target: Uri,
        headers: HeaderMap,
        body: Bytes,
        session: HeaderValue,
    ) -> Response {
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
        self.forward(Method::POST, target, headers, body, session)
            .await
    }
}
