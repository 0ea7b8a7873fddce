//! A task's events as they arrive over SSE, and the one resubscription that carries a
//! stream across a dropped connection.

use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_lambda_core::card::Binding;
use a2a_lambda_core::{Operation, ProtocolVersion, model};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use reqwest::Method;
use tokio::time::{Instant, Sleep};

use crate::card::Endpoint;
use crate::error::Error;
use crate::protocol::{self, StreamKind};
use crate::rpc::{self, Call, Outcome, Transport};
use crate::sse::{Decoder, SseEvent};

pub(crate) type Body = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// A resubscription under way.
type Reopening = Pin<Box<dyn Future<Output = Result<Reopened, Error>> + Send>>;

/// What a resubscription gave.
enum Reopened {
    /// The subscription's answer (its request id, and the stream or one JSON answer).
    Answer(u64, Outcome),
    /// The task, already at its stream's end, read when the subscription was refused.
    Ended(model::Task),
}

/// How a stream resubscribes to its task: the client's transport (session, credentials,
/// retries) and endpoint.
pub(crate) struct Resume {
    transport: Arc<Transport>,
    endpoint: Endpoint,
}

impl Resume {
    pub(crate) fn new(transport: Arc<Transport>, endpoint: Endpoint) -> Self {
        Self {
            transport,
            endpoint,
        }
    }

    /// `tasks/resubscribe` / `SubscribeToTask` for `task_id`, after `last_event_id`. A
    /// refused subscription (our servers refuse one to an ended task when no
    /// `Last-Event-ID` reaches them) reads the task instead: ended or waiting for the
    /// client, it ends the stream; otherwise the refusal stands.
    fn open(&self, task_id: String, last_event_id: Option<String>) -> Reopening {
        let transport = Arc::clone(&self.transport);
        let endpoint = self.endpoint.clone();
        let version = endpoint.version;
        Box::pin(async move {
            let params = model::TaskIdParams {
                id: task_id.clone(),
                metadata: None,
            };
            let params = protocol::subscribe_params(version, &params);
            let subscribed = call(
                &transport,
                &endpoint,
                Operation::Subscribe,
                &params,
                last_event_id.as_deref(),
            )
            .await;
            let refusal = match subscribed {
                Ok((id, outcome)) => return Ok(Reopened::Answer(id, outcome)),
                Err(error) if error.rpc().is_some() => error,
                Err(error) => return Err(error),
            };
            let params = model::GetTaskParams {
                id: task_id,
                history_length: Some(0),
                metadata: None,
            };
            let params = protocol::get_params(version, &params);
            let url = endpoint.url.as_str();
            let read = match call(&transport, &endpoint, Operation::GetTask, &params, None).await {
                Ok((_, Outcome::Body(body))) => match endpoint.binding {
                    Binding::HttpJson => crate::rest::result(url, &body),
                    _ => rpc::result(url, &body),
                }
                .ok()
                .and_then(|raw| protocol::task(version, &raw).ok()),
                _ => None,
            };
            match read {
                Some(task) if task.status.state.ends_stream() => Ok(Reopened::Ended(task)),
                _ => Err(refusal),
            }
        })
    }
}

/// One call of `operation` to `endpoint` through `transport` (a stream for a
/// subscription), over the endpoint's binding.
async fn call(
    transport: &Transport,
    endpoint: &Endpoint,
    operation: Operation,
    params: &serde_json::Value,
    last_event_id: Option<&str>,
) -> Result<(u64, Outcome), Error> {
    let streaming = operation == Operation::Subscribe;
    if endpoint.binding == Binding::HttpJson {
        let outcome = crate::rest::exchange(
            transport,
            &endpoint.url,
            operation,
            params,
            streaming,
            last_event_id,
        )
        .await?;
        return Ok((0, outcome));
    }
    let (url, version) = (&endpoint.url, endpoint.version);
    let method = protocol::method(version, operation).ok_or_else(|| Error::Unsupported {
        operation: "resubscribe",
        reason: format!("A2A {} has no method for it", version.as_str()),
    })?;
    let (id, body) = transport.request(method, params);
    let call = Call {
        method: Method::POST,
        url,
        body: Some(body),
        version: Some(version),
        accept: if operation == Operation::Subscribe {
            "text/event-stream"
        } else {
            "application/json"
        },
        id: Some(id),
        rest: false,
        streaming: operation == Operation::Subscribe,
        last_event_id,
    };
    Ok((id, transport.execute(&call).await?))
}

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
///
/// **A cut stream goes on.** When the connection ends before the stream's end, or breaks,
/// the stream resubscribes once to its task (`tasks/resubscribe` in A2A 0.3,
/// `SubscribeToTask` in 1.0) with `Last-Event-ID` set to the SSE id of the last event it
/// got, and goes on yielding from the new connection as if nothing happened: an event
/// whose SSE id was yielded already (one of the last 4096) is skipped, so none is
/// yielded twice. A server that resumes after that id (ours do) sends only what followed;
/// one that cannot (it keeps no ids, or the header did not reach it) starts again with the
/// task as it stands, which the stream yields as a [`model::StreamEvent::Task`] before
/// the updates that follow.
/// When the server refuses the subscription (ours do for a task that has ended, when no
/// `Last-Event-ID` reached them), the task is read (`tasks/get`, `GetTask`): one that has
/// ended, or waits for the client, is yielded as the last event. A second cut ends the
/// stream with [`Error::StreamInterrupted`] (saying it was cut again); a refused
/// resubscription of a task still running (a server without resubscription answers
/// -32004, say) with [`Error::StreamResumeFailed`]. A stream that never named its task
/// cannot resume.
pub struct EventStream {
    url: String,
    version: ProtocolVersion,
    kind: StreamKind,
    id: u64,
    /// Events are bare `StreamResponse`s (HTTP+JSON), not JSON-RPC responses.
    rest: bool,
    body: Option<Body>,
    decoder: Decoder,
    pending: VecDeque<SseEvent>,
    /// The last state an event reported.
    last_state: Option<model::TaskState>,
    /// How long the body may stay silent, and the timer counting it down.
    idle: Option<(Duration, Pin<Box<Sleep>>)>,
    /// Set once the last item has been yielded.
    over: bool,
    /// How to resubscribe, when the stream may.
    resume: Option<Resume>,
    /// The task the stream is about, once known.
    task_id: Option<String>,
    /// The SSE id of the last event yielded, sent back as `Last-Event-ID`.
    last_event_id: Option<String>,
    /// SSE ids of the events yielded, so a replay repeats none.
    delivered: Delivered,
    /// How the stream was cut, once it has resubscribed.
    cut: Option<String>,
    /// The resubscription under way.
    reopening: Option<Reopening>,
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
            rest: false,
            body: Some(Box::pin(response.bytes_stream())),
            decoder: Decoder::new(),
            pending: VecDeque::new(),
            last_state: None,
            idle: idle_timeout.map(|limit| (limit, Box::pin(tokio::time::sleep(limit)))),
            over: false,
            resume: None,
            task_id: None,
            last_event_id: None,
            delivered: Delivered::default(),
            cut: None,
            reopening: None,
        }
    }

    /// A stream whose SSE body is `body` (the gRPC binding's events written as the
    /// HTTP+JSON binding's SSE: read with its parser).
    #[cfg(feature = "grpc")]
    pub(crate) fn from_body(
        url: String,
        (version, kind): (ProtocolVersion, StreamKind),
        body: Body,
        idle_timeout: Option<Duration>,
    ) -> Self {
        let mut stream = Self::new_empty(url, (version, kind), idle_timeout);
        stream.body = Some(body);
        stream.rest = true;
        stream
    }

    #[cfg(feature = "grpc")]
    fn new_empty(
        url: String,
        (version, kind): (ProtocolVersion, StreamKind),
        idle_timeout: Option<Duration>,
    ) -> Self {
        Self {
            url,
            version,
            kind,
            id: 0,
            rest: false,
            body: None,
            decoder: Decoder::new(),
            pending: VecDeque::new(),
            last_state: None,
            idle: idle_timeout.map(|limit| (limit, Box::pin(tokio::time::sleep(limit)))),
            over: false,
            resume: None,
            task_id: None,
            last_event_id: None,
            delivered: Delivered::default(),
            cut: None,
            reopening: None,
        }
    }

    /// The same stream, its events read as `binding` frames them.
    pub(crate) fn over(mut self, binding: Binding) -> Self {
        self.rest = binding == Binding::HttpJson;
        self
    }

    /// The same stream, resubscribing through `resume` once when cut; `task_id` when the
    /// task is known before any event names it (a resubscription's).
    pub(crate) fn resuming(mut self, resume: Resume, task_id: Option<&str>) -> Self {
        self.resume = Some(resume);
        self.task_id = task_id.map(str::to_owned);
        self
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
            rest: false,
            body: None,
            decoder: Decoder::new(),
            pending: VecDeque::from([SseEvent {
                data,
                id: None,
                event: None,
            }]),
            last_state: None,
            idle: None,
            over: false,
            resume: None,
            task_id: None,
            last_event_id: None,
            delivered: Delivered::default(),
            cut: None,
            reopening: None,
        }
    }

    /// The next event, or `None` once the stream is over.
    pub async fn next_event(&mut self) -> Option<Result<model::StreamEvent, Error>> {
        self.next().await
    }

    /// Every event until the stream is over, in order.
    ///
    /// ```no_run
    /// # async fn demo(client: a2a_lambda_client::Client) -> Result<(), a2a_lambda_client::Error> {
    /// let events = client.stream(&a2a_lambda_client::text_params("hello")).await?.collect().await?;
    /// println!("{} events", events.len());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// The first error the stream reports (the events before it are dropped; read with
    /// [`next_event`](Self::next_event) to keep them).
    pub async fn collect(mut self) -> Result<Vec<model::StreamEvent>, Error> {
        let mut events = Vec::new();
        while let Some(event) = self.next_event().await {
            events.push(event?);
        }
        Ok(events)
    }

    fn event(&mut self, sse: &SseEvent) -> Result<model::StreamEvent, Error> {
        let raw = if self.rest {
            crate::rest::stream_event(&self.url, sse.event.as_deref(), &sse.data)?
        } else {
            rpc::event_result(&self.url, &sse.data, self.id)?
        };
        let event = protocol::stream_event(self.version, &raw)
            .map_err(|detail| Error::invalid(&self.url, detail))?;
        Ok(event)
    }

    /// The stream ended or broke before its end: resubscribes the first time it can (and
    /// returns `None`: go on polling), else ends with the error.
    fn interrupted(&mut self, detail: String) -> Option<Poll<Option<<Self as Stream>::Item>>> {
        let url = self.url.clone();
        if let Some(first) = &self.cut {
            let task = self.task_id.as_deref().unwrap_or_default();
            let detail =
                format!("{detail}, again after resubscribing to task {task} once (first: {first})");
            return Some(self.finish(Err(Error::StreamInterrupted { url, detail })));
        }
        let (Some(resume), Some(task)) = (&self.resume, &self.task_id) else {
            return Some(self.finish(Err(Error::StreamInterrupted { url, detail })));
        };
        tracing::info!(
            task_id = task.as_str(),
            last_event_id = self.last_event_id.as_deref(),
            cut = detail.as_str(),
            "the stream was cut; resubscribing to its task once"
        );
        self.reopening = Some(resume.open(task.clone(), self.last_event_id.clone()));
        self.body = None;
        self.decoder = Decoder::new();
        self.cut = Some(detail);
        None
    }

    /// Polls the resubscription; `None` once it has given the stream a new body (or an
    /// answer to read).
    fn poll_reopening(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Option<Poll<Option<<Self as Stream>::Item>>> {
        let reopening = self.reopening.as_mut()?;
        let Poll::Ready(answer) = reopening.as_mut().poll(cx) else {
            return Some(Poll::Pending);
        };
        self.reopening = None;
        match answer {
            Ok(Reopened::Ended(task)) => {
                let event = model::StreamEvent::Task(task);
                Some(self.finish(Ok(event)))
            }
            Ok(Reopened::Answer(id, Outcome::Stream(response))) => {
                self.id = id;
                self.body = Some(Box::pin(response.bytes_stream()));
                if let Some((limit, timer)) = self.idle.as_mut() {
                    let limit = *limit;
                    timer.as_mut().reset(Instant::now() + limit);
                }
                None
            }
            Ok(Reopened::Answer(id, Outcome::Body(body))) => {
                // One JSON answer where a stream was asked for: read as the only event.
                self.id = id;
                let data = String::from_utf8_lossy(&body).into_owned();
                self.pending.push_back(SseEvent {
                    data,
                    id: None,
                    event: None,
                });
                None
            }
            Err(error) => {
                let failed = Error::StreamResumeFailed {
                    url: self.url.clone(),
                    task_id: self.task_id.clone().unwrap_or_default(),
                    cut: self.cut.clone().unwrap_or_default(),
                    source: Box::new(error),
                };
                Some(self.finish(Err(failed)))
            }
        }
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

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.over {
                return Poll::Ready(None);
            }
            if let Some(polled) = this.poll_reopening(cx) {
                return polled;
            }
            if let Some(sse) = this.pending.pop_front() {
                if sse
                    .id
                    .as_ref()
                    .is_some_and(|id| this.delivered.contains(id))
                {
                    // Yielded before the cut: the server replays it.
                    continue;
                }
                return match this.event(&sse) {
                    Ok(event) => {
                        if let Some(id) = sse.id {
                            this.last_event_id = Some(id.clone());
                            this.delivered.insert(id);
                        }
                        if this.task_id.is_none() {
                            this.task_id = task_of(&event).map(str::to_owned);
                        }
                        if let Some(state) = event.state() {
                            this.last_state = Some(state);
                        }
                        if event.ends(this.kind) {
                            this.finish(Ok(event))
                        } else {
                            Poll::Ready(Some(Ok(event)))
                        }
                    }
                    Err(error) => this.finish(Err(error)),
                };
            }
            let waiting_for_client = this.last_state.is_some_and(|state| state.ends_stream());
            let Some(body) = this.body.as_mut() else {
                if waiting_for_client {
                    this.over = true;
                    return Poll::Ready(None);
                }
                match this.interrupted("no event ended the task's stream".to_owned()) {
                    Some(ended) => return ended,
                    None => continue,
                }
            };
            let polled = body.as_mut().poll_next(cx);
            if polled.is_pending() {
                if let Some((limit, timer)) = this.idle.as_mut()
                    && timer.as_mut().poll(cx).is_ready()
                {
                    let detail = format!(
                        "nothing arrived for {}s (not even a keep-alive)",
                        limit.as_secs()
                    );
                    let url = this.url.clone();
                    return this.finish(Err(Error::StreamInterrupted { url, detail }));
                }
                return Poll::Pending;
            }
            if let Some((limit, timer)) = this.idle.as_mut() {
                let limit = *limit;
                timer.as_mut().reset(Instant::now() + limit);
            }
            let detail = match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => {
                    let events = this.decoder.push(&chunk);
                    this.pending.extend(events);
                    continue;
                }
                Poll::Ready(Some(Err(error))) => Error::transport(&this.url, error).to_string(),
                Poll::Ready(None) if waiting_for_client && !this.decoder.has_partial_event() => {
                    // The server closed after the task started waiting for the client.
                    this.over = true;
                    this.body = None;
                    return Poll::Ready(None);
                }
                Poll::Ready(None) if this.decoder.has_partial_event() => {
                    "the connection closed in the middle of an event".to_owned()
                }
                Poll::Ready(None) => {
                    "the connection closed before the task reached a final or interrupted state"
                        .to_owned()
                }
            };
            if let Some(ended) = this.interrupted(detail) {
                return ended;
            }
        }
    }
}

/// The SSE ids of the last [`REMEMBERED_IDS`] events yielded (a replay repeats the events
/// just before a cut; a long stream's older ids are let go).
#[derive(Default)]
struct Delivered {
    ids: HashSet<String>,
    order: VecDeque<String>,
}

/// How many SSE ids a stream remembers to skip in a replay.
const REMEMBERED_IDS: usize = 4096;

impl Delivered {
    fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    fn insert(&mut self, id: String) {
        if self.ids.insert(id.clone()) {
            self.order.push_back(id);
        }
        if self.order.len() > REMEMBERED_IDS
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
    }
}

/// The task an event is about, when it names one.
fn task_of(event: &model::StreamEvent) -> Option<&str> {
    match event {
        model::StreamEvent::Task(task) => Some(&task.id),
        model::StreamEvent::StatusUpdate(update) => Some(&update.task_id),
        model::StreamEvent::ArtifactUpdate(update) => Some(&update.task_id),
        model::StreamEvent::Message(message) => message.task_id.as_deref(),
    }
}
