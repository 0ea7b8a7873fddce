//! `a2a-container`: a built-in agent as an AWS Bedrock AgentCore Runtime container —
//! `a2a_lambda_server::serve` with the agent named by `A2A_AGENT` (`echo`, the default, or
//! `conformance`). Every other setting is `serve`'s environment
//! (`a2a_lambda_server::serve::VARIABLES`). Prints one line once it listens:
//! `a2a-container listening on http://ADDRESS (agent: NAME, card url: URL)`, with
//! `, gRPC on http://ADDRESS` before the parenthesis closes when it serves gRPC (built
//! with the `grpc` feature, `A2A_BINDINGS` naming `grpc`).

use std::process::ExitCode;

use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::graceful::shutdown_signal;
use a2a_lambda_server::serve::{Container, ContainerConfig, ServeError, init_logging};

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("a2a-container: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), ServeError> {
    let config = ContainerConfig::from_env()?;
    let _logs = init_logging(config.log_format);
    let agent = match std::env::var("A2A_AGENT") {
        Ok(name) if !name.trim().is_empty() => {
            name.parse::<BuiltIn>().map_err(|_| ServeError::Config {
                name: "A2A_AGENT",
                value: name,
                expected: "echo or conformance",
            })?
        }
        _ => BuiltIn::Echo,
    };
    let running = Container::with_config(agent.agent(), config).bind().await?;
    let grpc = running
        .grpc_address()
        .map(|address| format!(", gRPC on http://{address}"))
        .unwrap_or_default();
    println!(
        "a2a-container listening on http://{} (agent: {agent}, card url: {}{grpc})",
        running.address(),
        running.url()
    );
    shutdown_signal().await;
    let stopped = running.shutdown().await;
    if let Err(error) = &stopped {
        // Logged while the logs still run (they stop, flushed, as `run` returns).
        tracing::error!(%error, "container failed");
    }
    stopped
}
