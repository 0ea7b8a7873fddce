//! The caller's trace context on every request (feature `otel`): OpenTelemetry's current
//! context when it holds a span (one made through OpenTelemetry's API, as the hosts' are,
//! or a `tracing` span its layer made current), else the current `tracing` span's, written by the process's installed propagators
//! (`opentelemetry::global::set_text_map_propagator`; nothing is written until one is).
//! W3C Trace Context: <https://www.w3.org/TR/trace-context/>.

use opentelemetry::propagation::Injector;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

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

/// Writes the current span's trace context into `headers`.
pub(crate) fn inject(headers: &mut HeaderMap) {
    use opentelemetry::trace::TraceContextExt as _;
    let mut context = opentelemetry::Context::current();
    if !context.has_active_span() {
        context = tracing::Span::current().context();
    }
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut Writing(headers));
    });
}
