//! # a2a-agent
//!
//! The A2A agent as an AWS Lambda function: the shared `a2a-core` router served by
//! `lambda_http` behind a Function URL, API Gateway (HTTP API or REST, stage prefix
//! included) or an ALB. Buffered by default; with `A2A_STREAMING=true` (a Function URL in
//! `RESPONSE_STREAM` mode) streams answer as server-sent events as they happen.
//!
//! Configuration is read from the environment at init ([`config::Config`]); a bad value
//! fails the init with a clear log line.
//!
//! Tasks live in the instance's memory, or with `A2A_TASK_TABLE` in a DynamoDB table
//! shared by every instance ([`dynamo::DynamoTaskStore`]).

pub mod app;
pub mod config;
pub mod dynamo;
pub mod logging;

use std::sync::Arc;
use std::time::Instant;

use a2a_core::engine::{Engine, EngineConfig};
use a2a_core::tasks::{InMemoryTaskStore, TaskStore};

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

/// The task store a configuration names: the DynamoDB table of `A2A_TASK_TABLE`, or the
/// instance's memory. Neither makes a network call; the time it took is logged.
pub fn task_store(config: &Config) -> Arc<dyn TaskStore> {
    let started = Instant::now();
    match &config.task_table {
        None => {
            let store = Arc::new(InMemoryTaskStore::new());
            tracing::info!(
                store = "memory",
                build_ms = started.elapsed().as_secs_f64() * 1000.0,
                "task store ready"
            );
            store
        }
        Some(settings) => {
            let store = Arc::new(dynamo::DynamoTaskStore::new(settings));
            tracing::info!(
                store = "dynamodb",
                table = settings.table,
                region = settings.region,
                endpoint = settings.endpoint.as_deref().unwrap_or("aws"),
                retention_days = settings.retention.as_secs() / 86_400,
                build_ms = started.elapsed().as_secs_f64() * 1000.0,
                "task store ready"
            );
            store
        }
    }
}

/// The engine for a configuration, on the task store it names ([`task_store`]).
///
/// # Errors
/// The agent's card is invalid.
pub fn engine(config: &Config) -> Result<Engine, InitError> {
    engine_with_store(config, task_store(config))
}

/// The engine for a configuration, on a given task store.
///
/// # Errors
/// The agent's card is invalid.
pub fn engine_with_store(config: &Config, store: Arc<dyn TaskStore>) -> Result<Engine, InitError> {
    Ok(Engine::new(
        config.agent.agent(),
        store,
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
        task_store = if config.task_table.is_some() { "dynamodb" } else { "memory" },
        init_ms = started.elapsed().as_secs_f64() * 1000.0,
        "init complete"
    );
    if config.streaming {
        lambda_http::run_with_streaming_response(app).await
    } else {
        lambda_http::run(app).await
    }
}
