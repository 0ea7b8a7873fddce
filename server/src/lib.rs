#![doc = include_str!("../README.md")]
//!
//! ## What you use
//!
//! - [`Agent`]: the trait you implement; [`RequestContext`] is what it is told and
//!   [`EventSink`] where it reports ([`complete`](EventSink::complete),
//!   [`ask`](EventSink::ask), [`fail`](EventSink::fail),
//!   [`artifact_writer`](EventSink::artifact_writer), [`StatusNote`] for a message and
//!   task metadata).
//! - Hosting: [`serve()`] runs the agent as an AWS Bedrock AgentCore Runtime container
//!   (port 9000, `/ping`; [`serve::Container`] to configure it in code); [`router`] gives
//!   its routes to nest in an axum app of your own. On AWS Lambda, `a2a_lambda::run` (crate
//!   `a2a-lambda`) serves it as a function there and as a container elsewhere.
//! - [`testing`]: run an agent alone in a test, collect its events, and check that it
//!   stops when canceled.
//! - [`tasks`]: the [`TaskStore`](tasks::TaskStore) trait (a store of your own) and the
//!   in-memory store; [`push`] the same for push notification configurations.
//! - [`card`] and [`model`]: the agent card and the protocol's data, from `a2a-lambda-core`.
//! - [`agents`]: the built-in agents (echo, conformance); [`owner`] and [`platform`]: who
//!   calls, and what the platform passed; [`layers`]: tower layers around the routes.
//!
//! Features: `tls` (default) for https webhooks; `grpc` for the gRPC binding of A2A v1.0,
//! which the container serves on a port of its own when `A2A_BINDINGS` names `grpc`
//! ([`serve::ContainerConfig::grpc_port`]); `otel` for OpenTelemetry traces and metrics,
//! exported when the standard `OTEL_*` variables ask for them ([`host::telemetry`]).
//!
//! [`host`] holds what the Lambda host and the emulator build on (the engine, the router,
//! connections, logging): an agent author needs none of it.

pub mod agent;
pub mod agents;
mod engine;
mod graceful;
#[cfg(feature = "grpc")]
mod grpc;
mod health;
mod http;
mod identity;
pub mod layers;
mod listen;
mod logging;
pub mod owner;
pub mod platform;
pub mod push;
mod rest;
pub mod serve;
pub mod tasks;
mod telemetry;
pub mod testing;

/// For hosts, not agent authors: the pieces the Lambda host and the emulator build on
/// (the engine, the router, connections, logging). An agent is served with
/// [`serve`](crate::serve()), [`router`], `a2a_lambda::run` or the emulator, none of which
/// needs these.
pub mod host {
    /// The protocol engine: one JSON-RPC body (or HTTP+JSON operation) in, one reply out,
    /// for every method of both versions.
    pub mod engine {
        pub use crate::engine::*;
    }
    /// The stop signal and the drain every host's server uses.
    pub mod graceful {
        pub use crate::graceful::*;
    }
    /// The `/ping` status (`Healthy`, `HealthyBusy`) and the running tasks behind it.
    pub mod health {
        pub use crate::health::*;
    }
    /// The one axum router every host serves (Lambda, container, emulator).
    pub mod http {
        pub use crate::http::*;
    }
    /// Who is calling, as the platform vouches for it (AgentCore's headers, JWT claims).
    pub mod identity {
        pub use crate::identity::*;
    }
    /// Serving connections with timeouts, a cap and a graceful shutdown.
    pub mod listen {
        pub use crate::listen::*;
    }
    /// The hosts' logs, written off the request path.
    pub mod logging {
        pub use crate::logging::*;
    }
    /// The HTTP+JSON binding, served by the router beside JSON-RPC.
    pub mod rest {
        pub use crate::rest::*;
    }
    /// Traces and metrics with OpenTelemetry (feature `otel`): what each host turns on
    /// from the standard `OTEL_*` variables.
    pub mod telemetry {
        pub use crate::telemetry::*;
    }
}

pub use a2a_lambda_core::{card, model};
pub use agent::{
    Agent, AgentError, AgentEvent, ArtifactWriter, EventSink, IntoAgent, RequestContext,
    SharedAgent, SinkClosed, StatusNote,
};
/// The attribute a [`TaskStore`](tasks::TaskStore) implementation carries (an agent needs
/// none: [`Agent::execute`] is a plain `async fn`).
pub use async_trait::async_trait;
pub use serve::serve;

/// Your agent's A2A routes (the card, JSON-RPC on `POST /`, HTTP+JSON when configured,
/// `/ping`) as an axum [`Router`](axum::Router), for an axum app of your own: nest it
/// under a path and serve it with `axum::serve`. `public_url` is the URL the card
/// advertises: where the routes are reached from outside, nested path included (axum
/// nests `/agent` at `/agent`, without a trailing slash: so is the URL). The
/// in-memory task store and the container's defaults are used; [`serve::Container`]
/// sets the rest before [`into_router`](serve::Container::into_router).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use a2a_lambda_server::agents::EchoAgent;
///
/// let app = axum::Router::new()
///     .route("/health", axum::routing::get(|| async { "ok" }))
///     .nest("/agent", a2a_lambda_server::router(EchoAgent, "http://127.0.0.1:3000/agent")?);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
/// axum::serve(listener, app).await?;
/// # Ok(()) }
/// ```
///
/// # Errors
/// The agent's card or `public_url` is invalid.
pub fn router(agent: impl IntoAgent, public_url: &str) -> Result<axum::Router, serve::ServeError> {
    serve::Container::new(agent).into_router(public_url)
}
