//! The `stream-cut` fault: an SSE answer that stops after a number of events the way a
//! dropped connection looks to a client — the body breaks off (an error ends it, so the
//! connection closes without the chunked body's last chunk) and no final event comes.
//!
//! A client that survives it resubscribes to the task (`tasks/resubscribe`,
//! `SubscribeToTask`) with `Last-Event-ID` and goes on from there. Behind AgentCore that
//! header does not reach the container (only `X-Amzn-Bedrock-AgentCore-Runtime-Custom-*`
//! headers and `Authorization` can be allowlisted:
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-header-allowlist.html>),
//! so the container answers with the task as it stands: a client must not count on a
//! replay after its last event.

use std::future::Future as _;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::Response;
use futures_util::Stream;
use futures_util::StreamExt as _;

/// Why a cut body ended; what the server's connection reports as the cause.
#[derive(Debug, thiserror::Error)]
#[error("injected fault stream-cut: the connection dropped after {0} events")]
pub struct StreamCut(usize);

/// `response` cut after `events` SSE events when it is an event stream; any other answer
/// as it is.
pub fn cut_after(response: Response, events: usize) -> Response {
    let streaming = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    if !streaming {
        return response;
    }
    tracing::info!(events, "injected fault: stream-cut");
    let (parts, body) = response.into_parts();
    let cut = CutBody {
        inner: Some(body.into_data_stream()),
        counter: EventCounter::default(),
        left: events,
        drop_at: None,
    };
    Response::from_parts(parts, Body::from_stream(cut))
}

/// The body until its `left`-th event has passed, then an error.
struct CutBody {
    /// Dropped at the cut: the container's stream (and the session's in-flight mark riding
    /// on it) ends then, as it does when a client goes away.
    inner: Option<axum::body::BodyDataStream>,
    counter: EventCounter,
    left: usize,
    /// Set at the cut: the connection drops when it fires, so that what was sent before
    /// it is written out first (an error at once could drop the answer unsent).
    drop_at: Option<Pin<Box<tokio::time::Sleep>>>,
}

/// How long after the cut's last event the connection drops.
const DROP_DELAY: std::time::Duration = std::time::Duration::from_millis(20);

impl Stream for CutBody {
    type Item = Result<Bytes, StreamCut>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        if this.left == 0 {
            let drop_at = this
                .drop_at
                .get_or_insert_with(|| Box::pin(tokio::time::sleep(DROP_DELAY)));
            if drop_at.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            this.inner = None;
            return Poll::Ready(Some(Err(StreamCut(this.counter.events))));
        }
        match inner.poll_next_unpin(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) => {
                this.inner = None;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(error))) => {
                // The container's own failure: the body ends as it would have.
                tracing::debug!(%error, "the container's stream failed");
                this.inner = None;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Ok(chunk))) => match this.counter.feed(&chunk, this.left) {
                Some(end) => {
                    this.left = 0;
                    Poll::Ready(Some(Ok(chunk.slice(..end))))
                }
                None => {
                    this.left -= this.counter.take_completed();
                    Poll::Ready(Some(Ok(chunk)))
                }
            },
        }
    }
}

/// Counts SSE events in bytes as they pass (WHATWG format: lines end with LF, CR or CRLF;
/// a blank line ends an event). A block of only comments (a keep-alive) is not an event.
#[derive(Debug, Default)]
struct EventCounter {
    /// Events seen in all.
    events: usize,
    /// Events completed in the chunk being fed.
    completed: usize,
    /// The line being read has bytes.
    in_line: bool,
    /// The line being read starts with `:` (a comment).
    comment: bool,
    /// The block being read has a field line.
    has_field: bool,
    /// The last byte was CR: a LF now is part of that line end.
    after_cr: bool,
}

impl EventCounter {
    /// Feeds `chunk`; when the `limit`-th event of this feed ends in it, the length of the
    /// chunk up to and including that event's last line end.
    fn feed(&mut self, chunk: &[u8], limit: usize) -> Option<usize> {
        self.completed = 0;
        for (at, &byte) in chunk.iter().enumerate() {
            if std::mem::take(&mut self.after_cr) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    if self.in_line {
                        self.has_field |= !self.comment;
                        self.in_line = false;
                    } else if std::mem::take(&mut self.has_field) {
                        self.events += 1;
                        self.completed += 1;
                        if self.completed == limit {
                            // A CRLF's LF belongs to the event too.
                            let crlf = byte == b'\r' && chunk.get(at + 1) == Some(&b'\n');
                            return Some(at + 1 + usize::from(crlf));
                        }
                    }
                }
                _ if !self.in_line => {
                    self.in_line = true;
                    self.comment = byte == b':';
                }
                _ => {}
            }
        }
        None
    }

    /// Events completed in the last feed.
    fn take_completed(&mut self) -> usize {
        std::mem::take(&mut self.completed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &[u8] =
        b": keep-alive\n\nid: t:1.1\ndata: {\"a\":1}\n\nid: t:1.2\r\ndata: {\"b\":2}\r\n\r\ndata: c\r\rdata: d\n\n";

    /// The bytes a client gets when the stream is cut after `events`, fed in chunks of
    /// `size`.
    fn delivered(events: usize, size: usize) -> Vec<u8> {
        let mut counter = EventCounter::default();
        let mut left = events;
        let mut out = Vec::new();
        for chunk in STREAM.chunks(size) {
            if let Some(end) = counter.feed(chunk, left) {
                out.extend_from_slice(&chunk[..end]);
                return out;
            }
            left -= counter.take_completed();
            out.extend_from_slice(chunk);
        }
        out
    }

    #[test]
    fn the_cut_falls_right_after_the_nth_event_however_the_bytes_are_chunked() {
        let after = |text: &str| text.as_bytes().to_vec();
        for size in 1..=STREAM.len() {
            assert_eq!(
                delivered(1, size),
                after(": keep-alive\n\nid: t:1.1\ndata: {\"a\":1}\n\n"),
                "{size}"
            );
            // The second event ends at a CR (which ends the event); its LF comes along
            // when the same chunk holds it.
            let two = after(
                ": keep-alive\n\nid: t:1.1\ndata: {\"a\":1}\n\nid: t:1.2\r\ndata: {\"b\":2}\r\n\r\n",
            );
            let got = delivered(2, size);
            assert!(got == two || got == two[..two.len() - 1], "{size}: {got:?}");
            assert_eq!(delivered(4, size), STREAM.to_vec(), "{size}");
            assert_eq!(delivered(9, size), STREAM.to_vec(), "{size}");
        }
    }

    #[tokio::test]
    async fn a_cut_body_breaks_off_with_an_error_and_other_answers_pass() {
        let sse = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from(STREAM))
            .unwrap();
        let mut body = cut_after(sse, 1).into_body().into_data_stream();
        let first = body.next().await.unwrap().unwrap();
        assert_eq!(
            &first[..],
            b": keep-alive\n\nid: t:1.1\ndata: {\"a\":1}\n\n"
        );
        let error = body.next().await.unwrap().unwrap_err();
        assert!(error.to_string().contains("stream-cut"), "{error}");
        assert!(body.next().await.is_none());

        let json = Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from("{}"))
            .unwrap();
        let whole = axum::body::to_bytes(cut_after(json, 1).into_body(), 100).await;
        assert_eq!(&whole.unwrap()[..], b"{}");
    }
}
