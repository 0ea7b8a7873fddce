//! Structured JSON logs for CloudWatch.
//!
//! Each line carries the Lambda runtime's invocation span (AWS request id, X-Ray trace id)
//! and, for JSON-RPC requests, the engine's request id, method, version, outcome and
//! duration.
//!
//! Written to stdout as they happen, on purpose not through the containers' background
//! writer ([`a2a_lambda_server::host::logging`]): Lambda freezes the execution environment once the
//! runtime has answered and has no pending event ("Lambda freezes the execution
//! environment when the runtime and each extension have completed and there are no
//! pending events", <https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html>),
//! so a line still queued would wait frozen until the next invocation, or be lost with an
//! environment that is shut down. A (default) function's environment serves one
//! invocation at a time (Lambda Managed Instances, which serve several, aside: same page),
//! so the write holds up no other request.

/// JSON logs on stdout, filtered by `RUST_LOG` (default `info`). Safe to call twice.
///
/// With the `otel` feature, also OpenTelemetry's export when the `OTEL_*` variables ask for
/// it (see `a2a_lambda_server::host::telemetry`; call it inside the tokio runtime): each
/// invocation's spans are then exported before the environment can be frozen (the
/// background extension holds it until they are).
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    #[cfg(feature = "otel")]
    let filter = match init_exported(filter) {
        Some(filter) => filter,
        None => return,
    };
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter)
        .with_current_span(true)
        .with_span_list(false)
        .with_target(false)
        .without_time()
        .try_init();
}

/// Telemetry kept on for the process's life (a function's process ends killed, never
/// returning: [`a2a_lambda_server::host::telemetry::flush`] exports per invocation).
#[cfg(feature = "otel")]
static TELEMETRY: std::sync::OnceLock<a2a_lambda_server::host::telemetry::TelemetryGuard> =
    std::sync::OnceLock::new();

/// The logs beside the telemetry's export, when the variables ask for it: `None` once
/// that is installed; else the filter back, for the logs alone.
#[cfg(feature = "otel")]
fn init_exported(filter: tracing_subscriber::EnvFilter) -> Option<tracing_subscriber::EnvFilter> {
    use a2a_lambda_server::host::telemetry::{TARGET, Telemetry};
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;

    let telemetry = match Telemetry::from_env() {
        Ok(Some(telemetry)) if tokio::runtime::Handle::try_current().is_ok() => telemetry,
        Ok(_) => return Some(filter),
        Err(error) => {
            let _ = tracing_subscriber::fmt()
                .json()
                .with_env_filter(filter)
                .with_target(false)
                .without_time()
                .try_init();
            tracing::error!(%error, "telemetry is off");
            return None;
        }
    };
    let mut filter = filter;
    if let Ok(directive) = format!("{TARGET}=off").parse() {
        filter = filter.add_directive(directive);
    }
    let lines = tracing_subscriber::fmt::layer()
        .json()
        .with_current_span(true)
        .with_span_list(false)
        .with_target(false)
        .without_time()
        .with_filter(filter);
    let installed = tracing_subscriber::registry()
        .with(telemetry.layer())
        .with(lines)
        .try_init()
        .is_ok();
    if installed {
        let _ = TELEMETRY.set(telemetry.install());
    }
    None
}
