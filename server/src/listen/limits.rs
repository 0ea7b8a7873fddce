//! [`Limits`]: the numbers that bound a client's connection — how long it may take to send
//! its headers and its body, how long a write to it may stall, how many connections are
//! open at once, and how long shutdown waits.

use std::time::Duration;

/// Default [`Limits::header_read_timeout`]: 60 s, nginx's `client_header_timeout`
/// (<https://nginx.org/en/docs/http/ngx_http_core_module.html#client_header_timeout>).
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Default [`Limits::body_read_timeout`]: 60 s between two reads of the body, nginx's
/// `client_body_timeout`
/// (<https://nginx.org/en/docs/http/ngx_http_core_module.html#client_body_timeout>).
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(60);
/// Default [`Limits::write_stall_timeout`]: 60 s for one write to make progress, nginx's
/// `send_timeout` (<https://nginx.org/en/docs/http/ngx_http_core_module.html#send_timeout>).
pub const DEFAULT_WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(60);
/// Default [`Limits::max_connections`]: 10,000 — eight times the 1,256 connections a soak
/// with 1,000 slow clients and 256 normal ones holds, and within the open-file limit a
/// container is usually given (a refusal needs no file beyond the accepted socket).
pub const DEFAULT_MAX_CONNECTIONS: usize = 10_000;
/// Default [`Limits::shutdown_grace`]: 10 s, the hosts' shutdown grace
/// (`A2A_SHUTDOWN_GRACE_SECONDS`, `--shutdown-grace-seconds`): long enough for an answer
/// already being computed, short enough to stop well before a supervisor's SIGKILL.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The limits a server puts on each client connection. Every one is a number the host's
/// settings set (the container's `A2A_*` variables, the emulator's flags).
///
/// What a client that breaks one gets:
/// - headers not complete within [`header_read_timeout`](Limits::header_read_timeout)
///   after the connection opened or its previous answer was sent (a slow-loris client, or
///   an idle keep-alive connection): the connection is closed, no answer;
/// - no part of the body for [`body_read_timeout`](Limits::body_read_timeout): `408` with
///   a JSON-RPC `-32600` error (`"id": null`) and `Connection: close`;
/// - not reading what it is sent for [`write_stall_timeout`](Limits::write_stall_timeout)
///   (an SSE reader that stopped reading, its socket buffers full): the connection is
///   closed, and its stream is dropped;
/// - a connection over [`max_connections`](Limits::max_connections): `503`,
///   `Retry-After: 1`, a JSON-RPC `-32603` error and `Connection: close`.
///
/// ```
/// use std::time::Duration;
/// use a2a_lambda_server::host::listen::Limits;
///
/// let mut limits = Limits::default();
/// limits.max_connections = 500;
/// assert_eq!(limits.header_read_timeout, Duration::from_secs(60));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// How long a connection may take to deliver a request's headers, counted from when it
    /// opened or its previous answer was sent: so it is also the keep-alive idle timeout
    /// (hyper starts its header timer as soon as a connection waits for a request).
    pub header_read_timeout: Duration,
    /// How long the body may go without a byte arriving: between chunks, not in total, so a
    /// 100 MB body (AgentCore's payload limit) on a slow link still arrives.
    pub body_read_timeout: Duration,
    /// How long a write to the client may wait for room in its socket: a stream whose
    /// events are not read for this long is closed. A stream with nothing to send is not
    /// stalled, however long it is quiet.
    pub write_stall_timeout: Duration,
    /// Connections open at once; one more is refused with `503` (counted, and logged at
    /// most once every ten seconds).
    pub max_connections: usize,
    /// How long requests and streams in flight get on shutdown; then each request still
    /// without an answer gets a JSON-RPC `-32603` error and each stream ends cleanly.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            write_stall_timeout: DEFAULT_WRITE_STALL_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}
