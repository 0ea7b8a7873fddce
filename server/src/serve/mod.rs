//! Your agent as an AWS Bedrock AgentCore Runtime container: the shared router on
//! `0.0.0.0:9000` (`POST /`, the card, `/ping`), the card's URL from
//! `AGENTCORE_RUNTIME_URL`, and a graceful drain on SIGTERM.
//!
//! The container contract (AgentCore Developer Guide, "A2A protocol contract"): listen on
//! port 9000 of every interface, JSON-RPC on `POST /`, the card on
//! `GET /.well-known/agent-card.json`, health on `GET /ping`; the platform tells the
//! container its public URL in `AGENTCORE_RUNTIME_URL`.
//!
//! [`serve`] reads its settings from the environment ([`ContainerConfig::from_env`]);
//! [`Container`] sets them in code, and [`Container::bind`] starts one on a port of its own
//! for a test:
//!
//! ```
//! # async fn example() -> Result<(), a2a_lambda_server::serve::ServeError> {
//! use a2a_lambda_server::agents::EchoAgent;
//! use a2a_lambda_server::serve::Container;
//!
//! let running = Container::new(EchoAgent)
//!     .address(([127, 0, 0, 1], 0).into())
//!     .bind()
//!     .await?;
//! println!("card: {}.well-known/agent-card.json", running.url());
//! running.shutdown().await?;
//! # Ok(())
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
//! ```

mod config;
mod container;
mod running;

pub use config::{AGENTCORE_PORT, ContainerConfig, DEFAULT_GRPC_PORT, LogFormat, VARIABLES};
pub use container::Container;
pub use running::Running;

use std::net::SocketAddr;

use a2a_lambda_core::card::CardError;

use crate::agent::IntoAgent;

/// Why a container could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A variable has a value the container cannot use.
    #[error("{name}={value:?} is not valid: {expected}")]
    Config {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// The agent's card or the public URL is invalid.
    #[error("agent card: {0}")]
    Card(#[from] CardError),
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server failed while serving.
    #[error("server error: {0}")]
    Serve(#[from] std::io::Error),
    /// The webhook client for push notifications could not be made.
    #[error("push notifications: {0}")]
    Push(#[from] crate::push::delivery::DeliveryError),
}
/// Logs to stderr in `format`, filtered by `RUST_LOG` (default `info`), off the request
/// path ([`crate::host::logging`]); colours only on a terminal and without `NO_COLOR`. Leaves a
/// subscriber already installed in place. Hold the guard until the host returns.
pub fn init_logging(format: LogFormat) -> crate::logging::LogGuard {
    crate::logging::Logging::new(format).init()
}

/// Serves `agent` as an AgentCore container with the environment's settings
/// ([`ContainerConfig::from_env`]): logs initialised, `0.0.0.0:9000` unless told, until
/// SIGTERM or Ctrl-C.
///
/// ```no_run
/// #[tokio::main]
/// async fn main() -> Result<(), a2a_lambda_server::serve::ServeError> {
///     a2a_lambda_server::serve(a2a_lambda_server::agents::EchoAgent).await
/// }
/// ```
///
/// # Errors
/// A variable is invalid, the port cannot be bound, the card is invalid, or the server
/// failed; each is logged before it is returned.
pub async fn serve(agent: impl IntoAgent) -> Result<(), ServeError> {
    let config = ContainerConfig::from_env();
    let _logs = init_logging(
        config
            .as_ref()
            .map_or(LogFormat::Text, |config| config.log_format),
    );
    let served = match config {
        Ok(config) => Container::with_config(agent, config).serve().await,
        Err(error) => Err(error),
    };
    if let Err(error) = &served {
        tracing::error!(%error, "container failed");
    }
    served
}
