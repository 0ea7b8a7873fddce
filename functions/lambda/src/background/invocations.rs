//! Which invocations the runtime has finished: the id of each one whose response it has
//! posted to the Runtime API (or failed to), kept for the extension to wait on.
//!
//! The extension is told of an invocation (its `INVOKE` event) while the runtime works on
//! it, perhaps before the handler has even started the agent. It waits for the
//! invocation's id here before it waits for the engine to be idle, so a task started by
//! that very invocation is never missed.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use lambda_http::lambda_runtime::{Error, LambdaInvocation};
use tokio::sync::watch;
use tower::{Layer, Service};

/// How many finished invocations are remembered. An environment runs one invocation at a
/// time and the runtime gets no next one before the extension asks for its next event, so
/// the one the extension waits for is always among the last two.
const KEPT: usize = 8;

/// The ids of the invocations the runtime finished, newest last.
#[derive(Debug)]
pub struct Invocations {
    finished: watch::Sender<VecDeque<String>>,
}

impl Default for Invocations {
    fn default() -> Self {
        Self {
            finished: watch::Sender::new(VecDeque::with_capacity(KEPT)),
        }
    }
}

impl Invocations {
    /// Records that the runtime finished `request_id`.
    pub fn finish(&self, request_id: String) {
        self.finished.send_modify(|finished| {
            if finished.len() == KEPT {
                finished.pop_front();
            }
            finished.push_back(request_id);
        });
    }

    /// Waits until the runtime has finished `request_id` (at once if it has).
    pub async fn finished(&self, request_id: &str) {
        let mut finished = self.finished.subscribe();
        // The sender lives as long as `self`: the wait ends only once the id is there.
        let _ = finished
            .wait_for(|finished| finished.iter().any(|id| id == request_id))
            .await;
    }
}

/// The runtime layer that records each invocation in [`Invocations`] once the runtime's
/// service is done with it: the response posted to the Runtime API (all of its body, when
/// streamed), or the error reported. Every invocation passes here, an event that is not
/// HTTP included.
#[derive(Debug, Clone)]
pub struct TrackLayer(Arc<Invocations>);

impl TrackLayer {
    /// Records the finished invocations in `invocations`.
    pub fn new(invocations: Arc<Invocations>) -> Self {
        Self(invocations)
    }
}

impl<S> Layer<S> for TrackLayer {
    type Service = Tracked<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Tracked {
            inner,
            invocations: Arc::clone(&self.0),
        }
    }
}

/// The runtime's service, recording the invocations it finished.
#[derive(Debug)]
pub struct Tracked<S> {
    inner: S,
    invocations: Arc<Invocations>,
}

impl<S> Service<LambdaInvocation> for Tracked<S>
where
    S: Service<LambdaInvocation, Response = (), Error = Error>,
{
    type Response = ();
    type Error = Error;
    type Future = Finishing<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, invocation: LambdaInvocation) -> Self::Future {
        let finished = Finished {
            invocations: Arc::clone(&self.invocations),
            request_id: invocation.context.request_id.clone(),
        };
        Finishing {
            inner: Box::pin(self.inner.call(invocation)),
            finished: Some(finished),
        }
    }
}

/// Records its invocation as finished when dropped.
struct Finished {
    invocations: Arc<Invocations>,
    request_id: String,
}

impl Drop for Finished {
    fn drop(&mut self) {
        self.invocations
            .finish(std::mem::take(&mut self.request_id));
    }
}

/// The runtime's work on one invocation; the invocation counts as finished when it
/// completes, or when it is dropped unfinished (the runtime is stopping).
pub struct Finishing<F> {
    /// Boxed, so this future is `Unpin` whatever the runtime's is.
    inner: Pin<Box<F>>,
    finished: Option<Finished>,
}

impl<F: Future> Future for Finishing<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let output = ready!(self.inner.as_mut().poll(cx));
        self.finished.take();
        Poll::Ready(output)
    }
}
