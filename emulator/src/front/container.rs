//! What runs behind the front: an agent in-process (one isolated engine per session, as
//! AgentCore gives each session its own microVM), an external A2A server (`--upstream`),
//! or the user's agent command, one process per session (`--agent-cmd`).

use a2a_lambda_server::push::delivery::Webhooks;
use a2a_lambda_server::push::{InMemoryPushConfigs, Push};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a_lambda_core::card::CardError;
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::host::engine::{Engine, EngineConfig};
use a2a_lambda_server::host::http::{RouterOptions, router};
use a2a_lambda_server::tasks::{DEFAULT_IN_MEMORY_CAPACITY, InMemoryTaskStore, TaskBudget};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, Method, Request, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use futures_util::{FutureExt as _, TryStreamExt as _};
use tower::ServiceExt as _;

use super::ping_report::{Activity, PingLedger};
use super::process::{AgentProcess, ProcessSpec};
use super::task_owners::{SessionTasks, TaskOwners};

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
        /// Every session's task store, to say which session holds a task not found.
        owners: Arc<TaskOwners>,
        /// The webhook client when the container delivers push notifications.
        push: Option<Webhooks>,
        /// The bound in bytes every session's task store shares.
        budget: TaskBudget,
    },
    /// An external A2A server, shared by every session.
    Upstream(Arc<Upstream>),
    /// The user's agent command, one process per session.
    Process(ProcessSpec),
}

/// Makes the agent of a new session: the same shared agent each time, or a new one.
pub type AgentFactory = Arc<dyn Fn() -> a2a_lambda_server::SharedAgent + Send + Sync>;

/// An external A2A server.
#[derive(Debug)]
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
        /// Its session's tasks among every session's (none outside any session).
        tasks: Option<SessionTasks>,
    },
    /// The external server.
    Upstream(Arc<Upstream>),
    /// An agent process of its own.
    Process(Arc<LazyProcess>),
}

/// An agent process started when first needed: at once for a session, at the first card
/// fetched for the container outside any session (so that fetching no card starts none).
pub struct LazyProcess {
    spec: ProcessSpec,
    /// The session id (for `A2A_SESSION_ID`), none outside any session.
    session: Option<String>,
    process: Mutex<Option<Arc<AgentProcess>>>,
}

impl LazyProcess {
    /// The process, started now if it was not yet. A session's process is its one
    /// container (a failed one ends the session); the one outside any session, which only
    /// serves cards, is started again once it has failed.
    fn get(&self) -> Arc<AgentProcess> {
        let mut process = self.process.lock().unwrap_or_else(PoisonError::into_inner);
        match &*process {
            Some(current) if self.session.is_some() || !current.failed() => Arc::clone(current),
            _ => {
                let label = self.session.as_deref().unwrap_or("card");
                let started = Arc::new(AgentProcess::start(
                    &self.spec,
                    label,
                    self.session.as_deref(),
                ));
                *process = Some(Arc::clone(&started));
                started
            }
        }
    }

    /// The process, if one was started.
    fn started(&self) -> Option<Arc<AgentProcess>> {
        self.process
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
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
    /// A fresh container for the new session `session`; an agent command's process starts
    /// now.
    ///
    /// # Errors
    /// The agent's card or URL is invalid.
    pub fn new_container(&self, session: &str) -> Result<Container, CardError> {
        let container = self.container(Some(session))?;
        if let Container::Process(process) = &container {
            process.get();
        }
        Ok(container)
    }

    /// A container outside any session, for cards; an agent command's process starts at
    /// the first card fetched.
    ///
    /// # Errors
    /// The agent's card or URL is invalid.
    pub fn template(&self) -> Result<Container, CardError> {
        self.container(None)
    }

    fn container(&self, session: Option<&str>) -> Result<Container, CardError> {
        match self {
            Self::InProcess {
                agent,
                profile,
                max_body_bytes,
                public_url,
                owners,
                push,
                budget,
            } => {
                let store = Arc::new(InMemoryTaskStore::with_budget(
                    DEFAULT_IN_MEMORY_CAPACITY,
                    budget,
                ));
                let tasks = session.map(|session| owners.register(session, &store));
                let engine = Engine::new(
                    agent(),
                    store,
                    EngineConfig {
                        public_url: public_url.clone(),
                        error_profile: *profile,
                        host_can_stream: true,
                        security: None,
                        background_work: true,
                    },
                )?;
                let engine = Arc::new(match push {
                    Some(webhooks) => engine.with_push(Push::new(
                        Arc::new(InMemoryPushConfigs::new()),
                        webhooks.clone(),
                    )),
                    None => engine,
                });
                // The container identifies callers from what the front passes, as
                // a2a-container does behind AgentCore.
                let router = router(
                    Arc::clone(&engine),
                    RouterOptions {
                        max_body_bytes: *max_body_bytes,
                        identity: Some(a2a_lambda_server::host::identity::Identity::AgentCore),
                    },
                );
                Ok(Container::InProcess {
                    engine,
                    router,
                    tasks,
                })
            }
            Self::Upstream(upstream) => Ok(Container::Upstream(Arc::clone(upstream))),
            Self::Process(spec) => Ok(Container::Process(Arc::new(LazyProcess {
                spec: spec.clone(),
                session: session.map(str::to_owned),
                process: Mutex::new(None),
            }))),
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
    /// What the container says of its work, for its session's idle clock: an in-process
    /// engine at work is busy; an agent process's pings are read as AWS reads them
    /// (`front/ping_report.rs`); an upstream reports nothing.
    pub(crate) fn activity(&self) -> Activity {
        match self {
            Self::InProcess { engine, .. } if engine.running_tasks() > 0 => Activity::Busy,
            Self::InProcess { .. } | Self::Upstream(_) => Activity::Unreported,
            Self::Process(process) => process
                .started()
                .map_or(Activity::Unreported, |process| process.activity()),
        }
    }

    /// The pings of the container's agent process (an in-process engine and an upstream
    /// have none).
    pub(crate) fn ping_ledger(&self) -> Option<Arc<PingLedger>> {
        match self {
            Self::Process(process) => process.started().map(|process| Arc::clone(process.pings())),
            Self::InProcess { .. } | Self::Upstream(_) => None,
        }
    }

    /// True while the container's process starts: its `/ping` has not answered 200 yet.
    pub fn starting(&self) -> bool {
        match self {
            Self::Process(process) => process.started().is_some_and(|process| process.starting()),
            Self::InProcess { .. } | Self::Upstream(_) => false,
        }
    }

    /// True once the container's process can take no more calls (it exited, never
    /// listened, or was stopped): its session is over.
    pub fn ended(&self) -> bool {
        match self {
            Self::Process(process) => process.started().is_some_and(|process| process.failed()),
            Self::InProcess { .. } | Self::Upstream(_) => false,
        }
    }

    /// Stops the container: its process (SIGTERM, SIGKILL after a grace), or, in-process,
    /// the agents still at work (their tasks fail and their agents are told to stop, as a
    /// microVM's work ends with it; nobody can reach those tasks any more).
    pub fn stop(&self) {
        match self {
            Self::Process(process) => {
                if let Some(process) = process.started() {
                    process.stop();
                }
            }
            Self::InProcess { engine, .. } if engine.running_tasks() > 0 => {
                let engine = Arc::clone(engine);
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        engine
                            .fail_running("session-end", "the session ended")
                            .await;
                    });
                }
            }
            Self::InProcess { .. } | Self::Upstream(_) => {}
        }
    }

    /// True once nothing of the container runs any more: its process (if any) is gone.
    pub fn stopped(&self) -> bool {
        match self {
            Self::Process(process) => process.started().is_none_or(|process| process.gone()),
            Self::InProcess { .. } | Self::Upstream(_) => true,
        }
    }

    /// True for an agent process of the session's own (`--agent-cmd`).
    pub fn is_process(&self) -> bool {
        matches!(self, Self::Process(_))
    }

    /// Its session's tasks among every session's, for an in-process container.
    pub fn session_tasks(&self) -> Option<&SessionTasks> {
        match self {
            Self::InProcess { tasks, .. } => tasks.as_ref(),
            Self::Upstream(_) | Self::Process(_) => None,
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
            Self::Upstream(_) | Self::Process(_) => None,
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
            Self::Process(process) => {
                let process = Arc::clone(process);
                let answer: Pin<Box<dyn Future<Output = _> + Send>> = Box::pin(async move {
                    // The process's first call waits for it to listen (bounded by its
                    // startup timeout); a process that failed is AgentCore's 424.
                    let upstream = process.get().ready().await?;
                    upstream.call(method, &target, headers, body).await
                });
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
