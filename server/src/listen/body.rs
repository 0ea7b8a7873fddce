//! The bodies the connection layer wraps: a request body that fails once no part of it has
//! arrived for the body read timeout ([`Inbound`]), and an answer's body that counts as a
//! stream and ends cleanly at the shutdown's cut ([`Outbound`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use tokio::time::{Instant, Sleep};

use super::gauges::Held;
use super::state::Connection;

/// Why a request body ended early.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// No part of the body arrived for the body read timeout.
    #[error("no part of the request body arrived for {} ms", .0.as_millis())]
    Stalled(Duration),
    /// The connection failed while the body was read.
    #[error("reading the request body: {0}")]
    Read(#[from] hyper::Error),
}

/// A request body with a timer between its frames: made on the first wait, reset on each
/// frame (so a long upload that keeps arriving is never cut).
#[derive(Debug)]
pub(crate) struct Inbound {
    inner: Incoming,
    bound: Duration,
    timer: Option<Pin<Box<Sleep>>>,
    armed: bool,
    connection: Arc<Connection>,
}

impl Inbound {
    pub(crate) fn new(inner: Incoming, bound: Duration, connection: Arc<Connection>) -> Self {
        Self {
            inner,
            bound,
            timer: None,
            armed: false,
            connection,
        }
    }
}

impl http_body::Body for Inbound {
    type Data = Bytes;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BodyError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.armed = false;
                Poll::Ready(frame.map(|frame| frame.map_err(BodyError::Read)))
            }
            Poll::Pending => {
                let deadline = Instant::now() + this.bound;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
                if !this.armed {
                    timer.as_mut().reset(deadline);
                    this.armed = true;
                }
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.connection.set_body_stalled(true);
                        Poll::Ready(Some(Err(BodyError::Stalled(this.bound))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// An answer's body. One of unknown length (an SSE stream) is counted in the gauges while
/// it lives and ends — the chunked body terminated, not the connection reset — at the
/// shutdown's cut; one of known length passes through untouched.
#[derive(Debug)]
pub struct Outbound {
    inner: Body,
    stream: Option<(Held, Arc<Connection>)>,
    /// Ended at the cut.
    ended: bool,
}

impl Outbound {
    pub(crate) fn plain(inner: Body) -> Self {
        Self {
            inner,
            stream: None,
            ended: false,
        }
    }

    pub(crate) fn stream(inner: Body, held: Held, connection: Arc<Connection>) -> Self {
        Self {
            inner,
            stream: Some((held, connection)),
            ended: false,
        }
    }
}

impl http_body::Body for Outbound {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        if let Some((_, connection)) = &this.stream
            && connection.is_cut(cx)
        {
            this.stream = None;
            this.ended = true;
            return Poll::Ready(None);
        }
        Pin::new(&mut this.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
