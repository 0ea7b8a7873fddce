//! Binding, serving and shutting down.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::engine::{Engine, EngineConfig};
use a2a_core::error::ErrorProfile;
use a2a_core::http::{RouterOptions, router};
use a2a_core::tasks::InMemoryTaskStore;
use tokio::net::TcpListener;

use crate::args::Args;

/// Logs to stderr, filtered by `RUST_LOG` (default `info`).
pub fn init_logging(args: &Args) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
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
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight work finish (bounded).
pub async fn run(args: Args) -> Result<(), ServeError> {
    let address = SocketAddr::new(args.host, args.port);
    let listener = TcpListener::bind(address)
        .await
        .map_err(|source| ServeError::Bind { address, source })?;
    let bound = listener.local_addr()?;
    let public_url = public_url(&args, bound);
    let engine = Engine::new(
        args.agent.agent(),
        Arc::new(InMemoryTaskStore::new()),
        EngineConfig {
            public_url: public_url.clone(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
        },
    )?;
    let app = router(Arc::new(engine), RouterOptions::default());
    println!(
        "a2a-emulator listening on http://{bound} (agent: {}, card url: {public_url})",
        args.agent
    );
    tracing::info!(%bound, %public_url, agent = %args.agent, "serving");

    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut stop_wait = stop_rx.clone();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
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
