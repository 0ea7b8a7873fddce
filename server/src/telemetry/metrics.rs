//! The hosts' metrics, recorded only when telemetry is on; without the `otel` feature
//! each function is empty. Instruments are made once, on first use, from the meter
//! provider [`Telemetry::install`](super::Telemetry::install) set.

#[cfg(feature = "otel")]
use std::sync::OnceLock;

#[cfg(feature = "otel")]
use opentelemetry::KeyValue;
#[cfg(feature = "otel")]
use opentelemetry::metrics::{Counter, Histogram, UpDownCounter};

#[cfg(feature = "otel")]
struct Instruments {
    calls: Histogram<f64>,
    transitions: Counter<u64>,
    running: UpDownCounter<i64>,
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
            transitions: meter
                .u64_counter("a2a.task.transitions")
                .with_unit("{transition}")
                .with_description("Tasks entering each state")
                .build(),
            running: meter
                .i64_up_down_counter("a2a.tasks.running")
                .with_unit("{task}")
                .with_description("Tasks whose agent runs now")
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
    if let Some(instruments) = instruments() {
        let name = a2a_lambda_core::wire::v1_0::TaskState::from(state).as_str();
        instruments
            .transitions
            .add(1, &[KeyValue::new("a2a.task.state", name)]);
    }
}

/// An agent started (`1`) or ended (`-1`) its run of a task.
#[inline]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn running(change: i64) {
    #[cfg(feature = "otel")]
    if let Some(instruments) = instruments() {
        instruments.running.add(change, &[]);
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
