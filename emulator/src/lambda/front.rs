//! The local Lambda's HTTP front: every request (any method, any path) becomes an event
//! of the configured shape, the function's answer an HTTP response in that front's
//! format; a Function URL in `RESPONSE_STREAM` mode passes the body on as the function
//! writes it. The inspector's paths (`/_emulator/…`) are answered before, as the
//! AgentCore emulator does.
//!
//! A request body over 6 MB is refused with 413 (Lambda's invocation payload quota:
//! "Lambda quotas", <https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html>).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use tokio::sync::mpsc;

use super::answers::{self, HTTP_INTEGRATION_RESPONSE, HttpAnswer, PRELUDE_SEPARATOR};
use super::config::{EventShape, InvokeMode};
use super::environment::Function;
use super::events::{self, EventContext, HttpRequest};
use super::instance::{Chunk, Reply};
use crate::Journal;
use crate::inspector::lambda::{self as journal, LambdaCall};

/// The largest request body: 6 MB.
const MAX_REQUEST_BYTES: usize = 6 * 1024 * 1024;

/// What the front serves with.
pub(crate) struct Front {
    pub function: Arc<Function>,
    pub journal: Option<Journal>,
}

/// The front's router.
pub(crate) fn router(front: Arc<Front>) -> axum::Router {
    axum::Router::new().fallback(serve).with_state(front)
}

/// The journal entry of one call, when the inspector is on.
struct Entry {
    journal: Journal,
    seq: u64,
    arrived: Instant,
}

impl Entry {
    fn head(&self, status: StatusCode, headers: &HeaderMap, stream: bool) {
        journal::head(
            &self.journal,
            self.seq,
            self.arrived,
            status.as_u16(),
            headers,
            stream,
        );
    }

    fn done(&self, first: &[u8], bytes: u64) {
        journal::done(&self.journal, self.seq, self.arrived, first, bytes);
    }
}

async fn serve(
    State(front): State<Arc<Front>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
) -> Response {
    if let Some(journal) = &front.journal
        && crate::inspector::is_inspector_path(request.uri().path())
    {
        return crate::inspector::serve(journal, &request);
    }
    let config = Arc::clone(&front.function.config);
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_REQUEST_BYTES).await else {
        return answer(HttpAnswer::plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "application/json",
            format!(
                r#"{{"Message":"Request must be smaller than {MAX_REQUEST_BYTES} bytes for the InvokeFunction operation"}}"#
            ),
        ));
    };
    let mut path = parts.uri.path().to_owned();
    if config.event != EventShape::FunctionUrl && config.stage != "$default" {
        let prefix = format!("/{}", config.stage);
        match path.strip_prefix(&prefix) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                if config.event == EventShape::ApigwV1 {
                    path = if rest.is_empty() {
                        "/".to_owned()
                    } else {
                        rest.to_owned()
                    };
                }
            }
            _ => {
                // API Gateway's answer to a path outside the stage.
                return answer(HttpAnswer::plain(
                    StatusCode::FORBIDDEN,
                    "application/json",
                    r#"{"message":"Forbidden"}"#,
                ));
            }
        }
    }
    let http = HttpRequest {
        method: parts.method.as_str().to_owned(),
        path,
        query: parts.uri.query().unwrap_or("").to_owned(),
        headers: parts.headers,
        body,
        source_ip: peer.ip(),
    };
    let front_id = uuid::Uuid::new_v4().to_string();
    let event = events::event(
        &http,
        &EventContext {
            shape: config.event,
            stage: if config.event == EventShape::FunctionUrl {
                "$default"
            } else {
                &config.stage
            },
            request_id: &front_id,
            account: "123456789012",
        },
    );
    let entry = front.journal.as_ref().map(|journal| Entry {
        seq: journal::open(
            journal,
            &LambdaCall {
                environment: None,
                http_method: &http.method,
                path: parts.uri.path(),
                query: &http.query,
                headers: &http.headers,
                body: &http.body,
            },
        ),
        journal: journal.clone(),
        arrived: Instant::now(),
    });
    let event = Bytes::from(event.to_string());
    let (instance, invocation) = match front.function.invoke(event).await {
        Ok(invoked) => invoked,
        Err(error) => {
            tracing::warn!(%error, "the invocation failed");
            if let Some(entry) = &entry {
                journal::note(&entry.journal, entry.seq, |note| {
                    note.error = Some(error.error_type.clone());
                });
            }
            return finish(entry, answers::function_error(config.event), &front_id);
        }
    };
    let request_id = invocation.request_id.clone();
    if let Some(entry) = &entry {
        instance
            .recorder
            .link(&request_id, entry.seq, invocation.thawed);
    }
    let response_id = if config.event == EventShape::FunctionUrl {
        request_id.clone()
    } else {
        front_id.clone()
    };
    let reply = match invocation.reply.await {
        Ok(reply) => reply,
        Err(_) => {
            return finish(entry, answers::function_error(config.event), &response_id);
        }
    };
    let streams =
        config.event == EventShape::FunctionUrl && config.invoke_mode == InvokeMode::ResponseStream;
    match reply {
        Reply::Buffered(payload) => {
            let answered = answers::answer(config.event, &payload).unwrap_or_else(|malformed| {
                tracing::warn!(%malformed, request_id, "the function's response is malformed");
                answers::function_error(config.event)
            });
            finish(entry, answered, &response_id)
        }
        Reply::Failed(_) => finish(entry, answers::function_error(config.event), &response_id),
        Reply::Streamed {
            content_type,
            chunks,
        } if streams => streamed(entry, content_type, chunks, config.event, &response_id).await,
        Reply::Streamed {
            content_type,
            mut chunks,
        } => {
            let mut whole = Vec::new();
            while let Some(chunk) = chunks.recv().await {
                match chunk {
                    Ok(bytes) => whole.extend_from_slice(&bytes),
                    Err(_) => {
                        return finish(entry, answers::function_error(config.event), &response_id);
                    }
                }
            }
            let answered = buffered_stream(config.event, content_type.as_deref(), &whole)
                .unwrap_or_else(|| answers::function_error(config.event));
            finish(entry, answered, &response_id)
        }
    }
}

/// A streamed response read whole (a front that buffers): its prelude and body, or as is.
fn buffered_stream(
    shape: EventShape,
    content_type: Option<&str>,
    whole: &[u8],
) -> Option<HttpAnswer> {
    if content_type == Some(HTTP_INTEGRATION_RESPONSE) {
        let at = memchr::memmem::find(whole, &PRELUDE_SEPARATOR)?;
        let head = answers::prelude(&whole[..at]).ok()?;
        return Some(HttpAnswer {
            status: head.status,
            headers: head.headers,
            body: Bytes::copy_from_slice(&whole[at + PRELUDE_SEPARATOR.len()..]),
        });
    }
    let _ = shape;
    Some(HttpAnswer {
        status: StatusCode::OK,
        headers: content_type
            .and_then(|value| HeaderValue::from_str(value).ok())
            .map(|value| (axum::http::header::CONTENT_TYPE, value))
            .into_iter()
            .collect(),
        body: Bytes::copy_from_slice(whole),
    })
}

fn with_request_id(headers: &mut HeaderMap, request_id: &str) {
    if let Ok(value) = HeaderValue::from_str(request_id) {
        headers.insert(HeaderName::from_static("x-amzn-requestid"), value);
    }
}

fn answer(answer: HttpAnswer) -> Response {
    let mut response = Response::new(Body::from(answer.body));
    *response.status_mut() = answer.status;
    for (name, value) in answer.headers {
        response.headers_mut().append(name, value);
    }
    response
}

/// A whole answer, journaled.
fn finish(entry: Option<Entry>, answered: HttpAnswer, request_id: &str) -> Response {
    let body = answered.body.clone();
    let mut response = answer(answered);
    with_request_id(response.headers_mut(), request_id);
    if let Some(entry) = entry {
        entry.head(response.status(), response.headers(), false);
        entry.done(&body, body.len() as u64);
    }
    response
}

/// Notes a streamed answer's end in the journal when its body is dropped (ended, or its
/// caller gone).
struct StreamEnd {
    entry: Option<Entry>,
    seen: Arc<Mutex<(Vec<u8>, u64)>>,
}

impl Drop for StreamEnd {
    fn drop(&mut self) {
        if let Some(entry) = &self.entry {
            let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            entry.done(&seen.0, seen.1);
        }
    }
}

/// A Function URL's streamed answer: the prelude's head, then each chunk as it comes.
async fn streamed(
    entry: Option<Entry>,
    content_type: Option<String>,
    mut chunks: mpsc::Receiver<Chunk>,
    shape: EventShape,
    request_id: &str,
) -> Response {
    let (status, headers, first) = if content_type.as_deref() == Some(HTTP_INTEGRATION_RESPONSE) {
        let mut read = Vec::new();
        let at = loop {
            if let Some(at) = memchr::memmem::find(&read, &PRELUDE_SEPARATOR) {
                break at;
            }
            match chunks.recv().await {
                Some(Ok(bytes)) => read.extend_from_slice(&bytes),
                Some(Err(_)) | None => {
                    return finish(entry, answers::function_error(shape), request_id);
                }
            }
        };
        let Ok(head) = answers::prelude(&read[..at]) else {
            return finish(entry, answers::function_error(shape), request_id);
        };
        let rest = Bytes::copy_from_slice(&read[at + PRELUDE_SEPARATOR.len()..]);
        (head.status, head.headers, rest)
    } else {
        let headers = content_type
            .and_then(|value| HeaderValue::from_str(&value).ok())
            .map(|value| (axum::http::header::CONTENT_TYPE, value))
            .into_iter()
            .collect();
        (StatusCode::OK, headers, Bytes::new())
    };
    let mut head = HeaderMap::new();
    for (name, value) in headers {
        head.append(name, value);
    }
    with_request_id(&mut head, request_id);
    if let Some(entry) = &entry {
        entry.head(status, &head, true);
    }
    let seen = Arc::new(Mutex::new((Vec::new(), 0_u64)));
    let end = StreamEnd {
        entry,
        seen: Arc::clone(&seen),
    };
    let keep = end
        .entry
        .as_ref()
        .map_or(0, |entry| entry.journal.body_bytes());
    let first = futures_util::stream::iter((!first.is_empty()).then_some(Ok(first)));
    let rest = tokio_stream::wrappers::ReceiverStream::new(chunks);
    let body = first.chain(rest).map(move |chunk| {
        let _ = &end;
        let bytes = chunk.map_err(|error| std::io::Error::other(error.to_string()))?;
        let mut seen = seen.lock().unwrap_or_else(PoisonError::into_inner);
        let room = keep.saturating_sub(seen.0.len());
        seen.0.extend_from_slice(&bytes[..bytes.len().min(room)]);
        seen.1 += bytes.len() as u64;
        Ok::<_, std::io::Error>(bytes)
    });
    let mut response = Response::new(Body::from_stream(body));
    *response.status_mut() = status;
    *response.headers_mut() = head;
    response.into_response()
}
