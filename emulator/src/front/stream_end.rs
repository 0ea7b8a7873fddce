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

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, BodyDataStream, Bytes};
use futures_util::{FutureExt as _, Stream, StreamExt as _};

use super::sessions::{InFlight, Session};

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
    _mark: InFlight,
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
/// that long.
pub(super) fn bounded(
    body: Body,
    session: &Session,
    max_duration: Option<Duration>,
    mark: InFlight,
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
