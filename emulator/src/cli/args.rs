//! [`Args`]: every flag of the `a2a-emulator` binary, each with an environment fallback and
//! its AgentCore meaning, and how a caller parses them.

use std::net::IpAddr;

use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::LogFormat;
use clap::{CommandFactory as _, FromArgMatches as _};

use crate::{ErrorProfile, FaultSpec};

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
    /// `stream-cut=P` cuts an SSE answer (message/stream, SendStreamingMessage,
    /// tasks/resubscribe, SubscribeToTask) after 1 to 3 events, drawn with --seed, as a
    /// dropped connection: the body breaks off with no final event. It tests that a
    /// client resubscribes with Last-Event-ID and goes on without repeating an event.
    /// `session-lost=P`: the session's container vanishes (its streams are cut, its tasks
    /// gone, the next invocation starts a fresh session) and the invocation gets 424/-32055.
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

    /// The runtime's request header allowlist, comma-separated: the caller's headers
    /// AgentCore passes to the container (it drops every other one, and values over 4 KB).
    /// The default is what our AgentCore deployment allowlists: A2A-Version and
    /// A2A-Extensions (a v1.0 client's) and Last-Event-ID (resuming a stream), and with
    /// `--auth jwt` also Authorization (so the agent sees its caller). An empty value
    /// allowlists nothing. At most 20 names; no x-amz-*, no x-amzn-* but
    /// X-Amzn-Bedrock-AgentCore-Runtime-Custom-*, no restricted header (Accept, Content-*,
    /// Host, Cookie, …), no Authorization without a JWT authorizer.
    #[arg(long, env = "A2A_REQUEST_HEADER_ALLOWLIST", value_name = "NAME,…")]
    pub request_header_allowlist: Option<String>,

    /// Inbound auth, as an AgentCore runtime's (default: none): `sigv4` (requests signed
    /// for bedrock-agentcore with --sigv4-credentials, else AWS_ACCESS_KEY_ID and
    /// AWS_SECRET_ACCESS_KEY; else 403 AccessDeniedException) or `jwt` (a bearer token
    /// checked as a customJWTAuthorizer does; else 401 with WWW-Authenticate). Needs the
    /// `auth` feature (`cargo run -p a2a-lambda-emulator --features auth`); a binary built
    /// without it refuses this flag.
    #[arg(long, env = "A2A_AUTH", value_parser = ["sigv4", "jwt"])]
    pub auth: Option<String>,

    /// The credentials `--auth sigv4` checks signatures with:
    /// `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`.
    #[arg(long, env = "A2A_SIGV4_CREDENTIALS", hide_env_values = true)]
    pub sigv4_credentials: Option<crate::SigV4Keys>,

    /// `--auth jwt`: the issuer's OIDC discovery URL (…/.well-known/openid-configuration);
    /// its jwks_uri is fetched and cached. Default: the emulator's own key.
    #[arg(long, env = "A2A_JWT_DISCOVERY_URL", conflicts_with = "jwt_jwks")]
    pub jwt_discovery_url: Option<String>,

    /// `--auth jwt`: a JWKS file of the issuer's public keys (instead of discovery).
    #[arg(long, env = "A2A_JWT_JWKS")]
    pub jwt_jwks: Option<std::path::PathBuf>,

    /// `--auth jwt`: allowedAudience, comma-separated (a token's `aud` must be one).
    #[arg(long, env = "A2A_JWT_ALLOWED_AUDIENCE", value_delimiter = ',')]
    pub jwt_allowed_audience: Vec<String>,

    /// `--auth jwt`: allowedClients, comma-separated (a token's `client_id` must be one).
    #[arg(long, env = "A2A_JWT_ALLOWED_CLIENTS", value_delimiter = ',')]
    pub jwt_allowed_clients: Vec<String>,

    /// `--auth jwt`: allowedScopes, comma-separated (one of a token's scopes must be one).
    #[arg(long, env = "A2A_JWT_ALLOWED_SCOPES", value_delimiter = ',')]
    pub jwt_allowed_scopes: Vec<String>,

    /// The emulator's own JWT signing key (PEM: P-256 PKCS#8 or RSA PKCS#1), for `token`
    /// and `--auth jwt`, instead of the one kept under --state-dir.
    #[arg(long, env = "A2A_JWT_SIGNING_KEY", global = true)]
    pub jwt_signing_key: Option<std::path::PathBuf>,

    /// Where the emulator keeps its JWT signing key (default: $XDG_STATE_HOME/a2a-emulator
    /// or ~/.local/state/a2a-emulator).
    #[arg(long, env = "A2A_EMULATOR_STATE_DIR", global = true)]
    pub state_dir: Option<std::path::PathBuf>,

    /// `token` prints a JWT for `--auth jwt`; without a subcommand the emulator serves.
    #[command(subcommand)]
    pub command: Option<crate::auth_flags::Command>,
    /// Seconds a streaming response may last (AgentCore's "Streaming maximum duration": 60
    /// minutes); then the connection is dropped without a closing event.
    #[arg(long, env = "A2A_MAX_STREAM_SECONDS", default_value_t = 3600)]
    pub max_stream_seconds: u64,

    /// Live sessions at most (AgentCore's active-session quota: 1,000 in US East (N.
    /// Virginia) and US West (Oregon), 500 elsewhere); an invocation that would start one
    /// more gets 402 ServiceQuotaExceededException (AWS's JSON shape, not JSON-RPC).
    #[arg(long, env = "A2A_MAX_SESSIONS", default_value_t = crate::front::DEFAULT_MAX_SESSIONS)]
    pub max_sessions: usize,

    /// The endpoint (alias) served, as `?qualifier=` names it on AWS's paths (AWS: DEFAULT
    /// when absent); another gets 404 (ResourceNotFoundException).
    #[arg(long, env = "A2A_QUALIFIER", default_value = "DEFAULT")]
    pub qualifier: String,

    /// Whether the agent delivers push notifications (`on`: the push-config methods are
    /// served and webhooks told of every status change; `off`: they answer -32003).
    #[arg(long, env = "A2A_PUSH_NOTIFICATIONS", default_value = "on", value_parser = ["on", "off"])]
    pub push_notifications: String,

    /// Lets webhooks point anywhere: plain http, private and link-local addresses
    /// (`A2A_PUSH_ALLOW_PRIVATE=true`). By default a webhook must be https to a public
    /// address, or http on this machine's loopback (the emulator's own webhook sink).
    #[arg(long, env = "A2A_PUSH_ALLOW_PRIVATE")]
    pub push_allow_insecure_targets: bool,

    /// The inspector: a journal of invocations, sessions and tasks (secrets masked), its
    /// JSON API under /_emulator/api/ and a live page at /_emulator/ (`off`: nothing is
    /// recorded and those paths answer 404; the webhook sinks stay).
    #[arg(long, env = "A2A_INSPECTOR", default_value = "on", value_parser = ["on", "off"])]
    pub inspector: String,

    /// Invocations the inspector's journal keeps (and as many sessions and tasks); the
    /// oldest are dropped first.
    #[arg(long, env = "A2A_JOURNAL_SIZE", default_value_t = crate::inspector::DEFAULT_JOURNAL_SIZE)]
    pub journal_size: usize,

    /// Bytes of each request and answer body the journal keeps.
    #[arg(long, env = "A2A_JOURNAL_BODY_BYTES", default_value_t = crate::inspector::DEFAULT_JOURNAL_BODY_BYTES)]
    pub journal_body_bytes: usize,

    /// About how many bytes of tasks the in-process agent's task stores keep, all sessions
    /// together, before the oldest finished tasks are forgotten (a get of one then answers
    /// -32001); running tasks are never forgotten.
    #[arg(long, env = "A2A_TASK_STORE_BYTES", default_value_t = a2a_lambda_server::tasks::DEFAULT_IN_MEMORY_BYTES)]
    pub task_store_bytes: usize,
    /// Seconds a connection may take to send a request's headers, counted from when it
    /// opened or was last answered (so also the keep-alive idle timeout); later it is
    /// closed. Decimals allowed.
    #[arg(long, env = "A2A_HEADER_READ_TIMEOUT_SECONDS", default_value_t = 60.0)]
    pub header_read_timeout: f64,

    /// Seconds a request body may go without a byte arriving (between chunks, not in
    /// total); then the request is answered 408 with a JSON-RPC -32600 and the
    /// connection closed.
    #[arg(long, env = "A2A_BODY_READ_TIMEOUT_SECONDS", default_value_t = 60.0)]
    pub body_read_timeout: f64,

    /// Seconds a write may wait for a client that does not read (an SSE reader that
    /// stopped) before its connection is closed.
    #[arg(long, env = "A2A_WRITE_STALL_TIMEOUT_SECONDS", default_value_t = 60.0)]
    pub write_stall_timeout: f64,

    /// Connections open at once; one more is answered 503 with Retry-After: 1 and a
    /// JSON-RPC -32603, and closed.
    #[arg(long, env = "A2A_MAX_CONNECTIONS", default_value_t = a2a_lambda_server::host::listen::DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,
}

impl Args {
    /// Parses `argv` (the program name first) the way the binary does, except that no
    /// environment variable is read: a flag left out takes its default even when its
    /// `A2A_*` variable is set. For callers, such as tests, whose process environment
    /// is not theirs to configure.
    ///
    /// # Errors
    /// An unknown flag or a bad value, as the binary reports it (`--help` and `--version`
    /// are errors of their kinds too).
    pub fn try_parse_args_only<I, T>(argv: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Self::command()
            .mut_args(|arg| arg.env(None))
            .try_get_matches_from(argv)?;
        Self::from_arg_matches(&matches)
    }

    /// The log format `--log-format` names.
    pub fn log_format(&self) -> LogFormat {
        if self.log_format == "json" {
            LogFormat::Json
        } else {
            LogFormat::Text
        }
    }

    /// Logs to stderr in the flag's format, filtered by `RUST_LOG` (default `info`), off
    /// the request path; hold the guard until the emulator returns.
    ///
    /// Built with `otel`, the emulator's own spans and its in-process agent's are
    /// exported to its OTLP receiver (`http://127.0.0.1:PORT`) unless the `OTEL_*`
    /// variables name an endpoint: not with `--port 0` (the port is not known yet) nor
    /// with the inspector off (no receiver).
    pub fn init_logging(&self) -> a2a_lambda_server::host::logging::LogGuard {
        let logging = a2a_lambda_server::host::logging::Logging::new(self.log_format());
        #[cfg(feature = "otel")]
        let logging = if self.port != 0 && self.inspector != "off" && self.command.is_none() {
            let host = match self.host {
                host if host.is_unspecified() => "127.0.0.1".to_owned(),
                IpAddr::V6(host) => format!("[{host}]"),
                IpAddr::V4(host) => host.to_string(),
            };
            logging.telemetry_fallback(format!("http://{host}:{}", self.port))
        } else {
            logging
        };
        logging.init()
    }
}
