//! The AgentCore platform front: what AWS Bedrock AgentCore Runtime does in front of an
//! A2A container, kept apart from the container itself (the shared router).
//!
//! It routes the container's paths and AWS's invocation paths, validates and returns the
//! session header, adds a request id, passes the container only the allowlisted caller
//! headers and the platform's own (`allowlist`, `header_filter`), throttles, injects faults, keeps one container per
//! session, and turns platform failures into AgentCore's JSON-RPC errors with their real
//! HTTP statuses. A2A errors the container returns pass through unchanged.

//!
//! The steps, in AgentCore's order, are listed in one place: [`stack`].

pub mod allowlist;
mod arn;
pub mod auth;
pub mod aws_error;
/// How an ARN is written in an invocation path (`/runtimes/{arn}/invocations`).
pub use a2a_lambda_core::percent::encode_component as percent_encode;
pub use arn::is_runtime_arn;
mod body_limit;
mod card;
pub mod container;
mod container_call;
mod emulator_paths;
mod endpoint;
mod errors;
mod explain;
mod faults;
mod header_filter;
pub mod limits;
mod ping_report;
pub mod process;
mod processes;
mod readiness;
mod request_id;
mod routes;
pub(crate) mod runtime;
mod runtime_client_error;
mod session_entry;
mod session_header;
mod session_name;
mod session_quota;
pub use session_quota::DEFAULT_MAX_SESSIONS;
pub mod sessions;
mod stack;
pub(crate) mod step;
mod stop_session;
mod stream_cut;
mod stream_end;
mod task_index;
pub mod task_owners;
mod throttle;
mod trace_echo;
pub mod webhooks;
mod workload_token;
pub use session_name::InvalidSessionId;
pub use stack::stack;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::response::Response;
use tower::Service;

use limits::{FaultInjector, RateLimiter};
pub(crate) use request_id::PLATFORM_REQUEST_ID;
pub(crate) use session_header::SESSION;

pub use a2a_lambda_core::agentcore::SESSION_ID_LENGTH;
use a2a_lambda_core::card::CARD_PATH;

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
    #[cfg(feature = "auth")]
    pub auth: Option<Arc<auth::Guard>>,
    /// How long a streaming response may last before it is cut.
    pub max_stream: Duration,
    /// The endpoint (`?qualifier=`) served; AWS's paths naming another get 404.
    pub qualifier: String,
    /// The webhook sinks under `/_emulator/webhooks/`, answered before the front.
    pub webhooks: Arc<webhooks::Sinks>,
    /// The inspector's journal (`None`: the inspector is off and nothing is recorded).
    pub journal: Option<crate::inspector::Journal>,
    /// What the OTLP receiver (`/v1/traces`, `/v1/metrics`) keeps; `None`: no receiver.
    pub telemetry: Option<crate::telemetry::Telemetry>,
}

/// What [`stack`] returns: a cloneable service for every request that never fails (each
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
