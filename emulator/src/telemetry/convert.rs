//! OTLP's messages as the emulator's records: an `ExportTraceServiceRequest` as [`Span`]s,
//! an `ExportMetricsServiceRequest` as [`MetricPoint`]s, each attribute's `AnyValue` as
//! JSON. What cannot be kept is counted, with why.
//!
//! Ids are checked as `trace.proto` defines them: a trace id is 16 bytes, a span id 8,
//! neither all zeros; a root span's parent id is empty
//! (<https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/trace/v1/trace.proto>).

use base64::Engine as _;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{metric, number_data_point};
use opentelemetry_proto::tonic::resource::v1::Resource;
use serde_json::{Map, Value};

use super::records::{MetricPoint, MetricValue, Number, Span, SpanEvent, SpanKind, SpanStatus};

/// What one request carried: what can be kept, and how many entries cannot (with the
/// first reason).
#[derive(Debug)]
pub(super) struct Batch<T> {
    pub(super) kept: Vec<T>,
    pub(super) rejected: u64,
    pub(super) why: Option<String>,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Self {
            kept: Vec::new(),
            rejected: 0,
            why: None,
        }
    }
}

impl<T> Batch<T> {
    fn reject(&mut self, count: u64, why: impl FnOnce() -> String) {
        if count == 0 {
            return;
        }
        self.rejected += count;
        if self.why.is_none() {
            self.why = Some(why());
        }
    }
}

/// The resource attribute naming the program that exported (OpenTelemetry's resource
/// semantic conventions: <https://opentelemetry.io/docs/specs/semconv/resource/#service>).
const SERVICE_NAME: &str = "service.name";

/// An `AnyValue` as JSON: a string, boolean or number as itself, an array as an array, a
/// key-value list as an object, bytes as base64; an empty value (or a profile's string
/// table index) as `null`.
fn any_value(value: &AnyValue) -> Value {
    match &value.value {
        None => Value::Null,
        Some(any_value::Value::StringValue(text)) => Value::String(text.clone()),
        Some(any_value::Value::BoolValue(flag)) => Value::Bool(*flag),
        Some(any_value::Value::IntValue(number)) => Value::from(*number),
        Some(any_value::Value::DoubleValue(number)) => {
            serde_json::Number::from_f64(*number).map_or(Value::Null, Value::Number)
        }
        Some(any_value::Value::ArrayValue(array)) => {
            Value::Array(array.values.iter().map(any_value).collect())
        }
        Some(any_value::Value::KvlistValue(list)) => Value::Object(attributes(&list.values)),
        Some(any_value::Value::BytesValue(bytes)) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        // An index into a profile's string table: no spans or metrics use it.
        Some(any_value::Value::StringValueStrindex(_)) => Value::Null,
    }
}

/// Key-value pairs as a JSON object (a repeated key: the last value).
fn attributes(pairs: &[KeyValue]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|pair| {
            let value = pair.value.as_ref().map_or(Value::Null, any_value);
            (pair.key.clone(), value)
        })
        .collect()
}

/// A resource's `service.name`.
fn service_name(resource: Option<&Resource>) -> Option<String> {
    resource?
        .attributes
        .iter()
        .find(|pair| pair.key == SERVICE_NAME)
        .and_then(|pair| match pair.value.as_ref()?.value.as_ref()? {
            any_value::Value::StringValue(name) => Some(name.clone()),
            _ => None,
        })
}

/// An id of `len` bytes, not all zeros, as lowercase hex.
fn id(bytes: &[u8], len: usize) -> Option<String> {
    (bytes.len() == len && bytes.iter().any(|byte| *byte != 0)).then(|| hex(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The spans of `request`.
pub(super) fn spans(request: ExportTraceServiceRequest) -> Batch<Span> {
    let mut batch = Batch::default();
    for resource_spans in request.resource_spans {
        let service = service_name(resource_spans.resource.as_ref());
        for scope_spans in resource_spans.scope_spans {
            let scope = scope_spans
                .scope
                .map(|scope| scope.name)
                .filter(|name| !name.is_empty());
            for span in scope_spans.spans {
                let (Some(trace_id), Some(span_id)) =
                    (id(&span.trace_id, 16), id(&span.span_id, 8))
                else {
                    batch.reject(1, || {
                        format!(
                            "span {:?} has an invalid id: a trace id is 16 bytes and a span id 8, \
                             neither all zeros (got {} and {} bytes)",
                            span.name,
                            span.trace_id.len(),
                            span.span_id.len()
                        )
                    });
                    continue;
                };
                let parent_span_id = if span.parent_span_id.is_empty() {
                    None
                } else if let Some(parent) = id(&span.parent_span_id, 8) {
                    Some(parent)
                } else {
                    batch.reject(1, || {
                        format!(
                            "span {:?} has an invalid parent span id: 8 bytes, not all zeros, \
                             or none for a root (got {} bytes)",
                            span.name,
                            span.parent_span_id.len()
                        )
                    });
                    continue;
                };
                let status = span.status.unwrap_or_default();
                batch.kept.push(Span {
                    trace_id,
                    span_id,
                    parent_span_id,
                    name: span.name,
                    kind: SpanKind::from_otlp(span.kind),
                    start_unix_nano: span.start_time_unix_nano,
                    end_unix_nano: span.end_time_unix_nano,
                    attributes: attributes(&span.attributes),
                    status: SpanStatus::from_otlp(status.code),
                    status_message: status.message,
                    service_name: service.clone(),
                    scope: scope.clone(),
                    events: span
                        .events
                        .iter()
                        .map(|event| SpanEvent {
                            name: event.name.clone(),
                            time_unix_nano: event.time_unix_nano,
                            attributes: attributes(&event.attributes),
                        })
                        .collect(),
                });
            }
        }
    }
    batch
}

/// The data points of `request`, each as its series' newest point.
pub(super) fn points(request: ExportMetricsServiceRequest) -> Batch<MetricPoint> {
    let mut batch = Batch::default();
    for resource_metrics in request.resource_metrics {
        let service = service_name(resource_metrics.resource.as_ref());
        for scope_metrics in resource_metrics.scope_metrics {
            for metric in scope_metrics.metrics {
                let values = values(metric.data);
                if metric.name.is_empty() {
                    batch.reject(values.len() as u64, || {
                        "a metric without a name cannot be kept".to_owned()
                    });
                    continue;
                }
                for (attributes, time_unix_nano, value) in values {
                    batch.kept.push(MetricPoint {
                        name: metric.name.clone(),
                        unit: metric.unit.clone(),
                        description: metric.description.clone(),
                        service_name: service.clone(),
                        attributes,
                        time_unix_nano,
                        value,
                    });
                }
            }
        }
    }
    batch
}

/// A metric's data points: attributes, time, value.
fn values(data: Option<metric::Data>) -> Vec<(Map<String, Value>, u64, MetricValue)> {
    let number = |value: Option<number_data_point::Value>| match value {
        Some(number_data_point::Value::AsInt(value)) => Number::Int(value),
        Some(number_data_point::Value::AsDouble(value)) => Number::Double(value),
        None => Number::Int(0),
    };
    match data {
        None => Vec::new(),
        Some(metric::Data::Gauge(gauge)) => gauge
            .data_points
            .into_iter()
            .map(|point| {
                let value = MetricValue::Gauge(number(point.value));
                (attributes(&point.attributes), point.time_unix_nano, value)
            })
            .collect(),
        Some(metric::Data::Sum(sum)) => sum
            .data_points
            .into_iter()
            .map(|point| {
                let value = MetricValue::Sum {
                    value: number(point.value),
                    monotonic: sum.is_monotonic,
                };
                (attributes(&point.attributes), point.time_unix_nano, value)
            })
            .collect(),
        Some(metric::Data::Histogram(histogram)) => histogram
            .data_points
            .into_iter()
            .map(|point| {
                let value = MetricValue::Histogram {
                    count: point.count,
                    sum: point.sum,
                    bounds: point.explicit_bounds,
                    bucket_counts: point.bucket_counts,
                };
                (attributes(&point.attributes), point.time_unix_nano, value)
            })
            .collect(),
        Some(metric::Data::ExponentialHistogram(histogram)) => histogram
            .data_points
            .into_iter()
            .map(|point| {
                let value = MetricValue::Distribution {
                    count: point.count,
                    sum: point.sum,
                };
                (attributes(&point.attributes), point.time_unix_nano, value)
            })
            .collect(),
        Some(metric::Data::Summary(summary)) => summary
            .data_points
            .into_iter()
            .map(|point| {
                let value = MetricValue::Distribution {
                    count: point.count,
                    sum: Some(point.sum),
                };
                (attributes(&point.attributes), point.time_unix_nano, value)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::common::v1::{ArrayValue, KeyValueList};

    fn pair(key: &str, value: any_value::Value) -> KeyValue {
        KeyValue {
            key: key.to_owned(),
            value: Some(AnyValue { value: Some(value) }),
            ..KeyValue::default()
        }
    }

    #[test]
    fn every_any_value_is_json() {
        let list = KeyValueList {
            values: vec![pair("inner", any_value::Value::BoolValue(true))],
        };
        let shown = attributes(&[
            pair("s", any_value::Value::StringValue("x".to_owned())),
            pair("i", any_value::Value::IntValue(-7)),
            pair("d", any_value::Value::DoubleValue(1.5)),
            pair("nan", any_value::Value::DoubleValue(f64::NAN)),
            pair("b", any_value::Value::BytesValue(vec![1, 2, 3])),
            pair(
                "a",
                any_value::Value::ArrayValue(ArrayValue {
                    values: vec![AnyValue {
                        value: Some(any_value::Value::IntValue(1)),
                    }],
                }),
            ),
            pair("kv", any_value::Value::KvlistValue(list)),
        ]);
        assert_eq!(
            Value::Object(shown),
            serde_json::json!({"s": "x", "i": -7, "d": 1.5, "nan": null, "b": "AQID",
                "a": [1], "kv": {"inner": true}})
        );
    }

    #[test]
    fn ids_are_checked_as_trace_proto_defines_them() {
        assert_eq!(id(&[0xab; 8], 8).as_deref(), Some("abababababababab"));
        assert_eq!(id(&[0; 8], 8), None);
        assert_eq!(id(&[1; 7], 8), None);
        assert_eq!(id(&[1; 16], 8), None);
    }
}
