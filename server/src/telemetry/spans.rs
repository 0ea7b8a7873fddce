//! The hosts' spans, made only when telemetry is on ([`super::is_on`]); without the
//! `otel` feature each function is empty and every span is [`Span::none`]. The server
//! spans are OpenTelemetry's own ([`super::traced`]); the agent's, the store's and the
//! push deliveries' are `tracing` spans, so that the agent's own spans nest in them.

use std::future::Future;

#[cfg(feature = "otel")]
use axum::http::{HeaderMap, Method, StatusCode};
use tracing::Span;

/// Starts a span named `name` of `kind` continuing the trace `headers` carry (their
/// `traceparent`, or their `X-Amzn-Trace-Id`), with `attributes`: the context it is
/// current in while its request is served ([`super::traced`]). None while traces are off.
#[cfg(feature = "otel")]
pub(crate) fn start(
    name: std::borrow::Cow<'static, str>,
    kind: opentelemetry::trace::SpanKind,
    headers: &HeaderMap,
    attributes: Vec<opentelemetry::KeyValue>,
) -> Option<opentelemetry::Context> {
    use opentelemetry::trace::{TraceContextExt as _, Tracer as _};
    let parent = super::extract(headers);
    super::export::with_tracer(|tracer| {
        let span = tracer
            .span_builder(name)
            .with_kind(kind)
            .with_attributes(attributes)
            .start_with_context(tracer, &parent);
        parent.with_span(span)
    })
}

/// The attributes the engine sets on a request's server span, besides the ones it starts
/// with: room for them all at once.
#[cfg(feature = "otel")]
const REQUEST_ATTRIBUTES: usize = 12;

/// The server span of one HTTP request, continuing the caller's trace; named `POST` until
/// the engine knows the operation ([`record_operation`]).
#[cfg(feature = "otel")]
pub(crate) fn request(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Option<opentelemetry::Context> {
    use opentelemetry::KeyValue;
    let method: &'static str = match *method {
        Method::POST => "POST",
        Method::GET => "GET",
        Method::DELETE => "DELETE",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        _ => "_OTHER",
    };
    let mut attributes = Vec::with_capacity(REQUEST_ATTRIBUTES);
    attributes.push(KeyValue::new("http.request.method", method));
    attributes.push(KeyValue::new("url.path", path.to_owned()));
    if let Some(session) = headers
        .get(a2a_lambda_core::agentcore::SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
    {
        attributes.push(KeyValue::new("session.id", session.to_owned()));
    }
    start(
        method.into(),
        opentelemetry::trace::SpanKind::Server,
        headers,
        attributes,
    )
}

/// The current span made through OpenTelemetry's API: a request's server span, or an
/// agent's run (nothing when telemetry is off or none is current).
#[cfg(feature = "otel")]
fn with_current(change: impl FnOnce(&opentelemetry::trace::SpanRef<'_>)) {
    use opentelemetry::trace::TraceContextExt as _;
    opentelemetry::Context::map_current(|context| {
        if context.has_active_span() {
            change(&context.span());
        }
    });
}

/// A method's name as a static string when the protocol has it (no copy per request).
#[cfg(feature = "otel")]
fn method_name(method: &str) -> std::borrow::Cow<'static, str> {
    a2a_lambda_core::version::METHODS
        .iter()
        .find(|(name, _, _)| *name == method)
        .map_or_else(
            || std::borrow::Cow::Owned(method.to_owned()),
            |(name, _, _)| std::borrow::Cow::Borrowed(*name),
        )
}

/// Names the current request span after its operation: `method` as the binding names it
/// (`message/send`, `SendMessage`), on `binding` (`JSONRPC`, `HTTP+JSON`, `GRPC`), in A2A
/// `version`.
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
        with_current(|span| {
            let method = method_name(method);
            span.update_name(method.clone());
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
        with_current(|span| {
            span.set_attributes([
                KeyValue::new("rpc.response.status_code", code.to_owned()),
                KeyValue::new("error.type", code.to_owned()),
            ]);
            span.set_status(opentelemetry::trace::Status::error(""));
        });
    }
}

/// Records the HTTP status a request span answered with (a 5xx marks it an error).
#[cfg(feature = "otel")]
pub(crate) fn record_status(span: &opentelemetry::trace::SpanRef<'_>, status: StatusCode) {
    use opentelemetry::KeyValue;
    span.set_attribute(KeyValue::new(
        "http.response.status_code",
        i64::from(status.as_u16()),
    ));
    if status.is_server_error() {
        span.set_attribute(KeyValue::new("error.type", status.as_str().to_owned()));
        span.set_status(opentelemetry::trace::Status::error(""));
    }
}

/// The span of an agent's run of one task, a child of the current span (the request that
/// started it; a non-blocking send's run goes on after that request ended): the context
/// the run is polled in ([`super::in_span`]), so that the agent's own `tracing` spans and
/// events, and the calls it makes, are its children. The request's span gets the task and
/// context ids too (one copy of each, shared by both spans).
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn agent(
    agent_name: &str,
    task_id: &str,
    context_id: &str,
    session_id: Option<&str>,
) -> Option<super::traced::SpanContext> {
    #[cfg(feature = "otel")]
    if super::is_on() {
        use opentelemetry::KeyValue;
        use opentelemetry::StringValue;
        use opentelemetry::trace::{SpanKind, TraceContextExt as _, Tracer as _};
        use std::sync::Arc;
        let task = StringValue::from(Arc::<str>::from(task_id));
        let conversation = StringValue::from(Arc::<str>::from(context_id));
        with_current(|span| {
            span.set_attributes([
                KeyValue::new("a2a.task.id", task.clone()),
                KeyValue::new("a2a.context.id", conversation.clone()),
                KeyValue::new("gen_ai.conversation.id", conversation.clone()),
            ]);
        });
        let mut attributes = Vec::with_capacity(7);
        attributes.extend([
            KeyValue::new("gen_ai.operation.name", "invoke_agent"),
            KeyValue::new("gen_ai.agent.name", agent_name.to_owned()),
            KeyValue::new("gen_ai.conversation.id", conversation.clone()),
            KeyValue::new("a2a.task.id", task),
            KeyValue::new("a2a.context.id", conversation),
        ]);
        if let Some(session) = session_id {
            attributes.push(KeyValue::new("session.id", session.to_owned()));
        }
        return super::export::with_tracer(|tracer| {
            let parent = opentelemetry::Context::current();
            let span = tracer
                .span_builder(format!("invoke_agent {agent_name}"))
                .with_kind(SpanKind::Internal)
                .with_attributes(attributes)
                .start_with_context(tracer, &parent);
            parent.with_span(span)
        });
    }
    None
}

/// Marks the current agent's span failed (its error, a panic).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn record_agent_failure(kind: &'static str) {
    #[cfg(feature = "otel")]
    if super::is_on() {
        with_current(|span| {
            span.set_attribute(opentelemetry::KeyValue::new("error.type", kind));
            span.set_status(opentelemetry::trace::Status::error(""));
        });
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
