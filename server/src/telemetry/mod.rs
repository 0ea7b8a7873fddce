//! Traces and metrics with OpenTelemetry (cargo feature `otel`), off unless the standard
//! `OTEL_*` variables ask for them.
//!
//! Without the feature every function here is an empty inline one: a build carries none
//! of OpenTelemetry's code and makes no span. With it, nothing is made either until a host
//! turned telemetry on ([`Telemetry::from_env`] found an OTLP endpoint): every span
//! constructor first reads one flag. Once on, the server spans and the agent's are made
//! through OpenTelemetry's API and are its current context while their request is served
//! and the agent runs; the store's and the push deliveries' are `tracing` spans of the
//! target [`TARGET`], exported by `tracing-opentelemetry` (kept out of the log lines), as
//! the agent's own are.
//!
//! What is traced, with the semantic convention each follows:
//!
//! | span | kind | what | convention |
//! |---|---|---|---|
//! | `POST /`, renamed to the method (`SendMessage`) | server | one per HTTP request: method, route, status; the JSON-RPC or HTTP+JSON operation, its A2A version, its error code, the task and context ids, the session id | HTTP server spans, RPC spans (`rpc.system.name` `jsonrpc`) |
//! | `invoke_agent {agent}` | internal | the agent's run of one task, the agent's own spans inside it | GenAI agent spans (`gen_ai.operation.name`, `gen_ai.agent.name`, `gen_ai.conversation.id`) |
//! | `task_store {operation}` | client | each call to a shared task store (DynamoDB; not the in-memory one); a conflict is `error.type` `conflict` | database client spans (`db.operation.name`) |
//! | `push {host}` | client | one push notification's delivery: the target host only (never its path, query or token), attempts, outcome | HTTP client spans (`server.address`) |
//!
//! Metrics (OTLP, every `OTEL_METRIC_EXPORT_INTERVAL`): `rpc.server.call.duration`
//! (seconds, by `rpc.system.name`, `rpc.method`, `rpc.response.status_code`; the RPC
//! metrics convention, <https://opentelemetry.io/docs/specs/semconv/rpc/rpc-metrics/>),
//! `a2a.task.transitions` (by `a2a.task.state`), `a2a.tasks.running`,
//! `a2a.push.deliveries` (by `a2a.push.outcome`), `a2a.connections.refused` (by
//! `a2a.refusal.reason`) and `a2a.log.dropped_lines`.
//!
//! Sources: <https://opentelemetry.io/docs/specs/semconv/http/http-spans/>,
//! <https://opentelemetry.io/docs/specs/semconv/rpc/json-rpc/>,
//! <https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/>,
//! <https://opentelemetry.io/docs/specs/semconv/database/database-spans/>. AgentCore's
//! observability reads the session from `session.id`
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/observability-configure.html>).

#[cfg(feature = "otel")]
mod events;
#[cfg(feature = "otel")]
mod export;
#[cfg(feature = "otel")]
mod exporter;
pub(crate) mod metrics;
#[cfg(feature = "otel")]
mod propagation;
#[cfg(feature = "otel")]
mod protobuf;
mod spans;
#[cfg(feature = "otel")]
mod store;
mod traced;
#[cfg(feature = "otel")]
mod variables;

#[cfg(feature = "otel")]
pub use export::{Telemetry, TelemetryError, TelemetryGuard, flush};
#[cfg(feature = "otel")]
pub use propagation::{continue_trace, extract, inject};

pub(crate) use spans::*;
#[cfg(feature = "otel")]
pub(crate) use store::TracedStore;
pub(crate) use traced::{ServerSpanLayer, in_span};
#[cfg(feature = "otel")]
pub use traced::{answer_in_span, server_span};

/// The `tracing` target of the hosts' spans: what the OTLP export takes and the log lines
/// leave out.
pub const TARGET: &str = "a2a_otel";

/// Whether spans are made and exported: a host turned telemetry on.
#[inline]
pub fn is_on() -> bool {
    #[cfg(feature = "otel")]
    {
        export::is_on()
    }
    #[cfg(not(feature = "otel"))]
    {
        false
    }
}
