#![doc = include_str!("../README.md")]
//!
//! ## In detail
//!
//! [`run`] serves the agent under the Lambda runtime where it runs, and as an AgentCore
//! container anywhere else.
//!
//! Both A2A bindings are served (`A2A_BINDINGS`, [`Config::bindings`]): JSON-RPC on
//! `POST /`, and HTTP+JSON on the routes of the specification's §11.3 (`POST
//! /message:send`, `GET /tasks/{id}`, …), each below the prefix the function is reached
//! under (an API Gateway stage, `cargo lambda watch`'s `/lambda-url/{function}`). Every
//! front passes the function any method and path (unlike AgentCore Runtime, whose
//! invocations endpoint reaches a container's `POST /` only); the card lists the HTTP+JSON
//! interface at the URL the request came to, without its trailing slash. Sources: AWS
//! Lambda Developer Guide, "Invoking Lambda function URLs"
//! (<https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html>: the request's
//! method, `rawPath` and `rawQueryString` in the event); API Gateway Developer Guide, "Set
//! up a proxy resource with Lambda proxy integration"
//! (<https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-set-up-lambda-proxy-integration-on-proxy-resource.html>:
//! `ANY /{proxy+}`); AgentCore Developer Guide, "A2A protocol contract"
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>:
//! `POST /` takes JSON-RPC 2.0).
//!
//! Configuration is read from the environment at init ([`Config`]); a bad value fails the
//! init with a clear log line. [`Lambda`] sets in code what the environment does not: a
//! task store of your own, the card's URL, tower layers.
//!
//! Tasks live in the instance's memory, or with `A2A_TASK_TABLE` in a DynamoDB table
//! shared by every instance ([`dynamo::DynamoTaskStore`], usable by any host).
//!
//! Push notifications are on (`A2A_PUSH_NOTIFICATIONS=off` turns them off): a task's
//! webhook configurations live beside it, in the same table
//! ([`dynamo::DynamoPushConfigStore`]) or in memory, and every status change is POSTed to
//! them while the background-work extension keeps the environment thawed. Without the
//! Extensions API, push is off (the deliveries would be frozen with the environment).
//!
//! A non-blocking send finishes its task: an internal Lambda extension keeps the
//! environment thawed after the answer until the agent is done, within the invocation's
//! time, and billed for it (past it, the task fails with [`OUT_OF_TIME`]). When the environment shuts down, the tasks
//! still at work are failed in the store with a clear status message before the process
//! exits, within Lambda's 500 ms (the status message is [`SHUT_DOWN`]).
//!
//! On Lambda Managed Instances (`AWS_LAMBDA_MAX_CONCURRENCY`, [`Config::max_concurrency`])
//! one environment serves that many invocations at once and is never frozen: background
//! work needs no holding there, each agent run still ends with [`OUT_OF_TIME`] at its own
//! invocation's deadline, and a shutdown settles every task at work.

pub mod app;
mod background;
pub mod config;
pub mod logging;
pub mod testing;

/// The DynamoDB task store: the `a2a-lambda-dynamodb` crate, usable by any host.
pub use a2a_lambda_dynamodb as dynamo;

use std::sync::Arc;
use std::time::Instant;

use a2a_lambda_server::agent::IntoAgent;
use a2a_lambda_server::host::engine::{Engine, EngineConfig};
use a2a_lambda_server::layers::{Layers, RouterLayer};
use a2a_lambda_server::push::delivery::{DeliveryError, DeliveryPolicy, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use a2a_lambda_server::push::{InMemoryPushConfigs, Push, PushConfigStore};
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};

pub use app::App;
/// The status messages a task gets when the environment runs out of time or shuts down
/// before its agent is done (to match on in a client or a test).
pub use background::{OUT_OF_TIME, SHUT_DOWN};
pub use config::Config;

use background::{Background, Extension};

/// What [`run`] and `main` return on failure (`lambda_http`'s error type).
pub type Error = lambda_http::Error;

/// The card URL used until a request tells the real one (when `A2A_PUBLIC_URL` is unset,
/// each request's scheme, host and path prefix give it).
const PLACEHOLDER_URL: &str = "https://localhost/";

/// Why the function cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    /// A variable is invalid.
    #[error("configuration: {0}")]
    Config(#[from] config::ConfigError),
    /// The agent card is invalid.
    #[error("agent card: {0}")]
    Card(#[from] a2a_lambda_core::card::CardError),
    /// The webhook client for push notifications could not be made.
    #[error("push notifications: {0}")]
    Push(#[from] DeliveryError),
}

/// The task store a configuration names: the DynamoDB table of `A2A_TASK_TABLE`, or the
/// instance's memory. Neither makes a network call; the time it took is logged.
pub fn task_store(config: &Config) -> Arc<dyn TaskStore> {
    stores(config).0
}

/// The task store a configuration names ([`task_store`]) and the push-configuration
/// store beside it: in the same DynamoDB table, sharing the task store's client
/// ([`dynamo::DynamoPushConfigStore`]), or in the instance's memory.
pub fn stores(config: &Config) -> (Arc<dyn TaskStore>, Arc<dyn PushConfigStore>) {
    let started = Instant::now();
    match &config.task_table {
        None => {
            let store = Arc::new(InMemoryTaskStore::new());
            tracing::info!(
                store = "memory",
                build_ms = started.elapsed().as_secs_f64() * 1000.0,
                "task store ready"
            );
            (store, Arc::new(InMemoryPushConfigs::new()))
        }
        Some(settings) => {
            let store = dynamo::DynamoTaskStore::new(settings);
            let push = Arc::new(store.push_configs());
            tracing::info!(
                store = "dynamodb",
                table = settings.table,
                region = settings.region,
                endpoint = settings.endpoint.as_deref().unwrap_or("aws"),
                retention_days = settings.retention.as_secs() / 86_400,
                lease_seconds = settings.lease.as_secs(),
                build_ms = started.elapsed().as_secs_f64() * 1000.0,
                "task store ready"
            );
            (Arc::new(store), push)
        }
    }
}

/// An agent as a Lambda function, configured in code where the environment is not enough.
///
/// ```no_run
/// use std::sync::Arc;
///
/// use a2a_lambda_server::agents::EchoAgent;
/// use a2a_lambda_server::tasks::InMemoryTaskStore;
///
/// # async fn example() -> Result<(), a2a_lambda::Error> {
/// a2a_lambda::Lambda::new(EchoAgent)
///     .task_store(Arc::new(InMemoryTaskStore::with_capacity(10_000)))
///     .layer(tower_http::trace::TraceLayer::new_for_http())
///     .run()
///     .await
/// # }
/// ```
pub struct Lambda {
    agent: a2a_lambda_server::SharedAgent,
    config: Option<Config>,
    store: Option<Arc<dyn TaskStore>>,
    push_store: Option<Arc<dyn PushConfigStore>>,
    public_url: Option<String>,
    layers: Layers,
}

impl std::fmt::Debug for Lambda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lambda")
            .field("config", &self.config)
            .field("public_url", &self.public_url)
            .field("layers", &self.layers)
            .finish_non_exhaustive()
    }
}

impl Lambda {
    /// The agent, configured from the environment when it runs.
    pub fn new(agent: impl IntoAgent) -> Self {
        Self {
            agent: agent.into_agent(),
            config: None,
            store: None,
            push_store: None,
            public_url: None,
            layers: Layers::default(),
        }
    }

    /// Uses `config` instead of reading the environment.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// Whether a configuration was set in code.
    pub(crate) fn has_config(&self) -> bool {
        self.config.is_some()
    }

    /// Keeps tasks in `store` instead of the one the configuration names.
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// Keeps push-notification configurations in `store` instead of the one beside the
    /// configured task store. Give one with a shared task store of your own
    /// ([`Lambda::task_store`]): otherwise they stay in each instance's memory.
    pub fn push_store(mut self, store: Arc<dyn PushConfigStore>) -> Self {
        self.push_store = Some(store);
        self
    }

    /// The URL the card advertises, over `A2A_PUBLIC_URL` and the request's own URL.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    /// Wraps the router in a tower layer of yours, outermost last, as axum's
    /// `Router::layer` does. The stage handling stays outside it.
    pub fn layer(mut self, layer: impl RouterLayer) -> Self {
        self.layers.push(layer);
        self
    }

    /// The service the function runs, for calling in-process (`oneshot` with a request
    /// made by `lambda_http::request::from_str`), and its configuration.
    ///
    /// # Errors
    /// The environment's configuration or the agent's card is invalid.
    pub fn into_app(self) -> Result<(App, Config), InitError> {
        let (_, app, config) = self.build(true)?;
        Ok((app, config))
    }

    /// The engine, the service and the configuration; `background_work`: a non-blocking
    /// send may leave its agent running after the answer
    /// ([`EngineConfig::background_work`]), and push notifications may be delivered after
    /// it (without it, push is off).
    fn build(self, background_work: bool) -> Result<(Arc<Engine>, App, Config), InitError> {
        let mut config = match self.config {
            Some(config) => config,
            None => Config::from_env()?,
        };
        if let Some(url) = self.public_url {
            a2a_lambda_core::card::validate_url("public URL", &url)?;
            config.public_url = Some(url);
        }
        let (store, push_store) = match (self.store, self.push_store) {
            (Some(store), Some(push_store)) => (store, push_store),
            (None, push_store) => {
                let (store, configured) = stores(&config);
                (store, push_store.unwrap_or(configured))
            }
            (Some(store), None) => {
                if store.is_shared() && config.push.enabled && background_work {
                    tracing::warn!(
                        "push configurations stay in this instance's memory, beside a shared \
                         task store: give Lambda::push_store a shared store too"
                    );
                }
                let push_store: Arc<dyn PushConfigStore> = Arc::new(InMemoryPushConfigs::new());
                (store, push_store)
            }
        };
        // On Managed Instances every run is bounded by its own invocation's deadline.
        let agent = if config.max_concurrency.is_some() {
            background::Deadlined::new(self.agent).into_agent()
        } else {
            self.agent
        };
        let engine = Engine::new(
            agent,
            store,
            EngineConfig {
                public_url: config
                    .public_url
                    .clone()
                    .unwrap_or_else(|| PLACEHOLDER_URL.to_owned()),
                error_profile: config.error_profile,
                host_can_stream: config.streaming,
                security: Some(config.auth.mechanism()),
                background_work,
            },
        )?;
        let engine = engine.with_bindings(config.bindings.clone());
        let engine = if config.push.enabled && background_work {
            let webhooks = Webhooks::new(config.push.targets, DeliveryPolicy::default())?;
            engine.with_push(Push::new(push_store, webhooks))
        } else {
            engine
        };
        let engine = Arc::new(engine);
        let app = app::app(Arc::clone(&engine), &config, self.layers);
        Ok((engine, app, config))
    }

    /// Initialises JSON logs, registers the background-work extension (`a2a-background`),
    /// builds the function and serves Lambda invocations until the runtime stops.
    ///
    /// Without the Extensions API, a warning is logged and non-blocking sends are served
    /// as blocking ones.
    ///
    /// On Lambda Managed Instances (`AWS_LAMBDA_MAX_CONCURRENCY` set, read from the
    /// process's environment even when [`Lambda::config`] gave the rest, as the Lambda
    /// runtime library reads it), as many invocations at once as it says, background work
    /// on whatever the Extensions API says (the environment is never frozen there), and
    /// each agent run bounded by its invocation's deadline.
    ///
    /// # Errors
    /// Not inside Lambda, init failed (logged first), or the runtime failed.
    pub async fn run(mut self) -> Result<(), Error> {
        let started = Instant::now();
        logging::init();
        if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_none() {
            let error = "not running inside AWS Lambda (AWS_LAMBDA_RUNTIME_API is not set): \
                         run it locally with `cargo lambda watch`, or serve the same agent \
                         with a2a_lambda_server::serve or the emulator";
            tracing::error!(error, "init failed");
            return Err(error.into());
        }
        // From init on: the environment's shutdown comes as SIGTERM (background::shutdown).
        let signal = match background::Signal::install() {
            Ok(signal) => Some(signal),
            Err(error) => {
                tracing::warn!(
                    %error,
                    "no SIGTERM handler: tasks still at work when the environment shuts \
                     down are not settled"
                );
                None
            }
        };
        // The configuration first: Managed Instances or not decides how the extension
        // registers.
        let configured = match self.config.take() {
            Some(mut config) => config::max_concurrency_from_env().map(|concurrency| {
                config.max_concurrency = concurrency;
                config
            }),
            None => Config::from_env(),
        };
        let config = match configured {
            Ok(config) => config,
            Err(error) => {
                let error = InitError::Config(error);
                tracing::error!(%error, "init failed");
                return Err(error.into());
            }
        };
        let concurrency = config.max_concurrency;
        let managed = concurrency.is_some();
        self.config = Some(config);
        // Before the runtime's first request for an invocation: Lambda takes extensions'
        // registrations only during init.
        let background = Arc::new(Background::default());
        let registered = Extension::register(&background, managed).await;
        let built = self.build(managed || registered.is_ok());
        if let (true, Err(error)) = (managed, &registered) {
            tracing::warn!(
                %error,
                "no extension registered: Lambda ends the environment with SIGKILL alone, \
                 and tasks still at work then keep their last saved state (background work \
                 goes on: Managed Instances never freeze the environment)"
            );
        }
        // One warning, once the configuration says whether push was wanted.
        if let (false, Err(error)) = (managed, &registered) {
            let push_wanted = built
                .as_ref()
                .is_ok_and(|(_, _, config)| config.push.enabled);
            let also = if push_wanted {
                ", and push notifications are off (their deliveries would be frozen too; \
                 the card says pushNotifications: false)"
            } else {
                ""
            };
            tracing::warn!(
                %error,
                "no background work: the environment would be frozen with the agent of \
                 a non-blocking send still at work, so non-blocking sends are served as \
                 blocking ones{also}"
            );
        }
        let extension = registered.ok();
        let (engine, app, config) = match built {
            Ok(built) => built,
            Err(error) => {
                tracing::error!(%error, "init failed");
                return Err(error.into());
            }
        };
        let instance_id = engine.instance_id().to_owned();
        let push_on = engine.push().is_some();
        if push_on && config.push.targets != TargetPolicy::PublicHttps {
            // The guard then lets webhooks reach this environment's loopback, where the
            // Runtime API listens (AWS_LAMBDA_RUNTIME_API).
            tracing::warn!(
                push_targets = %config.push.targets,
                "webhooks may point at loopback or private addresses, the Lambda Runtime \
                 API included: A2A_PUSH_ALLOW_PRIVATE is for tests, not for callers you do \
                 not trust"
            );
        }
        background.set_engine(engine);
        tracing::info!(
            streaming = config.streaming,
            max_concurrency = concurrency.map_or(1, std::num::NonZeroU32::get),
            managed_instances = managed,
            background_work = managed || extension.is_some(),
            auth = ?config.auth,
            instance_id = instance_id,
            task_store = if config.task_table.is_some() { "dynamodb" } else { "memory" },
            push_notifications = push_on,
            push_targets = %config.push.targets,
            init_ms = started.elapsed().as_secs_f64() * 1000.0,
            "init complete"
        );
        background::serve(
            app,
            config.streaming,
            concurrency,
            &background,
            extension,
            signal,
        )
        .await
    }
}

/// Runs `agent` wherever the binary is started: as a Lambda function configured from the
/// environment ([`Config`]) when the Lambda runtime started it (`AWS_LAMBDA_RUNTIME_API`
/// is set), and anywhere else as an AWS Bedrock AgentCore Runtime container
/// ([`a2a_lambda_server::serve()`]: port 9000 unless `PORT` says otherwise, `/ping`, configured by
/// its own variables). One binary serves `cargo lambda deploy`, an AgentCore image and a
/// local run. [`Lambda::run`] serves Lambda only.
///
/// # Errors
/// Init failed (logged first), or the runtime or the server failed.
pub async fn run(agent: impl IntoAgent) -> Result<(), Error> {
    if on_lambda() {
        Lambda::new(agent).run().await
    } else {
        Ok(a2a_lambda_server::serve(agent).await?)
    }
}

/// Whether the Lambda runtime started this process: it sets `AWS_LAMBDA_RUNTIME_API` for
/// the runtime interface (AWS Lambda Developer Guide, "Defined runtime environment
/// variables",
/// <https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime>).
pub fn on_lambda() -> bool {
    std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some_and(|value| !value.is_empty())
}
