//! Serving connections: hyper's HTTP/1 connection around a host's router, with the limits a
//! server on the open network needs — header, body and write-stall timeouts, a cap on open
//! connections, and a graceful shutdown. The container host and the emulator serve with
//! it ([`serve`]).
//!
//! Why hyper directly (rather than `axum::serve`): axum's server has no header or body
//! timeouts, no connection cap and no way to end streams at shutdown; hyper's connection
//! has the header read timeout and graceful close built in, and it is already what axum
//! runs on (no new code compiled).
//!
//! Shutdown, once the stop switch says stop:
//! 1. the listener is closed at once: new connections are refused by the system;
//! 2. idle keep-alive connections are closed; each busy one is closed after its answer;
//! 3. requests and streams in flight get [`Limits::shutdown_grace`] to finish;
//! 4. then each request still unanswered gets `503` with a JSON-RPC `-32603`, and each
//!    stream still open ends cleanly (its chunked body terminated); a second later what is
//!    left is dropped.
//!
//! ```
//! # async fn example() -> std::io::Result<()> {
//! use std::sync::Arc;
//! use a2a_lambda_server::host::listen::{Gauges, Limits, serve};
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let router = axum::Router::new().route("/ping", axum::routing::get(|| async { "ok" }));
//! let (stop, stopped) = tokio::sync::watch::channel(false);
//! let gauges = Arc::new(Gauges::default());
//! let server = tokio::spawn(serve(listener, router, Limits::default(), stopped, Arc::clone(&gauges)));
//! stop.send(true).ok();
//! server.await??;
//! assert_eq!(gauges.connections(), 0);
//! # Ok(())
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
//! ```

mod answers;
mod body;
mod gauges;
mod limits;
mod refuse;
mod service;
mod stall;
mod state;

pub use body::{BodyError, Outbound};
pub use gauges::Gauges;
pub use limits::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_SHUTDOWN_GRACE, DEFAULT_WRITE_STALL_TIMEOUT, Limits,
};

use std::convert::Infallible;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::Service;

use crate::graceful::stop_requested;
use refuse::Refuser;
use service::Served;
use stall::StallBound;
use state::Connection;

/// How long connections get to write their last answers after the cut.
const FLUSH: Duration = Duration::from_secs(1);
/// How long the accept loop waits after a failed accept (out of file descriptors) before
/// it tries again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `service` on `listener` within `limits` until `stopped` says stop (or its sender
/// is dropped), then shuts down gracefully (see the module); `gauges` counts the
/// connections meanwhile.
///
/// # Errors
/// None today: a failed accept (out of file descriptors) is logged and retried; the result
/// is kept for the hosts' `Running::shutdown`.
pub async fn serve<S>(
    listener: TcpListener,
    service: S,
    limits: Limits,
    stopped: watch::Receiver<bool>,
    gauges: Arc<Gauges>,
) -> io::Result<()>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let (cut, cuts) = watch::channel(false);
    let mut refuser = Refuser::new(limits.max_connections);
    let mut accept_errors = 0_u64;
    let stop = stop_requested(stopped.clone());
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut stop => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                accept_errors += 1;
                if accept_errors.is_power_of_two() {
                    tracing::error!(%error, count = accept_errors, "accepting a connection failed");
                }
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        if gauges.connections() >= limits.max_connections {
            gauges.refuse();
            refuser.refuse(stream);
            continue;
        }
        let _ = stream.set_nodelay(true);
        let held = gauges.connection();
        let served = Served {
            inner: service.clone(),
            connection: Arc::default(),
            gauges: Arc::clone(&gauges),
            body_read_timeout: limits.body_read_timeout,
        };
        let (stopped, cuts) = (stopped.clone(), cuts.clone());
        tokio::spawn(async move {
            connection(stream, served, &limits, stopped, cuts).await;
            drop(held);
        });
    }
    drop(listener);
    let open = gauges.connections();
    tracing::info!(open, "stopped listening; finishing the requests in flight");
    if tokio::time::timeout(limits.shutdown_grace, gauges.all_closed())
        .await
        .is_err()
    {
        tracing::warn!(
            open = gauges.connections(),
            streams = gauges.streams(),
            grace_ms = limits.shutdown_grace.as_millis(),
            "in-flight requests did not finish in time: the unanswered get an error, streams end"
        );
        let _ = cut.send(true);
        if tokio::time::timeout(FLUSH + Duration::from_millis(100), gauges.all_closed())
            .await
            .is_err()
        {
            tracing::warn!(
                open = gauges.connections(),
                "connections dropped at shutdown"
            );
        }
    }
    Ok(())
}

/// Serves one connection: to its end, or through the shutdown's steps.
async fn connection<S>(
    stream: TcpStream,
    served: Served<S>,
    limits: &Limits,
    stopped: watch::Receiver<bool>,
    mut cuts: watch::Receiver<bool>,
) where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Clone,
    S::Future: Send + 'static,
{
    let shared: Arc<Connection> = Arc::clone(&served.connection);
    let io = TokioIo::new(StallBound::new(stream, limits.write_stall_timeout));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let conn = builder.serve_connection(io, served);
    tokio::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => return ended(result),
        () = stop_requested(stopped) => conn.as_mut().graceful_shutdown(),
    }
    tokio::select! {
        result = conn.as_mut() => return ended(result),
        _ = cuts.wait_for(|cut| *cut) => shared.cut(),
    }
    if let Ok(result) = tokio::time::timeout(FLUSH, conn).await {
        ended(result);
    }
}

/// Logs how a connection ended, when it was not cleanly.
fn ended(result: Result<(), hyper::Error>) {
    if let Err(error) = result {
        // Timeouts, resets and stalled writes are the client's doing: not worth a warning.
        tracing::debug!(%error, "connection closed");
    }
}
