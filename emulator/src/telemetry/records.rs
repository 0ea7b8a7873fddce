//! What [`Telemetry`](super::Telemetry) keeps: [`Span`]s grouped into [`Trace`]s (a
//! [`TraceSummary`] each for the list), the newest [`MetricPoint`] of each metric series,
//! and how the API shows each as JSON.
//!
//! Names follow OTLP's messages (`opentelemetry/proto/trace/v1/trace.proto`,
//! `opentelemetry/proto/metrics/v1/metrics.proto`); times are OTLP's nanoseconds since
//! the Unix epoch.

use std::collections::HashSet;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use crate::front::webhooks::rfc3339_millis;

/// The span attribute that names the session a span belongs to (OpenTelemetry's semantic
/// conventions, `session.id`: <https://opentelemetry.io/docs/specs/semconv/registry/attributes/session/>),
/// which AgentCore Observability reads too.
pub const SESSION_ID_ATTRIBUTE: &str = "session.id";

/// What a span stands for: OTLP's `Span.SpanKind`.
///
/// ```
/// use a2a_lambda_emulator::telemetry::SpanKind;
/// assert_eq!(SpanKind::Server.as_str(), "server");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpanKind {
    /// `SPAN_KIND_UNSPECIFIED` (0), or a value OTLP does not define.
    Unspecified,
    /// `SPAN_KIND_INTERNAL` (1): an operation inside an application.
    Internal,
    /// `SPAN_KIND_SERVER` (2): the handling of a remote request.
    Server,
    /// `SPAN_KIND_CLIENT` (3): a request to a remote service.
    Client,
    /// `SPAN_KIND_PRODUCER` (4): the sending of a message.
    Producer,
    /// `SPAN_KIND_CONSUMER` (5): the handling of a message.
    Consumer,
}

impl SpanKind {
    /// `"unspecified"`, `"internal"`, `"server"`, `"client"`, `"producer"` or `"consumer"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unspecified => "unspecified",
            Self::Internal => "internal",
            Self::Server => "server",
            Self::Client => "client",
            Self::Producer => "producer",
            Self::Consumer => "consumer",
        }
    }

    /// The kind of OTLP's enum value `kind`.
    pub(crate) fn from_otlp(kind: i32) -> Self {
        match kind {
            1 => Self::Internal,
            2 => Self::Server,
            3 => Self::Client,
            4 => Self::Producer,
            5 => Self::Consumer,
            _ => Self::Unspecified,
        }
    }
}

/// How a span ended: OTLP's `Status.StatusCode`.
///
/// ```
/// use a2a_lambda_emulator::telemetry::SpanStatus;
/// assert_eq!(SpanStatus::Error.as_str(), "error");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpanStatus {
    /// `STATUS_CODE_UNSET` (0), or a value OTLP does not define.
    Unset,
    /// `STATUS_CODE_OK` (1).
    Ok,
    /// `STATUS_CODE_ERROR` (2).
    Error,
}

impl SpanStatus {
    /// `"unset"`, `"ok"` or `"error"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unset => "unset",
            Self::Ok => "ok",
            Self::Error => "error",
        }
    }

    /// The code of OTLP's enum value `code`.
    pub(crate) fn from_otlp(code: i32) -> Self {
        match code {
            1 => Self::Ok,
            2 => Self::Error,
            _ => Self::Unset,
        }
    }
}

/// A time-stamped note on a span: OTLP's `Span.Event`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SpanEvent {
    /// Its name (`exception` for a recorded error).
    pub name: String,
    /// When, in nanoseconds since the Unix epoch.
    pub time_unix_nano: u64,
    /// Its attributes, each as JSON (see [`Span::attributes`]).
    pub attributes: Map<String, Value>,
}

/// One span as an agent exported it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Span {
    /// Its trace's id: 32 lowercase hex digits.
    pub trace_id: String,
    /// Its id: 16 lowercase hex digits.
    pub span_id: String,
    /// Its parent's id; `None` for a trace's root.
    pub parent_span_id: Option<String>,
    /// Its name.
    pub name: String,
    /// What it stands for.
    pub kind: SpanKind,
    /// When it started, in nanoseconds since the Unix epoch.
    pub start_unix_nano: u64,
    /// When it ended, in nanoseconds since the Unix epoch.
    pub end_unix_nano: u64,
    /// Its attributes, each as JSON: OTLP's `AnyValue` as its value (a string, a boolean,
    /// a number, an array; a key-value list as an object, bytes as base64).
    pub attributes: Map<String, Value>,
    /// How it ended.
    pub status: SpanStatus,
    /// Why, when it failed (`Status.message`).
    pub status_message: String,
    /// Its resource's `service.name`: which program exported it.
    pub service_name: Option<String>,
    /// Its instrumentation scope's name: which library made it.
    pub scope: Option<String>,
    /// Its events, in the order sent.
    pub events: Vec<SpanEvent>,
}

impl Span {
    /// How long it took (zero when its end is before its start).
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::Trace;
    /// # fn check(trace: &Trace) {
    /// let total: std::time::Duration = trace.spans.iter().map(|span| span.duration()).sum();
    /// # let _ = total; }
    /// ```
    pub fn duration(&self) -> Duration {
        Duration::from_nanos(self.end_unix_nano.saturating_sub(self.start_unix_nano))
    }

    /// Attribute `key`'s value, as JSON.
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::Trace;
    /// # fn check(trace: &Trace) {
    /// let methods: Vec<_> = trace.spans.iter().filter_map(|span| span.attribute("rpc.method")).collect();
    /// # let _ = methods; }
    /// ```
    pub fn attribute(&self, key: &str) -> Option<&Value> {
        self.attributes.get(key)
    }

    /// How the API shows it; `offsetMs` counts from `trace_start` (nanoseconds since the
    /// Unix epoch), the start of its trace.
    fn to_json(&self, trace_start: u64) -> Value {
        json!({
            "spanId": self.span_id,
            "parentSpanId": self.parent_span_id,
            "name": self.name,
            "kind": self.kind.as_str(),
            "service": self.service_name,
            "scope": self.scope,
            "start": rfc3339_millis(at(self.start_unix_nano)),
            "startUnixNano": self.start_unix_nano.to_string(),
            "endUnixNano": self.end_unix_nano.to_string(),
            "offsetMs": millis(Duration::from_nanos(self.start_unix_nano.saturating_sub(trace_start))),
            "durationMs": millis(self.duration()),
            "attributes": self.attributes,
            "status": {"code": self.status.as_str(), "message": self.status_message},
            "events": self.events.iter().map(|event| json!({
                "name": event.name,
                "offsetMs": millis(Duration::from_nanos(event.time_unix_nano.saturating_sub(trace_start))),
                "attributes": event.attributes,
            })).collect::<Vec<_>>(),
        })
    }
}

/// One trace: the spans kept with its id, earliest start first.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Trace {
    /// Its id: 32 lowercase hex digits.
    pub trace_id: String,
    /// Its spans, earliest start first.
    pub spans: Vec<Span>,
}

impl Trace {
    /// Its root as far as the emulator knows it: the earliest span whose parent is not
    /// among the spans kept (a trace's root has no parent; a server span whose caller
    /// exported nothing has a parent the emulator never saw).
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::Trace;
    /// # fn check(trace: &Trace) {
    /// let name = trace.root().map(|span| span.name.as_str());
    /// # let _ = name; }
    /// ```
    pub fn root(&self) -> Option<&Span> {
        let ids: HashSet<&str> = self
            .spans
            .iter()
            .map(|span| span.span_id.as_str())
            .collect();
        self.spans.iter().find(|span| {
            span.parent_span_id
                .as_deref()
                .is_none_or(|parent| !ids.contains(parent))
        })
    }

    /// Its earliest start, in nanoseconds since the Unix epoch.
    fn start(&self) -> u64 {
        self.spans
            .iter()
            .map(|span| span.start_unix_nano)
            .min()
            .unwrap_or(0)
    }

    /// From its earliest start to its latest end.
    fn duration(&self) -> Duration {
        let end = self
            .spans
            .iter()
            .map(|span| span.end_unix_nano)
            .max()
            .unwrap_or(0);
        Duration::from_nanos(end.saturating_sub(self.start()))
    }

    /// The session its spans name: the first `session.id` attribute, earliest span first.
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::Trace;
    /// # fn check(trace: &Trace) {
    /// let session = trace.session_id();
    /// # let _ = session; }
    /// ```
    pub fn session_id(&self) -> Option<&str> {
        self.spans
            .iter()
            .find_map(|span| span.attribute(SESSION_ID_ATTRIBUTE)?.as_str())
    }

    /// The services that exported its spans, each once, in the order first seen.
    fn services(&self) -> Vec<&str> {
        let mut services: Vec<&str> = Vec::new();
        for name in self
            .spans
            .iter()
            .filter_map(|span| span.service_name.as_deref())
        {
            if !services.contains(&name) {
                services.push(name);
            }
        }
        services
    }

    /// What the list shows of it.
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::Trace;
    /// # fn check(trace: &Trace) {
    /// assert_eq!(trace.summary().span_count, trace.spans.len());
    /// # }
    /// ```
    pub fn summary(&self) -> TraceSummary {
        TraceSummary {
            trace_id: self.trace_id.clone(),
            root_span: self.root().map(|span| span.name.clone()),
            start_unix_nano: self.start(),
            duration: self.duration(),
            span_count: self.spans.len(),
            session_id: self.session_id().map(str::to_owned),
            services: self.services().into_iter().map(str::to_owned).collect(),
        }
    }

    /// How the API shows it (`GET /_emulator/api/traces/{traceId}`): its summary and its
    /// spans, each with its offset from the trace's start.
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::Trace;
    /// # fn check(trace: &Trace) {
    /// assert_eq!(trace.to_json()["spans"].as_array().map(Vec::len), Some(trace.spans.len()));
    /// # }
    /// ```
    pub fn to_json(&self) -> Value {
        let start = self.start();
        let mut shown = self.summary().to_json();
        if let Value::Object(object) = &mut shown {
            object.insert(
                "spans".to_owned(),
                Value::Array(self.spans.iter().map(|span| span.to_json(start)).collect()),
            );
        }
        shown
    }
}

/// What the list of traces shows of one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceSummary {
    /// Its id: 32 lowercase hex digits.
    pub trace_id: String,
    /// Its root span's name ([`Trace::root`]).
    pub root_span: Option<String>,
    /// Its earliest start, in nanoseconds since the Unix epoch.
    pub start_unix_nano: u64,
    /// From its earliest start to its latest end.
    pub duration: Duration,
    /// Its spans kept.
    pub span_count: usize,
    /// The session its spans name ([`Trace::session_id`]).
    pub session_id: Option<String>,
    /// The services that exported its spans.
    pub services: Vec<String>,
}

impl TraceSummary {
    /// How the API shows it (`GET /_emulator/api/traces`).
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::TraceSummary;
    /// # fn check(summary: &TraceSummary) {
    /// assert_eq!(summary.to_json()["traceId"], summary.trace_id.as_str());
    /// # }
    /// ```
    pub fn to_json(&self) -> Value {
        json!({
            "traceId": self.trace_id,
            "rootSpan": self.root_span,
            "start": rfc3339_millis(at(self.start_unix_nano)),
            "startUnixNano": self.start_unix_nano.to_string(),
            "durationMs": millis(self.duration),
            "spanCount": self.span_count,
            "sessionId": self.session_id,
            "services": self.services,
        })
    }
}

/// A number as a metric carries it: an integer or a double.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Number {
    /// `as_int`.
    Int(i64),
    /// `as_double`.
    Double(f64),
}

impl Number {
    fn to_json(self) -> Value {
        match self {
            Self::Int(value) => json!(value),
            Self::Double(value) => json!(value),
        }
    }
}

/// A metric series' newest value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MetricValue {
    /// A gauge's value.
    Gauge(Number),
    /// A sum's value; `monotonic` for a counter.
    Sum {
        /// The value.
        value: Number,
        /// It only goes up.
        monotonic: bool,
    },
    /// A histogram's buckets: `bucket_counts[i]` values fell at or below `bounds[i]`
    /// (and above the bound before it); the last bucket has no bound.
    Histogram {
        /// Values recorded.
        count: u64,
        /// Their sum, when sent.
        sum: Option<f64>,
        /// The buckets' upper bounds.
        bounds: Vec<f64>,
        /// Values in each bucket.
        bucket_counts: Vec<u64>,
    },
    /// An exponential histogram's or a summary's totals (its buckets or quantiles are not
    /// kept).
    Distribution {
        /// Values recorded.
        count: u64,
        /// Their sum, when sent.
        sum: Option<f64>,
    },
}

impl MetricValue {
    /// `"gauge"`, `"sum"`, `"histogram"` or `"distribution"`.
    fn kind(&self) -> &'static str {
        match self {
            Self::Gauge(_) => "gauge",
            Self::Sum { .. } => "sum",
            Self::Histogram { .. } => "histogram",
            Self::Distribution { .. } => "distribution",
        }
    }
}

/// The newest point of one metric series: a metric's name, service and attributes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MetricPoint {
    /// The metric's name (`http.server.request.duration`).
    pub name: String,
    /// Its unit (`s`, `{request}`).
    pub unit: String,
    /// Its description.
    pub description: String,
    /// Its resource's `service.name`.
    pub service_name: Option<String>,
    /// The point's attributes, each as JSON (see [`Span::attributes`]).
    pub attributes: Map<String, Value>,
    /// When it was taken, in nanoseconds since the Unix epoch.
    pub time_unix_nano: u64,
    /// Its value.
    pub value: MetricValue,
}

impl MetricPoint {
    /// How the API shows it (`GET /_emulator/api/metrics`).
    ///
    /// ```
    /// # use a2a_lambda_emulator::telemetry::MetricPoint;
    /// # fn check(point: &MetricPoint) {
    /// assert_eq!(point.to_json()["name"], point.name.as_str());
    /// # }
    /// ```
    pub fn to_json(&self) -> Value {
        let mut shown = json!({
            "name": self.name,
            "unit": self.unit,
            "description": self.description,
            "service": self.service_name,
            "attributes": self.attributes,
            "time": rfc3339_millis(at(self.time_unix_nano)),
            "kind": self.value.kind(),
        });
        let Value::Object(object) = &mut shown else {
            return shown;
        };
        match &self.value {
            MetricValue::Gauge(value) => {
                object.insert("value".to_owned(), value.to_json());
            }
            MetricValue::Sum { value, monotonic } => {
                object.insert("value".to_owned(), value.to_json());
                object.insert("monotonic".to_owned(), json!(monotonic));
            }
            MetricValue::Histogram {
                count,
                sum,
                bounds,
                bucket_counts,
            } => {
                object.insert("count".to_owned(), json!(count));
                object.insert("sum".to_owned(), json!(sum));
                object.insert("bounds".to_owned(), json!(bounds));
                object.insert("bucketCounts".to_owned(), json!(bucket_counts));
            }
            MetricValue::Distribution { count, sum } => {
                object.insert("count".to_owned(), json!(count));
                object.insert("sum".to_owned(), json!(sum));
            }
        }
        shown
    }
}

/// The time `nanos` after the Unix epoch.
fn at(nanos: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_nanos(nanos)
}

/// Milliseconds with three decimals.
fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}
