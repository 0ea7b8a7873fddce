//! The hosts' spans, made only when telemetry is on ([`super::is_on`]); without the
//! `otel` feature each function is empty and every span is [`Span::none`].

use std::future::Future;

use axum::http::{HeaderMap, Method, StatusCode};
use tracing::Span;

/// The server span of one HTTP request, continuing the caller's trace (its
/// `traceparent`, or its `X-Amzn-Trace-Id`); named `POST` until the engine knows the
/// operation ([`record_operation`]).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn request(method: &Method, path: &str, headers: &HeaderMap) -> Span {
    #[cfg(feature = "otel")]
    if super::is_on() {
        use tracing::field::Empty;
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;
        let session = headers
            .get(a2a_lambda_core::agentcore::SESSION_HEADER)
            .and_then(|value| value.to_str().ok());
        let span = tracing::info_span!(
            target: super::TARGET,
            "request",
            otel.name = method.as_str(),
            otel.kind = "server",
            otel.status_code = Empty,
            http.request.method = method.as_str(),
            url.path = path,
            http.response.status_code = Empty,
            rpc.system.name = Empty,
            rpc.method = Empty,
            rpc.response.status_code = Empty,
            error.type = Empty,
            a2a.protocol.version = Empty,
            a2a.binding = Empty,
            a2a.task.id = Empty,
            a2a.context.id = Empty,
            gen_ai.conversation.id = Empty,
            session.id = session,
        );
        let _ = span.set_parent(super::extract(headers));
        return span;
    }
    Span::none()
}

/// Names the current request span after its operation: `method` as the binding names it
/// (`message/send`, `SendMessage`), on `binding` (`JSONRPC`, `HTTP+JSON`, `GRPC`), in A2A
/// `version`.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_operation(method: &str, binding: &str, version: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        use opentelemetry::trace::TraceContextExt as _;
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;
        let span = Span::current();
        // Renamed on the OpenTelemetry span itself: once it has started (its parent set,
        // a child made), `otel.name` recorded on the `tracing` span no longer reaches it.
        span.context().span().update_name(method.to_owned());
        span.record("rpc.method", method);
        span.record("a2a.binding", binding);
        span.record("a2a.protocol.version", version);
        let system = match binding {
            "JSONRPC" => "jsonrpc",
            "GRPC" => "grpc",
            _ => "a2a_http_json",
        };
        span.record("rpc.system.name", system);
    }
}

/// Records the current request's refusal: the JSON-RPC error code (or the HTTP+JSON
/// binding's status), as `rpc.response.status_code` and `error.type`.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_refusal(code: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        let span = Span::current();
        span.record("rpc.response.status_code", code);
        span.record("error.type", code);
        span.record("otel.status_code", "error");
    }
}

/// Records the task and context the current request is about.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_task(task_id: &str, context_id: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        let span = Span::current();
        span.record("a2a.task.id", task_id);
        span.record("a2a.context.id", context_id);
        span.record("gen_ai.conversation.id", context_id);
    }
}

/// Records the HTTP status a request span answered with (a 5xx marks it an error).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_status(span: &Span, status: StatusCode) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        span.record("http.response.status_code", status.as_u16());
        if status.is_server_error() {
            span.record("otel.status_code", "error");
            span.record("error.type", status.as_str());
        }
    }
}

/// The span of an agent's run of one task (child of the request that started it; a
/// non-blocking send's run goes on after that request ended).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn agent(
    agent_name: &str,
    task_id: &str,
    context_id: &str,
    session_id: Option<&str>,
) -> Span {
    #[cfg(feature = "otel")]
    if super::is_on() {
        return tracing::info_span!(
            target: super::TARGET,
            "invoke_agent",
            otel.name = format!("invoke_agent {agent_name}"),
            otel.kind = "internal",
            otel.status_code = tracing::field::Empty,
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = agent_name,
            gen_ai.conversation.id = context_id,
            a2a.task.id = task_id,
            a2a.context.id = context_id,
            session.id = session_id,
            error.type = tracing::field::Empty,
        );
    }
    Span::none()
}

/// Marks an agent's span failed (its error, a panic).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_agent_failure(span: &Span, kind: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        span.record("otel.status_code", "error");
        span.record("error.type", kind);
    }
}

/// The span of one push notification's delivery to `host` (the host only: never the
/// path, query or token of the webhook).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn push(host: &str) -> Span {
    #[cfg(feature = "otel")]
    if super::is_on() {
        return tracing::info_span!(
            target: super::TARGET,
            "push",
            otel.name = format!("push {host}"),
            otel.kind = "client",
            otel.status_code = tracing::field::Empty,
            http.request.method = "POST",
            server.address = host,
            a2a.push.attempts = tracing::field::Empty,
            a2a.push.outcome = tracing::field::Empty,
            http.response.status_code = tracing::field::Empty,
        );
    }
    Span::none()
}

/// Records how a push delivery ended: `outcome` (`delivered`, `gave_up`, `refused`)
/// after `attempts`, with the webhook's 2xx status when delivered.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_push(span: &Span, outcome: &str, attempts: u32, status: Option<u16>) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        span.record("a2a.push.outcome", outcome);
        span.record("a2a.push.attempts", attempts);
        if let Some(status) = status {
            span.record("http.response.status_code", status);
        }
        if outcome != "delivered" {
            span.record("otel.status_code", "error");
        }
    }
}

/// `future` inside `span` (without the `otel` feature, `future` itself).
#[cfg(feature = "otel")]
#[inline]
pub(crate) fn instrument<F: Future>(future: F, span: Span) -> tracing::instrument::Instrumented<F> {
    tracing::Instrument::instrument(future, span)
}

/// `future` inside `span` (without the `otel` feature, `future` itself).
#[cfg(not(feature = "otel"))]
#[inline]
pub(crate) fn instrument<F: Future>(future: F, _span: Span) -> F {
    future
}
