//! [`Container`]: an agent as an AgentCore container, configured in code.

use crate::push::delivery::{DeliveryPolicy, Webhooks};
use crate::push::{InMemoryPushConfigs, Push};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::card::{Binding, Bindings};
use a2a_lambda_core::error::ErrorProfile;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tower::util::MapRequestLayer;

use super::{ContainerConfig, Running, ServeError};
use crate::agent::{IntoAgent, SharedAgent};
use crate::engine::{Engine, EngineConfig};
use crate::graceful;
use crate::http::{RouterOptions, router};
use crate::identity::Identity;
use crate::layers::{Layers, RouterLayer};
use crate::listen::{self, Gauges};
use crate::tasks::{DEFAULT_IN_MEMORY_CAPACITY, InMemoryTaskStore, TaskStore};

/// What [`Container::map_router`] does to the A2A routes before they are served.
type MapRouter = Box<dyn FnOnce(Router) -> Router + Send + Sync>;

/// An agent as an AgentCore container, configured in code.
pub struct Container {
    agent: SharedAgent,
    config: ContainerConfig,
    store: Option<Arc<dyn TaskStore>>,
    layers: Layers,
    map_router: Option<MapRouter>,
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
            map_router: None,
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

    /// Serves what `map` makes of the A2A routes (the card, JSON-RPC, HTTP+JSON and `/ping`,
    /// inside the [`layer`](Self::layer)s) instead of the routes alone: to nest them under
    /// a path, or to add routes of your own beside them, on the container's listener (its
    /// timeouts, connection cap and graceful shutdown) and beside its gRPC binding, which
    /// [`crate::router`] in an app of your own does not serve. The card still names the
    /// [public URL](Self::public_url): give the nested path there.
    ///
    /// ```
    /// use a2a_lambda_server::agents::EchoAgent;
    /// use a2a_lambda_server::serve::Container;
    ///
    /// // The card at /agent/.well-known/agent-card.json, JSON-RPC on POST /agent.
    /// let container = Container::new(EchoAgent)
    ///     .public_url("http://127.0.0.1:9000/agent")
    ///     .map_router(|a2a| axum::Router::new().nest("/agent", a2a));
    /// # drop(container);
    /// ```
    pub fn map_router(
        mut self,
        map: impl FnOnce(Router) -> Router + Send + Sync + 'static,
    ) -> Self {
        self.map_router = Some(Box::new(map));
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
        let (router, ..) = self.build(public_url)?;
        Ok(router)
    }

    /// The gRPC binding's port (default 50051; 0 picks a free one), served when the
    /// bindings name gRPC (which needs the crate's `grpc` feature).
    ///
    /// ```
    /// use a2a_lambda_server::agents::EchoAgent;
    /// use a2a_lambda_server::card::Bindings;
    /// use a2a_lambda_server::serve::Container;
    ///
    /// // `bind()` then serves gRPC on 127.0.0.1:50052 (`Running::grpc_address`).
    /// let container = Container::new(EchoAgent)
    ///     .address(([127, 0, 0, 1], 0).into())
    ///     .bindings(Bindings::parse_with_grpc("jsonrpc,grpc").unwrap())
    ///     .grpc_port(50052);
    /// # drop(container);
    /// ```
    pub fn grpc_port(mut self, port: u16) -> Self {
        self.config.grpc_port = port;
        self
    }

    fn build(
        self,
        public_url: &str,
    ) -> Result<(Router, ContainerConfig, Arc<Engine>, Layers), ServeError> {
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
        let engine = Arc::new(engine);
        let app = router(
            Arc::clone(&engine),
            RouterOptions {
                max_body_bytes: self.config.max_body_bytes,
                // The router's own first step (in its one stack of layers, which costs
                // less than a layer of its own around every route).
                identity: Some(self.config.identity),
            },
        );
        let mut app = self.layers.wrap(app);
        if let Some(map) = self.map_router {
            app = map(app);
        }
        if self.config.identity == Identity::None {
            // The user id header is not the platform's here: removed before the user's
            // layers could read it too.
            app = app.layer(MapRequestLayer::new(|request| {
                Identity::None.identify(request)
            }));
        }
        Ok((app, self.config, engine, self.layers))
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
        let mut this = self;
        if cfg!(not(feature = "grpc")) && this.config.bindings.serves(Binding::Grpc) {
            return Err(ServeError::Config {
                name: "bindings",
                value: this.config.bindings.to_string(),
                expected: "jsonrpc or http+json (this build has no gRPC: build \
                           a2a-lambda-server with its `grpc` feature)",
            });
        }
        let grpc = if this.config.bindings.serves(Binding::Grpc) {
            let address = SocketAddr::new(address.ip(), this.config.grpc_port);
            let listener = TcpListener::bind(address)
                .await
                .map_err(|source| ServeError::Bind { address, source })?;
            let grpc_bound = listener.local_addr()?;
            let url = this
                .config
                .grpc_public_url
                .clone()
                .unwrap_or_else(|| format!("http://{}", graceful::reachable(grpc_bound)));
            this.config.bindings = this.config.bindings.clone().with_grpc_url(url);
            Some((listener, grpc_bound))
        } else {
            None
        };
        let identity = this.config.identity;
        let (app, config, engine, layers) = this.build(&public_url)?;
        tracing::info!(%bound, %public_url, "container listening");
        let (stop, stopped) = watch::channel(false);
        let gauges = Arc::new(Gauges::default());
        let http = listen::serve(
            listener,
            app,
            config.limits(),
            stopped.clone(),
            Arc::clone(&gauges),
        );
        let grpc_address = grpc.as_ref().map(|(_, address)| *address);
        let task = match grpc {
            Some((listener, grpc_bound)) => {
                tracing::info!(%grpc_bound, "gRPC listening");
                let grpc = grpc_serve(
                    listener,
                    engine,
                    (config.max_body_bytes, config.shutdown_grace),
                    (identity, layers),
                    stopped,
                );
                tokio::spawn(async move {
                    let (http, grpc) = tokio::join!(http, grpc);
                    http.and(grpc)
                })
            }
            None => {
                drop(engine);
                tokio::spawn(http)
            }
        };
        Ok(Running {
            address: bound,
            grpc_address,
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

/// Serves the gRPC binding on `listener` until `stopped`, then lets calls in flight finish
/// within the shutdown grace. Without the `grpc` feature the bindings cannot name gRPC
/// ([`ContainerConfig::from_lookup`] refuses it), and this serves nothing.
#[cfg(feature = "grpc")]
async fn grpc_serve(
    listener: TcpListener,
    engine: Arc<Engine>,
    (max_message_bytes, grace): (usize, Duration),
    (identity, layers): (Identity, Layers),
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let service = crate::grpc::GrpcService::server(engine, max_message_bytes);
    // The same identity step as the HTTP bindings' router (the caller's owner in the
    // request's extensions, the user id header removed when it is not trusted), inside the
    // user's layers, as there.
    let routes = tonic::service::Routes::new(service)
        .prepare()
        .into_axum_router()
        .layer(MapRequestLayer::new(move |request| {
            identity.identify(request)
        }));
    let mut routes = layers.wrap(routes);
    if identity == Identity::None {
        // As on the HTTP router: the untrusted user id header is gone before the user's
        // layers could read it.
        routes = routes.layer(MapRequestLayer::new(|request| {
            Identity::None.identify(request)
        }));
    }
    let mut asked = stopped.clone();
    let serving = tonic::transport::Server::builder()
        .add_routes(tonic::service::Routes::from(routes))
        .serve_with_incoming_shutdown(
            tokio_stream::wrappers::TcpListenerStream::new(listener),
            async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            },
        );
    let mut serving = std::pin::pin!(serving);
    tokio::select! {
        result = &mut serving => return result.map_err(std::io::Error::other),
        _ = asked.wait_for(|stop| *stop) => {}
    }
    // Stopping: calls in flight (a stream, say) get the grace, as the HTTP bindings' do.
    match tokio::time::timeout(grace, serving).await {
        Ok(result) => result.map_err(std::io::Error::other),
        Err(_) => Ok(()),
    }
}

#[cfg(not(feature = "grpc"))]
async fn grpc_serve(
    _listener: TcpListener,
    _engine: Arc<Engine>,
    _limits: (usize, Duration),
    _identity: (Identity, Layers),
    _stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    Ok(())
}
