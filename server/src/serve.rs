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
//! # async fn example() -> Result<(), a2a_server::serve::ServeError> {
//! use a2a_server::agents::EchoAgent;
//! use a2a_server::serve::Container;
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

use crate::push::delivery::{DeliveryPolicy, Webhooks};
use crate::push::target::TargetPolicy;
use crate::push::{InMemoryPushConfigs, Push};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use a2a_core::card::{Bindings, CardError};
use a2a_core::error::ErrorProfile;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tower::util::MapRequestLayer;

use crate::agent::{IntoAgent, SharedAgent};
use crate::engine::{Engine, EngineConfig};
use crate::graceful;
use crate::http::{DEFAULT_MAX_BODY_BYTES, RouterOptions, router};
use crate::identity::Identity;
use crate::layers::{Layers, RouterLayer};
use crate::listen::{self, Gauges, Limits};
use crate::tasks::{
    DEFAULT_IN_MEMORY_BYTES, DEFAULT_IN_MEMORY_CAPACITY, InMemoryTaskStore, TaskStore,
};

/// The port AgentCore expects an A2A container on.
pub const AGENTCORE_PORT: u16 = 9000;

/// Every variable [`ContainerConfig::from_env`] reads.
pub const VARIABLES: [&str; 17] = [
    "A2A_HOST",
    "PORT",
    "A2A_PUBLIC_URL",
    "AGENTCORE_RUNTIME_URL",
    "A2A_ERROR_PROFILE",
    "A2A_MAX_BODY_BYTES",
    "A2A_SHUTDOWN_GRACE_SECONDS",
    "A2A_LOG_FORMAT",
    "A2A_IDENTITY",
    "A2A_PUSH_NOTIFICATIONS",
    "A2A_PUSH_ALLOW_PRIVATE",
    "A2A_BINDINGS",
    "A2A_TASK_STORE_BYTES",
    "A2A_HEADER_READ_TIMEOUT_SECONDS",
    "A2A_BODY_READ_TIMEOUT_SECONDS",
    "A2A_WRITE_STALL_TIMEOUT_SECONDS",
    "A2A_MAX_CONNECTIONS",
];

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

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Human-readable lines (the default).
    #[default]
    Text,
    /// One JSON object a line (what CloudWatch reads best).
    Json,
}

/// A container's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContainerConfig {
    /// Where to listen: `A2A_HOST` (default `0.0.0.0`, as AgentCore requires) and `PORT`
    /// (default 9000; 0 picks a free port).
    pub address: SocketAddr,
    /// The card's URL: `A2A_PUBLIC_URL`, else `AGENTCORE_RUNTIME_URL` (a trailing slash
    /// added), else `http://{address}/` once bound (loopback for an unspecified address).
    pub public_url: Option<String>,
    /// `A2A_ERROR_PROFILE`: `spec` (default) or `agentcore`.
    pub error_profile: ErrorProfile,
    /// `A2A_MAX_BODY_BYTES`: largest request body (default AgentCore's 100 MB).
    pub max_body_bytes: usize,
    /// `A2A_SHUTDOWN_GRACE_SECONDS`: how long in-flight requests get after SIGTERM
    /// (default 10).
    pub shutdown_grace: Duration,
    /// `A2A_LOG_FORMAT`: `text` (default) or `json`.
    pub log_format: LogFormat,
    /// `A2A_IDENTITY`: `agentcore` (default: callers as AgentCore names them) or `none`
    /// (every caller anonymous); see [`crate::host::identity`].
    pub identity: Identity,
    /// `A2A_PUSH_NOTIFICATIONS`: `on` (default: the push methods are served and webhooks
    /// told) or `off` (they answer -32003 and the card says `pushNotifications: false`).
    pub push_notifications: bool,
    /// `A2A_PUSH_ALLOW_PRIVATE`: `true` lets webhooks be plain `http` on any address,
    /// private ones included (a lab network); `loopback` allows `http` and this machine's
    /// loopback addresses besides public ones (local development: the emulator passes
    /// it); default `false`, `https` to public addresses only
    /// ([`TargetPolicy::PublicHttps`]).
    pub push_targets: TargetPolicy,
    /// `A2A_BINDINGS`: the protocol bindings served, preferred first (`jsonrpc`,
    /// `http+json`, comma-separated). Default `jsonrpc,http+json`; but `jsonrpc` alone
    /// behind AgentCore (`AGENTCORE_RUNTIME_URL` set), which passes only JSON-RPC's
    /// `POST /` to a container, so the card lists no interface a client cannot reach.
    pub bindings: Bindings,
    /// `A2A_TASK_STORE_BYTES`: about how many bytes of tasks the in-memory task store
    /// keeps before it forgets the oldest finished ones (default
    /// [`DEFAULT_IN_MEMORY_BYTES`], 256 MiB; a task store of your own,
    /// [`Container::task_store`], has its own bounds).
    pub task_store_bytes: usize,
    /// `A2A_HEADER_READ_TIMEOUT_SECONDS` (decimals allowed): how long a connection may take
    /// to send a request's headers, counted from when it opened or was last answered, so
    /// also the keep-alive idle timeout (default 60 s, [`listen::DEFAULT_HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// `A2A_BODY_READ_TIMEOUT_SECONDS`: how long a request body may go without a byte
    /// arriving before it is answered `408` (default 60 s, between chunks, not in total).
    pub body_read_timeout: Duration,
    /// `A2A_WRITE_STALL_TIMEOUT_SECONDS`: how long a write may wait for a client that does
    /// not read before its connection is closed (default 60 s).
    pub write_stall_timeout: Duration,
    /// `A2A_MAX_CONNECTIONS`: connections open at once; more are refused with `503`
    /// (default 10,000, [`listen::DEFAULT_MAX_CONNECTIONS`]).
    pub max_connections: usize,
}

impl Default for ContainerConfig {
    fn default() -> Self {
        Self {
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), AGENTCORE_PORT),
            public_url: None,
            error_profile: ErrorProfile::Spec,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            shutdown_grace: Duration::from_secs(10),
            log_format: LogFormat::Text,
            identity: Identity::AgentCore,
            push_notifications: true,
            push_targets: TargetPolicy::PublicHttps,
            bindings: Bindings::both(),
            task_store_bytes: DEFAULT_IN_MEMORY_BYTES,
            header_read_timeout: listen::DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: listen::DEFAULT_BODY_READ_TIMEOUT,
            write_stall_timeout: listen::DEFAULT_WRITE_STALL_TIMEOUT,
            max_connections: listen::DEFAULT_MAX_CONNECTIONS,
        }
    }
}

/// A positive number of seconds, decimals allowed (`0.5`).
fn seconds(name: &'static str, value: &str) -> Result<Duration, ServeError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| invalid(name, value, "a positive number of seconds"))
}

fn invalid(name: &'static str, value: &str, expected: &'static str) -> ServeError {
    ServeError::Config {
        name,
        value: value.to_owned(),
        expected,
    }
}

impl ContainerConfig {
    /// Reads the process environment ([`VARIABLES`]).
    ///
    /// # Errors
    /// [`ServeError::Config`] for the first variable with an unusable value.
    pub fn from_env() -> Result<Self, ServeError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup`; empty values count as unset.
    ///
    /// ```
    /// use a2a_server::serve::ContainerConfig;
    ///
    /// let config = ContainerConfig::from_lookup(|name| match name {
    ///     "PORT" => Some("9100".to_owned()),
    ///     "AGENTCORE_RUNTIME_URL" => Some("https://example.com/invocations".to_owned()),
    ///     _ => None,
    /// })
    /// .unwrap();
    /// assert_eq!(config.address.port(), 9100);
    /// assert_eq!(config.public_url.as_deref(), Some("https://example.com/invocations/"));
    /// assert!(ContainerConfig::from_lookup(|name| (name == "PORT").then(|| "x".into())).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ServeError::Config`] for the first variable with an unusable value.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ServeError> {
        let get = |name: &str| {
            lookup(name)
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        let mut config = Self::default();
        if let Some(host) = get("A2A_HOST") {
            let ip = host
                .parse()
                .map_err(|_| invalid("A2A_HOST", &host, "an IP address"))?;
            config.address.set_ip(ip);
        }
        if let Some(port) = get("PORT") {
            let port = port
                .parse()
                .map_err(|_| invalid("PORT", &port, "a port number (0 to 65535)"))?;
            config.address.set_port(port);
        }
        config.bindings = match get("A2A_BINDINGS") {
            Some(text) => text.parse().map_err(|_| {
                invalid(
                    "A2A_BINDINGS",
                    &text,
                    "jsonrpc, http+json or both, comma-separated, each once",
                )
            })?,
            None if get("AGENTCORE_RUNTIME_URL").is_some() => Bindings::default(),
            None => Bindings::both(),
        };
        config.public_url = match (get("A2A_PUBLIC_URL"), get("AGENTCORE_RUNTIME_URL")) {
            (Some(url), _) => Some(url),
            (None, Some(url)) if url.ends_with('/') => Some(url),
            (None, Some(url)) => Some(format!("{url}/")),
            (None, None) => None,
        };
        if let Some(profile) = get("A2A_ERROR_PROFILE") {
            config.error_profile = profile
                .parse()
                .map_err(|_| invalid("A2A_ERROR_PROFILE", &profile, "spec or agentcore"))?;
        }
        if let Some(bytes) = get("A2A_MAX_BODY_BYTES") {
            config.max_body_bytes = bytes
                .parse()
                .ok()
                .filter(|bytes| *bytes > 0)
                .ok_or_else(|| invalid("A2A_MAX_BODY_BYTES", &bytes, "a positive number"))?;
        }
        if let Some(bytes) = get("A2A_TASK_STORE_BYTES") {
            config.task_store_bytes =
                bytes
                    .parse()
                    .ok()
                    .filter(|bytes| *bytes > 0)
                    .ok_or_else(|| {
                        invalid("A2A_TASK_STORE_BYTES", &bytes, "a positive number of bytes")
                    })?;
        }
        if let Some(seconds) = get("A2A_SHUTDOWN_GRACE_SECONDS") {
            config.shutdown_grace = seconds
                .parse()
                .map(Duration::from_secs)
                .map_err(|_| invalid("A2A_SHUTDOWN_GRACE_SECONDS", &seconds, "whole seconds"))?;
        }
        config.log_format = match get("A2A_LOG_FORMAT").as_deref() {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => return Err(invalid("A2A_LOG_FORMAT", other, "text or json")),
        };
        if let Some(identity) = get("A2A_IDENTITY") {
            config.identity = identity
                .parse()
                .map_err(|()| invalid("A2A_IDENTITY", &identity, "agentcore or none"))?;
        }
        config.push_notifications = match get("A2A_PUSH_NOTIFICATIONS").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => return Err(invalid("A2A_PUSH_NOTIFICATIONS", other, "on or off")),
        };
        config.push_targets = match get("A2A_PUSH_ALLOW_PRIVATE").as_deref() {
            None | Some("false") => TargetPolicy::PublicHttps,
            Some("true") => TargetPolicy::AllowPrivate,
            Some("loopback") => TargetPolicy::Loopback,
            Some(other) => {
                return Err(invalid(
                    "A2A_PUSH_ALLOW_PRIVATE",
                    other,
                    "true, false or loopback",
                ));
            }
        };
        for (name, field) in [
            (
                "A2A_HEADER_READ_TIMEOUT_SECONDS",
                &mut config.header_read_timeout,
            ),
            (
                "A2A_BODY_READ_TIMEOUT_SECONDS",
                &mut config.body_read_timeout,
            ),
            (
                "A2A_WRITE_STALL_TIMEOUT_SECONDS",
                &mut config.write_stall_timeout,
            ),
        ] {
            if let Some(value) = get(name) {
                *field = seconds(name, &value)?;
            }
        }
        if let Some(count) = get("A2A_MAX_CONNECTIONS") {
            config.max_connections = count
                .parse()
                .ok()
                .filter(|count| *count > 0)
                .ok_or_else(|| invalid("A2A_MAX_CONNECTIONS", &count, "a positive number"))?;
        }
        Ok(config)
    }

    /// The connection limits these settings make.
    fn limits(&self) -> Limits {
        Limits {
            header_read_timeout: self.header_read_timeout,
            body_read_timeout: self.body_read_timeout,
            write_stall_timeout: self.write_stall_timeout,
            max_connections: self.max_connections,
            shutdown_grace: self.shutdown_grace,
        }
    }
}

/// An agent as an AgentCore container, configured in code.
pub struct Container {
    agent: SharedAgent,
    config: ContainerConfig,
    store: Option<Arc<dyn TaskStore>>,
    layers: Layers,
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container")
            .field("config", &self.config)
            .field("layers", &self.layers)
            .finish_non_exhaustive()
    }
}

impl Container {
    /// The agent with [`ContainerConfig::default`] (0.0.0.0:9000, tasks in memory).
    pub fn new(agent: impl IntoAgent) -> Self {
        Self::with_config(agent, ContainerConfig::default())
    }

    /// The agent with given settings.
    pub fn with_config(agent: impl IntoAgent, config: ContainerConfig) -> Self {
        Self {
            agent: agent.into_agent(),
            config,
            store: None,
            layers: Layers::default(),
        }
    }

    /// The agent with the settings of the environment ([`ContainerConfig::from_env`]).
    ///
    /// # Errors
    /// [`ServeError::Config`] for a variable with an unusable value.
    pub fn from_env(agent: impl IntoAgent) -> Result<Self, ServeError> {
        Ok(Self::with_config(agent, ContainerConfig::from_env()?))
    }

    /// Listens on `address` (port 0 picks a free one).
    pub fn address(mut self, address: SocketAddr) -> Self {
        self.config.address = address;
        self
    }

    /// The URL the card advertises.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.config.public_url = Some(url.into());
        self
    }

    /// Keeps tasks in `store` instead of the process's memory.
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// How A2A refusals are reported.
    pub fn error_profile(mut self, profile: ErrorProfile) -> Self {
        self.config.error_profile = profile;
        self
    }

    /// Largest request body accepted (default AgentCore's 100 MB).
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.config.max_body_bytes = bytes;
        self
    }

    /// How long in-flight requests get to finish on shutdown (default 10 s).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.config.shutdown_grace = grace;
        self
    }

    /// About how many bytes of tasks the in-memory task store keeps (default 256 MiB)
    /// before it forgets the oldest finished ones.
    pub fn task_store_bytes(mut self, bytes: usize) -> Self {
        self.config.task_store_bytes = bytes;
        self
    }

    /// The protocol bindings served, preferred first (default JSON-RPC and HTTP+JSON; a
    /// container behind AgentCore serves JSON-RPC only, all the platform passes).
    pub fn bindings(mut self, bindings: Bindings) -> Self {
        self.config.bindings = bindings;
        self
    }

    /// Wraps the router in a tower layer of yours (auth, limits), outermost last, as
    /// [`Router::layer`] does.
    pub fn layer(mut self, layer: impl RouterLayer) -> Self {
        self.layers.push(layer);
        self
    }

    /// How long a connection may take to send a request's headers, also the keep-alive
    /// idle timeout (default 60 s).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.config.header_read_timeout = timeout;
        self
    }

    /// How long a request body may go without a byte before `408` (default 60 s).
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.config.body_read_timeout = timeout;
        self
    }

    /// How long a write may wait for a client that does not read (default 60 s).
    pub fn write_stall_timeout(mut self, timeout: Duration) -> Self {
        self.config.write_stall_timeout = timeout;
        self
    }

    /// Connections open at once before `503` (default 10,000).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.config.max_connections = connections;
        self
    }

    /// The container's router for a given public URL, for calling in-process (`oneshot`).
    ///
    /// # Errors
    /// [`ServeError::Card`] when the agent's card or the URL is invalid.
    pub fn into_router(self, public_url: &str) -> Result<Router, ServeError> {
        let (router, _) = self.build(public_url)?;
        Ok(router)
    }

    fn build(self, public_url: &str) -> Result<(Router, ContainerConfig), ServeError> {
        let store = self.store.unwrap_or_else(|| {
            Arc::new(InMemoryTaskStore::with_limits(
                DEFAULT_IN_MEMORY_CAPACITY,
                self.config.task_store_bytes,
            ))
        });
        let engine = Engine::new(
            self.agent,
            store,
            EngineConfig {
                public_url: public_url.to_owned(),
                error_profile: self.config.error_profile,
                host_can_stream: true,
                security: None,
                background_work: true,
            },
        )?;
        let engine = engine.with_bindings(self.config.bindings.clone());
        let engine = if self.config.push_notifications {
            let webhooks = Webhooks::new(self.config.push_targets, DeliveryPolicy::default())?;
            engine.with_push(Push::new(Arc::new(InMemoryPushConfigs::new()), webhooks))
        } else {
            engine
        };
        let app = router(
            Arc::new(engine),
            RouterOptions {
                max_body_bytes: self.config.max_body_bytes,
                // The router's own first step (in its one stack of layers, which costs
                // less than a layer of its own around every route).
                identity: Some(self.config.identity),
            },
        );
        let mut app = self.layers.apply(app);
        if self.config.identity == Identity::None {
            // The user id header is not the platform's here: removed before the user's
            // layers could read it too.
            app = app.layer(MapRequestLayer::new(|request| {
                Identity::None.identify(request)
            }));
        }
        Ok((app, self.config))
    }

    /// Binds the address and serves in the background until [`Running::shutdown`].
    ///
    /// # Errors
    /// The address cannot be bound, or the card is invalid.
    pub async fn bind(self) -> Result<Running, ServeError> {
        let address = self.config.address;
        let listener = TcpListener::bind(address)
            .await
            .map_err(|source| ServeError::Bind { address, source })?;
        let bound = listener.local_addr()?;
        let public_url = self
            .config
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}/", graceful::reachable(bound)));
        let (app, config) = self.build(&public_url)?;
        tracing::info!(%bound, %public_url, "container listening");
        let (stop, stopped) = watch::channel(false);
        let gauges = Arc::new(Gauges::default());
        let task = tokio::spawn(listen::serve(
            listener,
            app,
            config.limits(),
            stopped,
            Arc::clone(&gauges),
        ));
        Ok(Running {
            address: bound,
            url: public_url,
            stop,
            task,
            gauges,
        })
    }

    /// Serves until SIGTERM or Ctrl-C, then gives in-flight requests and streams the
    /// shutdown grace to finish.
    ///
    /// # Errors
    /// The address cannot be bound, the card is invalid, or the server failed.
    pub async fn serve(self) -> Result<(), ServeError> {
        let running = self.bind().await?;
        graceful::shutdown_signal().await;
        running.shutdown().await
    }
}

/// A container serving in the background.
#[derive(Debug)]
pub struct Running {
    address: SocketAddr,
    url: String,
    stop: watch::Sender<bool>,
    task: JoinHandle<std::io::Result<()>>,
    gauges: Arc<Gauges>,
}

impl Running {
    /// The bound address.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The URL its card advertises (ends in `/`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its connections now: open, streaming, refused over the cap.
    pub fn connections(&self) -> &Gauges {
        &self.gauges
    }

    /// Stops accepting, lets in-flight work finish (within the grace), and returns.
    ///
    /// # Errors
    /// [`ServeError::Serve`] when the server had failed.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        let _ = self.stop.send(true);
        match self.task.await {
            Ok(result) => Ok(result?),
            Err(join) => Err(ServeError::Serve(std::io::Error::other(join))),
        }
    }
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
/// async fn main() -> Result<(), a2a_server::serve::ServeError> {
///     a2a_server::serve(a2a_server::agents::EchoAgent).await
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
