//! The emulator as a local trace viewer: an OTLP/HTTP receiver on its own port
//! (`POST /v1/traces`, `POST /v1/metrics`; `receiver`), the bounded [`Telemetry`] it fills,
//! its JSON API (`GET /_emulator/api/traces`, `…/traces/{traceId}`, `…/metrics`) and each
//! invocation's trace as a waterfall on the inspector's page.
//!
//! The agents the emulator runs export there without being told: an `--agent-cmd`
//! process gets `OTEL_EXPORTER_OTLP_ENDPOINT` (the emulator's URL),
//! `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf` and `OTEL_SERVICE_NAME`, each unless the
//! emulator's own environment sets it (the variables of OpenTelemetry's SDK configuration:
//! <https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/> and
//! <https://opentelemetry.io/docs/specs/otel/protocol/exporter/>); an in-process agent's
//! exporter is pointed at [`Running::otlp_endpoint`](crate::Running::otlp_endpoint).
//!
//! `/v1/*` is none of AgentCore's paths (its data plane serves `/runtimes/{arn}/…`, a
//! container `/`, the card and `/ping`), so the receiver, like `/_emulator/*`, is answered
//! before the platform front: no session header, auth or throttling, and no journal entry.
//! It is part of the inspector: `--inspector off` turns it off too.

mod api;
mod convert;
mod receiver;
mod records;
mod store;

pub use api::{METRICS_API_PATH, TRACES_API_PATH};
pub(crate) use api::{answer as answer_api, is_api_path};
pub use receiver::{MAX_BODY_BYTES, METRICS_PATH, TRACES_PATH};
pub(crate) use receiver::{is_otlp_path, serve as receive};
pub use records::{
    MetricPoint, MetricValue, Number, SESSION_ID_ATTRIBUTE, Span, SpanEvent, SpanKind, SpanStatus,
    Trace, TraceSummary,
};
pub use store::{
    MAX_METRIC_BYTES, MAX_METRIC_SERIES, MAX_SPAN_BYTES, MAX_SPANS, MAX_SPANS_PER_TRACE,
    MAX_TRACES, Telemetry,
};
