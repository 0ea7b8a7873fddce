//! The hosts' metrics, recorded only when telemetry is on; without the `otel` feature
//! each function is empty. Instruments are made once, on first use, from the meter
//! provider [`Telemetry::install`](super::Telemetry::install) set.

#[cfg(feature = "otel")]
use std::sync::OnceLock;

#[cfg(feature = "otel")]
use opentelemetry::KeyValue;
#[cfg(feature = "otel")]
use opentelemetry::metrics::{Counter, Histogram, ObservableCounter, ObservableUpDownCounter};
#[cfg(feature = "otel")]
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// Tasks entering each state, by the v1.0 state's number: counted here and read by the
/// meter at each collection. A counter of the SDK's would hash its attributes and look
/// its series up on every transition, three of them per task.
#[cfg(feature = "otel")]
static TRANSITIONS: [AtomicU64; 9] = [const { AtomicU64::new(0) }; 9];
/// Tasks whose agent runs now (read at each collection, as [`TRANSITIONS`]).
#[cfg(feature = "otel")]
static RUNNING: AtomicI64 = AtomicI64::new(0);

#[cfg(feature = "otel")]
struct Instruments {
    calls: Histogram<f64>,
    _transitions: ObservableCounter<u64>,
    _running: ObservableUpDownCounter<i64>,
    pushes: Counter<u64>,
    refused: Counter<u64>,
    dropped: Counter<u64>,
}

#[cfg(feature = "otel")]
fn instruments() -> Option<&'static Instruments> {
    static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
    if !super::is_on() {
        return None;
    }
    Some(INSTRUMENTS.get_or_init(|| {
        let meter = opentelemetry::global::meter("a2a-lambda");
        Instruments {
            calls: meter
                .f64_histogram("rpc.server.call.duration")
                .with_unit("s")
                .with_description("How long the server took to answer each call")
                .with_boundaries(vec![
                    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                    10.0, 30.0, 60.0,
                ])
                .build(),
            _transitions: meter
                .u64_observable_counter("a2a.task.transitions")
                .with_unit("{transition}")
                .with_description("Tasks entering each state")
                .with_callback(|observer| {
                    for (number, count) in TRANSITIONS.iter().enumerate() {
                        let count = count.load(Ordering::Relaxed);
                        if let (true, Some(state)) = (count > 0, state_name(number)) {
                            observer.observe(count, &[KeyValue::new("a2a.task.state", state)]);
                        }
                    }
                })
                .build(),
            _running: meter
                .i64_observable_up_down_counter("a2a.tasks.running")
                .with_unit("{task}")
                .with_description("Tasks whose agent runs now")
                .with_callback(|observer| observer.observe(RUNNING.load(Ordering::Relaxed), &[]))
                .build(),
            pushes: meter
                .u64_counter("a2a.push.deliveries")
                .with_unit("{delivery}")
                .with_description("Push notification deliveries by outcome")
                .build(),
            refused: meter
                .u64_counter("a2a.connections.refused")
                .with_unit("{connection}")
                .with_description("Connections refused by the listener")
                .build(),
            dropped: meter
                .u64_counter("a2a.log.dropped_lines")
                .with_unit("{line}")
                .with_description("Log lines dropped because the log queue was full")
                .build(),
        }
    }))
}

/// One call served: `system` (`jsonrpc`, `grpc`, `a2a_http_json`), `method`, the error
/// code when it was refused, and how long it took.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn call(system: &'static str, method: &str, refusal: Option<String>, seconds: f64) {
    #[cfg(feature = "otel")]
    if let Some(instruments) = instruments() {
        // The protocol's own method names are static: no copy per call. Any other name (a
        // method that does not exist) is recorded as `_OTHER`, as the RPC conventions
        // say, so a caller cannot grow the metric's series without bound.
        let known = a2a_lambda_core::version::METHODS
            .iter()
            .find(|(name, _, _)| *name == method)
            .map_or("_OTHER", |(name, _, _)| *name);
        let mut attributes = vec![
            KeyValue::new("rpc.system.name", system),
            KeyValue::new("rpc.method", known),
        ];
        if let Some(code) = refusal {
            attributes.push(KeyValue::new("rpc.response.status_code", code.clone()));
            attributes.push(KeyValue::new("error.type", code));
        }
        instruments.calls.record(seconds, &attributes);
    }
}

/// A task entered `state` (recorded as the v1.0 name, `TASK_STATE_COMPLETED`, …).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn transition(state: a2a_lambda_core::model::TaskState) {
    #[cfg(feature = "otel")]
    if instruments().is_some() {
        let number = a2a_lambda_core::wire::v1_0::TaskState::from(state) as usize;
        if let Some(count) = TRANSITIONS.get(number) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The v1.0 name of the state numbered `number`.
#[cfg(feature = "otel")]
fn state_name(number: usize) -> Option<&'static str> {
    use a2a_lambda_core::model::TaskState;
    [
        TaskState::Unknown,
        TaskState::Submitted,
        TaskState::Working,
        TaskState::Completed,
        TaskState::Failed,
        TaskState::Canceled,
        TaskState::InputRequired,
        TaskState::Rejected,
        TaskState::AuthRequired,
    ]
    .into_iter()
    .map(a2a_lambda_core::wire::v1_0::TaskState::from)
    .find(|state| *state as usize == number)
    .map(|state| state.as_str())
}

/// `change` tasks' agents started (1) or ended (-1) their run.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn running(change: i64) {
    #[cfg(feature = "otel")]
    if instruments().is_some() {
        RUNNING.fetch_add(change, Ordering::Relaxed);
    }
}

/// A push notification's delivery ended with `outcome` (`delivered`, `gave_up`, `refused`).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn push(outcome: &'static str) {
    #[cfg(feature = "otel")]
    if let Some(instruments) = instruments() {
        instruments
            .pushes
            .add(1, &[KeyValue::new("a2a.push.outcome", outcome)]);
    }
}

/// The listener refused a connection for `reason` (`limit`: the connection cap).
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn connection_refused(reason: &'static str) {
    #[cfg(feature = "otel")]
    if let Some(instruments) = instruments() {
        instruments
            .refused
            .add(1, &[KeyValue::new("a2a.refusal.reason", reason)]);
    }
}

/// `lines` log lines were dropped.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn dropped_lines(lines: u64) {
    #[cfg(feature = "otel")]
    if let Some(instruments) = instruments() {
        instruments.dropped.add(lines, &[]);
    }
}
