//! Spans as the body of an OTLP/HTTP export in protobuf (`ExportTraceServiceRequest`,
//! <https://github.com/open-telemetry/opentelemetry-proto/blob/v1.5.0/opentelemetry/proto/trace/v1/trace.proto>),
//! written straight from the SDK's span data.
//!
//! `opentelemetry-otlp` converts each span into owned prost messages (every attribute's
//! key formatted into a new `String`, every value copied) and prost then measures each
//! nested message again at every level it is nested in: measured with `scripts/load.py`
//! and callgrind, that costs more CPU per exported span than the whole request it
//! describes. Here each
//! message's length is computed once, arithmetically, and the bytes are written once, into
//! a buffer of the exact size. The protobuf primitives are prost's.
//!
//! What is written is what `opentelemetry-proto`'s conversion writes (the tests decode
//! both and compare): proto3 defaults are left out, a oneof's value and a span's status
//! are always written.

use std::time::{SystemTime, UNIX_EPOCH};

use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status};
use opentelemetry::{Array, InstrumentationScope, KeyValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SpanData;
use prost::encoding::{WireType, encoded_len_varint, key_len};

/// A span's flags: the W3C trace flags, and whether its parent's remoteness is known (it
/// always is) and true (OTLP's `SpanFlags`).
const HAS_IS_REMOTE: u32 = 0x100;
const IS_REMOTE: u32 = 0x200;

/// The resource every exported span belongs to, written once (its `Resource` message's
/// body and its schema URL).
#[derive(Debug, Default, Clone)]
pub(super) struct EncodedResource {
    body: Vec<u8>,
    schema_url: String,
}

impl EncodedResource {
    pub(super) fn new(resource: &Resource) -> Self {
        let attributes: Vec<KeyValue> = resource
            .iter()
            .map(|(key, value)| KeyValue::new(key.clone(), value.clone()))
            .collect();
        let mut body = Vec::with_capacity(attributes_len(1, &attributes));
        put_attributes(&mut body, 1, &attributes);
        Self {
            body,
            schema_url: resource.schema_url().unwrap_or_default().to_owned(),
        }
    }
}

/// `spans` as one `ExportTraceServiceRequest`: one `ResourceSpans`, a `ScopeSpans` per
/// instrumentation scope in the order first met.
pub(super) fn encode(spans: &[SpanData], resource: &EncodedResource) -> Vec<u8> {
    // Lengths first (each span's measured once), then the bytes, into their exact room.
    let mut scopes: Vec<Scope<'_>> = Vec::new();
    for (index, span) in spans.iter().enumerate() {
        let length = span_len(span);
        match scopes
            .iter_mut()
            .find(|scope| *scope.scope == span.instrumentation_scope)
        {
            Some(scope) => scope.spans.push((index, length)),
            None => scopes.push(Scope {
                scope: &span.instrumentation_scope,
                spans: vec![(index, length)],
            }),
        }
    }
    let scope_lens: Vec<usize> = scopes.iter().map(Scope::len).collect();
    let resource_spans_len = field_len(1, resource.body.len())
        + scope_lens
            .iter()
            .map(|length| field_len(2, *length))
            .sum::<usize>()
        + str_len(3, &resource.schema_url);
    let mut out = Vec::with_capacity(field_len(1, resource_spans_len));
    put_len(&mut out, 1, resource_spans_len);
    put_len(&mut out, 1, resource.body.len());
    out.extend_from_slice(&resource.body);
    for (scope, length) in scopes.iter().zip(scope_lens) {
        put_len(&mut out, 2, length);
        put_len(&mut out, 1, scope_message_len(scope.scope));
        put_str(&mut out, 1, scope.scope.name());
        put_str(&mut out, 2, scope.scope.version().unwrap_or_default());
        put_key_values(&mut out, 3, scope.scope.attributes());
        for &(index, span_length) in &scope.spans {
            put_len(&mut out, 2, span_length);
            put_span(&mut out, &spans[index]);
        }
        put_str(&mut out, 3, scope.scope.schema_url().unwrap_or_default());
    }
    put_str(&mut out, 3, &resource.schema_url);
    out
}

/// The spans of one instrumentation scope: their indices and lengths.
struct Scope<'a> {
    scope: &'a InstrumentationScope,
    spans: Vec<(usize, usize)>,
}

impl Scope<'_> {
    /// The `ScopeSpans` message's length.
    fn len(&self) -> usize {
        field_len(1, scope_message_len(self.scope))
            + self
                .spans
                .iter()
                .map(|(_, length)| field_len(2, *length))
                .sum::<usize>()
            + str_len(3, self.scope.schema_url().unwrap_or_default())
    }
}

/// The `InstrumentationScope` message's length.
fn scope_message_len(scope: &InstrumentationScope) -> usize {
    str_len(1, scope.name())
        + str_len(2, scope.version().unwrap_or_default())
        + scope
            .attributes()
            .map(|attribute| field_len(3, key_value_len(attribute)))
            .sum::<usize>()
}

fn span_len(span: &SpanData) -> usize {
    let context = &span.span_context;
    let mut length = field_len(1, 16) + field_len(2, 8) + str_len(3, &trace_state(context));
    if span.parent_span_id != SpanId::INVALID {
        length += field_len(4, 8);
    }
    length += str_len(5, &span.name)
        + varint_len(6, kind(&span.span_kind))
        + fixed64_len(7, nanos(span.start_time))
        + fixed64_len(8, nanos(span.end_time))
        + attributes_len(9, &span.attributes)
        + varint_len(10, u64::from(span.dropped_attributes_count));
    for event in span.events.iter() {
        length += field_len(11, event_len(event));
    }
    length += varint_len(12, u64::from(span.events.dropped_count));
    for link in span.links.iter() {
        length += field_len(13, link_len(link));
    }
    length += varint_len(14, u64::from(span.links.dropped_count))
        + field_len(15, status_len(&span.status))
        + fixed32_len(16, flags(context, span.parent_span_is_remote));
    length
}

fn put_span(out: &mut Vec<u8>, span: &SpanData) {
    let context = &span.span_context;
    put_bytes(out, 1, &context.trace_id().to_bytes());
    put_bytes(out, 2, &context.span_id().to_bytes());
    put_str(out, 3, &trace_state(context));
    if span.parent_span_id != SpanId::INVALID {
        put_bytes(out, 4, &span.parent_span_id.to_bytes());
    }
    put_str(out, 5, &span.name);
    put_varint(out, 6, kind(&span.span_kind));
    put_fixed64(out, 7, nanos(span.start_time));
    put_fixed64(out, 8, nanos(span.end_time));
    put_attributes(out, 9, &span.attributes);
    put_varint(out, 10, u64::from(span.dropped_attributes_count));
    for event in span.events.iter() {
        put_len(out, 11, event_len(event));
        put_fixed64(out, 1, nanos(event.timestamp));
        put_str(out, 2, &event.name);
        put_attributes(out, 3, &event.attributes);
        put_varint(out, 4, u64::from(event.dropped_attributes_count));
    }
    put_varint(out, 12, u64::from(span.events.dropped_count));
    for link in span.links.iter() {
        put_len(out, 13, link_len(link));
        put_bytes(out, 1, &link.span_context.trace_id().to_bytes());
        put_bytes(out, 2, &link.span_context.span_id().to_bytes());
        put_str(out, 3, &trace_state(&link.span_context));
        put_attributes(out, 4, &link.attributes);
        put_varint(out, 5, u64::from(link.dropped_attributes_count));
        put_fixed32(
            out,
            6,
            flags(&link.span_context, link.span_context.is_remote()),
        );
    }
    put_varint(out, 14, u64::from(span.links.dropped_count));
    put_len(out, 15, status_len(&span.status));
    if let Status::Error { description } = &span.status {
        put_str(out, 2, description);
    }
    put_varint(out, 3, status_code(&span.status));
    put_fixed32(out, 16, flags(context, span.parent_span_is_remote));
}

fn event_len(event: &opentelemetry::trace::Event) -> usize {
    fixed64_len(1, nanos(event.timestamp))
        + str_len(2, &event.name)
        + attributes_len(3, &event.attributes)
        + varint_len(4, u64::from(event.dropped_attributes_count))
}

fn link_len(link: &opentelemetry::trace::Link) -> usize {
    let context = &link.span_context;
    field_len(1, 16)
        + field_len(2, 8)
        + str_len(3, &trace_state(context))
        + attributes_len(4, &link.attributes)
        + varint_len(5, u64::from(link.dropped_attributes_count))
        + fixed32_len(6, flags(context, context.is_remote()))
}

fn status_len(status: &Status) -> usize {
    let message = match status {
        Status::Error { description } => str_len(2, description),
        _ => 0,
    };
    message + varint_len(3, status_code(status))
}

fn status_code(status: &Status) -> u64 {
    match status {
        Status::Unset => 0,
        Status::Ok => 1,
        Status::Error { .. } => 2,
    }
}

fn kind(kind: &SpanKind) -> u64 {
    match kind {
        SpanKind::Internal => 1,
        SpanKind::Server => 2,
        SpanKind::Client => 3,
        SpanKind::Producer => 4,
        SpanKind::Consumer => 5,
    }
}

fn flags(context: &SpanContext, remote: bool) -> u32 {
    let mut flags = u32::from(context.trace_flags().to_u8()) | HAS_IS_REMOTE;
    if remote {
        flags |= IS_REMOTE;
    }
    flags
}

fn trace_state(context: &SpanContext) -> String {
    context.trace_state().header()
}

fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
    })
}

fn attributes_len(tag: u32, attributes: &[KeyValue]) -> usize {
    attributes
        .iter()
        .map(|attribute| field_len(tag, key_value_len(attribute)))
        .sum()
}

fn put_attributes(out: &mut Vec<u8>, tag: u32, attributes: &[KeyValue]) {
    put_key_values(out, tag, attributes.iter());
}

fn put_key_values<'a>(out: &mut Vec<u8>, tag: u32, attributes: impl Iterator<Item = &'a KeyValue>) {
    for attribute in attributes {
        put_len(out, tag, key_value_len(attribute));
        put_str(out, 1, attribute.key.as_str());
        put_len(out, 2, any_value_len(&attribute.value));
        put_any_value(out, &attribute.value);
    }
}

/// A `KeyValue` message's length (its value always written).
fn key_value_len(attribute: &KeyValue) -> usize {
    str_len(1, attribute.key.as_str()) + field_len(2, any_value_len(&attribute.value))
}

/// An `AnyValue` message's length: its oneof, always written.
fn any_value_len(value: &Value) -> usize {
    match value {
        Value::Bool(_) => key_len(2) + 1,
        Value::I64(number) => key_len(3) + encoded_len_varint(i64_bits(*number)),
        Value::F64(_) => key_len(4) + 8,
        Value::String(text) => field_len(1, text.as_str().len()),
        Value::Array(array) => field_len(5, array_len(array)),
        other => field_len(1, other.as_str().len()),
    }
}

fn put_any_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Bool(flag) => {
            encode_key(2, WireType::Varint, out);
            encode_varint(u64::from(*flag), out);
        }
        Value::I64(number) => {
            encode_key(3, WireType::Varint, out);
            encode_varint(i64_bits(*number), out);
        }
        Value::F64(number) => {
            encode_key(4, WireType::SixtyFourBit, out);
            out.extend_from_slice(&number.to_le_bytes());
        }
        Value::String(text) => put_bytes(out, 1, text.as_str().as_bytes()),
        Value::Array(array) => {
            put_len(out, 5, array_len(array));
            for element in array_values(array) {
                put_len(out, 1, any_value_len(&element));
                put_any_value(out, &element);
            }
        }
        other => put_bytes(out, 1, other.as_str().as_bytes()),
    }
}

/// An `ArrayValue` message's length.
fn array_len(array: &Array) -> usize {
    array_values(array)
        .map(|element| field_len(1, any_value_len(&element)))
        .sum()
}

/// An array's elements as values.
fn array_values(array: &Array) -> Box<dyn Iterator<Item = Value> + '_> {
    match array {
        Array::Bool(values) => Box::new(values.iter().map(|value| Value::Bool(*value))),
        Array::I64(values) => Box::new(values.iter().map(|value| Value::I64(*value))),
        Array::F64(values) => Box::new(values.iter().map(|value| Value::F64(*value))),
        Array::String(values) => Box::new(values.iter().map(|value| Value::String(value.clone()))),
        other => Box::new(std::iter::once(Value::String(other.to_string().into()))),
    }
}

/// An `int64`'s varint: its two's complement bits.
fn i64_bits(number: i64) -> u64 {
    u64::from_ne_bytes(number.to_ne_bytes())
}

/// A length-delimited field's whole length: key, length, body.
fn field_len(tag: u32, length: usize) -> usize {
    key_len(tag) + encoded_len_varint(length as u64) + length
}

/// A string field's length (nothing for an empty one, proto3's default).
fn str_len(tag: u32, text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        field_len(tag, text.len())
    }
}

fn varint_len(tag: u32, value: u64) -> usize {
    if value == 0 {
        0
    } else {
        key_len(tag) + encoded_len_varint(value)
    }
}

fn fixed64_len(tag: u32, value: u64) -> usize {
    if value == 0 { 0 } else { key_len(tag) + 8 }
}

fn fixed32_len(tag: u32, value: u32) -> usize {
    if value == 0 { 0 } else { key_len(tag) + 4 }
}

/// A varint: most are one byte (a length under 128, a small enum), written at once.
#[inline]
fn encode_varint(value: u64, out: &mut Vec<u8>) {
    match u8::try_from(value) {
        Ok(byte) if byte < 0x80 => out.push(byte),
        _ => prost::encoding::encode_varint(value, out),
    }
}

/// A field's key: its number and wire type, as a varint.
#[inline]
fn encode_key(tag: u32, wire_type: WireType, out: &mut Vec<u8>) {
    encode_varint(u64::from(tag << 3 | wire_type as u32), out);
}

fn put_len(out: &mut Vec<u8>, tag: u32, length: usize) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(length as u64, out);
}

fn put_bytes(out: &mut Vec<u8>, tag: u32, bytes: &[u8]) {
    put_len(out, tag, bytes.len());
    out.extend_from_slice(bytes);
}

fn put_str(out: &mut Vec<u8>, tag: u32, text: &str) {
    if !text.is_empty() {
        put_bytes(out, tag, text.as_bytes());
    }
}

fn put_varint(out: &mut Vec<u8>, tag: u32, value: u64) {
    if value != 0 {
        encode_key(tag, WireType::Varint, out);
        encode_varint(value, out);
    }
}

fn put_fixed64(out: &mut Vec<u8>, tag: u32, value: u64) {
    if value != 0 {
        encode_key(tag, WireType::SixtyFourBit, out);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

fn put_fixed32(out: &mut Vec<u8>, tag: u32, value: u32) {
    if value != 0 {
        encode_key(tag, WireType::ThirtyTwoBit, out);
        out.extend_from_slice(&value.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::time::Duration;

    use opentelemetry::trace::{
        Event, Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
    };
    use opentelemetry::{Array, InstrumentationScope, KeyValue, StringValue, Value};
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::transform::common::tonic::ResourceAttributesWithSchema;
    use opentelemetry_proto::transform::trace::tonic::group_spans_by_resource_and_scope;
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};
    use prost::Message as _;

    use super::*;

    fn context(trace: u128, span: u64, remote: bool, state: &str) -> SpanContext {
        SpanContext::new(
            TraceId::from(trace),
            SpanId::from(span),
            TraceFlags::SAMPLED,
            remote,
            state.parse::<TraceState>().unwrap(),
        )
    }

    fn span(name: &'static str, scope: &InstrumentationScope) -> SpanData {
        SpanData {
            span_context: context(7, 8, false, ""),
            parent_span_id: SpanId::INVALID,
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: Cow::Borrowed(name),
            start_time: UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789),
            end_time: UNIX_EPOCH + Duration::from_nanos(1_700_000_000_223_456_789),
            attributes: Vec::new(),
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status: Status::Unset,
            instrumentation_scope: scope.clone(),
        }
    }

    /// What `opentelemetry-otlp` would send for the same spans, decoded.
    fn as_the_crate_writes(spans: Vec<SpanData>, resource: &Resource) -> ExportTraceServiceRequest {
        ExportTraceServiceRequest {
            resource_spans: group_spans_by_resource_and_scope(
                spans,
                &ResourceAttributesWithSchema::from(resource),
            ),
        }
    }

    fn decoded(spans: &[SpanData], resource: &Resource) -> ExportTraceServiceRequest {
        let bytes = encode(spans, &EncodedResource::new(resource));
        ExportTraceServiceRequest::decode(bytes.as_slice()).unwrap()
    }

    #[test]
    fn every_field_of_a_span_reads_back_as_the_crates_conversion_writes_it() {
        let ours = InstrumentationScope::builder("a2a-lambda").build();
        let theirs = InstrumentationScope::builder("agent")
            .with_version("1.2.3")
            .with_schema_url("https://opentelemetry.io/schemas/1.30.0")
            .with_attributes([KeyValue::new("scope.kind", "library")])
            .build();
        let mut server = span("SendMessage", &ours);
        server.span_context = context(0xabc, 0x1, false, "vendor=value,other=x");
        server.parent_span_id = SpanId::from(0x99);
        server.parent_span_is_remote = true;
        server.span_kind = SpanKind::Server;
        server.attributes = vec![
            KeyValue::new("http.request.method", "POST"),
            KeyValue::new("url.path", "/".to_owned()),
            KeyValue::new("http.response.status_code", 200_i64),
            KeyValue::new("negative", -5_i64),
            KeyValue::new("zero", 0_i64),
            KeyValue::new("ratio", 0.25_f64),
            KeyValue::new("cached", false),
            KeyValue::new("empty", ""),
            KeyValue::new(
                "tags",
                Value::Array(Array::String(vec![
                    StringValue::from("a"),
                    StringValue::from(""),
                ])),
            ),
            KeyValue::new("numbers", Value::Array(Array::I64(vec![1, -2]))),
            KeyValue::new("flags", Value::Array(Array::Bool(vec![true, false]))),
            KeyValue::new("floats", Value::Array(Array::F64(vec![1.5]))),
        ];
        server.dropped_attributes_count = 3;
        server.status = Status::error("agent failed");
        let mut events = SpanEvents::default();
        events.events.push(Event::new(
            "exception",
            UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            vec![KeyValue::new("exception.message", "boom")],
            1,
        ));
        events.dropped_count = 2;
        server.events = events;
        let mut links = SpanLinks::default();
        links.links.push(Link::new(
            context(0xdef, 0x2, true, "k=v"),
            vec![KeyValue::new("link.kind", "follows")],
            4,
        ));
        links.dropped_count = 5;
        server.links = links;
        let mut agent = span("invoke_agent echo", &ours);
        agent.parent_span_id = SpanId::from(0x1);
        agent.status = Status::Ok;
        let other = span("tool call", &theirs);
        let resource = Resource::builder_empty()
            .with_schema_url(
                [KeyValue::new("service.name", "agent")],
                "https://opentelemetry.io/schemas/1.30.0",
            )
            .build();
        let spans = vec![server, other, agent];
        assert_eq!(
            decoded(&spans, &resource),
            as_the_crate_writes(spans, &resource)
        );
    }

    #[test]
    fn a_batch_of_many_spans_is_one_request_of_the_exact_length() {
        let scope = InstrumentationScope::builder("a2a-lambda").build();
        let resource = Resource::builder().with_service_name("agent").build();
        let spans: Vec<SpanData> = (0..300_u64)
            .map(|index| {
                let mut span = span("SendMessage", &scope);
                span.span_context = context(u128::from(index) + 1, index + 1, false, "");
                span.attributes = vec![KeyValue::new("a2a.task.id", format!("task-{index}"))];
                span
            })
            .collect();
        let bytes = encode(&spans, &EncodedResource::new(&resource));
        assert_eq!(
            bytes.capacity(),
            bytes.len(),
            "the room was measured exactly"
        );
        let request = ExportTraceServiceRequest::decode(bytes.as_slice()).unwrap();
        assert_eq!(request.resource_spans[0].scope_spans[0].spans.len(), 300);
        assert_eq!(request, as_the_crate_writes(spans, &resource));
    }

    #[test]
    fn no_spans_is_an_empty_resource() {
        let resource = Resource::builder_empty().build();
        assert_eq!(
            decoded(&[], &resource),
            as_the_crate_writes(Vec::new(), &resource)
        );
    }
}
