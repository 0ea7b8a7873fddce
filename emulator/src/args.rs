//! Command-line flags, each with an environment fallback and its AgentCore meaning.

use std::net::IpAddr;

use a2a_server::agents::BuiltIn;

use a2a_emulator::{ErrorProfile, FaultSpec};

/// An A2A agent served the way AWS Bedrock AgentCore Runtime serves one.
///
/// In front of the container (JSON-RPC on `POST /`, the card on
/// `GET /.well-known/agent-card.json`, `GET /ping`) sits the AgentCore platform front:
/// AWS's invocation paths (`POST /runtimes/{url-encoded ARN}/invocations?qualifier=…`), the
/// session header, per-session containers, throttling, faults, and AgentCore's JSON-RPC
/// errors with their real HTTP statuses.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "a2a-emulator", version, about, long_about)]
pub struct Args {
    /// Address to bind. AgentCore binds containers to 0.0.0.0; the default keeps the
    /// emulator on loopback.
    #[arg(long, env = "A2A_HOST", default_value = "127.0.0.1")]
    pub host: IpAddr,

    /// Port to bind (AgentCore's A2A contract: 9000; 0 picks a free port).
    #[arg(long, env = "A2A_PORT", default_value_t = 9000)]
    pub port: u16,

    /// Built-in agent: `echo` (echoes your text) or `conformance` (the behaviours
    /// conformance suites drive by messageId prefix). Ignored with --upstream and
    /// --agent-cmd.
    #[arg(long, env = "A2A_AGENT", default_value = "echo")]
    pub agent: BuiltIn,

    /// URL the container's card advertises. Defaults to `AGENTCORE_RUNTIME_URL` (as
    /// AgentCore sets it, a trailing slash added), else `http://HOST:PORT/`. Cards fetched
    /// on an invocation path always advertise that invocation URL.
    #[arg(long, env = "A2A_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// How the container reports A2A refusals: `spec` (HTTP 200 and the A2A code, as the
    /// A2A specification and AWS's pass-through do) or `agentcore` (every refusal mapped
    /// to AgentCore's table with its non-2xx status, as an agent mirroring the platform).
    #[arg(long, env = "A2A_ERROR_PROFILE", value_enum, default_value_t = ErrorProfile::Spec)]
    pub error_profile: ErrorProfile,

    /// Serve only the container (the A2A router), with no platform front: what runs
    /// inside an AgentCore microVM.
    #[arg(long, env = "A2A_CONTAINER_ONLY")]
    pub container_only: bool,

    /// Front an external A2A server (for example a Python or JS agent on
    /// http://127.0.0.1:9001) instead of the built-in agent. Unreachable: 424/-32055.
    #[arg(long, env = "A2A_UPSTREAM")]
    pub upstream: Option<String>,

    /// Run your agent as AgentCore runs its container, one process per session (AgentCore
    /// starts a microVM per session): `sh -c COMMAND` gets PORT (a free port), A2A_HOST
    /// (127.0.0.1), AGENTCORE_RUNTIME_URL (the public URL) and A2A_SESSION_ID, and must
    /// serve A2A there with `GET /ping` answering 200. Until it does the session is
    /// starting (the retryable 409/-32054); a process that exits or never listens is
    /// 424/-32055 (RuntimeClientError) and ends its session. `/ping` saying HealthyBusy
    /// keeps the session from idling out; it is stopped (SIGTERM, SIGKILL 5 s later) when
    /// its session ends and when the emulator stops. Its output is logged, each line
    /// prefixed with the session id. Example: `--agent-cmd 'python agent.py --port $PORT'`.
    #[arg(long, env = "A2A_AGENT_CMD", value_name = "COMMAND", conflicts_with_all = ["upstream", "container_only"])]
    pub agent_cmd: Option<String>,

    /// Seconds an --agent-cmd process may take to answer `GET /ping` with 200; later, its
    /// session's first invocation gets 424/-32055.
    #[arg(long, env = "A2A_AGENT_STARTUP_TIMEOUT", default_value_t = 30.0)]
    pub agent_startup_timeout: f64,

    /// Serve only this runtime ARN on the invocation paths; other ARNs get 404/-32051
    /// (ResourceNotFoundException). Without it, any well-formed runtime ARN is served.
    #[arg(long, env = "A2A_RUNTIME_ARN")]
    pub runtime_arn: Option<String>,

    /// Largest invocation payload in bytes (AgentCore: 100 MB); larger: 400/-32052
    /// (ValidationException).
    #[arg(long, env = "A2A_MAX_BODY_BYTES", default_value_t = 100 * 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Invocations a second before 429/-32053 (ThrottlingException); AgentCore's default
    /// is 25 per endpoint. 0 turns throttling off.
    #[arg(long, env = "A2A_RATE_LIMIT", default_value_t = 25)]
    pub rate_limit: u32,

    /// Milliseconds a new session takes to start (and an ended one to stop). Invocations
    /// on a starting or stopping session get 409/-32054 "Session operation in progress,
    /// please retry" (RetryableConflictException).
    #[arg(long, env = "A2A_SESSION_STARTUP_MS", default_value_t = 0)]
    pub session_startup_ms: u64,

    /// Refuse a second concurrent invocation on a busy session with the retryable
    /// 409/-32054.
    #[arg(long, env = "A2A_EXCLUSIVE_SESSIONS")]
    pub exclusive_sessions: bool,

    /// Seconds an unused session lives (AgentCore's idleRuntimeSessionTimeout: 900). A
    /// session whose agent is working (HealthyBusy) is not idle.
    #[arg(long, env = "A2A_IDLE_TIMEOUT", default_value_t = 900)]
    pub idle_timeout: u64,

    /// Seconds a session lives at most (AgentCore's maxLifetime: 28800, 8 hours).
    #[arg(long, env = "A2A_MAX_LIFETIME", default_value_t = 28_800)]
    pub max_lifetime: u64,

    /// Seconds an invocation may take before 424/-32055 (RuntimeClientError); AgentCore's
    /// synchronous limit is 15 minutes.
    #[arg(long, env = "A2A_REQUEST_TIMEOUT", default_value_t = 900)]
    pub request_timeout: u64,

    /// Inject faults for client testing, per invocation:
    /// `throttle=0.1,conflict=0.05,runtime-error=0.01,internal=0.01,latency=200ms`
    /// (429/-32053, retryable 409/-32054, 424/-32055, 500/-32603, added latency).
    #[arg(long, env = "A2A_FAULT")]
    pub fault: Option<FaultSpec>,

    /// Seed for fault injection, for reproducible runs (default: from the clock).
    #[arg(long, env = "A2A_SEED")]
    pub seed: Option<u64>,

    /// Seconds in-flight requests and streams get to finish after SIGTERM or Ctrl-C.
    #[arg(long, env = "A2A_SHUTDOWN_GRACE_SECONDS", default_value_t = 10)]
    pub shutdown_grace_seconds: u64,

    /// Log format: `text` or `json`.
    #[arg(long, env = "A2A_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
}
