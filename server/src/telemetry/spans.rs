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
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;
        let session = headers
            .get(a2a_lambda_core::agentcore::SESSION_HEADER)
            .and_then(|value| value.to_str().ok());
        // What the engine learns later (the operation, the task, the outcome) is set on
        // the OpenTelemetry span directly, in one call each ([`with_request`]): a field
        // recorded through `tracing` costs a registry lookup and a lock per field.
        let span = tracing::info_span!(
            target: super::TARGET,
            "request",
            otel.name = method.as_str(),
            otel.kind = "server",
            http.request.method = method.as_str(),
            url.path = path,
            session.id = session,
        );
        let _ = span.set_parent(super::extract(headers));
        return span;
    }
    Span::none()
}

/// The current request's OpenTelemetry span, for `change` (nothing when telemetry is off).
#[cfg(feature = "otel")]
fn with_request(span: &Span, change: impl FnOnce(&opentelemetry::trace::SpanRef<'_>)) {
    use opentelemetry::trace::TraceContextExt as _;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    let context = span.context();
    change(&context.span());
}

/// A method's name as a static string when the protocol has it (no copy per request).
#[cfg(feature = "otel")]
fn method_value(method: &str) -> opentelemetry::Value {
    a2a_lambda_core::version::METHODS
        .iter()
        .find(|(name, _, _)| *name == method)
        .map_or_else(|| method.to_owned().into(), |(name, _, _)| (*name).into())
}

/// Names the current request span after its operation: `method` as the binding names it
/// (`message/send`, `SendMessage`), on `binding` (`JSONRPC`, `HTTP+JSON`, `GRPC`), in A2A
/// `version` (renamed on the OpenTelemetry span itself: a started span ignores an
/// `otel.name` recorded later).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_operation(method: &str, binding: &'static str, version: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        use opentelemetry::KeyValue;
        let system = match binding {
            "JSONRPC" => "jsonrpc",
            "GRPC" => "grpc",
            _ => "a2a_http_json",
        };
        let version = if version.starts_with('1') {
            "1.0"
        } else {
            "0.3"
        };
        with_request(&Span::current(), |span| {
            let method = method_value(method);
            span.update_name(method.to_string());
            span.set_attributes([
                KeyValue::new("rpc.method", method),
                KeyValue::new("rpc.system.name", system),
                KeyValue::new("a2a.binding", binding),
                KeyValue::new("a2a.protocol.version", version),
            ]);
        });
    }
}

/// Records the current request's refusal: the JSON-RPC error code (or the HTTP+JSON
/// binding's status), as `rpc.response.status_code` and `error.type`.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_refusal(code: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        use opentelemetry::KeyValue;
        with_request(&Span::current(), |span| {
            span.set_attributes([
                KeyValue::new("rpc.response.status_code", code.to_owned()),
                KeyValue::new("error.type", code.to_owned()),
            ]);
            span.set_status(opentelemetry::trace::Status::error(""));
        });
    }
}

/// Records the task and context the current request is about.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_task(task_id: &str, context_id: &str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        use opentelemetry::KeyValue;
        with_request(&Span::current(), |span| {
            span.set_attributes([
                KeyValue::new("a2a.task.id", task_id.to_owned()),
                KeyValue::new("a2a.context.id", context_id.to_owned()),
                KeyValue::new("gen_ai.conversation.id", context_id.to_owned()),
            ]);
        });
    }
}

/// Records the HTTP status a request span answered with (a 5xx marks it an error).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_status(span: &Span, status: StatusCode) {
    #[cfg(feature = "otel")]
    if super::is_on() && !span.is_disabled() {
        use opentelemetry::KeyValue;
        with_request(span, |otel| {
            otel.set_attribute(KeyValue::new(
                "http.response.status_code",
                i64::from(status.as_u16()),
            ));
            if status.is_server_error() {
                otel.set_attribute(KeyValue::new("error.type", status.as_str().to_owned()));
                otel.set_status(opentelemetry::trace::Status::error(""));
            }
        });
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
