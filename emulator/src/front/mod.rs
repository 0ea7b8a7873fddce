//! The AgentCore platform front: what AWS Bedrock AgentCore Runtime does in front of an
//! A2A container, kept apart from the container itself (the shared router).
//!
//! It routes the container's paths and AWS's invocation paths, validates and returns the
//! session header, adds a request id, passes the container only the allowlisted caller
//! headers and the platform's own (`allowlist`, `header_filter`), throttles, injects faults, keeps one container per
//! session, and turns platform failures into AgentCore's JSON-RPC errors with their real
//! HTTP statuses. A2A errors the container returns pass through unchanged.

pub mod allowlist;
mod arn;
pub mod auth;
pub mod aws_error;
/// How an ARN is written in an invocation path (`/runtimes/{arn}/invocations`).
pub use a2a_core::percent::encode_component as percent_encode;
pub use arn::is_runtime_arn;
mod card;
pub mod container;
mod errors;
mod explain;
mod header_filter;
mod invoke;
pub mod limits;
pub mod process;
mod processes;
mod routes;
pub(crate) mod runtime;
mod session_name;
mod session_quota;
pub use session_quota::DEFAULT_MAX_SESSIONS;
pub mod sessions;
mod stop_session;
mod stream_cut;
mod stream_end;
mod task_index;
pub mod task_owners;
pub mod webhooks;
mod workload_token;
pub use session_name::InvalidSessionId;
use session_name::SessionName;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::error::Refusal;
use a2a_core::jsonrpc::{self, Id};
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use axum::response::Response;
use futures_util::FutureExt as _;
use futures_util::future::{Either, ready};
use tower::Service;
use tracing::Instrument as _;

use errors::platform_error;
use invoke::{Invocation, refused_entry};
use limits::{FaultInjector, RateLimiter};
use routes::{Route, route};
use sessions::Sessions;

pub use a2a_core::agentcore::{REQUEST_ID_HEADER, SESSION_HEADER, SESSION_ID_LENGTH};
use a2a_core::card::CARD_PATH;

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
    /// The caller's headers that reach the container (besides the platform's own).
    pub request_header_allowlist: allowlist::RequestHeaderAllowlist,
    /// Inbound auth, checked before anything else (`None`: off).
    pub auth: Option<Arc<auth::Guard>>,
    /// How long a streaming response may last before it is cut.
    pub max_stream: Duration,
    /// The endpoint (`?qualifier=`) served; AWS's paths naming another get 404.
    pub qualifier: String,
    /// The webhook sinks under `/_emulator/webhooks/`, answered before the front.
    pub webhooks: Arc<webhooks::Sinks>,
    /// The inspector's journal (`None`: the inspector is off and nothing is recorded).
    pub journal: Option<crate::inspector::Journal>,
}

struct Front {
    config: FrontConfig,
    /// `config.default_session`, checked.
    default_session: SessionName,
    sessions: Arc<Sessions>,
    /// A container outside any session, for cards: fetching a card starts no session.
    template: container::Container,
    /// Drops the caller's headers the allowlist does not name.
    header_filter: header_filter::HeaderFilter,
    /// What the log has explained already.
    explained: explain::Explained,
    /// Which agent process made which task.
    task_index: Arc<task_index::TaskIndex>,
    /// StopRuntimeSession's client tokens.
    stop_tokens: stop_session::Tokens,
}

/// What [`service`] returns: a cloneable service for every request that never fails (each
/// failure is an HTTP response) and whose futures can move between threads.
pub trait FrontService:
    Service<Request, Response = Response, Error = Infallible, Future: Send>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> FrontService for S where
    S: Service<Request, Response = Response, Error = Infallible, Future: Send>
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// The front over `sessions`, as a service that takes every request: the front routes
/// them itself (see [`handle`]). Not an axum `Router`: a router boxes each request's future,
/// while a service's future is kept in the connection's own slot.
///
/// # Errors
/// [`InvalidSessionId`] when `config.default_session` cannot be sent as a header.
pub fn service(
    config: FrontConfig,
    sessions: Arc<Sessions>,
    template: container::Container,
) -> Result<impl FrontService, InvalidSessionId> {
    let default_session = SessionName::from_text(config.default_session.clone())
        .ok_or_else(|| InvalidSessionId(config.default_session.clone()))?;
    let header_filter = header_filter::HeaderFilter::new(config.request_header_allowlist.clone());
    let front = Arc::new(Front {
        default_session,
        header_filter,
        config,
        sessions,
        template,
        explained: explain::Explained::default(),
        task_index: Arc::default(),
        stop_tokens: stop_session::Tokens::default(),
    });
    let sinks = Arc::clone(&front.config.webhooks);
    let journal = front.config.journal.clone();
    Ok(tower::service_fn(move |request: Request| {
        // The emulator's own paths are the client's side, outside the platform.
        if webhooks::is_emulator_path(request.uri().path()) {
            if let Some(journal) = &journal
                && crate::inspector::is_inspector_path(request.uri().path())
            {
                return Either::Left(Either::Left(ready(Ok(crate::inspector::serve(
                    journal, &request,
                )))));
            }
            return Either::Left(Either::Right(webhooks::serve(&sinks, request).map(Ok)));
        }
        match &journal {
            // The inspector off: nothing recorded, the front's future as it is.
            None => Either::Right(Either::Left(handle(Arc::clone(&front), request).map(Ok))),
            Some(journal) => {
                let front = Arc::clone(&front);
                let recorded =
                    crate::inspector::record(journal, request, |request| handle(front, request));
                Either::Right(Either::Right(recorded.map(Ok)))
            }
        }
    }))
}

/// The session header's name, for inserting without parsing the name each time.
static SESSION: HeaderName = HeaderName::from_static(SESSION_HEADER);
/// The platform's request id header: sent to the container (which logs it as its own
/// request id) and returned on the response.
static PLATFORM_REQUEST_ID: HeaderName = HeaderName::from_static(REQUEST_ID_HEADER);

/// Serves one request. What to do is decided before anything is awaited, and the future
/// axum keeps per request is made of combinators over the chosen path, so it holds only
/// what that path needs while it waits (an `async fn` chain keeps every argument at every
/// level; sizes in BENCHMARKS.md). The rarer cards, pings and refusals that wait are boxed.
fn handle(front: Arc<Front>, request: Request) -> impl Future<Output = Response> + Send + use<> {
    let request_id = a2a_core::model::new_id();
    let (mut parts, body) = request.into_parts();
    let span = tracing::info_span!("invocation", request_id, path = parts.uri.path());
    let request_id = HeaderValue::try_from(request_id).ok();
    if let Some(value) = &request_id {
        // The container gets the platform's request id under its real name (a caller's
        // own is replaced).
        parts.headers.insert(&PLATFORM_REQUEST_ID, value.clone());
    }
    let plan = match &front.config.auth {
        // Inbound auth reads and checks the request before it is planned (boxed: auth on).
        Some(guard) => {
            let guard = Arc::clone(guard);
            let checked = auth::guard(Arc::clone(&front), guard, parts, body, request_id.clone());
            Plan::Wait(Box::pin(checked), None)
        }
        // Refusals decided now are logged in the request's span, as those decided later.
        None => span.in_scope(|| front.plan(parts, body)),
    };
    let (answer, session) = match plan {
        Plan::Answered(response, session) => (Either::Left(ready(response)), session),
        Plan::Invoke(invocation, session) => {
            (Either::Right(Either::Left(invocation.run())), Some(session))
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
    Invoke(Invocation, HeaderValue),
    /// Anything else that waits.
    Wait(Later, Option<HeaderValue>),
}

/// The JSON-RPC id of a payload, or null when it cannot be read.
fn request_id_of(body: &[u8]) -> Id {
    match jsonrpc::parse_request(body) {
        Ok(request) => request.response_id(),
        Err(rejection) => rejection.id,
    }
}

/// The client's session id, if it sent one; an error for one of the wrong length.
fn session_id(headers: &HeaderMap) -> Result<Option<SessionName>, String> {
    let Some(value) = headers.get(&SESSION) else {
        return Ok(None);
    };
    let session = SessionName::new(value.clone())
        .ok_or_else(|| "the session id is not visible ASCII".to_owned())?;
    let length = session.as_str().len();
    if SESSION_ID_LENGTH.contains(&length) {
        Ok(Some(session))
    } else {
        Err(format!(
            "the session id has {length} characters; AgentCore accepts 33 to 256"
        ))
    }
}

/// The URI the container sees: `/` with the client's query (`?A2A-Version=1.0` included),
/// whatever path (or absolute form) the client used.
fn container_target(uri: &Uri) -> Result<Uri, String> {
    match (uri.path(), uri.path_and_query()) {
        ("/", Some(path_and_query)) => Ok(Uri::from(path_and_query.clone())),
        _ => match uri.query() {
            None => Ok(Uri::from_static("/")),
            Some(query) => format!("/?{query}")
                .parse()
                .map_err(|_| format!("bad path /?{query}")),
        },
    }
}

impl Front {
    /// Decides what to do with a request: checks the session header and the route, names
    /// the session.
    fn plan(self: &Arc<Self>, parts: Parts, body: Body) -> Plan {
        let route = route(
            &parts.method,
            &parts.uri,
            self.config.interface_path.as_deref(),
        );
        // Not an invocation: AWS answers it in its own shape, session header checks included.
        match route {
            Ok(Route::StopSession { runtime }) => return self.stop_session(runtime, parts, body),
            Err(detail) if stop_session::is_stop_path(parts.uri.path()) => {
                return stop_session::unroutable(&parts, &detail);
            }
            _ => {}
        }
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
        let on_invocation_path = route.as_ref().is_ok_and(|route| route.runtime().is_some());
        let session = match session {
            Some(session) => session,
            // AgentCore starts a new session for an invocation without one; the container
            // paths keep one default session so a plain A2A client can come back to its tasks.
            None if on_invocation_path => {
                let made = SessionName::from_text(format!("session-{}", a2a_core::model::new_id()));
                let Some(session) = made else {
                    let detail = "could not make a session id";
                    return Plan::Answered(
                        platform_error(Refusal::Internal, Id::Null, detail),
                        None,
                    );
                };
                session
            }
            None => self.default_session.clone(),
        };
        let shown = session.header();
        let route = match route {
            Ok(route) => route,
            Err(detail) => {
                let refused = platform_error(Refusal::UnknownRoute, Id::Null, &detail);
                return Plan::Answered(refused, Some(shown));
            }
        };
        if let Some(runtime) = route.runtime() {
            if let Some(pinned) = &self.config.runtime_arn
                && !runtime.is(pinned)
            {
                let detail = format!("runtime {runtime} does not exist here (serving {pinned})");
                let refused = platform_error(Refusal::UnknownRoute, Id::Null, &detail);
                return Plan::Answered(refused, Some(shown));
            }
            let qualifier = runtime::query_param(parts.uri.query(), "qualifier");
            let qualifier = qualifier.as_deref().unwrap_or(runtime::DEFAULT_QUALIFIER);
            if qualifier != self.config.qualifier {
                let detail = format!(
                    "no endpoint {qualifier:?} (serving {:?})",
                    self.config.qualifier
                );
                let refused = platform_error(Refusal::UnknownRoute, Id::Null, &detail);
                return Plan::Answered(refused, Some(shown));
            }
        }
        let front = Arc::clone(self);
        let answer: Later = match route {
            Route::Invoke { .. } => {
                let target = match container_target(&parts.uri) {
                    Ok(target) => target,
                    Err(detail) => {
                        let refused =
                            platform_error(Refusal::RuntimeUnavailable, Id::Null, &detail);
                        return Plan::Answered(refused, Some(shown));
                    }
                };
                if parts.method == Method::POST {
                    let headers = parts.headers;
                    let invocation = Invocation {
                        front,
                        target,
                        headers,
                        body,
                        session,
                    };
                    return Plan::Invoke(invocation, shown);
                }
                // The container answers a wrong method on its JSON-RPC path itself (405).
                Box::pin(front.forward(parts.method, target, parts.headers, Bytes::new(), session))
            }
            Route::Card { runtime } => {
                Box::pin(async move { front.card(parts.headers, session, runtime.as_ref()).await })
            }
            Route::Ping => Box::pin(async move { front.ping(parts.headers, &session).await }),
            // Answered above.
            Route::StopSession { runtime } => return self.stop_session(runtime, parts, body),
        };
        Plan::Wait(answer, Some(shown))
    }

    /// The session's container's `/ping`, answered even while the session is busy or
    /// starting: a health check is not an invocation.
    async fn ping(&self, mut headers: HeaderMap, session: &SessionName) -> Response {
        self.header_filter.apply(&mut headers, session.as_str());
        let entered = match self.sessions.enter_for_health(session.as_str()) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn target(uri: &str) -> String {
        let uri: Uri = uri.parse().unwrap();
        container_target(&uri).unwrap().to_string()
    }

    #[test]
    fn the_container_sees_the_root_with_the_clients_query() {
        assert_eq!(target("/"), "/");
        assert_eq!(target("/?A2A-Version=1.0"), "/?A2A-Version=1.0");
        assert_eq!(target("/agents/echo/"), "/");
        assert_eq!(target("/agents/echo?A2A-Version=1.0"), "/?A2A-Version=1.0");
        // An absolute-form request keeps neither scheme nor authority.
        assert_eq!(target("http://example.com/?a=1"), "/?a=1");
        assert_eq!(
            target("http://example.com/runtimes/x/invocations?a=1"),
            "/?a=1"
        );
    }

    #[test]
    fn session_ids_are_visible_ascii_of_agentcores_length() {
        let mut headers = HeaderMap::new();
        assert!(matches!(session_id(&headers), Ok(None)));
        headers.insert(&SESSION, HeaderValue::from_static("short"));
        assert_eq!(
            session_id(&headers).unwrap_err(),
            "the session id has 5 characters; AgentCore accepts 33 to 256"
        );
        let long_enough = "s".repeat(33);
        headers.insert(&SESSION, HeaderValue::from_str(&long_enough).unwrap());
        assert_eq!(session_id(&headers).unwrap().unwrap().as_str(), long_enough);
        let not_ascii = HeaderValue::from_bytes("é".repeat(20).as_bytes()).unwrap();
        headers.insert(&SESSION, not_ascii);
        assert_eq!(
            session_id(&headers).unwrap_err(),
            "the session id is not visible ASCII"
        );
    }
}
