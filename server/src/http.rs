//! The one axum [`Router`] both hosts serve: JSON-RPC on `POST /` (and on the card's
//! interface path), the agent card, and `/ping`.
//!
//! Cross-cutting concerns are tower layers: body limit, request id (`x-request-id`, made
//! when absent, from AgentCore's request id when the platform passed one, and returned),
//! tracing, and a panic guard that answers -32603.

use std::collections::hash_map::DefaultHasher;
use std::convert::Infallible;
use std::hash::{Hash as _, Hasher as _};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::StreamExt as _;
use tower::ServiceBuilder;
use tower::util::MapRequestLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::TraceLayer;

use crate::engine::{CallContext, Engine, Reply};
use a2a_lambda_core::card::Binding;
use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::jsonrpc::{self, Id};
use a2a_lambda_core::version::VERSION_HEADER;

pub use a2a_lambda_core::agentcore::SESSION_HEADER;
pub use a2a_lambda_core::card::CARD_PATH;
/// The request id header (made when absent, returned on every response).
pub const REQUEST_ID_HEADER: &str = "x-request-id";
/// Default request body limit: AgentCore's 100 MB payload limit.
pub const DEFAULT_MAX_BODY_BYTES: usize = 100 * 1024 * 1024;
/// The SSE header a client resumes a subscription with (the id of the last event it got).
pub const LAST_EVENT_ID_HEADER: &str = "last-event-id";
/// How long clients may cache the card.
const CARD_MAX_AGE_SECONDS: u32 = 300;

/// Router settings.
#[derive(Debug, Clone, Copy)]
pub struct RouterOptions {
    /// Largest request body accepted.
    pub max_body_bytes: usize,
    /// Where callers' identity comes from, when the router decides it (an AgentCore
    /// container); `None`: the host puts the [`Owner`](crate::owner::Owner) in the
    /// request's extensions itself (Lambda), or every caller is anonymous.
    pub identity: Option<crate::identity::Identity>,
}

impl Default for RouterOptions {
    fn default() -> Self {
        Self {
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            identity: None,
        }
    }
}

pub(crate) struct AppState {
    pub(crate) engine: Arc<Engine>,
    card: Bytes,
    etag: String,
    last_modified: String,
    pub(crate) max_body_bytes: usize,
    /// The HTTP+JSON binding is served (its routes are the router's fallback).
    rest: bool,
    /// The interface URL's path (`/a2a/v1`), which the binding's routes follow.
    pub(crate) interface_path: Option<String>,
}

/// The URL the card should advertise for this request, when a host only learns it from
/// the request (a Lambda function behind a URL it was not told). A layer of the host puts
/// it in the request's extensions; without it the engine's public URL is used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardUrl(pub String);

fn etag_of(bytes: &[u8]) -> String {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("\"{:016x}\"", hasher.finish())
}

/// The router for an engine.
pub fn router(engine: Arc<Engine>, options: RouterOptions) -> Router {
    let card_json =
        serde_json::to_vec(&engine.card().render_hybrid(engine.public_url())).unwrap_or_default();
    let interface_path = interface_path(engine.public_url());
    let bindings = &engine.card().bindings;
    let (jsonrpc, rest) = (
        bindings.serves(Binding::JsonRpc),
        bindings.serves(Binding::HttpJson),
    );
    let state = Arc::new(AppState {
        engine,
        etag: etag_of(&card_json),
        card: Bytes::from(card_json),
        last_modified: http_date(time::OffsetDateTime::now_utc()),
        max_body_bytes: options.max_body_bytes,
        rest,
        interface_path: interface_path.clone(),
    });
    let mut router = Router::new();
    if jsonrpc {
        let rpc = post(rpc).fallback(method_not_allowed);
        router = router.route("/", rpc.clone());
        if let Some(path) = interface_path {
            let trimmed = path.trim_end_matches('/').to_owned();
            router = router
                .route(&format!("{trimmed}/"), rpc.clone())
                .route(&trimmed, rpc);
        }
    }
    let routes = router
        .route(CARD_PATH, get(card))
        .route("/ping", get(ping))
        .fallback(fallback)
        .with_state(state);
    // Applied with `Router::layer` (each route, and the fallbacks, are wrapped): wrapping
    // the whole router as the fallback of another one adds a router and a boxed future
    // per request.
    routes.layer(
        ServiceBuilder::new()
            // In the one stack every route gets: a layer of its own on the router would
            // wrap (and box) every route again.
            .option_layer(
                options.identity.map(|identity| {
                    MapRequestLayer::new(move |request| identity.identify(request))
                }),
            )
            .layer(SetRequestIdLayer::x_request_id(NewRequestId))
            .layer(PropagateRequestIdLayer::x_request_id())
            .layer(crate::telemetry::ServerSpanLayer)
            .layer(TraceLayer::new_for_http())
            .layer(CatchPanicLayer::custom(|_| panic_response()))
            .layer(DefaultBodyLimit::max(options.max_body_bytes)),
    )
}

/// AgentCore's request id header, which a request the platform passes carries.
const PLATFORM_REQUEST_ID_HEADER: &str = a2a_lambda_core::agentcore::REQUEST_ID_HEADER;

/// Makes a request id for a request that came without one: AgentCore's request id when
/// the platform passed one, else a UUID v4.
#[derive(Debug, Clone, Copy)]
struct NewRequestId;

impl MakeRequestId for NewRequestId {
    fn make_request_id<B>(&mut self, request: &axum::http::Request<B>) -> Option<RequestId> {
        // Behind AgentCore the request is the platform's invocation: its id, so that the
        // container's logs and AgentCore's name the request alike.
        if let Some(platform) = request.headers().get(PLATFORM_REQUEST_ID_HEADER) {
            return Some(RequestId::new(platform.clone()));
        }
        // Encoded in place: tower-http's `MakeRequestUuid` formats a `String` and parses it.
        let mut buffer = uuid::Uuid::encode_buffer();
        let id = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut buffer);
        HeaderValue::from_str(id).ok().map(RequestId::new)
    }
}

/// The path of a public URL without its trailing slash (`https://h/a2a/v1/` → `/a2a/v1`),
/// when it is not `/`: JSON-RPC is served there too.
pub fn interface_path(public_url: &str) -> Option<String> {
    let rest = public_url
        .split_once("://")
        .map_or(public_url, |(_, rest)| rest);
    let path = rest.find('/').map_or("", |at| &rest[at..]);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let trimmed = path.trim_end_matches('/');
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// What the RPC handler reads from a request's head, taken without copying the headers.
struct RpcHead {
    call: CallContext,
    /// The content type, when it is one the RPC refuses (kept as text: the handler's
    /// future holds this head, and an error is larger).
    refused_content_type: Option<Box<str>>,
}

impl<S: Send + Sync> FromRequestParts<S> for RpcHead {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Self {
            refused_content_type: refused_content_type(&parts.headers),
            call: call_context(parts),
        })
    }
}

/// What the engine is told of a request, from its head (both bindings).
pub(crate) fn call_context(parts: &Parts) -> CallContext {
    let headers = &parts.headers;
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    CallContext {
        version_header: text(VERSION_HEADER),
        query: parts.uri.query().map(str::to_owned),
        session_id: text(SESSION_HEADER),
        request_id: text(REQUEST_ID_HEADER).unwrap_or_default(),
        last_event_id: text(LAST_EVENT_ID_HEADER),
        platform: crate::platform::Platform::from_headers(headers).map(Arc::new),
        // Put there by the host, from what its platform vouches for.
        owner: parts
            .extensions
            .get::<crate::owner::Owner>()
            .cloned()
            .unwrap_or_default(),
    }
}

/// The JSON-RPC handler. A function returning its future rather than an `async fn`, which
/// would keep a second copy of its arguments in the future axum boxes for every request;
/// the refusals that need no waiting are decided before the future is made.
fn rpc(
    State(state): State<Arc<AppState>>,
    head: RpcHead,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> impl Future<Output = Response> + Send {
    let checked = readable(&state, head.refused_content_type, body);
    let call = head.call;
    async move {
        match checked {
            Ok(body) => reply(state.engine.handle(&body, &call).await),
            Err(refused) => reply(refused),
        }
    }
}

/// The body, or the refusal of a request whose content type or body cannot be read.
fn readable(
    state: &AppState,
    refused_content_type: Option<Box<str>>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Bytes, Reply> {
    if let Some(text) = refused_content_type {
        let error = Error::new(
            Refusal::ContentTypeNotSupported,
            format!("Content-Type {text:?} is not supported; send application/json"),
        );
        let id = body
            .as_ref()
            .map_or(Id::Null, |body| jsonrpc::request_id(body));
        return Err(state.engine.refuse(id, &error));
    }
    body.map_err(|rejection| {
        let error = if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::invalid_request(format!(
                "the body is larger than {} bytes",
                state.max_body_bytes
            ))
        } else {
            Error::invalid_request(format!("the body could not be read: {rejection}"))
        };
        state.engine.refuse(Id::Null, &error)
    })
}

/// The content type's text unless it is JSON (refused with -32005; a missing content type
/// is accepted).
pub(crate) fn refused_content_type(headers: &HeaderMap) -> Option<Box<str>> {
    let value = headers.get(header::CONTENT_TYPE)?;
    let text = value.to_str().unwrap_or_default();
    let essence = text.split(';').next().unwrap_or_default().trim();
    let json = ["application/json", "application/a2a+json"]
        .iter()
        .any(|accepted| essence.eq_ignore_ascii_case(accepted));
    (!json).then(|| text.into())
}

fn reply(reply: Reply) -> Response {
    match reply {
        Reply::Json { status, body } => json_response(status, body),
        Reply::Stream(events) => sse(events, false),
    }
}

/// An SSE response of a stream's events, each with its `id:` (to resume with
/// `Last-Event-ID`) and a keep-alive comment every 15 s. With `name_errors`, an event that
/// reports an error is named `error` (the HTTP+JSON binding; a JSON-RPC error is itself a
/// response and needs no name).
pub(crate) fn sse(events: crate::engine::EventStream, name_errors: bool) -> Response {
    let events = events.map(move |item| {
        // The event's name first, where readers of the stream look for it.
        let event = if name_errors && item.error {
            Event::default().event("error")
        } else {
            Event::default()
        };
        let event = event.data(String::from_utf8_lossy(&item.json));
        // `Event::id` refuses (panics on) a line break or NUL: such an id is left out.
        let id = item
            .id
            .as_deref()
            .filter(|id| !id.contains(['\n', '\r', '\0']));
        Ok::<Event, Infallible>(match id {
            Some(id) => event.id(id),
            None => event,
        })
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

pub(crate) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
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

fn panic_response() -> Response {
    json_response(
        StatusCode::OK,
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
            .to_vec(),
    )
}

async fn method_not_allowed(State(state): State<Arc<AppState>>, method: Method) -> Response {
    let error = Error::invalid_request(format!(
        "{method} is not allowed here; send JSON-RPC requests with POST"
    ));
    let mut response = reply(state.engine.refuse(Id::Null, &error));
    *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// A path no route of the router has: one of the HTTP+JSON binding's when it is served,
/// else no route at all.
async fn fallback(State(state): State<Arc<AppState>>, request: axum::extract::Request) -> Response {
    if state.rest
        && let Some(path) = crate::rest::binding_path(&state, request.uri().path())
    {
        return crate::rest::serve(state, path, request).await;
    }
    not_found(&state, request.method(), request.uri())
}

fn not_found(state: &AppState, method: &Method, uri: &Uri) -> Response {
    let rest = if state.rest {
        ", HTTP+JSON under /message:send, /tasks and /extendedAgentCard,"
    } else {
        ""
    };
    let error = Error::new(
        Refusal::MethodNotFound,
        format!(
            "no route {method} {}; JSON-RPC goes to POST /{rest} and the card is at GET \
             {CARD_PATH}",
            uri.path()
        ),
    );
    let mut response = reply(state.engine.refuse(Id::Null, &error));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

async fn card(
    State(state): State<Arc<AppState>>,
    url: Option<axum::Extension<CardUrl>>,
    headers: HeaderMap,
) -> Response {
    let (card, etag) = match url {
        Some(axum::Extension(CardUrl(url))) if url != state.engine.public_url() => {
            let card =
                serde_json::to_vec(&state.engine.card().render_hybrid(&url)).unwrap_or_default();
            let etag = etag_of(&card);
            (Bytes::from(card), etag)
        }
        _ => (state.card.clone(), state.etag.clone()),
    };
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value.split(',').any(|tag| {
                let tag = tag.trim();
                tag == "*" || tag.trim_start_matches("W/") == etag
            })
        });
    let cache = format!("public, max-age={CARD_MAX_AGE_SECONDS}");
    let common = [
        (header::ETAG, etag),
        (header::LAST_MODIFIED, state.last_modified.clone()),
        (header::CACHE_CONTROL, cache),
    ];
    if matches {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (
        StatusCode::OK,
        common,
        [(header::CONTENT_TYPE, "application/json".to_owned())],
        Body::from(card),
    )
        .into_response()
}

async fn ping(State(state): State<Arc<AppState>>) -> Response {
    axum::Json(state.engine.health().ping()).into_response()
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn http_date(at: time::OffsetDateTime) -> String {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    at.format(&format).unwrap_or_default()
}
