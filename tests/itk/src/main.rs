//! The A2A interop kit's instruction agent (a2aproject/a2a-itk), built on a2a-lambda: an
//! [`agent::ItkAgent`] served by `a2a-lambda-server`'s container host in JSON-RPC,
//! HTTP+JSON and gRPC, calling the next agent with `a2a-lambda-client`. Started by the
//! kit as its mounted agent: `itk-a2a-lambda-agent --httpPort H --grpcPort G`.
//!
//! `make itk` builds it and runs the kit's scenarios with it and the kit's reference
//! agents (tests/itk/run.sh).

mod agent;
mod call;
mod instruction;
mod routes;

use a2a_lambda_server::serve::{Container, ContainerConfig, LogFormat, ServeError, init_logging};
use clap::Parser;

/// The flags the kit starts an agent with.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "The A2A interop kit's instruction agent, on a2a-lambda"
)]
struct Flags {
    /// The port of the card, JSON-RPC and HTTP+JSON (on 127.0.0.1).
    #[arg(long = "httpPort", default_value_t = 10102)]
    http_port: u16,
    /// The port of the gRPC binding (on 127.0.0.1).
    #[arg(long = "grpcPort", default_value_t = 11002)]
    grpc_port: u16,
}

#[tokio::main]
async fn main() -> Result<(), ServeError> {
    let flags = Flags::parse();
    let _logs = init_logging(LogFormat::Text);
    let served = Container::with_config(agent::ItkAgent, config(&flags)?)
        .map_router(routes::kit_paths)
        .serve()
        .await;
    if let Err(error) = &served {
        tracing::error!(%error, "the ITK agent failed");
    }
    served
}

/// The container's settings for the kit, in the container's own variables: every binding
/// on loopback, callers anonymous (no AgentCore in front to name them), and webhooks
/// allowed to the kit's notification server on this machine.
///
/// The card names the gRPC interface `127.0.0.1:{port}`, as every agent of the kit does,
/// not the container's default `http://127.0.0.1:{port}` (the absolute URL `a2a.proto`'s
/// `AgentInterface.url` asks for): the official Python and JavaScript SDKs' gRPC clients
/// pass that URL to gRPC as a channel target, and refuse `http://…` ("Misformatted domain
/// name", "Name resolution failed for target dns:http://…").
fn config(flags: &Flags) -> Result<ContainerConfig, ServeError> {
    let http_port = flags.http_port.to_string();
    let grpc_port = flags.grpc_port.to_string();
    let grpc_target = format!("127.0.0.1:{grpc_port}");
    ContainerConfig::from_lookup(|name| {
        let value = match name {
            "A2A_HOST" => "127.0.0.1",
            "PORT" => &http_port,
            "A2A_BINDINGS" => "jsonrpc,http+json,grpc",
            "A2A_GRPC_PORT" => &grpc_port,
            "A2A_GRPC_PUBLIC_URL" => &grpc_target,
            "A2A_IDENTITY" => "none",
            "A2A_PUSH_ALLOW_PRIVATE" => "loopback",
            _ => return None,
        };
        Some(value.to_owned())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_kits_flags_set_the_ports() {
        let flags =
            Flags::try_parse_from(["agent", "--httpPort", "18001", "--grpcPort", "18002"]).unwrap();
        let config = config(&flags).unwrap();
        assert_eq!(config.address, ([127, 0, 0, 1], 18001).into());
        assert_eq!(config.grpc_port, 18002);
        assert_eq!(config.grpc_public_url.as_deref(), Some("127.0.0.1:18002"));
        assert_eq!(config.bindings.to_string(), "jsonrpc,http+json,grpc");
        let error = Flags::try_parse_from(["agent", "--httpPort", "http"]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("invalid value 'http' for '--httpPort <HTTP_PORT>'"),
            "{error}"
        );
    }
}
