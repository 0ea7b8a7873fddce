//! The recorder, the front's step that keeps the journal ([`RecordLayer`]): each request
//! is noted in the journal when its answer's headers are ready (so an open stream shows at
//! once), with what the steps below noted on the answer (`notes`), and completed when the
//! answer's last byte has gone (or its client went away), with what the answer carried.
//!
//! The answer's body is passed on frame by frame, untouched (its size hint too, so a whole
//! answer keeps its `Content-Length`); only its first bytes are copied (the journal's body
//! size), and a whole answer's bytes (up to [`reading::READ_LIMIT`]) or each SSE event are
//! read for its error code and its task.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Instant, SystemTime};

use a2a_lambda_core::agentcore::SESSION_HEADER;
use a2a_lambda_core::version::{VERSION_HEADER, negotiate};
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::header;
use axum::response::Response;
use futures_util::FutureExt as _;
use http_body::{Frame, SizeHint};
use tower::{Layer, Service};

use super::journal::Journal;
use super::mask;
use super::notes::{self, ContainerHeaders, Injected, Payload, Recording};
use super::reading::{self, SseEvents};
use super::records::{InvocationRecord, RouteKind};
use crate::front::step::{Answer, Next};

/// Notes each request the front serves in the journal.
#[derive(Clone)]
pub(crate) struct RecordLayer {
    journal: Journal,
}

impl RecordLayer {
    /// Recording in `journal`.
    pub(crate) fn new(journal: Journal) -> Self {
        Self { journal }
    }
}

impl<S> Layer<S> for RecordLayer {
    type Service = Record<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Record {
            journal: self.journal.clone(),
            inner,
        }
    }
}

/// See [`RecordLayer`].
#[derive(Clone)]
pub(crate) struct Record<S> {
    journal: Journal,
    inner: S,
}

impl<S: Next<Body>> Service<Request> for Record<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let arrived = Instant::now();
        let at = SystemTime::now();
        let uri = request.uri();
        let asked = Asked {
            at,
            arrived,
            route: RouteKind::of(uri.path()),
            path: mask::path_and_query(uri.path(), uri.query()),
            http_method: request.method().to_string(),
            version: version(&request),
            headers: mask::headers(request.headers()),
        };
        request.extensions_mut().insert(Recording);
        let journal = self.journal.clone();
        Box::pin(
            self.inner.call(request).map(move |answered| {
                answered.map(|response| answered_with(&journal, asked, response))
            }),
        )
    }
}

/// The version a request asks for (`0.3` when it names none, as `a2a_lambda_core::version`
/// serves it), or the value it sent when that is no version.
fn version(request: &Request) -> String {
    let header = request
        .headers()
        .get(VERSION_HEADER)
        .and_then(|value| value.to_str().ok());
    match negotiate(header, request.uri().query()) {
        Ok(version) => version.as_str().to_owned(),
        Err(_) => header.unwrap_or("?").to_owned(),
    }
}

/// What the request was, noted on arrival.
struct Asked {
    at: SystemTime,
    arrived: Instant,
    route: RouteKind,
    path: String,
    http_method: String,
    version: String,
    headers: axum::http::HeaderMap,
}

/// What the steps noted on the answer, taken off it.
#[derive(Default)]
struct Noted {
    payload: Option<Bytes>,
    container_headers: Option<axum::http::HeaderMap>,
    fault: Option<String>,
}

impl Noted {
    fn take(response: &mut Response) -> Self {
        let extensions = response.extensions_mut();
        Self {
            payload: extensions.remove::<Payload>().map(|Payload(body)| body),
            container_headers: extensions
                .remove::<ContainerHeaders>()
                .map(|ContainerHeaders(headers)| mask::headers(&headers)),
            fault: extensions
                .remove::<Injected>()
                .and_then(|injected| injected.describe()),
        }
    }
}

/// Notes the answer's head, and passes its body through a [`Recorded`].
fn answered_with(journal: &Journal, asked: Asked, mut response: Response) -> Response {
    let noted = Noted::take(&mut response);
    let (method, task_id) = match &noted.payload {
        Some(body) => reading::request(body),
        None => (None, None),
    };
    let (parts, body) = response.into_parts();
    let session = parts
        .headers
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let stream = parts
        .headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
    let record = InvocationRecord {
        seq: 0,
        at: asked.at,
        session: session.clone(),
        route: asked.route,
        path: asked.path,
        http_method: asked.http_method,
        version: method.is_some().then_some(asked.version),
        method,
        status: parts.status.as_u16(),
        code: None,
        head_latency: asked.arrived.elapsed(),
        latency: None,
        fault: noted.fault,
        request_headers: asked.headers,
        container_headers: noted.container_headers,
        response_headers: mask::headers(&parts.headers),
        request_bytes: noted.payload.as_ref().map_or(0, |body| body.len() as u64),
        request_body: noted
            .payload
            .as_ref()
            .map(|body| notes::kept(body, journal.body_bytes())),
        response_body: Bytes::new(),
        response_bytes: 0,
        task_id,
        stream,
        done: false,
        lambda: None,
    };
    let seq = journal.open(record);
    let recorded = Recorded {
        inner: body,
        journal: journal.clone(),
        seq,
        session,
        arrived: asked.arrived,
        kept: Vec::new(),
        kept_bytes: 0,
        bytes: 0,
        reader: if stream {
            Reader::Events(SseEvents::default(), None, None)
        } else {
            Reader::Whole(Vec::new(), 0)
        },
        done: false,
    };
    Response::from_parts(parts, Body::new(recorded))
}

/// How an answer is read.
enum Reader {
    /// A whole answer's frames (shared, not copied) and their size, up to the read limit
    /// (past it, dropped and not read).
    Whole(Vec<Bytes>, usize),
    /// An SSE answer's events, the first error code and the first task among them.
    Events(SseEvents, Option<i64>, Option<String>),
}

/// An answer's body on its way to the client, copied in part for the journal.
struct Recorded {
    inner: Body,
    journal: Journal,
    seq: u64,
    session: Option<String>,
    arrived: Instant,
    /// The first bytes (the journal's body size), copied.
    kept: Vec<Bytes>,
    kept_bytes: usize,
    bytes: u64,
    reader: Reader,
    done: bool,
}

impl Recorded {
    fn observe(&mut self, data: &Bytes) {
        self.bytes += data.len() as u64;
        let room = self.journal.body_bytes().saturating_sub(self.kept_bytes);
        if room > 0 {
            // Copied: a frame may be a slice of a larger buffer the journal must not keep.
            let piece = Bytes::copy_from_slice(&data[..data.len().min(room)]);
            self.kept_bytes += piece.len();
            self.kept.push(piece);
        }
        match &mut self.reader {
            Reader::Whole(frames, size) => {
                *size += data.len();
                if *size <= reading::READ_LIMIT {
                    frames.push(data.clone());
                } else {
                    frames.clear();
                }
            }
            Reader::Events(events, first_code, first_task) => {
                let (journal, seq, session) = (&self.journal, self.seq, self.session.as_deref());
                events.feed(data, |event| {
                    let (code, task) = reading::answer(event);
                    if first_code.is_none() {
                        *first_code = code;
                    }
                    if let Some(task) = task {
                        if first_task.is_none() {
                            *first_task = Some(task.id.clone());
                        }
                        journal.task_seen(task, session, seq);
                    }
                });
            }
        }
    }

    /// Completes the record: the answer has ended, or its client went away.
    fn finish(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let (code, task_id) = match &mut self.reader {
            Reader::Whole(frames, size) => {
                let (code, task) = if *size > reading::READ_LIMIT {
                    (None, None)
                } else {
                    reading::answer(&joined(std::mem::take(frames)))
                };
                let task_id = task.as_ref().map(|task| task.id.clone());
                if let Some(task) = task {
                    self.journal
                        .task_seen(task, self.session.as_deref(), self.seq);
                }
                (code, task_id)
            }
            Reader::Events(_, code, task_id) => (*code, task_id.take()),
        };
        let latency = self.arrived.elapsed();
        let body = super::mask::body_bytes(joined(std::mem::take(&mut self.kept)));
        let bytes = self.bytes;
        self.journal.update(self.seq, |record| {
            record.code = code.or(record.code);
            record.latency = Some(latency);
            record.response_body = body;
            record.response_bytes = bytes;
            if record.task_id.is_none() {
                record.task_id = task_id;
            }
            record.done = true;
        });
    }
}

/// Frames as one buffer: the frame itself when there is one.
fn joined(mut frames: Vec<Bytes>) -> Bytes {
    match frames.len() {
        0 => Bytes::new(),
        1 => frames.pop().unwrap_or_default(),
        _ => Bytes::from(frames.concat()),
    }
}

impl http_body::Body for Recorded {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    let data = data.clone();
                    self.observe(&data);
                }
            }
            Poll::Ready(None | Some(Err(_))) => self.finish(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::limits::Fault;
    use crate::inspector::InvocationFilter;
    use axum::http::HeaderMap;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn the_steps_notes_are_recorded_and_taken_off_the_answer() {
        let journal = Journal::new(10, 64);
        let inner = tower::service_fn(|request: Request| async move {
            assert!(request.extensions().get::<Recording>().is_some());
            let mut response = Response::new(Body::from(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
            let payload = r#"{"jsonrpc":"2.0","id":1,"method":"message/send"}"#;
            let mut sent = HeaderMap::new();
            sent.insert("authorization", "Bearer secret".parse().unwrap());
            let extensions = response.extensions_mut();
            extensions.insert(Payload(Bytes::from(payload)));
            extensions.insert(ContainerHeaders(sent));
            extensions.insert(Injected {
                fault: Some(Fault::Conflict),
                ..Injected::default()
            });
            response
                .headers_mut()
                .insert(SESSION_HEADER, "s".repeat(33).parse().unwrap());
            Ok::<_, std::convert::Infallible>(response)
        });
        let record = RecordLayer::new(journal.clone()).layer(inner);
        let request = Request::post("/").body(Body::empty()).unwrap();
        let response = record.oneshot(request).await.unwrap();
        assert!(response.extensions().get::<Payload>().is_none());
        assert!(response.extensions().get::<Injected>().is_none());
        let body = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .unwrap();
        let seen = journal.invocations(&InvocationFilter::all());
        let seen = &seen[0];
        assert_eq!(seen.method.as_deref(), Some("message/send"));
        assert_eq!(seen.fault.as_deref(), Some("Conflict"));
        assert_eq!(seen.container_header("authorization"), Some("Bearer ****"));
        assert_eq!(seen.session, Some("s".repeat(33)));
        assert_eq!(seen.response_bytes, body.len() as u64);
        assert!(seen.done);
    }
}
