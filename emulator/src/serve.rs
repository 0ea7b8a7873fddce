//! Binding, serving and shutting down.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::engine::{Engine, EngineConfig};
use a2a_core::error::ErrorProfile;
use a2a_core::http::{RouterOptions, router};
use a2a_core::tasks::InMemoryTaskStore;
use axum::ServiceExt as _;
use tokio::net::TcpListener;
use tower::util::Either;

use crate::args::Args;
use crate::front::{
    self, FrontConfig, FrontService,
    container::{Backend, Upstream},
    limits::{FaultInjector, RateLimiter},
    sessions::{self, SessionPolicy, Sessions},
};

/// Logs to stderr, filtered by `RUST_LOG` (default `info`); colours only on a terminal
/// and without `NO_COLOR`.
pub fn init_logging(args: &Args) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr);
    if args.log_format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

/// Why the emulator could not serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be bound.
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address.
        address: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The agent card or public URL is invalid.
    #[error("{0}")]
    Card(#[from] a2a_core::card::CardError),
    /// The server failed.
    #[error("server error: {0}")]
    Serve(#[from] std::io::Error),
    /// A flag is invalid.
    #[error("{0}")]
    Config(String),
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight work finish (bounded).
pub async fn run(args: Args) -> Result<(), ServeError> {
    let address = SocketAddr::new(args.host, args.port);
    let listener = TcpListener::bind(address)
        .await
        .map_err(|source| ServeError::Bind { address, source })?;
    let bound = listener.local_addr()?;
    let public_url = public_url(&args, bound);
    let profile = if args.error_profile == "agentcore" {
        ErrorProfile::AgentCore
    } else {
        ErrorProfile::Spec
    };
    let app = if args.container_only {
        let engine = Engine::new(
            args.agent.agent(),
            Arc::new(InMemoryTaskStore::new()),
            EngineConfig {
                public_url: public_url.clone(),
                error_profile: profile,
                host_can_stream: true,
                security: None,
            },
        )?;
        Either::Left(router(
            Arc::new(engine),
            RouterOptions {
                max_body_bytes: args.max_body_bytes,
            },
        ))
    } else {
        Either::Right(front_service(&args, bound, &public_url, profile)?)
    };
    let mode = match (&args.upstream, args.container_only) {
        (_, true) => format!("container only, agent: {}", args.agent),
        (Some(upstream), false) => format!("AgentCore front, upstream: {upstream}"),
        (None, false) => format!("AgentCore front, agent: {}", args.agent),
    };
    println!("a2a-emulator listening on http://{bound} ({mode}, card url: {public_url})");
    tracing::info!(%bound, %public_url, mode, "serving");

    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut stop_wait = stop_rx.clone();
    let server =
        axum::serve(listener, app.into_make_service()).with_graceful_shutdown(async move {
            shutdown_signal().await;
            let _ = stop_tx.send(true);
        });
    let grace = Duration::from_secs(args.shutdown_grace_seconds);
    tokio::select! {
        result = server => result?,
        () = async move {
            let _ = stop_wait.wait_for(|stopped| *stopped).await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(seconds = grace.as_secs(), "in-flight requests did not finish in time; stopping");
        }
    }
    drop(stop_rx);
    tracing::info!("stopped");
    Ok(())
}

/// The AgentCore front over per-session containers (built-in or upstream).
fn front_service(
    args: &Args,
    bound: SocketAddr,
    public_url: &str,
    profile: ErrorProfile,
) -> Result<impl FrontService, ServeError> {
    if let Some(arn) = &args.runtime_arn
        && !front::is_runtime_arn(arn)
    {
        return Err(ServeError::Config(format!(
            "--runtime-arn {arn:?} is not an AgentCore runtime ARN \
             (arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/NAME-ID)"
        )));
    }
    let backend = match &args.upstream {
        Some(url) => {
            a2a_core::card::validate_url("--upstream", url)?;
            let client = reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(5))
                .build()
                .map_err(|error| ServeError::Config(format!("HTTP client: {error}")))?;
            Backend::Upstream(Arc::new(Upstream {
                base: url.trim_end_matches('/').to_owned(),
                client,
            }))
        }
        None => Backend::BuiltIn {
            agent: args.agent,
            profile,
            max_body_bytes: args.max_body_bytes,
            public_url: public_url.to_owned(),
        },
    };
    // Fail at startup, not at the first invocation, if the container cannot be made.
    let template = backend.new_container()?;
    let sessions = Arc::new(Sessions::new(
        backend,
        SessionPolicy {
            idle_timeout: Duration::from_secs(args.idle_timeout),
            max_lifetime: Duration::from_secs(args.max_lifetime),
            startup: Duration::from_millis(args.session_startup_ms),
            exclusive: args.exclusive_sessions,
        },
    ));
    sessions::spawn_reaper(Arc::clone(&sessions));
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64)
    });
    let config = FrontConfig {
        base_url: format!("http://{bound}"),
        runtime_arn: args.runtime_arn.clone(),
        max_body_bytes: args.max_body_bytes,
        rate_limit: RateLimiter::new(args.rate_limit),
        faults: args.fault.map(|spec| FaultInjector::new(spec, seed)),
        request_timeout: Duration::from_secs(args.request_timeout),
        default_session: format!(
            "a2a-emulator-default-session-{}",
            uuid::Uuid::new_v4().simple()
        ),
        interface_path: a2a_core::http::interface_path(public_url),
    };
    front::service(config, sessions, template)
        .map_err(|error| ServeError::Config(error.to_string()))
}

/// The card's URL: the flag, else `AGENTCORE_RUNTIME_URL` with a trailing slash, else the
/// bound address.
fn public_url(args: &Args, bound: SocketAddr) -> String {
    if let Some(url) = &args.public_url {
        return url.clone();
    }
    match std::env::var("AGENTCORE_RUNTIME_URL") {
        Ok(url) if !url.trim().is_empty() => {
            let url = url.trim();
            if url.ends_with('/') {
                url.to_owned()
            } else {
                format!("{url}/")
            }
        }
        _ => format!("http://{bound}/"),
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutdown requested; finishing in-flight requests");
}
