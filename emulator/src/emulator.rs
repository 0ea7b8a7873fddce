//! [`Emulator`]: the AgentCore platform front over per-session containers, configured in
//! code (every flag of the binary is a setter), started on a port of its own.
//!
//! Each session's container is the agent in-process, an external A2A server, or a
//! process of the agent command of its own.

use a2a_lambda_server::push::target::TargetPolicy;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agent::IntoAgent;
use a2a_lambda_server::host::graceful;
use a2a_lambda_server::host::listen::{self, Gauges, Limits};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::front;
#[cfg(feature = "auth")]
use crate::front::auth::InboundAuth;
use crate::front::container::AgentFactory;
use crate::front::limits::FaultSpec;
use crate::front::process::Processes;
use crate::running::Running;

mod assemble;
mod in_process;
pub use in_process::FrontService;

/// Why an emulator could not start or serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmulatorError {
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The agent's card or the public URL is invalid.
    #[error("{0}")]
    Card(#[from] a2a_lambda_core::card::CardError),
    /// A setting is invalid.
    #[error("{0}")]
    Config(String),
    /// The server failed.
    #[error("server error: {0}")]
    Serve(#[from] std::io::Error),
    /// The request header allowlist breaks one of AgentCore's rules.
    #[error("request header allowlist: {0}")]
    Allowlist(#[from] crate::AllowlistError),
}

/// What runs behind the front.
enum Target {
    /// An agent in-process: one engine per session.
    Agent { make: AgentFactory, name: String },
    /// An external A2A server shared by every session.
    Upstream(String),
    /// A shell command run once per session.
    Command(String),
}

/// How long an agent process gets between SIGTERM and SIGKILL.
pub(crate) const AGENT_STOP_GRACE: Duration = Duration::from_secs(5);

/// AgentCore's invocation rate per endpoint (InvokeAgentRuntime requests a second).
pub(crate) const AGENTCORE_INVOCATIONS_PER_SECOND: u32 = 25;

/// The header a JWT runtime's allowlist adds by default.
const AUTHORIZATION_HEADER: &str = "Authorization";

/// An AgentCore Runtime emulator around an agent, built like a test double: set what the
/// test needs, [`start`](Emulator::start) it, read its [`url`](Running::url).
///
/// Defaults are AgentCore's (15-minute idle timeout, 8-hour lifetime, 100 MB payloads,
/// 15-minute request timeout), on `127.0.0.1` and a free port, except one that would get
/// in a test's way: invocations are not throttled. [`agentcore_quotas`](Emulator::agentcore_quotas)
/// turns on AgentCore's 25 a second (as the `a2a-emulator` binary does by default), and
/// [`rate_limit`](Emulator::rate_limit) sets another.
///
/// ```no_run
/// # async fn test() -> Result<(), a2a_lambda_emulator::EmulatorError> {
/// let emulator = a2a_lambda_emulator::Emulator::new(a2a_lambda_server::agents::EchoAgent).start().await?;
/// let url = emulator.url(); // the AgentCore invocation URL of the agent
/// # let _ = url; Ok(()) }
/// ```
#[must_use = "an emulator does nothing until started"]
pub struct Emulator {
    target: Target,
    address: SocketAddr,
    public_url: Option<String>,
    error_profile: ErrorProfile,
    runtime_arn: Option<String>,
    max_body_bytes: usize,
    rate_limit: u32,
    session_startup: Duration,
    exclusive_sessions: bool,
    idle_timeout: Duration,
    max_lifetime: Duration,
    request_timeout: Duration,
    faults: Option<FaultSpec>,
    seed: Option<u64>,
    shutdown_grace: Duration,
    agent_startup_timeout: Duration,
    /// The request header allowlist as given (checked at start); `None`: the default.
    request_header_allowlist: Option<Vec<String>>,
    #[cfg(feature = "auth")]
    auth: Option<Box<InboundAuth>>,
    max_stream_duration: Duration,
    max_sessions: usize,
    qualifier: String,
    /// Where webhooks may point; `None`: push notifications off.
    push_targets: Option<TargetPolicy>,
    /// The inspector's journal size (invocations kept); `None`: the inspector is off.
    journal_size: Option<usize>,
    /// Bytes of each body the journal keeps.
    journal_body_bytes: usize,
    /// The bound in bytes the in-process sessions' task stores share.
    task_store_bytes: usize,
    /// The connections' timeouts and cap (its grace is `shutdown_grace`).
    connection_limits: Limits,
}

impl std::fmt::Debug for Emulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emulator")
            .field("target", &self.describe())
            .field("address", &self.address)
            .field("rate_limit", &self.rate_limit)
            .field("faults", &self.faults)
            .finish_non_exhaustive()
    }
}

impl Emulator {
    /// An emulator whose sessions all run `agent`, each on an engine and task store of its
    /// own (a session's tasks are invisible to another, as on AgentCore).
    pub fn new(agent: impl IntoAgent) -> Self {
        let agent = agent.into_agent();
        Self::with_target(Target::Agent {
            make: Arc::new(move || agent.clone()),
            name: "your agent".to_owned(),
        })
    }

    /// An emulator that gives each new session an agent of its own from `factory`, as
    /// AgentCore starts a fresh microVM per session: no state is shared between sessions.
    pub fn per_session<F, A>(factory: F) -> Self
    where
        F: Fn() -> A + Send + Sync + 'static,
        A: IntoAgent,
    {
        Self::with_target(Target::Agent {
            make: Arc::new(move || factory().into_agent()),
            name: "your agent, one per session".to_owned(),
        })
    }

    /// An emulator in front of an external A2A server (for example a Python or JS agent),
    /// shared by every session. Unreachable: 424/-32055.
    pub fn upstream(url: impl Into<String>) -> Self {
        Self::with_target(Target::Upstream(url.into()))
    }

    /// An emulator that runs `command` (with `sh -c`) for each new session, as AgentCore
    /// starts a microVM per session: the process gets `PORT` (a free loopback port),
    /// `A2A_HOST=127.0.0.1`, `AGENTCORE_RUNTIME_URL` (the public URL) and `A2A_SESSION_ID`,
    /// must answer `GET /ping` with 200 within the
    /// [startup timeout](Emulator::agent_startup_timeout) and then serves A2A on that port.
    /// Until it does the session is starting (other invocations get the retryable
    /// 409/-32054); one that exits or never listens is 424/-32055 and ends its session. Its
    /// output is logged line by line, prefixed with the session id; it is stopped (SIGTERM,
    /// SIGKILL 5 s later) when its session ends and when the emulator stops.
    pub fn command(command: impl Into<String>) -> Self {
        Self::with_target(Target::Command(command.into()))
    }

    fn with_target(target: Target) -> Self {
        Self {
            target,
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            public_url: None,
            error_profile: ErrorProfile::Spec,
            runtime_arn: None,
            max_body_bytes: 100 * 1024 * 1024,
            rate_limit: 0,
            session_startup: Duration::ZERO,
            exclusive_sessions: false,
            idle_timeout: Duration::from_secs(900),
            max_lifetime: Duration::from_secs(28_800),
            request_timeout: Duration::from_secs(900),
            faults: None,
            seed: None,
            shutdown_grace: Duration::from_secs(10),
            agent_startup_timeout: Duration::from_secs(30),
            request_header_allowlist: None,
            #[cfg(feature = "auth")]
            auth: None,
            max_stream_duration: Duration::from_secs(3600),
            max_sessions: front::DEFAULT_MAX_SESSIONS,
            qualifier: "DEFAULT".to_owned(),
            push_targets: Some(TargetPolicy::Loopback),
            journal_size: Some(crate::inspector::DEFAULT_JOURNAL_SIZE),
            journal_body_bytes: crate::inspector::DEFAULT_JOURNAL_BODY_BYTES,
            task_store_bytes: a2a_lambda_server::tasks::DEFAULT_IN_MEMORY_BYTES,
            connection_limits: Limits::default(),
        }
    }

    /// Names the agent in the startup line and logs.
    pub fn agent_name(mut self, name: impl Into<String>) -> Self {
        if let Target::Agent { name: current, .. } = &mut self.target {
            *current = name.into();
        }
        self
    }

    /// Where to listen (default `127.0.0.1:0`, a free port).
    pub fn address(mut self, address: SocketAddr) -> Self {
        self.address = address;
        self
    }

    /// The URL the container's card advertises (default `http://{address}/`). Cards
    /// fetched on an invocation path always advertise that invocation URL.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// How the container reports A2A refusals (default [`ErrorProfile::Spec`]).
    pub fn error_profile(mut self, profile: ErrorProfile) -> Self {
        self.error_profile = profile;
        self
    }

    /// Serves only this runtime ARN on the invocation paths; others get 404/-32051.
    pub fn runtime_arn(mut self, arn: impl Into<String>) -> Self {
        self.runtime_arn = Some(arn.into());
        self
    }

    /// Largest invocation payload; larger: 400/-32052 (AgentCore: 100 MB).
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Invocations a second before 429/-32053 (AgentCore: 25); 0 (the default) turns
    /// throttling off.
    pub fn rate_limit(mut self, per_second: u32) -> Self {
        self.rate_limit = per_second;
        self
    }

    /// AgentCore's invocation quota: 25 a second per endpoint, then 429/-32053
    /// (ThrottlingException), as the `a2a-emulator` binary runs by default. Source: Amazon
    /// Bedrock AgentCore Developer Guide, "Quotas for Amazon Bedrock AgentCore"
    /// (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/bedrock-agentcore-limits.html>).
    pub fn agentcore_quotas(self) -> Self {
        self.rate_limit(AGENTCORE_INVOCATIONS_PER_SECOND)
    }

    /// How long a new session takes to start (and an ended one to stop); meanwhile
    /// invocations get the retryable 409/-32054.
    pub fn session_startup(mut self, startup: Duration) -> Self {
        self.session_startup = startup;
        self
    }

    /// Refuse a second concurrent invocation on a busy session with the retryable 409.
    pub fn exclusive_sessions(mut self, exclusive: bool) -> Self {
        self.exclusive_sessions = exclusive;
        self
    }

    /// How long an unused session lives (AgentCore: 15 minutes).
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long a session lives at most (AgentCore: 8 hours).
    pub fn max_lifetime(mut self, lifetime: Duration) -> Self {
        self.max_lifetime = lifetime;
        self
    }

    /// How long an invocation may take before 424/-32055 (AgentCore: 15 minutes).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Injects faults per invocation ([`FaultSpec`], parsed from
    /// `throttle=0.1,conflict=0.05,runtime-error=0.01,internal=0.01,latency=200ms`;
    /// `session-lost=P` ends the session as if its container died, answering 424/-32055).
    pub fn faults(mut self, faults: FaultSpec) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Seeds fault injection, for reproducible runs (default: from the clock).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// How long in-flight requests get to finish on shutdown (default 10 s).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// How long an agent command's process may take to answer `GET /ping` with 200
    /// (default 30 s); later, its session's first invocation gets 424/-32055.
    pub fn agent_startup_timeout(mut self, timeout: Duration) -> Self {
        self.agent_startup_timeout = timeout;
        self
    }

    /// The runtime's request header allowlist: the caller's headers AgentCore passes to the
    /// container (besides its own: content type, accept, the session, user and request
    /// ids). Default: [`DEFAULT_REQUEST_HEADER_ALLOWLIST`](crate::DEFAULT_REQUEST_HEADER_ALLOWLIST)
    /// (`A2A-Version`, `A2A-Extensions`, `Last-Event-ID`), what our AgentCore deployment
    /// allowlists; empty: nothing passes. Checked against AgentCore's rules when the
    /// emulator starts ([`RequestHeaderAllowlist::new`](crate::RequestHeaderAllowlist::new)).
    ///
    /// ```
    /// use a2a_lambda_emulator::{Emulator, EmulatorError};
    /// use a2a_lambda_server::agents::EchoAgent;
    ///
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent)
    ///     .request_header_allowlist(["A2A-Version", "X-Tenant"])
    ///     .start()
    ///     .await?;
    /// emulator.shutdown().await?;
    /// let refused = Emulator::new(EchoAgent).request_header_allowlist(["Cookie"]).start().await;
    /// assert!(matches!(refused, Err(EmulatorError::Allowlist(_))));
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn request_header_allowlist<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.request_header_allowlist = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Authenticates callers as an AgentCore runtime does (default: off): SigV4 with the
    /// given credentials, or a JWT authorizer.
    ///
    /// ```
    /// use a2a_lambda_emulator::{Emulator, InboundAuth, JwtAuthorizer, TestIssuer, TokenRequest};
    /// use a2a_lambda_server::agents::EchoAgent;
    ///
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let issuer = TestIssuer::generate()?;
    /// let authorizer = JwtAuthorizer::trusting(&issuer).allowed_scopes(["a2a/invoke"]);
    /// let emulator = Emulator::new(EchoAgent).auth(InboundAuth::Jwt(authorizer)).start().await?;
    /// let token = issuer.token(&TokenRequest::new("alice").scope("a2a/invoke"))?;
    /// // Send it as `Authorization: Bearer {token}` to emulator.url().
    /// # let _ = token;
    /// emulator.shutdown().await?;
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    #[cfg(feature = "auth")]
    pub fn auth(mut self, auth: InboundAuth) -> Self {
        self.auth = Some(Box::new(auth));
        self
    }

    /// How long a streaming response may last before it is cut (AgentCore: 60 minutes,
    /// "Streaming maximum duration" on the
    /// [quotas page](https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/bedrock-agentcore-limits.html)).
    /// The connection is dropped without a closing event.
    pub fn max_stream_duration(mut self, duration: Duration) -> Self {
        self.max_stream_duration = duration;
        self
    }

    /// Live sessions at most (AgentCore's active-session quota: 1,000 in US East (N.
    /// Virginia) and US West (Oregon)); an invocation that would start one more gets 402
    /// `ServiceQuotaExceededException`. 0 refuses every new session.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// The endpoint served (default `DEFAULT`, as AWS assumes without `?qualifier=`); AWS's
    /// paths naming another qualifier get 404 (ResourceNotFoundException).
    pub fn qualifier(mut self, qualifier: impl Into<String>) -> Self {
        self.qualifier = qualifier.into();
        self
    }

    /// Whether the agent delivers push notifications (default: yes, the push methods are
    /// served and the card says `pushNotifications: true`; `false`: they answer -32003).
    pub fn push_notifications(mut self, on: bool) -> Self {
        self.push_targets = on.then(|| self.push_targets.unwrap_or(TargetPolicy::Loopback));
        self
    }

    /// Where webhooks may point (default [`TargetPolicy::Loopback`]: public `https`
    /// addresses, and plain `http` on this machine's loopback, where the emulator's own
    /// webhook sink and a local receiver listen). Turns push notifications on.
    pub fn push_targets(mut self, targets: TargetPolicy) -> Self {
        self.push_targets = Some(targets);
        self
    }

    /// What runs behind the front, for the startup line.
    pub fn describe(&self) -> String {
        match &self.target {
            Target::Agent { name, .. } => format!("AgentCore front, agent: {name}"),
            Target::Upstream(url) => format!("AgentCore front, upstream: {url}"),
            Target::Command(command) => format!("AgentCore front, agent command: {command}"),
        }
    }

    /// Binds the address and serves in the background until [`Running::shutdown`] (or
    /// until the [`Running`] is dropped).
    ///
    /// # Errors
    /// A setting is invalid, the address cannot be bound, or the agent's card is invalid.
    pub async fn start(self) -> Result<Running, EmulatorError> {
        let address = self.address;
        let listener = TcpListener::bind(address)
            .await
            .map_err(|source| EmulatorError::Bind { address, source })?;
        let bound = listener.local_addr()?;
        let public_url = self
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}/", graceful::reachable(bound)));
        let grace = self.shutdown_grace;
        let self_limits = self.connection_limits;
        let processes =
            matches!(self.target, Target::Command(_)).then(|| Arc::new(Processes::new()));
        let webhooks = Arc::<crate::front::webhooks::Sinks>::default();
        let journal = self
            .journal_size
            .map(|size| crate::Journal::new(size, self.journal_body_bytes));
        // The OTLP receiver is part of the inspector: on with it.
        let telemetry = journal.is_some().then(crate::telemetry::Telemetry::new);
        let service = self.front(
            bound,
            &public_url,
            processes.clone(),
            Arc::clone(&webhooks),
            journal.clone(),
            telemetry.clone(),
        )?;
        let (stop, stopped) = watch::channel(false);
        let mut limits = self_limits;
        limits.shutdown_grace = grace;
        let gauges = Arc::new(Gauges::default());
        let task = tokio::spawn(listen::serve(
            listener,
            service,
            limits,
            stopped,
            Arc::clone(&gauges),
        ));
        Ok(Running {
            address: bound,
            url: format!("http://{}", graceful::reachable(bound)),
            public_url,
            stop,
            task: Some(task),
            processes,
            webhooks,
            journal,
            telemetry,
            gauges,
        })
    }

    /// Whether the inspector runs (default: yes): the journal of invocations, sessions and
    /// tasks ([`Running::journal`]), its API under `/_emulator/api/`, the live page at
    /// `/_emulator/`, and the OTLP receiver (`/v1/traces`, `/v1/metrics`) whose traces the
    /// page shows ([`Running::telemetry`]). Off, the front records nothing and those paths
    /// answer 404; the webhook sinks (`/_emulator/webhooks/`) are served either way.
    pub fn inspector(mut self, on: bool) -> Self {
        self.journal_size = on.then_some(
            self.journal_size
                .unwrap_or(crate::inspector::DEFAULT_JOURNAL_SIZE),
        );
        self
    }

    /// How many invocations the journal keeps, and as many sessions and tasks (default
    /// [`DEFAULT_JOURNAL_SIZE`](crate::inspector::DEFAULT_JOURNAL_SIZE); the oldest are
    /// dropped first; at least 1). Turns the inspector on.
    pub fn journal_size(mut self, entries: usize) -> Self {
        self.journal_size = Some(entries.max(1));
        self
    }

    /// How many bytes of each request and answer body the journal keeps (default
    /// [`DEFAULT_JOURNAL_BODY_BYTES`](crate::inspector::DEFAULT_JOURNAL_BODY_BYTES)).
    pub fn journal_body_bytes(mut self, bytes: usize) -> Self {
        self.journal_body_bytes = bytes;
        self
    }

    /// About how many bytes of tasks the sessions of an in-process agent keep, all
    /// together (default [`DEFAULT_IN_MEMORY_BYTES`](a2a_lambda_server::tasks::DEFAULT_IN_MEMORY_BYTES),
    /// 256 MiB), before the oldest finished tasks are forgotten, first in the session
    /// written to, then in the oldest sessions; running tasks never are. An agent command
    /// or upstream keeps its own tasks.
    pub fn task_store_bytes(mut self, bytes: usize) -> Self {
        self.task_store_bytes = bytes;
        self
    }

    /// The connections' timeouts and cap at once ([`Limits`]; its `shutdown_grace` is
    /// ignored: [`shutdown_grace`](Emulator::shutdown_grace) sets it).
    pub fn connection_limits(mut self, limits: Limits) -> Self {
        self.connection_limits = limits;
        self
    }

    /// How long a connection may take to send a request's headers, counted from when it
    /// opened or was last answered, so also the keep-alive idle timeout (default 60 s).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.connection_limits.header_read_timeout = timeout;
        self
    }

    /// How long a request body may go without a byte before `408` and a JSON-RPC `-32600`
    /// (default 60 s, between chunks: a 100 MB upload that keeps arriving is never cut).
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.connection_limits.body_read_timeout = timeout;
        self
    }

    /// How long a write may wait for a client that does not read before its connection
    /// is closed and its stream dropped (default 60 s).
    pub fn write_stall_timeout(mut self, timeout: Duration) -> Self {
        self.connection_limits.write_stall_timeout = timeout;
        self
    }

    /// Connections open at once; one more gets `503`, `Retry-After: 1` and a JSON-RPC
    /// `-32603` (default 10,000).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.connection_limits.max_connections = connections;
        self
    }
}
