//! [`Gauges`]: what a server's connections are doing now — open connections, open response
//! streams, and connections refused over the cap — read by tests and logs.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tokio::sync::Notify;

/// Counts of a server's connections, updated as they open and close.
///
/// A stream's count falls when its body is dropped, which drops what it reads from (the
/// task's follower): a test reads [`streams`](Gauges::streams) back to zero to see that a
/// stalled or closed stream let go of it.
#[derive(Debug, Default)]
pub struct Gauges {
    connections: AtomicUsize,
    streams: AtomicUsize,
    refused: AtomicU64,
    closed: Notify,
}

impl Gauges {
    /// Connections open now (accepted and not yet closed).
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::Acquire)
    }

    /// Streamed answers (SSE, or any body of unknown length) being sent now.
    pub fn streams(&self) -> usize {
        self.streams.load(Ordering::Acquire)
    }

    /// Connections refused over the cap since the server started.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    pub(crate) fn refuse(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
        crate::telemetry::metrics::connection_refused("limit");
    }

    /// Counts one more connection until the guard is dropped.
    pub(crate) fn connection(self: &Arc<Self>) -> Held {
        self.connections.fetch_add(1, Ordering::AcqRel);
        Held {
            gauges: Arc::clone(self),
            stream: false,
        }
    }

    /// Counts one more stream until the guard is dropped.
    pub(crate) fn stream(self: &Arc<Self>) -> Held {
        self.streams.fetch_add(1, Ordering::AcqRel);
        Held {
            gauges: Arc::clone(self),
            stream: true,
        }
    }

    /// Resolves once no connection is open.
    pub(crate) async fn all_closed(&self) {
        loop {
            let closed = self.closed.notified();
            tokio::pin!(closed);
            closed.as_mut().enable();
            if self.connections() == 0 {
                return;
            }
            closed.await;
        }
    }
}

/// One counted connection or stream; dropping it counts it closed.
#[derive(Debug)]
pub(crate) struct Held {
    gauges: Arc<Gauges>,
    stream: bool,
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.stream {
            self.gauges.streams.fetch_sub(1, Ordering::AcqRel);
        } else if self.gauges.connections.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.gauges.closed.notify_waiters();
        }
    }
}
