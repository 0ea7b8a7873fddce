//! What the front's steps leave for the journal: raw pieces in the extensions of the
//! answer they pass back (the payload read, the headers the container received, the
//! faults injected), read by the recorder when the answer's head is ready.
//!
//! The recorder marks each request it records with [`Recording`]; a step leaves a note
//! that costs something (a clone) only then, so with the inspector off nothing is noted.

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, Request};

use crate::front::limits::Fault;

/// On a request the journal records.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recording;

/// Whether the journal records `request`.
pub(crate) fn recording<B>(request: &Request<B>) -> bool {
    request.extensions().get::<Recording>().is_some()
}

/// The invocation's payload, as read.
#[derive(Debug, Clone)]
pub(crate) struct Payload(pub(crate) Bytes);

/// The headers the container receives.
#[derive(Debug, Clone)]
pub(crate) struct ContainerHeaders(pub(crate) HeaderMap);

/// The faults `--fault` injected into one invocation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Injected {
    /// The latency added (none when zero).
    pub(crate) latency: Duration,
    /// The fault answered in the container's place.
    pub(crate) fault: Option<Fault>,
    /// The SSE answer was cut after this many events.
    pub(crate) stream_cut: Option<usize>,
}

impl Injected {
    /// How the journal shows them (`latency 200ms, Throttle`); `None` for none.
    pub(crate) fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if !self.latency.is_zero() {
            parts.push(format!("latency {}ms", self.latency.as_millis()));
        }
        if let Some(fault) = self.fault {
            parts.push(format!("{fault:?}"));
        }
        if let Some(events) = self.stream_cut {
            parts.push(format!("StreamCut after {events} events"));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// The first `keep` bytes of `body`, secrets masked, copied: a payload is often a slice
/// of the connection's read buffer, which a shared slice would keep alive.
pub(crate) fn kept(body: &[u8], keep: usize) -> Bytes {
    super::mask::body_bytes(Bytes::copy_from_slice(&body[..body.len().min(keep)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_read_as_the_journal_shows_them() {
        assert_eq!(Injected::default().describe(), None);
        let injected = Injected {
            latency: Duration::from_millis(200),
            fault: Some(Fault::Throttle),
            stream_cut: None,
        };
        assert_eq!(injected.describe().unwrap(), "latency 200ms, Throttle");
        let cut = Injected {
            stream_cut: Some(2),
            ..Injected::default()
        };
        assert_eq!(cut.describe().unwrap(), "StreamCut after 2 events");
    }
}
