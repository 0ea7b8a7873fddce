//! Log events on the span they happen in when that span is OpenTelemetry's own (a
//! request's server span, an agent's run): `tracing-opentelemetry` puts an event only on
//! the `tracing` span around it, and an agent that logs a warning outside any span of its
//! own is inside the run's span. As `tracing-opentelemetry` does it: the message is the
//! event's name, the other fields its attributes with `level` and `target`, and an
//! `ERROR` marks the span failed.

use std::fmt::Debug;

use opentelemetry::KeyValue;
use opentelemetry::trace::{Status, TraceContextExt as _};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The layer (filtered like the export: an event inside an exported `tracing` span is left
/// to `tracing-opentelemetry`).
pub(super) struct EventsOnCurrentSpan;

impl<S> Layer<S> for EventsOnCurrentSpan
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    fn on_event(&self, event: &Event<'_>, context: Context<'_, S>) {
        if event.parent().is_some() || context.lookup_current().is_some() {
            return;
        }
        opentelemetry::Context::map_current(|current| {
            if !current.has_active_span() {
                return;
            }
            let metadata = event.metadata();
            let mut fields = Fields {
                message: None,
                attributes: vec![
                    KeyValue::new("level", metadata.level().as_str()),
                    KeyValue::new("target", metadata.target().to_owned()),
                ],
            };
            event.record(&mut fields);
            let span = current.span();
            let name = fields.message.unwrap_or_else(|| metadata.name().to_owned());
            span.add_event(name, fields.attributes);
            if *metadata.level() == Level::ERROR {
                span.set_status(Status::error(""));
            }
        });
    }
}

/// An event's message and its other fields.
struct Fields {
    message: Option<String>,
    attributes: Vec<KeyValue>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_owned());
        } else {
            self.attributes
                .push(KeyValue::new(field.name(), value.to_owned()));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        let value: opentelemetry::Value =
            i64::try_from(value).map_or_else(|_| value.to_string().into(), Into::into);
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.attributes.push(KeyValue::new(field.name(), value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}
