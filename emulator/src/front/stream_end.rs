//! How a response still being sent ends before the container finishes it: when its session
//! ends (StopRuntimeSession, the `session-lost` fault, idle or lifetime ends) and, for a
//! stream, at AgentCore's streaming limit.
//!
//! AgentCore documents both ends but not their bytes: StopRuntimeSession "instantly
//! terminates the specified session and stops any ongoing streaming responses"
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-stop-session.html>),
//! and a streaming connection lasts at most 60 minutes ("Streaming maximum duration",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/bedrock-agentcore-limits.html>).
//! The emulator cuts the connection: no closing event and no final chunk, so the client
//! sees a broken stream (as when a platform drops a connection), never one that looks
//! complete. An A2A client then gets the task again or resubscribes.
//!
//! The stream bound step ([`StreamBoundLayer`]) also keeps the call's session in use (its
//! in-flight mark) for as long as the answer is being sent: a whole in-process answer is
//! over when it is handed back; a stream, or any answer of a process or an upstream, when
//! its body ends.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, BodyDataStream, Bytes};
use axum::http::Request;
use axum::response::Response;
use futures_util::{FutureExt as _, Stream, StreamExt as _};
use tower::{Layer, Service};

use super::container::Container;
use super::session_entry::Entered;
use super::sessions::{InFlight, Session};
use super::step::{self, Answer, Next, is_event_stream};

/// Bounds each invocation's answer.
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamBoundLayer {
    max_stream: Duration,
}

impl StreamBoundLayer {
    /// Streams last at most `max_stream`.
    pub(super) fn new(max_stream: Duration) -> Self {
        Self { max_stream }
    }
}

impl<S> Layer<S> for StreamBoundLayer {
    type Service = StreamBound<S>;

    fn layer(&self, inner: S) -> Self::Service {
        StreamBound {
            max_stream: self.max_stream,
            inner,
        }
    }
}

/// See [`StreamBoundLayer`].
#[derive(Debug, Clone)]
pub(super) struct StreamBound<S> {
    max_stream: Duration,
    inner: S,
}

impl<S: Next<Bytes>> Service<Request<Bytes>> for StreamBound<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        let Some(Entered {
            session,
            mark: Some(mark),
        }) = request.extensions().get::<Entered>().cloned()
        else {
            return step::pass(&mut self.inner, request);
        };
        let max_stream = self.max_stream;
        Box::pin(self.inner.call(request).map(move |answered| {
            answered.map(|response| {
                if is_whole(&response, &session.container) {
                    return response;
                }
                let limit = is_event_stream(&response).then_some(max_stream);
                let (parts, body) = response.into_parts();
                Response::from_parts(parts, bounded(body, &session, limit, mark))
            })
        }))
    }
}

/// Whether `response` is all there when `container` hands it back: a whole (not SSE)
/// answer of an in-process container.
pub(super) fn is_whole(response: &Response, container: &Container) -> bool {
    !is_event_stream(response) && container.answers_whole()
}

/// Why a response was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Cut {
    /// Its session ended.
    #[error("the session ended")]
    SessionEnded,
    /// The stream reached the streaming limit.
    #[error("the stream reached its maximum duration")]
    MaxDuration,
}

/// A response body that ends early with a [`Cut`], holding the invocation's in-flight mark
/// until it ends.
struct Bounded {
    body: BodyDataStream,
    end: Pin<Box<dyn Future<Output = Cut> + Send>>,
    _mark: Arc<InFlight>,
    done: bool,
}

impl Stream for Bounded {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        if let Poll::Ready(cut) = self.end.poll_unpin(cx) {
            self.done = true;
            tracing::info!(%cut, "response cut");
            // An error ends the body without its last chunk: the connection is dropped.
            return Poll::Ready(Some(Err(std::io::Error::other(cut))));
        }
        match self.body.poll_next_unpin(cx) {
            Poll::Ready(None) => {
                self.done = true;
                Poll::Ready(None)
            }
            Poll::Ready(Some(chunk)) => Poll::Ready(Some(chunk.map_err(std::io::Error::other))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// `body`, cut when `session` ends and, when `max_duration` is set, once it has lasted
/// that long; `mark` lives as long as it.
fn bounded(
    body: Body,
    session: &Session,
    max_duration: Option<Duration>,
    mark: Arc<InFlight>,
) -> Body {
    let ended = session.ended().map(|()| Cut::SessionEnded);
    let end: Pin<Box<dyn Future<Output = Cut> + Send>> = match max_duration {
        None => Box::pin(ended),
        Some(limit) => {
            let expired = tokio::time::sleep(limit).map(|()| Cut::MaxDuration);
            Box::pin(
                futures_util::future::select(Box::pin(ended), Box::pin(expired))
                    .map(|either| either.factor_first().0),
            )
        }
    };
    Body::from_stream(Bounded {
        body: body.into_data_stream(),
        end,
        _mark: mark,
        done: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::sessions::testing::sessions;
    use axum::http::header;
    use tower::ServiceExt as _;

    /// An SSE answer that sends one event and never ends.
    fn endless() -> Response {
        let event = futures_util::stream::once(async {
            Ok::<_, std::io::Error>(Bytes::from("data: 1\n\n"))
        });
        let body = Body::from_stream(event.chain(futures_util::stream::pending()));
        let mut response = Response::new(body);
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, "text/event-stream".parse().unwrap());
        response
    }

    /// A request that entered `session` of `sessions`.
    fn entered(sessions: &super::super::sessions::Sessions, session: &str) -> Request<Bytes> {
        let (session, mark, _) = sessions.enter(session).unwrap();
        let mut request = Request::post("/").body(Bytes::new()).unwrap();
        request.extensions_mut().insert(Entered {
            session,
            mark: Some(Arc::new(mark)),
        });
        request
    }

    fn bound(
        limit: Duration,
    ) -> impl Service<Request<Bytes>, Response = Response, Error = std::convert::Infallible> {
        let inner = tower::service_fn(|_: Request<Bytes>| async {
            Ok::<_, std::convert::Infallible>(endless())
        });
        StreamBoundLayer::new(limit).layer(inner)
    }

    #[tokio::test]
    async fn a_stream_is_cut_at_its_maximum_duration() {
        let sessions = sessions();
        let response = bound(Duration::from_millis(50))
            .oneshot(entered(&sessions, "s"))
            .await
            .unwrap();
        let read = axum::body::to_bytes(response.into_body(), usize::MAX).await;
        assert!(read.unwrap_err().to_string().contains("maximum duration"));
    }

    #[tokio::test]
    async fn a_stream_is_cut_when_its_session_ends() {
        let sessions = sessions();
        let response = bound(Duration::from_secs(60))
            .oneshot(entered(&sessions, "s"))
            .await
            .unwrap();
        sessions.stop("s", "test").unwrap();
        let read = axum::body::to_bytes(response.into_body(), usize::MAX).await;
        assert!(read.unwrap_err().to_string().contains("session ended"));
    }

    #[tokio::test]
    async fn a_whole_in_process_answer_is_handed_back_as_it_is() {
        let sessions = sessions();
        let inner = tower::service_fn(|_: Request<Bytes>| async {
            Ok::<_, std::convert::Infallible>(Response::new(Body::from("whole")))
        });
        let step = StreamBoundLayer::new(Duration::from_millis(1)).layer(inner);
        let response = step.oneshot(entered(&sessions, "s")).await.unwrap();
        assert_eq!(http_body::Body::size_hint(response.body()).exact(), Some(5));
        assert_eq!(
            axum::body::to_bytes(response.into_body(), 16)
                .await
                .unwrap(),
            "whole"
        );
    }
}
