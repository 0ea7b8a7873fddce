//! Turning telemetry on from the standard `OTEL_*` variables: the OTLP/HTTP exporters, the
//! tracer and meter providers, the propagators, and their flush.
//!
//! The variables, as OpenTelemetry's SDK configuration defines them
//! (<https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/>,
//! <https://opentelemetry.io/docs/specs/otel/protocol/exporter/>):
//!
//! - on when an endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the signal's own
//!   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `…_METRICS_ENDPOINT`), or when
//!   `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER` say `otlp` (then to the default
//!   `http://localhost:4318`, where AgentCore's collector listens);
//! - a signal is off with its exporter variable `none`; everything is off with
//!   `OTEL_SDK_DISABLED=true`, or with AgentCore's `DISABLE_ADOT_OBSERVABILITY=true`;
//! - `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` (default) or `http/json`; `grpc` is
//!   refused (this build exports over HTTP: use the collector's port 4318);
//! - headers, timeout and `gzip` compression by the exporter's variables; the sampler by
//!   `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`; the resource by
//!   `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`; the metrics' export interval by
//!   `OTEL_METRIC_EXPORT_INTERVAL` (milliseconds, default 60 000);
//! - `OTEL_PROPAGATORS`: `tracecontext`, `baggage`, `xray` (default all three; `none`
//!   for none). Extracted in the order given, a later one overriding: by default a
//!   `traceparent` wins over an `X-Amzn-Trace-Id`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry::propagation::text_map_propagator::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::runtime::Tokio;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

static ON: AtomicBool = AtomicBool::new(false);

/// The providers of the telemetry turned on, for [`flush`].
static INSTALLED: Mutex<Option<Providers>> = Mutex::new(None);

/// How long dropping the guard waits for the last export.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

pub(super) fn is_on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Why telemetry could not be turned on as configured.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// A variable asks for what this build cannot do.
    #[error("{variable}={value:?} is not supported: {why}")]
    Unsupported {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What to set instead.
        why: &'static str,
    },
    /// The OTLP exporter could not be built (a bad endpoint, say).
    #[error("the OTLP {signal} exporter could not be built: {detail}")]
    Exporter {
        /// `traces` or `metrics`.
        signal: &'static str,
        /// The exporter's reason.
        detail: String,
    },
}

#[derive(Clone)]
struct Providers {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

/// Telemetry configured from the environment, not yet turned on: [`Telemetry::layer`]
/// goes into the host's `tracing` subscriber, [`Telemetry::install`] turns it on.
///
/// ```no_run
/// use a2a_lambda_server::host::telemetry::Telemetry;
/// use tracing_subscriber::layer::SubscriberExt as _;
///
/// # fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// // Inside a tokio runtime: the exports run on it.
/// if let Some(telemetry) = Telemetry::from_env()? {
///     let subscriber = tracing_subscriber::registry().with(telemetry.layer());
///     tracing::subscriber::set_global_default(subscriber)?;
///     let _guard = telemetry.install();
///     // … serve; dropping the guard exports what is left.
/// }
/// # Ok(()) }
/// ```
pub struct Telemetry {
    providers: Providers,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("traces", &self.providers.tracer.is_some())
            .field("metrics", &self.providers.meter.is_some())
            .finish()
    }
}

fn variable(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

fn is_true(name: &str) -> bool {
    variable(name).is_some_and(|value| value.trim().eq_ignore_ascii_case("true"))
}

/// Whether a signal is exported: its exporter variable (`otlp`, `none`), else whether an
/// endpoint is set for it.
fn exported(
    exporter_variable: &'static str,
    endpoint_variable: &str,
) -> Result<bool, TelemetryError> {
    match variable(exporter_variable).map(|value| value.trim().to_ascii_lowercase()) {
        Some(value) if value == "none" => Ok(false),
        Some(value) if value == "otlp" => Ok(true),
        Some(value) => Err(TelemetryError::Unsupported {
            variable: exporter_variable,
            value,
            why: "this build exports with `otlp` (or `none`)",
        }),
        None => Ok(variable("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
            || variable(endpoint_variable).is_some()),
    }
}

/// The protocol for a signal: its own variable, else the common one.
fn protocol(signal_variable: &'static str) -> Result<opentelemetry_otlp::Protocol, TelemetryError> {
    let (name, value) = match variable(signal_variable) {
        Some(value) => (signal_variable, value),
        None => match variable("OTEL_EXPORTER_OTLP_PROTOCOL") {
            Some(value) => ("OTEL_EXPORTER_OTLP_PROTOCOL", value),
            None => return Ok(opentelemetry_otlp::Protocol::HttpBinary),
        },
    };
    match value.trim() {
        "http/protobuf" => Ok(opentelemetry_otlp::Protocol::HttpBinary),
        "http/json" => Ok(opentelemetry_otlp::Protocol::HttpJson),
        _ => Err(TelemetryError::Unsupported {
            variable: name,
            value,
            why: "this build exports OTLP over HTTP: `http/protobuf` or `http/json` (a \
                  collector's port 4318)",
        }),
    }
}

fn resource() -> Resource {
    let mut builder = Resource::builder();
    let named = variable("OTEL_SERVICE_NAME").is_some()
        || variable("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|text| text.contains("service.name="));
    // A Lambda function is named after itself, a process after its binary.
    if !named {
        let name = variable("AWS_LAMBDA_FUNCTION_NAME").or_else(|| {
            std::env::current_exe().ok().and_then(|path| {
                path.file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
            })
        });
        if let Some(name) = name {
            builder = builder.with_service_name(name);
        }
    }
    // Lambda's own resource attributes (semantic conventions: cloud, faas).
    if let Some(function) = variable("AWS_LAMBDA_FUNCTION_NAME") {
        builder = builder.with_attributes([
            KeyValue::new("cloud.provider", "aws"),
            KeyValue::new("cloud.platform", "aws_lambda"),
            KeyValue::new("faas.name", function),
        ]);
        if let Some(region) = variable("AWS_REGION") {
            builder = builder.with_attribute(KeyValue::new("cloud.region", region));
        }
        if let Some(version) = variable("AWS_LAMBDA_FUNCTION_VERSION") {
            builder = builder.with_attribute(KeyValue::new("faas.version", version));
        }
    }
    builder.build()
}

fn propagator() -> Result<TextMapCompositePropagator, TelemetryError> {
    let text = variable("OTEL_PROPAGATORS").unwrap_or_else(|| "xray,tracecontext,baggage".into());
    let mut propagators: Vec<Box<dyn TextMapPropagator + Send + Sync>> = Vec::new();
    for name in text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
    {
        match name {
            "tracecontext" => propagators.push(Box::new(
                opentelemetry_sdk::propagation::TraceContextPropagator::new(),
            )),
            "baggage" => propagators.push(Box::new(
                opentelemetry_sdk::propagation::BaggagePropagator::new(),
            )),
            "xray" => {
                propagators.push(Box::new(opentelemetry_aws::trace::XrayPropagator::default()))
            }
            "none" => propagators.clear(),
            _ => {
                return Err(TelemetryError::Unsupported {
                    variable: "OTEL_PROPAGATORS",
                    value: text.clone(),
                    why: "this build knows `tracecontext`, `baggage`, `xray` and `none`",
                });
            }
        }
    }
    Ok(TextMapCompositePropagator::new(propagators))
}

impl Telemetry {
    /// Telemetry as the standard variables configure it (see the module's page), or
    /// `None` when they ask for none. Call it inside the tokio runtime the exports will
    /// run on.
    ///
    /// # Errors
    /// A variable asks for what this build cannot do (`grpc`, an exporter other than
    /// `otlp`, an unknown propagator), or the exporter could not be built from them.
    pub fn from_env() -> Result<Option<Self>, TelemetryError> {
        if is_true("OTEL_SDK_DISABLED") || is_true("DISABLE_ADOT_OBSERVABILITY") {
            return Ok(None);
        }
        let traces = exported("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")?;
        let metrics = exported(
            "OTEL_METRICS_EXPORTER",
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
        )?;
        if !traces && !metrics {
            return Ok(None);
        }
        opentelemetry::global::set_text_map_propagator(propagator()?);
        let resource = resource();
        let client = reqwest::Client::new();
        let tracer = if traces {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(protocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")?)
                .with_http_client(client.clone())
                .build()
                .map_err(|error| TelemetryError::Exporter {
                    signal: "traces",
                    detail: error.to_string(),
                })?;
            let processor =
                opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor::builder(
                    exporter, Tokio,
                )
                .build();
            Some(
                SdkTracerProvider::builder()
                    .with_span_processor(processor)
                    .with_resource(resource.clone())
                    .build(),
            )
        } else {
            None
        };
        let meter = if metrics {
            let exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_protocol(protocol("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")?)
                .with_http_client(client)
                .build()
                .map_err(|error| TelemetryError::Exporter {
                    signal: "metrics",
                    detail: error.to_string(),
                })?;
            let reader =
                opentelemetry_sdk::metrics::periodic_reader_with_async_runtime::PeriodicReader::builder(
                    exporter, Tokio,
                )
                .build();
            Some(
                SdkMeterProvider::builder()
                    .with_reader(reader)
                    .with_resource(resource)
                    .build(),
            )
        } else {
            None
        };
        Ok(Some(Self {
            providers: Providers { tracer, meter },
        }))
    }

    /// The `tracing` layer that exports spans: the hosts' own ([`super::TARGET`]) and the
    /// agent's spans at `INFO` and above (its events at `WARN` and above become span
    /// events). Nothing when traces are off.
    pub fn layer<S>(&self) -> Option<impl Layer<S> + Send + Sync + 'static>
    where
        S: Subscriber + for<'span> LookupSpan<'span> + Send + Sync,
    {
        let tracer = self.providers.tracer.as_ref()?.tracer("a2a-lambda");
        let exported = tracing_subscriber::filter::filter_fn(|metadata| {
            let level = *metadata.level();
            if metadata.is_span() {
                level <= tracing::Level::INFO
            } else {
                level <= tracing::Level::WARN
            }
        });
        Some(
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_tracked_inactivity(false)
                .with_filter(exported),
        )
    }

    /// Turns telemetry on: spans are made from now on, metrics recorded, and what is
    /// exported is flushed by [`flush`] and when the guard is dropped.
    pub fn install(self) -> TelemetryGuard {
        if let Some(meter) = &self.providers.meter {
            opentelemetry::global::set_meter_provider(meter.clone());
        }
        *INSTALLED.lock().unwrap_or_else(PoisonError::into_inner) = Some(self.providers.clone());
        ON.store(true, Ordering::Relaxed);
        TelemetryGuard {
            providers: Some(self.providers),
        }
    }
}

/// Exports what is waiting (spans, then the metrics' current values) and returns when
/// the collector answered or gave up: what a Lambda function does before its environment
/// can be frozen. At once when telemetry is off.
pub async fn flush() {
    let providers = INSTALLED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let Some(providers) = providers else { return };
    // The providers' flush blocks its thread until the exporting task (on this runtime)
    // is done: a blocking thread of its own, not a worker.
    let flushed = tokio::task::spawn_blocking(move || {
        if let Some(tracer) = &providers.tracer
            && let Err(error) = tracer.force_flush()
        {
            tracing::warn!(%error, "spans could not be exported");
        }
        if let Some(meter) = &providers.meter
            && let Err(error) = meter.force_flush()
        {
            tracing::warn!(%error, "metrics could not be exported");
        }
    })
    .await;
    if flushed.is_err() {
        tracing::warn!("the telemetry flush stopped early");
    }
}

/// Keeps telemetry on; dropping it exports what is left (waiting up to five seconds)
/// and turns it off.
#[must_use = "telemetry stops when the guard is dropped: hold it until the host returns"]
pub struct TelemetryGuard {
    providers: Option<Providers>,
}

impl std::fmt::Debug for TelemetryGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TelemetryGuard")
    }
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        let Some(providers) = self.providers.take() else {
            return;
        };
        ON.store(false, Ordering::Relaxed);
        INSTALLED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        // The shutdown blocks until the exporting task answers, and that task runs on the
        // runtime this drop may be blocking: from a thread of its own, waited for a
        // bounded time.
        // On a current-thread runtime that task cannot run while this drop blocks it:
        // nothing to wait for (`flush` before dropping exports what is left).
        let blocked = tokio::runtime::Handle::try_current().is_ok_and(|runtime| {
            runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread
        });
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            if let Some(tracer) = providers.tracer {
                let _ = tracer.shutdown_with_timeout(SHUTDOWN_WAIT);
            }
            if let Some(meter) = providers.meter {
                let _ = meter.shutdown_with_timeout(SHUTDOWN_WAIT);
            }
            let _ = done.send(());
        });
        if !blocked {
            let _ = finished.recv_timeout(SHUTDOWN_WAIT);
        }
    }
}
