//! Stopping a server without cutting its clients off: the process's stop signal (SIGTERM or
//! Ctrl-C), a stop switch that lets in-flight requests finish within a grace, and the
//! address a local client reaches a server on. The container host and the emulator share it.

use std::future::IntoFuture;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::sync::watch;

/// Resolves on SIGTERM (how AgentCore and Lambda stop a process) or Ctrl-C.
pub async fn shutdown_signal() {
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

/// Resolves once the switch `stopped` listens to says stop, or its sender is dropped.
pub async fn stop_requested(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

/// Runs `server` — an axum server whose graceful shutdown waits for
/// [`stop_requested`] on the same switch — until it ends, or until `grace` has passed since
/// the switch said stop: requests still in flight then are cut off, with a warning.
///
/// # Errors
/// The server's own error.
pub async fn drain<S>(
    server: S,
    stopped: watch::Receiver<bool>,
    grace: Duration,
) -> std::io::Result<()>
where
    S: IntoFuture<Output = std::io::Result<()>>,
{
    tokio::select! {
        result = server.into_future() => result,
        () = async move {
            stop_requested(stopped).await;
            tokio::time::sleep(grace).await;
        } => {
            tracing::warn!(seconds = grace.as_secs(), "in-flight requests did not finish in time; stopping");
            Ok(())
        }
    }
}

/// The address a client on this machine reaches a server bound to `bound` on: loopback
/// for an unspecified address (`0.0.0.0`, `::`).
///
/// ```
/// use a2a_lambda_server::host::graceful::reachable;
///
/// assert_eq!(reachable(([0, 0, 0, 0], 9000).into()).to_string(), "127.0.0.1:9000");
/// assert_eq!(reachable(([10, 0, 0, 1], 9000).into()).to_string(), "10.0.0.1:9000");
/// ```
pub fn reachable(bound: SocketAddr) -> SocketAddr {
    let mut shown = bound;
    if shown.ip().is_unspecified() {
        shown.set_ip(IpAddr::V4(Ipv4Addr::LOCALHOST));
    }
    shown
}
