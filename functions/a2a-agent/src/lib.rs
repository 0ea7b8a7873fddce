//! # a2a-agent
//!
//! The A2A agent as an AWS Lambda function: the shared `a2a-core` router served by
//! `lambda_http` behind a Function URL, API Gateway (HTTP API or REST, stage prefix
//! included) or an ALB. Buffered by default; with `A2A_STREAMING=true` (a Function URL in
//! `RESPONSE_STREAM` mode) streams answer as server-sent events as they happen.
//!
//! Configuration is read from the environment at init ([`config::Config`]); a bad value
//! fails the init with a clear log line.

pub mod app;
pub mod config;
pub mod logging;

use std::sync::Arc;
use std::time::Instant;

use a2a_core::engine::{Engine, EngineConfig};
use a2a_core::tasks::InMemoryTaskStore;

pub use config::Config;

/// The card URL used until a request tells the real one (when `A2A_PUBLIC_URL` is unset,
/// each request's host and stage give it).
const PLACEHOLDER_URL: &str = "https://localhost/";

/// Why the function cannot start.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// A variable is invalid.
    #[error("configuration: {0}")]
    Config(#[from] config::ConfigError),
    /// The agent card is invalid.
    #[error("agent card: {0}")]
    Card(#[from] a2a_core::card::CardError),
}

/// The engine for a configuration.
///
/// # Errors
/// The agent's card is invalid.
pub fn engine(config: &Config) -> Result<Engine, InitError> {
    Ok(Engine::new(
        config.agent.agent(),
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: config
                .public_url
                .clone()
                .unwrap_or_else(|| PLACEHOLDER_URL.to_owned()),
            error_profile: config.error_profile,
            host_can_stream: config.streaming,
            security: Some(config.auth.mechanism()),
        },
    )?)
}

/// Reads the configuration, builds the app and serves Lambda invocations until the
/// runtime stops.
///
/// # Errors
/// Init failed (logged first), or the runtime failed.
pub async fn run() -> Result<(), lambda_http::Error> {
    let started = Instant::now();
    logging::init();
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none() {
        let error = "not running inside AWS Lambda (AWS_LAMBDA_RUNTIME_API is not set): \
                     run it locally with `make watch`, or serve the same agent with the emulator \
                     (`make run`)";
        tracing::error!(error, "init failed");
        return Err(error.into());
    }
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(error) => {
            tracing::error!(%error, "init failed");
            return Err(error.into());
        }
    };
    let engine = match engine(&config) {
        Ok(engine) => engine,
        Err(error) => {
            tracing::error!(%error, "init failed");
            return Err(error.into());
        }
    };
    let app = app::app(Arc::new(engine), &config);
    tracing::info!(
        agent = %config.agent,
        streaming = config.streaming,
        auth = ?config.auth,
        init_ms = started.elapsed().as_secs_f64() * 1000.0,
        "init complete"
    );
    if config.streaming {
        lambda_http::run_with_streaming_response(app).await
    } else {
        lambda_http::run(app).await
    }
}
