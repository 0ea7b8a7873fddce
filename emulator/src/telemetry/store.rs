//! [`Telemetry`]: the bounded memory of what the agents exported — spans grouped by trace,
//! the oldest traces dropped first, and the newest point of each metric series.
//!
//! One mutex guards it, held only to add or copy (never across an await); a watch channel
//! tells waiters that something arrived.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::watch;

use super::records::{MetricPoint, MetricValue, Span, Trace, TraceSummary};

/// Traces kept; past it, the trace whose first span arrived first is dropped.
pub const MAX_TRACES: usize = 1000;
/// Spans kept over all traces; past it, the oldest traces are dropped until they fit.
pub const MAX_SPANS: usize = 100_000;
/// About how many bytes the spans kept take, all together (names, ids, attributes,
/// events); past it, the oldest traces are dropped until they fit.
pub const MAX_SPAN_BYTES: usize = 128 * 1024 * 1024;
/// Spans kept in one trace; a span past it is rejected (the exporter is told, as OTLP's
/// partial success).
pub const MAX_SPANS_PER_TRACE: usize = 10_000;
/// Metric series kept (one point each: the newest); past it, the series first seen
/// earliest is dropped.
pub const MAX_METRIC_SERIES: usize = 2000;
/// About how many bytes the metric series kept take, all together; past it, the series
/// first seen earliest are dropped until they fit.
pub const MAX_METRIC_BYTES: usize = 16 * 1024 * 1024;
/// What a span or a point is counted as besides its text: its fixed fields and the maps'
/// overhead.
const ENTRY_OVERHEAD: usize = 256;

/// What the emulator's agents exported to its OTLP receiver (`/v1/traces`, `/v1/metrics`):
/// the newest [`MAX_TRACES`] traces (at most [`MAX_SPANS`] spans, about
/// [`MAX_SPAN_BYTES`]) and the newest point of [`MAX_METRIC_SERIES`] metric series (about
/// [`MAX_METRIC_BYTES`]). A cheap handle: clones share it. From a test,
/// read it through [`Running::telemetry`](crate::Running::telemetry).
///
/// ```
/// use a2a_lambda_emulator::Emulator;
/// use a2a_lambda_emulator::telemetry::SpanKind;
/// use a2a_lambda_server::agents::EchoAgent;
/// use std::time::Duration;
///
/// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
/// let emulator = Emulator::new(EchoAgent).start().await?;
/// // What an exporter sends (here in OTLP JSON): one server span naming its session.
/// let export = serde_json::json!({"resourceSpans": [{
///     "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "my-agent"}}]},
///     "scopeSpans": [{"spans": [{
///         "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7",
///         "name": "SendMessage", "kind": 2,
///         "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000250000000",
///         "attributes": [{"key": "session.id", "value": {"stringValue": "s-1"}}],
///     }]}],
/// }]});
/// let endpoint = emulator.otlp_endpoint().expect("the inspector is on by default");
/// let answer = reqwest::Client::new()
///     .post(format!("{endpoint}/v1/traces"))
///     .header("content-type", "application/json")
///     .body(export.to_string())
///     .send()
///     .await?;
/// assert_eq!(answer.status(), 200);
///
/// let telemetry = emulator.telemetry().expect("the inspector is on by default");
/// let trace = telemetry
///     .wait_for_trace("4bf92f3577b34da6a3ce929d0e0e4736", 1, Duration::from_secs(5))
///     .await
///     .expect("kept");
/// let root = trace.root().expect("one span");
/// assert_eq!((root.name.as_str(), root.kind), ("SendMessage", SpanKind::Server));
/// assert_eq!(root.duration(), Duration::from_millis(250));
/// assert_eq!(trace.session_id(), Some("s-1"));
/// assert_eq!(telemetry.traces()[0].services, ["my-agent"]);
/// assert_eq!((telemetry.dropped_traces(), telemetry.rejected_spans()), (0, 0));
/// telemetry.clear();
/// assert!(telemetry.trace("4bf92f3577b34da6a3ce929d0e0e4736").is_none());
/// # Ok(())
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
/// ```
#[derive(Clone)]
pub struct Telemetry {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Telemetry {
    /// Its counts, not its spans (there may be 100,000).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.lock();
        f.debug_struct("Telemetry")
            .field("traces", &state.order.len())
            .field("spans", &state.spans)
            .field("series", &state.series_order.len())
            .field("dropped_traces", &state.dropped_traces)
            .finish_non_exhaustive()
    }
}

struct Shared {
    state: Mutex<State>,
    /// Counts the exports taken, for waiters.
    arrived: watch::Sender<u64>,
    bounds: Bounds,
}

/// What the store keeps at most.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    traces: usize,
    spans: usize,
    span_bytes: usize,
    series: usize,
    metric_bytes: usize,
}

/// One trace's spans, in arrival order, and about how many bytes they take.
#[derive(Debug, Default)]
struct Kept {
    spans: Vec<Span>,
    bytes: usize,
}

#[derive(Debug, Default)]
struct State {
    /// Spans by trace id.
    traces: HashMap<String, Kept>,
    /// Trace ids, the one whose first span arrived first at the front.
    order: VecDeque<String>,
    /// Spans kept over all traces.
    spans: usize,
    /// About how many bytes they take.
    span_bytes: usize,
    dropped_traces: u64,
    rejected_spans: u64,
    /// The newest point by series key (service, name, attributes), and about how many
    /// bytes it takes.
    series: HashMap<String, (MetricPoint, usize)>,
    /// About how many bytes the series take.
    metric_bytes: usize,
    /// Series keys, the one first seen earliest at the front.
    series_order: VecDeque<String>,
    dropped_series: u64,
    rejected_points: u64,
}

/// How many entries of one export were rejected, and why.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Rejected {
    pub(super) count: u64,
    pub(super) why: Option<String>,
}

impl Telemetry {
    /// A store with the default bounds.
    pub(crate) fn new() -> Self {
        Self::bounded(Bounds {
            traces: MAX_TRACES,
            spans: MAX_SPANS,
            span_bytes: MAX_SPAN_BYTES,
            series: MAX_METRIC_SERIES,
            metric_bytes: MAX_METRIC_BYTES,
        })
    }

    fn bounded(bounds: Bounds) -> Self {
        Self {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                arrived: watch::Sender::new(0),
                bounds,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Keeps `spans`; returns how many were rejected (past [`MAX_SPANS_PER_TRACE`]).
    pub(super) fn add_spans(&self, spans: Vec<Span>) -> Rejected {
        let mut rejected = Rejected::default();
        {
            let mut state = self.lock();
            let bounds = self.shared.bounds;
            for span in spans {
                let bytes = span_bytes(&span);
                match state.traces.get_mut(&span.trace_id) {
                    Some(kept) if kept.spans.len() >= MAX_SPANS_PER_TRACE => {
                        rejected.count += 1;
                        rejected.why.get_or_insert_with(|| {
                            format!(
                                "trace {} already holds the {MAX_SPANS_PER_TRACE} spans the \
                                 emulator keeps of one trace",
                                span.trace_id
                            )
                        });
                        continue;
                    }
                    Some(kept) => {
                        kept.spans.push(span);
                        kept.bytes += bytes;
                    }
                    None => {
                        state.order.push_back(span.trace_id.clone());
                        let kept = Kept {
                            spans: vec![span],
                            bytes,
                        };
                        state.traces.insert(kept.spans[0].trace_id.clone(), kept);
                    }
                }
                state.spans += 1;
                state.span_bytes += bytes;
                while state.order.len() > bounds.traces
                    || state.spans > bounds.spans
                    || state.span_bytes > bounds.span_bytes
                {
                    let Some(oldest) = state.order.pop_front() else {
                        break;
                    };
                    if let Some(gone) = state.traces.remove(&oldest) {
                        state.spans -= gone.spans.len();
                        state.span_bytes -= gone.bytes;
                    }
                    state.dropped_traces += 1;
                }
            }
            state.rejected_spans += rejected.count;
        }
        self.shared.arrived.send_modify(|count| *count += 1);
        rejected
    }

    /// Keeps `points`, each its series' newest.
    pub(super) fn add_points(&self, points: Vec<MetricPoint>) {
        {
            let mut state = self.lock();
            let bounds = self.shared.bounds;
            for point in points {
                let key = series_key(&point);
                let bytes = key.len() + point_bytes(&point);
                state.metric_bytes += bytes;
                match state.series.insert(key.clone(), (point, bytes)) {
                    Some((_, before)) => state.metric_bytes -= before,
                    None => state.series_order.push_back(key),
                }
                while state.series_order.len() > bounds.series
                    || state.metric_bytes > bounds.metric_bytes
                {
                    let Some(oldest) = state.series_order.pop_front() else {
                        break;
                    };
                    if let Some((_, gone)) = state.series.remove(&oldest) {
                        state.metric_bytes -= gone;
                    }
                    state.dropped_series += 1;
                }
            }
        }
        self.shared.arrived.send_modify(|count| *count += 1);
    }

    /// Counts data points rejected by the receiver.
    pub(super) fn count_rejected_points(&self, count: u64) {
        self.lock().rejected_points += count;
    }

    /// Counts spans rejected by the receiver.
    pub(super) fn count_rejected_spans(&self, count: u64) {
        self.lock().rejected_spans += count;
    }

    /// The traces kept, the oldest (by its first span's arrival) first.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// let telemetry = emulator.telemetry().expect("the inspector is on by default");
    /// assert!(telemetry.traces().is_empty());
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn traces(&self) -> Vec<TraceSummary> {
        let state = self.lock();
        state
            .order
            .iter()
            .filter_map(|id| Some(trace(id, &state.traces.get(id)?.spans).summary()))
            .collect()
    }

    /// Trace `trace_id` (32 hex digits, any case), its spans earliest first, while it is kept.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// let telemetry = emulator.telemetry().expect("the inspector is on by default");
    /// assert!(telemetry.trace("4bf92f3577b34da6a3ce929d0e0e4736").is_none());
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn trace(&self, trace_id: &str) -> Option<Trace> {
        let id = trace_id.to_ascii_lowercase();
        let state = self.lock();
        state.traces.get(&id).map(|kept| trace(&id, &kept.spans))
    }

    /// The newest point of each metric series kept, the series first seen earliest first.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// assert!(emulator.telemetry().expect("on by default").metrics().is_empty());
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn metrics(&self) -> Vec<MetricPoint> {
        let state = self.lock();
        state
            .series_order
            .iter()
            .filter_map(|key| state.series.get(key).map(|(point, _)| point.clone()))
            .collect()
    }

    /// How many traces were dropped to keep the bounds.
    pub fn dropped_traces(&self) -> u64 {
        self.lock().dropped_traces
    }

    /// How many spans were rejected (an invalid id, a full trace); their exporters were
    /// told, in OTLP's partial success.
    pub fn rejected_spans(&self) -> u64 {
        self.lock().rejected_spans
    }

    /// How many metric series were dropped to keep the bound.
    pub fn dropped_series(&self) -> u64 {
        self.lock().dropped_series
    }

    /// How many metric data points were rejected (a metric without a name).
    pub fn rejected_points(&self) -> u64 {
        self.lock().rejected_points
    }

    /// Forgets every trace and metric kept (the counts go on).
    pub fn clear(&self) {
        let mut state = self.lock();
        state.traces.clear();
        state.order.clear();
        state.spans = 0;
        state.span_bytes = 0;
        state.series.clear();
        state.series_order.clear();
        state.metric_bytes = 0;
    }

    /// Waits up to `timeout` until trace `trace_id` holds at least `spans` spans (an
    /// exporter sends in batches, after the request that made them has been answered),
    /// and returns it then — with fewer spans, or `None`, when the time ran out.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # use std::time::Duration;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// let telemetry = emulator.telemetry().expect("the inspector is on by default");
    /// let trace = telemetry
    ///     .wait_for_trace("4bf92f3577b34da6a3ce929d0e0e4736", 1, Duration::from_millis(10))
    ///     .await;
    /// assert!(trace.is_none(), "nothing exported");
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub async fn wait_for_trace(
        &self,
        trace_id: &str,
        spans: usize,
        timeout: Duration,
    ) -> Option<Trace> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut arrived = self.shared.arrived.subscribe();
        loop {
            let found = self.trace(trace_id);
            if found
                .as_ref()
                .is_some_and(|trace| trace.spans.len() >= spans)
            {
                return found;
            }
            if tokio::time::timeout_at(deadline, arrived.changed())
                .await
                .is_err()
            {
                return self.trace(trace_id);
            }
        }
    }
}

/// Trace `id` of `spans`, sorted by start.
fn trace(id: &str, spans: &[Span]) -> Trace {
    let mut spans = spans.to_vec();
    spans.sort_by_key(|span| span.start_unix_nano);
    Trace {
        trace_id: id.to_owned(),
        spans,
    }
}

/// About how many bytes `value` takes.
fn value_bytes(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len(),
        Value::Array(values) => values.iter().map(value_bytes).sum::<usize>() + 8,
        Value::Object(map) => map_bytes(map) + 8,
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
    }
}

/// About how many bytes `map` takes.
fn map_bytes(map: &Map<String, Value>) -> usize {
    map.iter()
        .map(|(key, value)| key.len() + value_bytes(value))
        .sum()
}

/// About how many bytes `span` takes.
fn span_bytes(span: &Span) -> usize {
    ENTRY_OVERHEAD
        + span.name.len()
        + span.status_message.len()
        + map_bytes(&span.attributes)
        + span
            .events
            .iter()
            .map(|event| ENTRY_OVERHEAD + event.name.len() + map_bytes(&event.attributes))
            .sum::<usize>()
}

/// About how many bytes `point` takes.
fn point_bytes(point: &MetricPoint) -> usize {
    let buckets = match &point.value {
        MetricValue::Histogram {
            bounds,
            bucket_counts,
            ..
        } => 8 * (bounds.len() + bucket_counts.len()),
        _ => 0,
    };
    ENTRY_OVERHEAD
        + point.name.len()
        + point.unit.len()
        + point.description.len()
        + map_bytes(&point.attributes)
        + buckets
}

/// What tells one metric series from another: its service, name and attributes.
fn series_key(point: &MetricPoint) -> String {
    let attributes = Value::Object(point.attributes.clone());
    format!(
        "{}\u{0}{}\u{0}{attributes}",
        point.service_name.as_deref().unwrap_or(""),
        point.name
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::records::{Number, SpanKind, SpanStatus};

    fn bounds(traces: usize, spans: usize, span_bytes: usize) -> Telemetry {
        Telemetry::bounded(Bounds {
            traces,
            spans,
            span_bytes,
            series: MAX_METRIC_SERIES,
            metric_bytes: MAX_METRIC_BYTES,
        })
    }

    fn span(trace: u8, span: u8) -> Span {
        Span {
            trace_id: format!("{trace:032x}"),
            span_id: format!("{span:016x}"),
            parent_span_id: None,
            name: format!("s{span}"),
            kind: SpanKind::Internal,
            start_unix_nano: u64::from(span),
            end_unix_nano: u64::from(span) + 1,
            attributes: Map::new(),
            status: SpanStatus::Unset,
            status_message: String::new(),
            service_name: None,
            scope: None,
            events: Vec::new(),
        }
    }

    fn ids(telemetry: &Telemetry) -> Vec<String> {
        telemetry
            .traces()
            .into_iter()
            .map(|trace| trace.trace_id[30..].to_owned())
            .collect()
    }

    #[test]
    fn past_the_trace_bound_the_oldest_trace_is_dropped_and_counted() {
        let telemetry = bounds(2, 100, MAX_SPAN_BYTES);
        telemetry.add_spans(vec![span(1, 1), span(2, 2)]);
        // A span of the oldest trace does not make it newer: arrival order of its first span.
        telemetry.add_spans(vec![span(1, 3), span(3, 4)]);
        assert_eq!(ids(&telemetry), ["02", "03"]);
        assert_eq!(telemetry.dropped_traces(), 1);
        assert!(telemetry.trace(&format!("{:032x}", 1)).is_none());
    }

    #[test]
    fn past_the_span_bound_the_oldest_traces_are_dropped_until_they_fit() {
        let telemetry = bounds(10, 3, MAX_SPAN_BYTES);
        telemetry.add_spans(vec![span(1, 1), span(1, 2), span(2, 3)]);
        telemetry.add_spans(vec![span(3, 4)]);
        assert_eq!(ids(&telemetry), ["02", "03"]);
        assert_eq!(telemetry.dropped_traces(), 1);
        assert_eq!(telemetry.rejected_spans(), 0);
    }

    #[test]
    fn past_the_byte_bound_the_oldest_traces_are_dropped_until_they_fit() {
        // Room for about three small spans, then one with a large attribute.
        let telemetry = bounds(10, 100, 3 * (ENTRY_OVERHEAD + 2) + 10);
        telemetry.add_spans(vec![span(1, 1), span(2, 2), span(3, 3)]);
        assert_eq!(ids(&telemetry), ["01", "02", "03"]);
        let mut large = span(4, 4);
        large.attributes.insert(
            "a".to_owned(),
            Value::String("x".repeat(2 * ENTRY_OVERHEAD)),
        );
        telemetry.add_spans(vec![large]);
        assert_eq!(ids(&telemetry), ["04"]);
        assert_eq!(telemetry.dropped_traces(), 3);
    }

    #[test]
    fn a_series_keeps_its_newest_point_and_the_oldest_series_goes_first() {
        let telemetry = Telemetry::new();
        let point = |name: &str, value: i64| MetricPoint {
            name: name.to_owned(),
            unit: String::new(),
            description: String::new(),
            service_name: Some("agent".to_owned()),
            attributes: Map::new(),
            time_unix_nano: 1,
            value: MetricValue::Gauge(Number::Int(value)),
        };
        telemetry.add_points(vec![point("a", 1), point("b", 2), point("a", 3)]);
        let kept = telemetry.metrics();
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].value, MetricValue::Gauge(Number::Int(3)));
        let many: Vec<MetricPoint> = (0..=MAX_METRIC_SERIES)
            .map(|n| point(&format!("m{n}"), 0))
            .collect();
        telemetry.add_points(many);
        assert_eq!(telemetry.metrics().len(), MAX_METRIC_SERIES);
        assert_eq!(telemetry.dropped_series(), 3);
        assert_eq!(telemetry.metrics()[0].name, "m1");
    }
}
