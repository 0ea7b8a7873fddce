//! What runs behind the front: an agent in-process (one isolated engine per session, as
//! AgentCore gives each session its own microVM) or an external A2A server (`--upstream`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::card::CardError;
use a2a_core::error::ErrorProfile;
use a2a_server::agent::Agent;
use a2a_server::engine::{Engine, EngineConfig};
use a2a_server::http::{RouterOptions, router};
use a2a_server::tasks::InMemoryTaskStore;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, Method, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use futures_util::{FutureExt as _, TryStreamExt as _};
use tower::ServiceExt as _;

/// How the front reaches a container, and how it makes one for a new session.
#[derive(Clone)]
pub enum Backend {
    /// An agent in-process, one engine (and task store) per session.
    InProcess {
        /// Gives each new session its agent.
        agent: AgentFactory,
        /// How the container reports A2A refusals.
        profile: ErrorProfile,
        /// Largest request body.
        max_body_bytes: usize,
        /// The URL the container's own card advertises.
        public_url: String,
    },
    /// An external A2A server, shared by every session.
    Upstream(Arc<Upstream>),
}

/// Makes the agent of a new session: the same shared agent each time, or a new one.
pub type AgentFactory = Arc<dyn Fn() -> Arc<dyn Agent> + Send + Sync>;

/// An external A2A server.
pub struct Upstream {
    /// Its base URL, without a trailing slash.
    pub base: String,
    /// The HTTP client.
    pub client: reqwest::Client,
}

/// One session's container.
#[derive(Clone)]
pub enum Container {
    /// An in-process engine and its router.
    InProcess {
        /// The engine (for its card and its running tasks).
        engine: Arc<Engine>,
        /// The shared A2A router over it.
        router: Router,
    },
    /// The external server.
    Upstream(Arc<Upstream>),
}

/// The container could not answer: AgentCore's RuntimeClientError (424).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeFailure {
    /// Nothing listens, or the connection broke before an answer.
    #[error("the container is unreachable: {0}")]
    Unreachable(String),
    /// No answer in time.
    #[error("the container did not answer within {0:?}")]
    TimedOut(Duration),
}

impl Backend {
    /// A fresh container for a new session.
    ///
    /// # Errors
    /// The agent's card or URL is invalid.
    pub fn new_container(&self) -> Result<Container, CardError> {
        match self {
            Self::InProcess {
                agent,
                profile,
                max_body_bytes,
                public_url,
            } => {
                let engine = Arc::new(Engine::new(
                    agent(),
                    Arc::new(InMemoryTaskStore::new()),
                    EngineConfig {
                        public_url: public_url.clone(),
                        error_profile: *profile,
                        host_can_stream: true,
                        security: None,
                    },
                )?);
                let router = router(
                    Arc::clone(&engine),
                    RouterOptions {
                        max_body_bytes: *max_body_bytes,
                    },
                );
                Ok(Container::InProcess { engine, router })
            }
            Self::Upstream(upstream) => Ok(Container::Upstream(Arc::clone(upstream))),
        }
    }
}

/// Headers a proxy must not forward.
fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "host" | "content-length" | "connection" | "transfer-encoding" | "keep-alive" | "upgrade"
    )
}

impl Container {
    /// True while the container works on a task (its `/ping` says HealthyBusy).
    pub fn busy(&self) -> bool {
        match self {
            Self::InProcess { engine, .. } => engine.running_tasks() > 0,
            Self::Upstream(_) => false,
        }
    }

    /// True when a non-streaming answer is complete once returned (the in-process router
    /// buffers it); an upstream's body may still be arriving.
    pub fn answers_whole(&self) -> bool {
        matches!(self, Self::InProcess { .. })
    }

    /// The in-process engine's hybrid card advertising `url`, if the agent is in-process.
    pub fn card_json(&self, url: &str) -> Option<Vec<u8>> {
        match self {
            Self::InProcess { engine, .. } => {
                serde_json::to_vec(&engine.card().render_hybrid(url)).ok()
            }
            Self::Upstream(_) => None,
        }
    }

    /// Sends a request to the container at `target` and returns its answer unchanged.
    /// The request is made before the returned future, which holds only the call.
    ///
    /// # Errors
    /// [`RuntimeFailure`] when it cannot be reached or does not answer within `timeout`.
    pub fn call(
        &self,
        method: Method,
        target: Uri,
        headers: HeaderMap,
        body: Bytes,
        timeout: Duration,
    ) -> impl Future<Output = Result<Response, RuntimeFailure>> + Send + use<> {
        let answer = match self {
            Self::InProcess { router, .. } => {
                let mut request = Request::new(Body::from(body));
                *request.method_mut() = method;
                *request.uri_mut() = target;
                *request.headers_mut() = headers;
                let answer = router.clone().oneshot(request);
                Either::Left(answer.map(|answered| answered.map_err(|never| match never {})))
            }
            Self::Upstream(upstream) => {
                let upstream = Arc::clone(upstream);
                let answer: Pin<Box<dyn Future<Output = _> + Send>> =
                    Box::pin(async move { upstream.call(method, &target, headers, body).await });
                Either::Right(answer)
            }
        };
        tokio::time::timeout(timeout, answer).map(move |answered| {
            answered.unwrap_or_else(|_| Err(RuntimeFailure::TimedOut(timeout)))
        })
    }
}

impl Upstream {
    async fn call(
        &self,
        method: Method,
        target: &Uri,
        headers: HeaderMap,
        body: Bytes,
    ) -> Result<Response, RuntimeFailure> {
        let path = target.path_and_query().map_or("/", |path| path.as_str());
        let mut forwarded = HeaderMap::new();
        for (name, value) in &headers {
            if !hop_by_hop(name) {
                forwarded.append(name.clone(), value.clone());
            }
        }
        let answer = self
            .client
            .request(method, format!("{}{path}", self.base))
            .headers(forwarded)
            .body(body)
            .send()
            .await
            .map_err(|error| RuntimeFailure::Unreachable(error.to_string()))?;
        let status = StatusCode::from_u16(answer.status().as_u16())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response_headers = HeaderMap::new();
        for (name, value) in answer.headers() {
            if !hop_by_hop(name) {
                response_headers.append(name.clone(), value.clone());
            }
        }
        let stream = answer.bytes_stream().map_err(std::io::Error::other);
        let mut response = (status, Body::from_stream(stream)).into_response();
        response.headers_mut().extend(response_headers);
        Ok(response)
    }
}
