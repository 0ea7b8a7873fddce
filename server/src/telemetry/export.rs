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
//!   `OTEL_SDK_DISABLED=true`; AgentCore's `DISABLE_ADOT_OBSERVABILITY=true` (which turns
//!   the platform's ADOT pipeline off in favour of another backend) leaves only an
//!   explicitly set endpoint: `OTEL_TRACES_EXPORTER=otlp` alone does not send to
//!   AgentCore's collector on `localhost:4318`;
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
use std::sync::{Mutex, PoisonError, RwLock};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::runtime::Tokio;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

use super::exporter::ProtobufSpanExporter;
use super::variables::{milliseconds, plan, propagator, trace_target, variable};

static ON: AtomicBool = AtomicBool::new(false);

/// The variables that name where to export.
const ENDPOINTS: [&str; 3] = [
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
];

/// The targets whose spans are not exported: the hosts' own crates and the libraries
/// under them (their spans are the hosts' plumbing; ours say what happened).
const INFRASTRUCTURE: &[&str] = &[
    "a2a_lambda",
    "lambda_runtime",
    "lambda_http",
    "tower_http",
    "hyper",
    "h2",
    "reqwest",
    "tonic",
    "aws_",
];

/// The providers of the telemetry turned on, for [`flush`].
static INSTALLED: Mutex<Option<Providers>> = Mutex::new(None);

/// The tracer the hosts' own spans are made with, through OpenTelemetry's API directly
/// (a `tracing` span costs a registry entry, a builder and a lookup per field on top).
static TRACER: RwLock<Option<SdkTracer>> = RwLock::new(None);

/// The name the hosts' spans carry as their instrumentation scope.
const SCOPE: &str = "a2a-lambda";

/// Calls `make` with the hosts' tracer (none while traces are off).
pub(super) fn with_tracer<T>(make: impl FnOnce(&SdkTracer) -> T) -> Option<T> {
    TRACER
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .map(make)
}

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

/// The exporters' HTTP client: each export bounded by `OTEL_EXPORTER_OTLP_TIMEOUT`
/// (milliseconds, default 10 000), which the exporter itself only uses as its retry
/// deadline: a collector that never answers would hold an export (and a Lambda flush)
/// until the batch's own 30 s timeout.
fn http_client() -> Result<reqwest::Client, TelemetryError> {
    let timeout = milliseconds(&variable, "OTEL_EXPORTER_OTLP_TIMEOUT", 10_000)?;
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|error| TelemetryError::Exporter {
            signal: "traces",
            detail: error.to_string(),
        })
}

/// Whether a span or event is exported: the hosts' own ([`super::TARGET`]), and the agent's
/// spans at `INFO` and above and its events at `WARN` and above; not the libraries' under
/// the hosts, which have spans of their own (the Lambda runtime's per invocation, the HTTP
/// stacks'): each would be a root trace beside ours.
fn exported(metadata: &tracing::Metadata<'_>) -> bool {
    if metadata.target() == super::TARGET {
        return true;
    }
    if INFRASTRUCTURE
        .iter()
        .any(|prefix| metadata.target().starts_with(prefix))
    {
        return false;
    }
    if metadata.is_span() {
        *metadata.level() <= tracing::Level::INFO
    } else {
        *metadata.level() <= tracing::Level::WARN
    }
}

/// The tracer provider exporting through `exporter` in batches on tokio, with the default
/// sampler unless `OTEL_TRACES_SAMPLER` names one.
fn tracer_provider<E>(exporter: E) -> opentelemetry_sdk::trace::TracerProviderBuilder
where
    E: opentelemetry_sdk::trace::SpanExporter + 'static,
{
    let processor =
        opentelemetry_sdk::trace::span_processor_with_async_runtime::BatchSpanProcessor::builder(
            exporter, Tokio,
        )
        .build();
    with_sampler(SdkTracerProvider::builder().with_span_processor(processor))
}

/// `provider` with the default sampler unless `OTEL_TRACES_SAMPLER` names one.
fn with_sampler(
    provider: opentelemetry_sdk::trace::TracerProviderBuilder,
) -> opentelemetry_sdk::trace::TracerProviderBuilder {
    if variable("OTEL_TRACES_SAMPLER").is_none() {
        provider.with_sampler(default_sampler())
    } else {
        provider
    }
}

/// Without `OTEL_TRACES_SAMPLER`: a span with no parent is sampled, one whose parent is
/// sampled too, and one whose remote parent is *not* sampled still is. Lambda and AgentCore
/// pass every request an X-Ray header with `Sampled=0` whenever X-Ray's active tracing is
/// off; honouring it would drop every span of a function exporting to a collector of its
/// own. `OTEL_TRACES_SAMPLER=parentbased_always_on` honours it.
fn default_sampler() -> opentelemetry_sdk::trace::ParentBasedSampler {
    use opentelemetry_sdk::trace::Sampler;
    Sampler::parent_based(Sampler::AlwaysOn).with_remote_parent_not_sampled(Sampler::AlwaysOn)
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

impl Telemetry {
    /// Telemetry as the standard variables configure it (see the module's page), or
    /// `None` when they ask for none. Call it inside the tokio runtime the exports will
    /// run on.
    ///
    /// # Errors
    /// A variable asks for what this build cannot do (`grpc`, an exporter other than
    /// `otlp`, an unknown propagator), or the exporter could not be built from them.
    pub fn from_env() -> Result<Option<Self>, TelemetryError> {
        Self::from_env_or(None)
    }

    /// [`Telemetry::from_env`], exporting to `fallback` (a base URL: `/v1/traces` and
    /// `/v1/metrics` are appended) when the variables name no endpoint and turn no signal
    /// off: what the emulator does with its own OTLP receiver. `OTEL_SDK_DISABLED=true`
    /// and an exporter variable `none` still turn it off.
    ///
    /// # Errors
    /// As [`Telemetry::from_env`].
    pub fn from_env_or(fallback: Option<&str>) -> Result<Option<Self>, TelemetryError> {
        let endpoint_set = ENDPOINTS.iter().any(|name| variable(name).is_some());
        let fallback = fallback.filter(|_| !endpoint_set);
        let lookup = |name: &str| match (name, fallback) {
            ("OTEL_EXPORTER_OTLP_ENDPOINT", Some(url)) => Some(url.to_owned()),
            _ => variable(name),
        };
        let Some(plan) = plan(&lookup)? else {
            return Ok(None);
        };
        let endpoint =
            |signal: &str| fallback.map(|url| format!("{}/v1/{signal}", url.trim_end_matches('/')));
        super::propagation::set_propagator(propagator(&plan.propagators));
        let resource = resource();
        let client = http_client()?;
        let tracer = if let Some(protocol) = plan.traces {
            let provider = if protocol == opentelemetry_otlp::Protocol::HttpBinary {
                let target = trace_target(&lookup)?;
                let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
                    TelemetryError::Exporter {
                        signal: "traces",
                        detail: "telemetry is configured inside a tokio runtime, which sends \
                                 the exports"
                            .to_owned(),
                    }
                })?;
                let exporter = ProtobufSpanExporter::new(client.clone(), target, runtime);
                with_sampler(SdkTracerProvider::builder().with_span_processor(
                    opentelemetry_sdk::trace::BatchSpanProcessor::builder(exporter).build(),
                ))
            } else {
                let mut exporter = opentelemetry_otlp::SpanExporter::builder()
                    .with_http()
                    .with_protocol(protocol)
                    .with_http_client(client.clone());
                if let Some(url) = endpoint("traces") {
                    exporter = exporter.with_endpoint(url);
                }
                let exporter = exporter.build().map_err(|error| TelemetryError::Exporter {
                    signal: "traces",
                    detail: error.to_string(),
                })?;
                tracer_provider(exporter)
            };
            Some(provider.with_resource(resource.clone()).build())
        } else {
            None
        };
        let meter = if let Some(protocol) = plan.metrics {
            let mut exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_protocol(protocol)
                .with_http_client(client);
            if let Some(url) = endpoint("metrics") {
                exporter = exporter.with_endpoint(url);
            }
            let exporter = exporter.build().map_err(|error| TelemetryError::Exporter {
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
        let tracer = self.providers.tracer.as_ref()?.tracer(SCOPE);
        Some(
            // No source location, thread or `tracing` target on every span: attributes no
            // convention asks for, paid on each span (measured in scripts/load.py).
            tracing_opentelemetry::layer()
                .with_tracer(tracer)
                .with_tracked_inactivity(false)
                // An exported `tracing` span entered is OpenTelemetry's current context
                // too, as the hosts' own spans are while they are polled: whichever is
                // innermost parents what is made inside, through either API. The hosts'
                // spans are not `tracing` ones, so nothing is attached per poll for them.
                .with_context_activation(true)
                .with_location(false)
                .with_threads(false)
                .with_target(false)
                .with_filter(tracing_subscriber::filter::filter_fn(exported))
                .and_then(
                    super::events::EventsOnCurrentSpan
                        .with_filter(tracing_subscriber::filter::filter_fn(exported)),
                ),
        )
    }

    /// Turns telemetry on: spans are made from now on, metrics recorded, and what is
    /// exported is flushed by [`flush`] and when the guard is dropped.
    pub fn install(self) -> TelemetryGuard {
        if let Some(meter) = &self.providers.meter {
            opentelemetry::global::set_meter_provider(meter.clone());
        }
        *TRACER.write().unwrap_or_else(PoisonError::into_inner) = self
            .providers
            .tracer
            .as_ref()
            .map(|provider| provider.tracer(SCOPE));
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
        TRACER
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
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
