//! A local AWS Lambda for a function's binary (`a2a-emulator lambda`): the Runtime API and
//! the Extensions API, an HTTP front in the shape of a Function URL (`BUFFERED` or
//! `RESPONSE_STREAM`) or of API Gateway (HTTP API v2, REST API v1), and the execution
//! environment's lifecycle as Lambda runs it — frozen (`SIGSTOP`) once the runtime and
//! every extension asked for their next event, thawed for the next invocation, the
//! function timeout and its reset, init and invoke errors as the front answers them,
//! `SIGTERM` then `SIGKILL` 500 ms later at shutdown when an extension is registered,
//! and `AWS_LAMBDA_MAX_CONCURRENCY` (Lambda Managed Instances). Each behaviour's AWS
//! source is cited where it is implemented.
//!
//! What it is for: what `cargo lambda watch` and AWS's runtime interface emulator do not
//! reproduce (no Extensions API, no freezing, no streamed Function URL, no `SIGTERM`),
//! run on the function's real binary.
//!
//! ```
//! use a2a_lambda_emulator::lambda::LocalLambda;
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! // A custom runtime in a shell script, as AWS's own tutorial writes one.
//! let dir = std::env::temp_dir().join(format!("local-lambda-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let bootstrap = dir.join("bootstrap");
//! std::fs::write(&bootstrap, r#"#!/bin/sh
//! api="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime/invocation"
//! while true; do
//!   id=$(curl -sS -D - -o /dev/null "$api/next" | tr -d '\r' | sed -n 's/^[Ll]ambda-[Rr]untime-[Aa]ws-[Rr]equest-[Ii]d: //p')
//!   curl -sS -o /dev/null -X POST "$api/$id/response" -d '{"statusCode":200,"body":"hello"}'
//! done
//! "#)?;
//! std::fs::set_permissions(&bootstrap, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
//!
//! let lambda = LocalLambda::new(&bootstrap).port(0).start().await?;
//! let answer = reqwest::get(lambda.base_url()).await?;
//! assert_eq!(answer.status(), 200);
//! assert_eq!(answer.text().await?, "hello");
//! lambda.shutdown().await?;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
//! ```

mod answers;
mod cli;
mod config;
mod environment;
mod events;
mod front;
mod instance;
mod process;
mod record;
mod running;
mod runtime_api;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use cli::{LISTENING_PREFIX, LambdaArgs, run};
pub use config::{
    DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, EXTENSIONS_SHUTDOWN_GRACE, EventShape, INIT_TIMEOUT,
    InvokeMode, SHUTDOWN_GRACE,
};
pub use environment::ShutdownReport;
pub use instance::FunctionError;
pub use running::{FunctionLog, RunningLambda};

use crate::Journal;
use crate::inspector::{DEFAULT_JOURNAL_BODY_BYTES, DEFAULT_JOURNAL_SIZE};
use config::FunctionConfig;
use environment::Function;

/// Why a local Lambda cannot start.
///
/// ```
/// # async fn example() {
/// let refused = a2a_lambda_emulator::lambda::LocalLambda::new("/nonexistent/bootstrap")
///     .start()
///     .await
///     .unwrap_err();
/// assert!(refused.to_string().contains("is not there"));
/// # }
/// # tokio::runtime::Runtime::new().unwrap().block_on(example());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LambdaError {
    /// A setting Lambda would refuse, or a binary that is not there.
    #[error("{0}")]
    Config(String),
    /// The front's address cannot be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// A local Lambda to start: the function's binary and Lambda's settings for it.
///
/// ```
/// use std::time::Duration;
/// use a2a_lambda_emulator::lambda::{EventShape, InvokeMode, LocalLambda};
///
/// let lambda = LocalLambda::new("target/lambda/my-fn/bootstrap")
///     .env("RUST_LOG", "info")
///     .timeout(Duration::from_secs(30))
///     .invoke_mode(InvokeMode::ResponseStream)
///     .event(EventShape::FunctionUrl)
///     .port(0);
/// # drop(lambda);
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct LocalLambda {
    config: FunctionConfig,
    address: SocketAddr,
    inspector: bool,
}

impl LocalLambda {
    /// A function whose binary is `command` (its `bootstrap`), named after the file, with
    /// Lambda's defaults: 3 s timeout, 128 MB, `us-east-1`, a Function URL in `BUFFERED`
    /// mode on `127.0.0.1:9000`.
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap");
    /// # drop(lambda);
    /// ```
    pub fn new(command: impl Into<PathBuf>) -> Self {
        let command = command.into();
        let name = command
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "function".to_owned());
        Self {
            config: FunctionConfig {
                command,
                args: Vec::new(),
                extensions: Vec::new(),
                env: Vec::new(),
                name,
                memory_mb: DEFAULT_MEMORY_MB,
                timeout: DEFAULT_TIMEOUT,
                region: "us-east-1".to_owned(),
                handler: "bootstrap".to_owned(),
                event: EventShape::FunctionUrl,
                invoke_mode: InvokeMode::Buffered,
                stage: "$default".to_owned(),
                max_concurrency: None,
            },
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 9000),
            inspector: true,
        }
    }

    /// Adds an argument of the binary.
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").arg("--verbose");
    /// # drop(lambda);
    /// ```
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.config.args.push(arg.into());
        self
    }

    /// Adds an external extension: a binary started before the function, in its
    /// environment, that registers with the Extensions API as a layer's
    /// `/opt/extensions/NAME` does; it may register for `SHUTDOWN` and is frozen with the
    /// function.
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap")
    ///     .extension("target/debug/my-extension");
    /// # drop(lambda);
    /// ```
    pub fn extension(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.extensions.push(path.into());
        self
    }

    /// Sets one of the function's environment variables (its configuration), on top of
    /// the ones Lambda reserves.
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").env("A2A_AGENT", "echo");
    /// # drop(lambda);
    /// ```
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.config.env.push((name.into(), value.into()));
        self
    }

    /// The function's name (`AWS_LAMBDA_FUNCTION_NAME`).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").function_name("a2a-agent");
    /// # drop(lambda);
    /// ```
    pub fn function_name(mut self, name: impl Into<String>) -> Self {
        self.config.name = name.into();
        self
    }

    /// The memory size, in MB (`AWS_LAMBDA_FUNCTION_MEMORY_SIZE`; it limits nothing here).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").memory_mb(256);
    /// # drop(lambda);
    /// ```
    pub fn memory_mb(mut self, memory_mb: u32) -> Self {
        self.config.memory_mb = memory_mb;
        self
    }

    /// The function timeout (1 s to 900 s on Lambda).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap")
    ///     .timeout(std::time::Duration::from_secs(30));
    /// # drop(lambda);
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.config.timeout = timeout;
        self
    }

    /// The region (`AWS_REGION`, `AWS_DEFAULT_REGION`).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").region("eu-west-1");
    /// # drop(lambda);
    /// ```
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.config.region = region.into();
        self
    }

    /// The handler (`_HANDLER`).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").handler("main");
    /// # drop(lambda);
    /// ```
    pub fn handler(mut self, handler: impl Into<String>) -> Self {
        self.config.handler = handler.into();
        self
    }

    /// The event shape the front builds.
    ///
    /// ```
    /// use a2a_lambda_emulator::lambda::{EventShape, LocalLambda};
    /// let lambda = LocalLambda::new("bootstrap").event(EventShape::ApigwV1);
    /// # drop(lambda);
    /// ```
    pub fn event(mut self, event: EventShape) -> Self {
        self.config.event = event;
        self
    }

    /// The Function URL's invoke mode (API Gateway fronts always buffer).
    ///
    /// ```
    /// use a2a_lambda_emulator::lambda::{InvokeMode, LocalLambda};
    /// let lambda = LocalLambda::new("bootstrap").invoke_mode(InvokeMode::ResponseStream);
    /// # drop(lambda);
    /// ```
    pub fn invoke_mode(mut self, mode: InvokeMode) -> Self {
        self.config.invoke_mode = mode;
        self
    }

    /// The API Gateway stage: requests must then start with `/STAGE` (`$default`, the
    /// default, has none in its paths).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").stage("prod");
    /// # drop(lambda);
    /// ```
    pub fn stage(mut self, stage: impl Into<String>) -> Self {
        self.config.stage = stage.into();
        self
    }

    /// Runs as a Lambda Managed Instances environment: `AWS_LAMBDA_MAX_CONCURRENCY=n`, up
    /// to `n` invocations in flight at once, never frozen.
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").max_concurrency(8);
    /// # drop(lambda);
    /// ```
    pub fn max_concurrency(mut self, n: u32) -> Self {
        self.config.max_concurrency = Some(n.max(1));
        self
    }

    /// The front's address (port 0: a free one).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap")
    ///     .host("0.0.0.0".parse().unwrap());
    /// # drop(lambda);
    /// ```
    pub fn host(mut self, host: IpAddr) -> Self {
        self.address.set_ip(host);
        self
    }

    /// The front's port (0: a free one).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").port(0);
    /// # drop(lambda);
    /// ```
    pub fn port(mut self, port: u16) -> Self {
        self.address.set_port(port);
        self
    }

    /// Whether the inspector (page and journal at `/_emulator/`) is on (default on).
    ///
    /// ```
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").inspector(false);
    /// # drop(lambda);
    /// ```
    pub fn inspector(mut self, on: bool) -> Self {
        self.inspector = on;
        self
    }

    /// Checks the settings as Lambda would.
    fn validate(&self) -> Result<(), LambdaError> {
        let config = &self.config;
        for extension in &config.extensions {
            if !extension.is_file() {
                return Err(LambdaError::Config(format!(
                    "the extension {} is not there",
                    extension.display()
                )));
            }
        }
        if !config.command.is_file() {
            return Err(LambdaError::Config(format!(
                "the function's binary {} is not there (build it first: `cargo lambda build` \
                 or `cargo build`)",
                config.command.display()
            )));
        }
        if !(Duration::from_secs(1)..=Duration::from_secs(900)).contains(&config.timeout) {
            return Err(LambdaError::Config(format!(
                "a function timeout is 1 to 900 seconds, not {:?}",
                config.timeout
            )));
        }
        if !(128..=10_240).contains(&config.memory_mb) {
            return Err(LambdaError::Config(format!(
                "a function's memory is 128 to 10240 MB, not {}",
                config.memory_mb
            )));
        }
        Ok(())
    }

    /// Starts the front (the function itself starts on the first invocation, a cold
    /// start, as on Lambda).
    ///
    /// ```no_run
    /// # async fn example() -> Result<(), a2a_lambda_emulator::lambda::LambdaError> {
    /// let lambda = a2a_lambda_emulator::lambda::LocalLambda::new("bootstrap").start().await?;
    /// println!("{}", lambda.base_url());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`LambdaError::Config`] for a missing binary or a setting out of Lambda's bounds,
    /// [`LambdaError::Bind`] when the address is taken.
    pub async fn start(mut self) -> Result<RunningLambda, LambdaError> {
        self.validate()?;
        // A relative path names a file under the current directory (a bare `bootstrap`
        // too, which a lookup in the function's PATH would miss).
        if let Ok(absolute) = std::path::absolute(&self.config.command) {
            self.config.command = absolute;
        }
        for extension in &mut self.config.extensions {
            if let Ok(absolute) = std::path::absolute(&*extension) {
                *extension = absolute;
            }
        }
        let listener = tokio::net::TcpListener::bind(self.address)
            .await
            .map_err(|source| LambdaError::Bind {
                address: self.address,
                source,
            })?;
        let address = listener.local_addr().map_err(|source| LambdaError::Bind {
            address: self.address,
            source,
        })?;
        let journal = self
            .inspector
            .then(|| Journal::new(DEFAULT_JOURNAL_SIZE, DEFAULT_JOURNAL_BODY_BYTES));
        let function = Arc::new(Function::new(self.config, journal.clone()));
        let app = front::router(Arc::new(front::Front {
            function: Arc::clone(&function),
            journal: journal.clone(),
        }));
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let server = tokio::spawn(async move {
            let serve = axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async move {
                let _ = stopped.wait_for(|stop| *stop).await;
            });
            if let Err(error) = serve.await {
                tracing::warn!(%error, "the local Lambda's front stopped");
            }
        });
        let host = match address.ip() {
            ip if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            ip => ip,
        };
        Ok(RunningLambda {
            address,
            url: format!("http://{}", SocketAddr::new(host, address.port())),
            function,
            journal,
            stop,
            server: Some(server),
        })
    }
}
