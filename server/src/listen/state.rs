//! [`Connection`]: what one connection's request future, bodies and serving task share —
//! whether the request body stalled, and the shutdown's cut.

use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Context;

use futures_util::task::AtomicWaker;

/// One connection's shared flags. HTTP/1 serves one request at a time, so one waker is
/// enough: whichever of the request's future or its answer's body waits registers it.
#[derive(Debug, Default)]
pub(crate) struct Connection {
    /// The current request's body went quiet for the body read timeout.
    body_stalled: AtomicBool,
    /// The shutdown grace ran out: answer at once, end streams.
    cut: AtomicBool,
    waker: AtomicWaker,
}

impl Connection {
    pub(crate) fn body_stalled(&self) -> bool {
        self.body_stalled.load(Ordering::Acquire)
    }

    pub(crate) fn set_body_stalled(&self, stalled: bool) {
        self.body_stalled.store(stalled, Ordering::Release);
    }

    /// Whether the grace ran out; registers `cx` to be woken when it does.
    pub(crate) fn is_cut(&self, cx: &Context<'_>) -> bool {
        if self.cut.load(Ordering::Acquire) {
            return true;
        }
        self.waker.register(cx.waker());
        self.cut.load(Ordering::Acquire)
    }

    /// The grace ran out: wakes what waits on this connection.
    pub(crate) fn cut(&self) {
        self.cut.store(true, Ordering::Release);
        self.waker.wake();
    }
}
