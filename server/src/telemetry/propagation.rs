//! Trace context in HTTP headers: extracted from a request a host serves, injected into a
//! request it sends (a push notification; `a2a-lambda-client` does the same for calls to
//! other agents), with the propagators `OTEL_PROPAGATORS` chose.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use opentelemetry::Context;
use std::sync::{PoisonError, RwLock};

use opentelemetry::propagation::{
    Extractor, Injector, TextMapCompositePropagator, TextMapPropagator as _,
};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

struct Reading<'a>(&'a HeaderMap);

impl Extractor for Reading<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(HeaderName::as_str).collect()
    }
}

struct Writing<'a>(&'a mut HeaderMap);

impl Injector for Writing<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(key.as_bytes()),
            HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

/// The trace context `headers` carry (`traceparent`, `tracestate`, `baggage`,
/// `X-Amzn-Trace-Id`), as the installed propagators read it; empty when they carry none.
///
/// ```
/// use a2a_lambda_server::host::telemetry::extract;
///
/// let headers = axum::http::HeaderMap::new();
/// let _parent = extract(&headers); // no context: the span it parents starts a trace
/// ```
pub fn extract(headers: &HeaderMap) -> Context {
    // Most requests carry no trace context: answered without asking each propagator.
    if !carries_context(headers) {
        return Context::current();
    }
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&Reading(headers))
    })
}

/// The headers the installed propagators read, when the hosts installed them
/// ([`set_propagator`]); none known otherwise.
static FIELDS: RwLock<Option<Vec<HeaderName>>> = RwLock::new(None);

/// Installs `propagator` as the process's, noting the headers it reads.
pub(super) fn set_propagator(propagator: TextMapCompositePropagator) {
    let fields = propagator
        .fields()
        .filter_map(|name| HeaderName::from_bytes(name.as_bytes()).ok())
        .collect();
    *FIELDS.write().unwrap_or_else(PoisonError::into_inner) = Some(fields);
    opentelemetry::global::set_text_map_propagator(propagator);
}

/// Whether `headers` has any header the installed propagators read (yes when they are
/// not known: another propagator was installed).
fn carries_context(headers: &HeaderMap) -> bool {
    FIELDS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .is_none_or(|fields| fields.iter().any(|name| headers.contains_key(name)))
}

/// Writes the current span's trace context into `headers` (nothing when telemetry is
/// off or no span is current): OpenTelemetry's current context (a host's span,
/// [`super::server_span`], or an exported `tracing` span entered), else the current
/// `tracing` span's.
///
/// ```
/// use a2a_lambda_server::host::telemetry::inject;
///
/// let mut headers = axum::http::HeaderMap::new();
/// inject(&mut headers);
/// ```
pub fn inject(headers: &mut HeaderMap) {
    if !super::is_on() {
        return;
    }
    let context = current();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut Writing(headers));
    });
}

/// The innermost span's context: OpenTelemetry's current one (a host's span, or an exported
/// `tracing` span entered), else the current `tracing` span's (one exported by a layer that
/// does not make its spans current).
fn current() -> Context {
    use opentelemetry::trace::TraceContextExt as _;
    let context = Context::current();
    if context.has_active_span() {
        context
    } else {
        tracing::Span::current().context()
    }
}

/// Makes `span` continue the trace `headers` carry (nothing when telemetry is off or the
/// span is disabled): what a host's server span does with its request.
///
/// ```
/// use a2a_lambda_server::host::telemetry::continue_trace;
///
/// let span = tracing::info_span!("invocation");
/// continue_trace(&span, &axum::http::HeaderMap::new());
/// ```
pub fn continue_trace(span: &tracing::Span, headers: &HeaderMap) {
    if super::is_on() {
        let _ = span.set_parent(extract(headers));
    }
}
