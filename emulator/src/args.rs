//! Command-line flags (each with an environment fallback).

use std::net::IpAddr;

use a2a_core::agents::BuiltIn;

/// Serve an A2A agent on AgentCore's container contract: JSON-RPC on `POST /`, the agent
/// card on `GET /.well-known/agent-card.json`, health on `GET /ping`, port 9000.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "a2a-emulator", version, about, long_about = None)]
pub struct Args {
    /// Address to bind. AgentCore binds containers to 0.0.0.0; the default keeps the
    /// emulator on loopback.
    #[arg(long, env = "A2A_HOST", default_value = "127.0.0.1")]
    pub host: IpAddr,

    /// Port to bind (AgentCore's A2A contract uses 9000; 0 picks a free port).
    #[arg(long, env = "A2A_PORT", default_value_t = 9000)]
    pub port: u16,

    /// Built-in agent to serve: `echo` (echoes your text) or `conformance` (the behaviours
    /// conformance suites drive by messageId prefix).
    #[arg(long, env = "A2A_AGENT", default_value = "echo")]
    pub agent: BuiltIn,

    /// URL the agent card advertises. Defaults to `AGENTCORE_RUNTIME_URL` (as AgentCore
    /// sets it, a trailing slash added), else `http://HOST:PORT/`.
    #[arg(long, env = "A2A_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Seconds in-flight requests and streams get to finish after SIGTERM or Ctrl-C.
    #[arg(long, env = "A2A_SHUTDOWN_GRACE_SECONDS", default_value_t = 10)]
    pub shutdown_grace_seconds: u64,

    /// Log format: `text` or `json`.
    #[arg(long, env = "A2A_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
}
