//! Trace context in HTTP headers: extracted from a request a host serves, injected into a
//! request it sends (a push notification; `a2a-lambda-client` does the same for calls to
//! other agents), with the propagators `OTEL_PROPAGATORS` chose.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector};
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
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&Reading(headers))
    })
}

/// Writes the current span's trace context into `headers` (nothing when telemetry is
/// off or no span is current).
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
    let context = tracing::Span::current().context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut Writing(headers));
    });
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
