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
