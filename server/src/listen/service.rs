//! [`Served`]: the service each connection's hyper calls — the host's router with the
//! connection layer's part of a request around it: the body timed between frames, a
//! stalled body answered `408`, an answer still missing at the cut answered `503`, and
//! streamed answers counted.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response};
use hyper::body::Incoming;
use tower::Service;

use super::answers;
use super::body::{Inbound, Outbound};
use super::gauges::Gauges;
use super::state::Connection;

/// The host's service for one connection.
#[derive(Debug, Clone)]
pub(crate) struct Served<S> {
    pub(crate) inner: S,
    pub(crate) connection: Arc<Connection>,
    pub(crate) gauges: Arc<Gauges>,
    pub(crate) body_read_timeout: Duration,
}

impl<S> hyper::service::Service<Request<Incoming>> for Served<S>
where
    S: Service<Request<Body>, Response = Response<Body>, Error = Infallible> + Clone,
{
    type Response = Response<Outbound>;
    type Error = Infallible;
    type Future = Answer<S::Future>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.connection.set_body_stalled(false);
        let connection = Arc::clone(&self.connection);
        let bound = self.body_read_timeout;
        let request =
            request.map(|body| Body::new(Inbound::new(body, bound, Arc::clone(&connection))));
        // Routers and the front are always ready (axum's `Router` is; the front's
        // `FrontService` is too): a clone is called directly, as `oneshot` would.
        let mut inner = self.inner.clone();
        Answer {
            inner: inner.call(request),
            connection,
            gauges: Arc::clone(&self.gauges),
            bound,
        }
    }
}

pin_project_lite::pin_project! {
    /// The host's answer to one request, and what the connection layer makes of it.
    pub(crate) struct Answer<F> {
        #[pin]
        inner: F,
        connection: Arc<Connection>,
        gauges: Arc<Gauges>,
        bound: Duration,
    }
}

impl<F> Future for Answer<F>
where
    F: Future<Output = Result<Response<Body>, Infallible>>,
{
    type Output = Result<Response<Outbound>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = match this.inner.poll(cx) {
            Poll::Ready(Ok(response)) => response,
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending if this.connection.is_cut(cx) => {
                return Poll::Ready(Ok(answers::shutting_down().map(Outbound::plain)));
            }
            Poll::Pending => return Poll::Pending,
        };
        if this.connection.body_stalled() {
            return Poll::Ready(Ok(answers::body_stalled(*this.bound).map(Outbound::plain)));
        }
        let (head, body) = response.into_parts();
        let body = if http_body::Body::size_hint(&body).exact().is_some() {
            Outbound::plain(body)
        } else {
            Outbound::stream(body, this.gauges.stream(), Arc::clone(this.connection))
        };
        Poll::Ready(Ok(Response::from_parts(head, body)))
    }
}
