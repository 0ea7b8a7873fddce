//! What the front's inner steps tell the journal about the invocation they serve: the
//! headers the container received, the fault injected, the payload read. Each step calls
//! one function here; the invocation's [`Notes`] ride in a task-local set by the recorder,
//! so nothing is passed through the front's signatures, and a step outside a recorded
//! invocation (the inspector off) finds none and does nothing.

use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Bytes;
use axum::http::HeaderMap;
use tokio::task::futures::TaskLocalFuture;

use super::{mask, reading};

tokio::task_local! {
    /// The notes of the invocation being served.
    static NOTES: Arc<Notes>;
}

/// One invocation's notes.
#[derive(Debug)]
pub(crate) struct Notes {
    body_bytes: usize,
    noted: Mutex<Noted>,
}

/// What was noted.
#[derive(Debug, Default)]
pub(crate) struct Noted {
    pub(crate) container_headers: Option<HeaderMap>,
    pub(crate) fault: Option<String>,
    pub(crate) request_body: Option<Bytes>,
    pub(crate) request_bytes: u64,
    pub(crate) method: Option<String>,
    pub(crate) task_id: Option<String>,
}

impl Notes {
    /// Notes keeping `body_bytes` of a payload.
    pub(crate) fn new(body_bytes: usize) -> Arc<Self> {
        Arc::new(Self {
            body_bytes,
            noted: Mutex::default(),
        })
    }

    /// What was noted, taken.
    pub(crate) fn take(&self) -> Noted {
        std::mem::take(&mut *self.noted.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Runs `make` (which makes the invocation's future) and then the future with these
    /// notes in reach of [`container_headers`], [`fault`] and [`request_body`].
    pub(crate) fn around<F: std::future::Future>(
        self: &Arc<Self>,
        make: impl FnOnce() -> F,
    ) -> TaskLocalFuture<Arc<Self>, F> {
        let future = NOTES.sync_scope(Arc::clone(self), make);
        NOTES.scope(Arc::clone(self), future)
    }
}

fn with(note: impl FnOnce(&mut Noted, usize)) {
    let _ = NOTES.try_with(|notes| {
        let mut noted = notes.noted.lock().unwrap_or_else(PoisonError::into_inner);
        note(&mut noted, notes.body_bytes);
    });
}

/// The headers the container receives.
pub(crate) fn container_headers(headers: &HeaderMap) {
    with(|noted, _| noted.container_headers = Some(mask::headers(headers)));
}

/// A fault injected (`Throttle`, `latency 200ms`, …); several are joined with `", "`.
pub(crate) fn fault(fault: &str) {
    with(|noted, _| match &mut noted.fault {
        Some(faults) => {
            faults.push_str(", ");
            faults.push_str(fault);
        }
        None => noted.fault = Some(fault.to_owned()),
    });
}

/// The invocation's payload, as read.
pub(crate) fn request_body(body: &Bytes) {
    with(|noted, keep| {
        let (method, task_id) = reading::request(body);
        noted.method = method;
        noted.task_id = task_id;
        noted.request_bytes = body.len() as u64;
        noted.request_body = Some(kept(body, keep));
    });
}

/// The first `keep` bytes of `body`, secrets masked, copied: a payload is often a slice
/// of the connection's read buffer, which a shared slice would keep alive.
pub(crate) fn kept(body: &[u8], keep: usize) -> Bytes {
    mask::body_bytes(Bytes::copy_from_slice(&body[..body.len().min(keep)]))
}
