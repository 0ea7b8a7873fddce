//! Structured JSON logs for CloudWatch.
//!
//! Each line carries the Lambda runtime's invocation span (AWS request id, X-Ray trace id)
//! and, for JSON-RPC requests, the engine's request id, method, version, outcome and
//! duration.

/// JSON logs on stdout, filtered by `RUST_LOG` (default `info`). Safe to call twice.
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter)
        .with_current_span(true)
        .with_span_list(false)
        .with_target(false)
        .without_time()
        .try_init();
}
