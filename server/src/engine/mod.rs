//! The protocol engine: one request in, one reply out, for every operation of both
//! versions and both bindings.
//!
//! The engine knows nothing of HTTP: a host hands it the body (JSON-RPC, [`Engine::handle`])
//! or the operation and its params (HTTP+JSON, [`Engine::handle_operation`]) with the
//! request's [`CallContext`], and writes the [`Reply`] — JSON with a status, an SSE stream
//! of JSON documents, or nothing (for a notification).
//!
//! Where each thing lives:
//!
//! - here: the public types, and every method of [`Engine`] (its construction, the two
//!   entry points, and what a host that freezes between requests needs: [`Engine::idle`],
//!   [`Engine::fail_running`]);
//! - `dispatch`: the one table from (version, operation) to the operation that serves it,
//!   the rule for JSON-RPC requests without an id, the refusals sent inside the SSE stream,
//!   and every choice of future size (what is boxed, and why);
//! - `request`: `Request`, one request to one operation, as every
//!   operation receives it;
//! - `ops`: one file per operation (send, stream, get, list, cancel, subscribe, the push
//!   configurations, the extended card), each reading its params, running and replying;
//! - `runner`: the runner of a task, from the agent's first event to its last (the one
//!   place the agent is called);
//! - `follow`: following a task (its updates, from this engine or the store's log; the
//!   registry of running tasks; the SSE reply of a stream);
//! - `at_rest`: the writes of a task no runner holds (a cancel, a lease that expired);
//! - `lease`, `media`, `respond`: the leases of running tasks on a shared store, the
//!   media types a message may carry, and the serialization of replies.

mod at_rest;
mod dispatch;
mod follow;
mod lease;
mod media;
mod ops;
mod request;
mod respond;
mod runner;

use std::pin::Pin;
use std::sync::Arc;

use axum::http::StatusCode;
use futures_util::Stream;
use futures_util::future::join_all;
use serde_json::value::RawValue;

use crate::agent::IntoAgent;
use crate::health::Health;
use crate::owner::Owner;
use crate::tasks::TaskStore;
use a2a_lambda_core::card::{self, AgentCard, CardError};
use a2a_lambda_core::error::{Error, ErrorProfile, Refusal};
use a2a_lambda_core::jsonrpc::{self, Id};
use a2a_lambda_core::version::{self, Operation, ProtocolVersion};

use dispatch::Failure;
use follow::registry::Registry;
use request::Request;
pub use respond::Frame;
use runner::RunnerDeps;

/// A stream of JSON documents, each one JSON-RPC response: the body of an SSE reply.
pub type EventStream = Pin<Box<dyn Stream<Item = StreamItem> + Send + 'static>>;

/// One event of a stream: a JSON-RPC response (or the HTTP+JSON binding's bare event), and
/// the SSE id that names its place in the
/// task's history (`{taskId}:{version}` or `{taskId}:{version}.{n}`), which a client sends
/// back as `Last-Event-ID` to resume the stream after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamItem {
    /// The SSE `id:`, when the event has a place to resume from.
    pub id: Option<String>,
    /// The JSON-RPC response (on the HTTP+JSON binding: the `StreamResponse`, or the
    /// `google.rpc.Status` of an error).
    pub json: Vec<u8>,
    /// The event reports an error that ends the stream (the HTTP+JSON binding sends it as
    /// SSE `event: error`).
    pub error: bool,
}

impl AsRef<[u8]> for StreamItem {
    fn as_ref(&self) -> &[u8] {
        &self.json
    }
}

impl std::ops::Deref for StreamItem {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.json
    }
}

/// What the host sends back.
pub enum Reply {
    /// A JSON-RPC response with its HTTP status.
    Json {
        /// HTTP status (200 under the spec profile).
        status: StatusCode,
        /// The JSON-RPC response.
        body: Vec<u8>,
    },
    /// A stream of JSON-RPC responses, for SSE.
    Stream(EventStream),
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Json { status, body } => f
                .debug_struct("Json")
                .field("status", status)
                .field("body", &String::from_utf8_lossy(body))
                .finish(),
            Self::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// What the host knows about one request.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// The `A2A-Version` header, if sent.
    pub version_header: Option<String>,
    /// The raw query string, if any.
    pub query: Option<String>,
    /// The platform session id, if any.
    pub session_id: Option<String>,
    /// The host's id for this request.
    pub request_id: String,
    /// Who is calling, as the platform vouches for it: the only tasks it may see.
    pub owner: Owner,
    /// The SSE `Last-Event-ID` header, if sent: a subscription resumes after that event.
    pub last_event_id: Option<String>,
    /// What the platform passed with the request, if anything (shared: a message's agent
    /// gets a copy).
    pub platform: Option<Arc<crate::platform::Platform>>,
}

/// How a host configures the engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The URL the card advertises.
    pub public_url: String,
    /// How refusals are reported.
    pub error_profile: ErrorProfile,
    /// The host can stream responses; if not, the card says `streaming: false`.
    pub host_can_stream: bool,
    /// How the host authenticates callers, when it decides (the card publishes it);
    /// `None` keeps the agent card's.
    pub security: Option<a2a_lambda_core::card::SecurityMechanism>,
    /// A non-blocking send (`returnImmediately`, v0.3 `blocking: false`) answers at once
    /// and leaves its agent running. `false` for a host that would stop that work once it
    /// answers (an AWS Lambda environment without its extension): such a send is then
    /// served as a blocking one.
    pub background_work: bool,
}

/// The engine: an agent, a task store and the protocol between them.
pub struct Engine {
    deps: RunnerDeps,
    card: AgentCard,
    public_url: String,
    profile: ErrorProfile,
    background_work: bool,
    instance_id: Arc<str>,
}

impl Engine {
    /// An engine for `agent`, storing tasks in `store`.
    ///
    /// # Errors
    /// The agent's card or the public URL is invalid.
    pub fn new(
        agent: impl IntoAgent,
        store: Arc<dyn TaskStore>,
        config: EngineConfig,
    ) -> Result<Self, CardError> {
        let agent = agent.into_agent();
        let mut card = agent.card();
        // Only a store other processes share (DynamoDB) is traced: a call to it is a round
        // trip worth a span; the in-memory store's calls are map lookups.
        #[cfg(feature = "otel")]
        let store: Arc<dyn TaskStore> = if crate::telemetry::is_on() && store.is_shared() {
            Arc::new(crate::telemetry::TracedStore(store))
        } else {
            store
        };
        card.capabilities.streaming &= config.host_can_stream;
        if let Some(security) = config.security {
            card.security = security;
        }
        // Extended cards are not served by this engine, and push notifications only once
        // the host says how to deliver them (`with_push`): never advertise them before,
        // whatever the agent says.
        card.capabilities.push_notifications = false;
        card.capabilities.extended_card = false;
        // The host decides the bindings (`with_bindings`).
        card.bindings = a2a_lambda_core::card::Bindings::default();
        card.validate()?;
        card::validate_url("url", &config.public_url)?;
        let instance_id: Arc<str> = Arc::from(a2a_lambda_core::model::new_id());
        Ok(Self {
            deps: RunnerDeps {
                agent_name: Arc::from(card.name.as_str()),
                agent,
                store: Arc::clone(&store),
                registry: Arc::new(Registry::default()),
                health: Arc::new(Health::new()),
                leasing: store.lease_terms().map(|terms| {
                    Arc::new(lease::Leasing {
                        holder: Arc::clone(&instance_id),
                        terms,
                    })
                }),
                push: None,
            },
            instance_id,
            card,
            public_url: config.public_url,
            profile: config.error_profile,
            background_work: config.background_work,
        })
    }

    /// Delivers push notifications with `push`: the push configuration methods of both
    /// versions are served, a send may carry a configuration, and the card says
    /// `pushNotifications: true`. Without it they answer -32003.
    #[must_use]
    pub fn with_push(mut self, push: crate::push::Push) -> Self {
        self.card.capabilities.push_notifications = true;
        self.deps.push = Some(push);
        self
    }

    /// Serves `bindings` (the card lists one interface per binding, preferred first; the
    /// router serves each). JSON-RPC only unless told.
    #[must_use]
    pub fn with_bindings(mut self, bindings: a2a_lambda_core::card::Bindings) -> Self {
        self.card.bindings = bindings;
        self
    }

    /// The push notifications this engine delivers, if it does.
    pub fn push(&self) -> Option<&crate::push::Push> {
        self.deps.push.as_ref()
    }

    /// The card configuration, with capabilities lowered to what the host honours.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// The URL the card advertises.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The `/ping` status.
    pub fn health(&self) -> &Health {
        &self.deps.health
    }

    /// How refusals are reported.
    pub fn error_profile(&self) -> ErrorProfile {
        self.profile
    }

    /// This engine's random id: the holder of the leases of the tasks it runs, on a store
    /// shared with other processes. Not secret; hosts log it at start.
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// How many tasks are running now.
    pub fn running_tasks(&self) -> usize {
        self.deps.registry.len()
    }

    /// The reply for an error that happened outside a method (bad content type, say).
    pub fn refuse(&self, id: Id, error: &Error) -> Reply {
        self.refuse_framed(&Frame::JsonRpc(id), error)
    }

    fn refuse_framed(&self, frame: &Frame, error: &Error) -> Reply {
        let (status, body) = respond::error_body(frame, error, self.profile);
        Reply::Json { status, body }
    }

    /// Serves one operation of A2A v1.0 for the HTTP+JSON binding: `params` is the v1.0
    /// request object the JSON-RPC binding would carry as `params` (the binding's front
    /// builds it from the path, the query and the body). The reply's JSON is the bare
    /// result, a stream's events the bare `StreamResponse`s, and a refusal a
    /// `google.rpc.Status` with the HTTP+JSON binding's status.
    ///
    /// The same task store, owner rules and agent as [`Engine::handle`].
    pub async fn handle_operation(
        &self,
        operation: Operation,
        params: Option<&RawValue>,
        call: &CallContext,
    ) -> Reply {
        self.handle_operation_of("http+json", operation, params, call)
            .await
    }

    /// [`Engine::handle_operation`] for a binding that reuses it (gRPC), logged under
    /// that binding's name.
    pub(crate) async fn handle_operation_of(
        &self,
        binding: &'static str,
        operation: Operation,
        params: Option<&RawValue>,
        call: &CallContext,
    ) -> Reply {
        let method = version::METHODS
            .iter()
            .find(|(_, version, candidate)| {
                *version == ProtocolVersion::V1_0 && *candidate == operation
            })
            .map_or("", |(name, _, _)| *name);
        let started = std::time::Instant::now();
        let binding_name = if binding == "grpc" {
            "GRPC"
        } else {
            "HTTP+JSON"
        };
        crate::telemetry::record_operation(method, binding_name, "1.0");
        let request = Request {
            version: ProtocolVersion::V1_0,
            operation,
            method,
            params,
            frame: &Frame::HttpJson,
            call,
        };
        let outcome = dispatch::operate(self, request).await;
        let status = match &outcome {
            Ok(_) => StatusCode::OK,
            Err(error) => a2a_lambda_core::rest::status::row(error.refusal()).http_status,
        };
        let refusal = outcome.is_err().then(|| status.as_u16().to_string());
        if let Some(code) = &refusal {
            crate::telemetry::record_refusal(code);
        }
        crate::telemetry::metrics::call(
            if binding == "grpc" {
                "grpc"
            } else {
                "a2a_http_json"
            },
            method,
            refusal,
            started.elapsed().as_secs_f64(),
        );
        tracing::info!(
            request_id = call.request_id,
            session_id = call.session_id.as_deref().unwrap_or(""),
            method,
            binding,
            outcome = if outcome.is_ok() {
                "ok".to_owned()
            } else {
                status.as_u16().to_string()
            },
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "rest"
        );
        outcome.unwrap_or_else(|error| {
            if error.refusal() == Refusal::Internal {
                tracing::error!(request_id = call.request_id, %error, "request failed");
            }
            self.refuse_framed(&Frame::HttpJson, &error)
        })
    }

    /// Handles one JSON-RPC request body.
    pub async fn handle(&self, body: &[u8], call: &CallContext) -> Reply {
        let request = match jsonrpc::parse_request(body) {
            Ok(request) => request,
            Err(rejection) => return self.refuse(rejection.id, &rejection.error),
        };
        let frame = Frame::JsonRpc(request.response_id());
        let started = std::time::Instant::now();
        let version = call.version_header.as_deref().unwrap_or("0.3");
        crate::telemetry::record_operation(&request.method, "JSONRPC", version);
        let outcome = dispatch::json_rpc(self, &request, &frame, call).await;
        let code = outcome
            .as_ref()
            .err()
            .map(|failure| failure.error.to_wire(self.profile).1.code);
        if crate::telemetry::is_on() {
            let refusal = code.map(|code| code.to_string());
            if let Some(code) = &refusal {
                crate::telemetry::record_refusal(code);
            }
            crate::telemetry::metrics::call(
                "jsonrpc",
                &request.method,
                refusal,
                started.elapsed().as_secs_f64(),
            );
        }
        tracing::info!(
            request_id = call.request_id,
            session_id = call.session_id.as_deref().unwrap_or(""),
            method = request.method,
            version,
            outcome = code.map_or_else(|| "ok".to_owned(), |code| code.to_string()),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "rpc"
        );
        match outcome {
            Ok(reply) => reply,
            Err(Failure { error, in_stream }) => {
                if error.refusal() == Refusal::Internal {
                    tracing::error!(request_id = call.request_id, %error, "request failed");
                }
                if in_stream {
                    dispatch::error_stream(self.profile, &frame, &error)
                } else {
                    self.refuse_framed(&frame, &error)
                }
            }
        }
    }

    /// Waits until no task runs here and no push notification is on its way (at once when
    /// none is).
    ///
    /// An AWS Lambda environment is frozen once it asks for its next event; the agent of a
    /// non-blocking send would stall there. The Lambda host keeps it thawed until this
    /// returns, and calls [`Engine::fail_running`] before its deadline.
    pub async fn idle(&self) {
        self.deps.health.idle().await;
        if let Some(push) = &self.deps.push {
            push.idle().await;
        }
    }

    /// Whether a non-blocking send answers at once and leaves its agent running
    /// ([`EngineConfig::background_work`]).
    pub fn background_work(&self) -> bool {
        self.background_work
    }

    /// Fails every task still at work here (submitted or working) with `reason` as its
    /// status message, saved to the store, and tells its agent to stop; how many it
    /// failed. Tasks waiting for input, or already over, are left as they are.
    /// `request_id` is the host's id of the request on whose behalf this happens, for
    /// the log.
    pub async fn fail_running(&self, request_id: &str, reason: &str) -> usize {
        let live_tasks = self.deps.registry.live_tasks();
        let failures = live_tasks.iter().map(|(task_id, live)| async move {
            let failed = runner::fail_live(&self.deps, live, request_id, reason).await;
            if failed {
                tracing::warn!(request_id, task_id, reason, "running task failed");
            }
            failed
        });
        join_all(failures)
            .await
            .into_iter()
            .filter(|failed| *failed)
            .count()
    }
}
