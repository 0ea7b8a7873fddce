//! A task's events as they arrive over SSE.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_core::{ProtocolVersion, model};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use tokio::time::{Instant, Sleep};

use crate::error::Error;
use crate::protocol::{self, StreamKind};
use crate::rpc;
use crate::sse::Decoder;

type Body = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// The events of `message/stream` / `SendStreamingMessage` or of a resubscription, typed,
/// in the order the agent sent them.
///
/// The stream ends after the event that ends it: a message, a terminal state, or — for a
/// send stream — a status update saying the task waits for the client (a subscription stays
/// open across input-required, as the server keeps it). A connection the server closes
/// after an interrupted state also ends it quietly. If the connection ends or breaks before
/// any of that, or nothing (not even a keep-alive comment) arrives for the idle timeout,
/// the last item is [`Error::StreamInterrupted`]. A JSON-RPC error sent as an event is
/// yielded as [`Error::Rpc`] and ends the stream.
pub struct EventStream {
    url: String,
    version: ProtocolVersion,
    kind: StreamKind,
    id: u64,
    body: Option<Body>,
    decoder: Decoder,
    pending: VecDeque<String>,
    /// The last state an event reported.
    last_state: Option<model::TaskState>,
    /// How long the body may stay silent, and the timer counting it down.
    idle: Option<(Duration, Pin<Box<Sleep>>)>,
    /// Set once the last item has been yielded.
    over: bool,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("url", &self.url)
            .field("version", &self.version)
            .field("over", &self.over)
            .finish_non_exhaustive()
    }
}

impl EventStream {
    pub(crate) fn new(
        url: String,
        (version, kind): (ProtocolVersion, StreamKind),
        id: u64,
        response: reqwest::Response,
        idle_timeout: Option<Duration>,
    ) -> Self {
        Self {
            url,
            version,
            kind,
            id,
            body: Some(Box::pin(response.bytes_stream())),
            decoder: Decoder::new(),
            pending: VecDeque::new(),
            last_state: None,
            idle: idle_timeout.map(|limit| (limit, Box::pin(tokio::time::sleep(limit)))),
            over: false,
        }
    }

    /// A stream of one already-read answer (a server that answered a stream request with
    /// plain JSON).
    pub(crate) fn single(
        url: String,
        (version, kind): (ProtocolVersion, StreamKind),
        id: u64,
        data: String,
    ) -> Self {
        Self {
            url,
            version,
            kind,
            id,
            body: None,
            decoder: Decoder::new(),
            pending: VecDeque::from([data]),
            last_state: None,
            idle: None,
            over: false,
        }
    }

    /// The next event, or `None` once the stream is over.
    pub async fn next_event(&mut self) -> Option<Result<model::StreamEvent, Error>> {
        self.next().await
    }

    fn event(&mut self, data: &str) -> Result<model::StreamEvent, Error> {
        let raw = rpc::event_result(&self.url, data, self.id)?;
        let event = protocol::stream_event(self.version, &raw)
            .map_err(|detail| Error::invalid(&self.url, detail))?;
        Ok(event)
    }

    fn finish(
        &mut self,
        item: Result<model::StreamEvent, Error>,
    ) -> Poll<Option<<Self as Stream>::Item>> {
        self.over = true;
        self.body = None;
        Poll::Ready(Some(item))
    }
}

impl Stream for EventStream {
    type Item = Result<model::StreamEvent, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if self.over {
                return Poll::Ready(None);
            }
            if let Some(data) = self.pending.pop_front() {
                return match self.event(&data) {
                    Ok(event) => {
                        if let Some(state) = event.state() {
                            self.last_state = Some(state);
                        }
                        if event.ends(self.kind) {
                            self.finish(Ok(event))
                        } else {
                            Poll::Ready(Some(Ok(event)))
                        }
                    }
                    Err(error) => self.finish(Err(error)),
                };
            }
            let waiting_for_client = self.last_state.is_some_and(|state| state.ends_stream());
            let Some(body) = self.body.as_mut() else {
                if waiting_for_client {
                    self.over = true;
                    return Poll::Ready(None);
                }
                let detail = "no event ended the task's stream".to_owned();
                let url = self.url.clone();
                return self.finish(Err(Error::StreamInterrupted { url, detail }));
            };
            let polled = body.as_mut().poll_next(cx);
            if polled.is_pending() {
                if let Some((limit, timer)) = self.idle.as_mut()
                    && timer.as_mut().poll(cx).is_ready()
                {
                    let detail = format!(
                        "nothing arrived for {}s (not even a keep-alive)",
                        limit.as_secs()
                    );
                    let url = self.url.clone();
                    return self.finish(Err(Error::StreamInterrupted { url, detail }));
                }
                return Poll::Pending;
            }
            if let Some((limit, timer)) = self.idle.as_mut() {
                let limit = *limit;
                timer.as_mut().reset(Instant::now() + limit);
            }
            match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => {
                    let events = self.decoder.push(&chunk);
                    self.pending.extend(events);
                }
                Poll::Ready(Some(Err(error))) => {
                    let url = self.url.clone();
                    let detail = Error::transport(&url, error).to_string();
                    return self.finish(Err(Error::StreamInterrupted { url, detail }));
                }
                Poll::Ready(None) if waiting_for_client && !self.decoder.has_partial_event() => {
                    // The server closed after the task started waiting for the client.
                    self.over = true;
                    self.body = None;
                    return Poll::Ready(None);
                }
                Poll::Ready(None) => {
                    let detail = if self.decoder.has_partial_event() {
                        "the connection closed in the middle of an event"
                    } else {
                        "the connection closed before the task reached a final or interrupted state"
                    };
                    let url = self.url.clone();
                    return self.finish(Err(Error::StreamInterrupted {
                        url,
                        detail: detail.to_owned(),
                    }));
                }
            }
        }
    }
}
