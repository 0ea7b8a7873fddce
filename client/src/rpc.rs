//! One JSON-RPC exchange over HTTP: the request written once, sent (and re-sent for
//! retryable refusals) with the session header and credentials, and the answer read on any
//! HTTP status.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use a2a_lambda_core::ProtocolVersion;
use a2a_lambda_core::agentcore::{SESSION_HEADER, SESSION_ID_LENGTH};
use a2a_lambda_core::error::ErrorCode;
use a2a_lambda_core::version::VERSION_HEADER;
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::{Method, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use url::Url;

use crate::auth::Auth;
use crate::error::{Error, RpcError};
use crate::retry::{RetryPolicy, is_retryable};

/// The header a client resuming an SSE stream sends (WHATWG HTML, server-sent events).
const LAST_EVENT_ID: &str = "last-event-id";

/// A new session id: `a2a-` and a UUID without dashes (36 characters).
pub fn new_session_id() -> String {
    format!("a2a-{}", uuid::Uuid::new_v4().simple())
}

/// What every request shares: the HTTP client, credentials, retry policy and session.
#[derive(Debug)]
pub struct Transport {
    pub(crate) http: reqwest::Client,
    pub(crate) auth: Auth,
    pub(crate) retry: RetryPolicy,
    pub(crate) timeout: Option<Duration>,
    /// For streams: how long the answer may take to begin (and, in the stream, to go on).
    pub(crate) stream_idle: Option<Duration>,
    session: Mutex<String>,
    next_id: AtomicU64,
    /// Why the session may have restarted since this client used it, once it may have.
    restart: Mutex<Option<&'static str>>,
}

/// How to send one request.
pub struct Call<'a> {
    /// GET (the card), POST (JSON-RPC), or the HTTP+JSON route's.
    pub method: Method,
    /// Where.
    pub url: &'a Url,
    /// The JSON-RPC body, if any.
    pub body: Option<Bytes>,
    /// `A2A-Version` to send (1.0 only: 0.3 is the default and needs no header).
    pub version: Option<ProtocolVersion>,
    /// `Accept`.
    pub accept: &'static str,
    /// The request id the answer must echo, if JSON-RPC.
    pub id: Option<u64>,
    /// An HTTP+JSON request: a 2xx body is the result, any other a `google.rpc.Status`.
    pub rest: bool,
    /// A stream: 2xx `text/event-stream` answers are handed back unread, and no overall
    /// timeout applies.
    pub streaming: bool,
    /// `Last-Event-ID`: the SSE id of the last event a cut stream delivered, so that the
    /// server resumes after it.
    pub last_event_id: Option<&'a str>,
}

/// A call's outcome.
pub enum Outcome {
    /// A JSON-RPC result (or, for GET, the 2xx body).
    Body(Bytes),
    /// A 2xx SSE response, body unread.
    Stream(Response),
}

#[derive(Serialize)]
struct Request<'a> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    params: &'a Value,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    id: Option<Value>,
    /// Present, even as `null` (a JSON-RPC 2.0 result may be any value: A2A 0.3's
    /// `tasks/pushNotificationConfig/delete` answers `null`), or absent.
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<ErrorFields>,
}

/// A member that is there, whatever its value (`Option`'s own reading takes `null` for
/// absent).
fn present<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

#[derive(Deserialize)]
struct ErrorFields {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<Value>,
}

impl Transport {
    /// A transport; `session` is used as given (checked by the builder) or generated.
    pub fn new(
        http: reqwest::Client,
        auth: Auth,
        retry: RetryPolicy,
        timeout: Option<Duration>,
        session: Option<String>,
    ) -> Self {
        Self {
            http,
            auth,
            retry,
            timeout,
            stream_idle: None,
            session: Mutex::new(session.unwrap_or_else(new_session_id)),
            next_id: AtomicU64::new(1),
            restart: Mutex::new(None),
        }
    }

    /// The session id the next request will carry.
    pub fn session_id(&self) -> String {
        self.session
            .lock()
            .map(|session| session.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
    }

    fn keep_session(&self, headers: &HeaderMap) {
        let Some(returned) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
            return;
        };
        if !SESSION_ID_LENGTH.contains(&returned.len()) {
            return;
        }
        let mut session = match self.session.lock() {
            Ok(session) => session,
            Err(poisoned) => poisoned.into_inner(),
        };
        if *session != returned {
            returned.clone_into(&mut session);
        }
    }

    /// A JSON-RPC request body and its id.
    pub fn request(&self, method: &str, params: &Value) -> (u64, Bytes) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = serde_json::to_vec(&Request {
            jsonrpc: "2.0",
            id,
            method,
            params,
        })
        .unwrap_or_default();
        (id, Bytes::from(body))
    }

    /// Notes that the session may have restarted (`why`), so that a task it no longer has
    /// is reported as lost with it.
    pub fn note_restart(&self, why: &'static str) {
        *self.restart.lock().unwrap_or_else(PoisonError::into_inner) = Some(why);
    }

    /// Sends `call` ([`Transport::attempts`]) and says when a task is missing because the
    /// session restarted under this client: its container failed (RuntimeClientError, as
    /// when AgentCore loses a session) or it was stopped.
    pub async fn execute(&self, call: &Call<'_>) -> Result<Outcome, Error> {
        let error = match self.attempts(call).await {
            Ok(outcome) => return Ok(outcome),
            Err(error) => error,
        };
        match error.rpc().map(|rpc| rpc.code) {
            Some(ErrorCode::RuntimeClientError) => {
                self.note_restart("its container failed (RuntimeClientError)");
                Err(error)
            }
            Some(ErrorCode::TaskNotFound) => {
                let why = *self.restart.lock().unwrap_or_else(PoisonError::into_inner);
                match why {
                    Some(why) => Err(Error::SessionRestarted {
                        session: self.session_id(),
                        why,
                        last: Box::new(error),
                    }),
                    None => Err(error),
                }
            }
            _ => Err(error),
        }
    }

    /// Sends `call`, retrying what the policy retries, and reads the answer.
    async fn attempts(&self, call: &Call<'_>) -> Result<Outcome, Error> {
        let started = Instant::now();
        let mut attempt = 1;
        loop {
            let (error, retry_after) = match self.attempt(call).await {
                Ok(outcome) => return Ok(outcome),
                Err(failure) => failure,
            };
            if !is_retryable(&error) || self.retry.max_attempts <= 1 {
                return Err(error);
            }
            let wait = self.retry.backoff(attempt, retry_after);
            if attempt >= self.retry.max_attempts
                || started.elapsed() + wait > self.retry.max_elapsed
            {
                return Err(Error::RetriesExhausted {
                    attempts: attempt,
                    elapsed: started.elapsed(),
                    last: Box::new(error),
                });
            }
            tracing::debug!(attempt, wait_ms = wait.as_millis() as u64, %error, "retrying");
            tokio::time::sleep(wait).await;
            attempt += 1;
        }
    }

    /// `pending`, bounded by the stream idle timeout when `call` streams: past it, the
    /// stream is interrupted (`what` did not happen in time).
    async fn idle_bounded<T>(
        &self,
        call: &Call<'_>,
        what: &str,
        pending: impl Future<Output = T>,
    ) -> Result<T, Error> {
        match (call.streaming, self.stream_idle) {
            (true, Some(limit)) => {
                tokio::time::timeout(limit, pending)
                    .await
                    .map_err(|_| Error::StreamInterrupted {
                        url: call.url.to_string(),
                        detail: format!("{what} within {}s", limit.as_secs()),
                    })
            }
            _ => Ok(pending.await),
        }
    }

    async fn attempt(&self, call: &Call<'_>) -> Result<Outcome, (Error, Option<Duration>)> {
        let url = call.url.as_str();
        let fail = |error: Error| (error, None);
        let mut builder = self
            .http
            .request(call.method.clone(), call.url.clone())
            .header(ACCEPT, call.accept);
        if let Ok(session) = HeaderValue::try_from(self.session_id()) {
            builder = builder.header(SESSION_HEADER, session);
        }
        if let Some(ProtocolVersion::V1_0) = call.version {
            builder = builder.header(VERSION_HEADER, ProtocolVersion::V1_0.as_str());
        }
        if let Some(last) = call
            .last_event_id
            .and_then(|id| HeaderValue::try_from(id).ok())
        {
            builder = builder.header(LAST_EVENT_ID, last);
        }
        if let Some(body) = &call.body {
            builder = builder
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        if let (false, Some(timeout)) = (call.streaming, self.timeout) {
            builder = builder.timeout(timeout);
        }
        let mut request = builder
            .build()
            .map_err(|error| fail(Error::transport(url, error)))?;
        self.auth.apply(&mut request).await.map_err(fail)?;
        // After signing: a proxy may rewrite trace headers, which would break a signature
        // over them (AWS's SDKs leave `X-Amzn-Trace-Id` unsigned for the same reason).
        #[cfg(feature = "otel")]
        crate::trace_context::inject(request.headers_mut());
        let sent = Instant::now();
        tracing::debug!(method = %call.method, url, "request");
        let pending = self.http.execute(request);
        let response = self
            .idle_bounded(call, "no answer began", pending)
            .await
            .map_err(fail)?
            .map_err(|error| fail(Error::transport(url, error)))?;
        self.keep_session(response.headers());
        let status = response.status().as_u16();
        tracing::debug!(
            status,
            elapsed_ms = sent.elapsed().as_millis() as u64,
            session = %self.session_id(),
            "answer"
        );
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if call.streaming
            && response.status().is_success()
            && content_type.as_deref().is_some_and(is_event_stream)
        {
            return Ok(Outcome::Stream(response));
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let auth_headers = crate::refusal::AuthHeaders::of(response.headers());
        let body = self
            .idle_bounded(call, "the answer did not end", response.bytes())
            .await
            .map_err(fail)?
            .map_err(|error| fail(Error::transport(url, error)))?;
        if let Some(refused) = crate::refusal::auth_refusal(url, status, &auth_headers, &body) {
            return Err((refused, retry_after));
        }
        if call.rest {
            if (200..300).contains(&status) {
                return Ok(Outcome::Body(body));
            }
            return Err((
                crate::rest::error(url, status, content_type.as_deref(), &body),
                retry_after,
            ));
        }
        if call.id.is_none() {
            // Not JSON-RPC (the card): a 2xx body is the answer; otherwise read an error.
            if (200..300).contains(&status) {
                return Ok(Outcome::Body(body));
            }
            return Err((
                decode_error(url, status, content_type.as_deref(), &body),
                retry_after,
            ));
        }
        match decode(url, status, content_type.as_deref(), &body, call.id) {
            Ok(()) => Ok(Outcome::Body(body)),
            Err(error) => Err((error, retry_after)),
        }
    }
}

/// Checks a JSON-RPC answer: `Ok` when it holds a result for `id`, else the error it is.
fn decode(
    url: &str,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
    id: Option<u64>,
) -> Result<(), Error> {
    let success = (200..300).contains(&status);
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(body) else {
        return Err(if success {
            Error::invalid(url, format!("not a JSON-RPC response: {}", snippet(body)))
        } else {
            http_error(url, status, content_type, body)
        });
    };
    if let Some(error) = envelope.error {
        return Err(Error::Rpc(RpcError::new(
            error.code,
            error.message,
            error.data,
            status,
        )));
    }
    if !success {
        return Err(http_error(url, status, content_type, body));
    }
    if envelope.result.is_none() {
        return Err(Error::invalid(
            url,
            "a JSON-RPC response with neither result nor error",
        ));
    }
    if let (Some(sent), Some(echoed)) = (id, envelope.id)
        && echoed != sent
    {
        return Err(Error::invalid(
            url,
            format!("the response's id {echoed} is not the request's ({sent})"),
        ));
    }
    Ok(())
}

/// The error a non-2xx body is: JSON-RPC if it reads as one, plain HTTP otherwise.
pub fn decode_error(url: &str, status: u16, content_type: Option<&str>, body: &[u8]) -> Error {
    match serde_json::from_slice::<Envelope<'_>>(body) {
        Ok(Envelope {
            error: Some(error), ..
        }) => Error::Rpc(RpcError::new(error.code, error.message, error.data, status)),
        _ => http_error(url, status, content_type, body),
    }
}

/// The result member of an answer [`decode`] accepted.
pub fn result(url: &str, body: &[u8]) -> Result<Box<RawValue>, Error> {
    #[derive(Deserialize)]
    struct ResultOnly {
        result: Box<RawValue>,
    }
    serde_json::from_slice::<ResultOnly>(body)
        .map(|envelope| envelope.result)
        .map_err(|error| Error::invalid(url, error.to_string()))
}

/// Reads one SSE event's data as a JSON-RPC answer to `id`: its result, or the error.
pub fn event_result(url: &str, data: &str, id: u64) -> Result<Box<RawValue>, Error> {
    decode(
        url,
        200,
        Some("application/json"),
        data.as_bytes(),
        Some(id),
    )?;
    result(url, data.as_bytes())
}

/// `text/event-stream`, parameters and case aside (media types are case-insensitive).
fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("text/event-stream"))
}

fn http_error(url: &str, status: u16, content_type: Option<&str>, body: &[u8]) -> Error {
    Error::Http {
        url: url.to_owned(),
        status,
        content_type: content_type.map(str::to_owned),
        body: snippet(body),
    }
}

/// The start of a body on one line, for error messages.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() {
        return "(empty body)".to_owned();
    }
    let mut cut: String = line.chars().take(200).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_stream_media_types_match_whatever_the_case() {
        for yes in [
            "text/event-stream",
            "Text/Event-Stream; charset=utf-8",
            " text/event-stream ;x=1",
        ] {
            assert!(is_event_stream(yes), "{yes}");
        }
        for no in [
            "application/json",
            "text/event-streams",
            "text/plain; text/event-stream",
        ] {
            assert!(!is_event_stream(no), "{no}");
        }
    }

    #[test]
    fn session_ids_are_long_enough_for_agentcore() {
        let id = new_session_id();
        assert!(SESSION_ID_LENGTH.contains(&id.len()), "{id}");
        assert_ne!(id, new_session_id());
    }

    #[test]
    fn errors_are_read_on_any_status() {
        let body = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32054,"message":"Session operation in progress, please retry"}}"#;
        let error = decode("u", 409, Some("application/json"), body, Some(3)).unwrap_err();
        let rpc = error.rpc().unwrap();
        assert_eq!(
            (rpc.code_number(), rpc.http_status, rpc.name),
            (-32054, 409, "RetryableConflictException")
        );
    }

    #[test]
    fn non_json_bodies_become_http_errors_with_a_short_snippet() {
        let html = format!(
            "<html>\n<body>413 Request Entity Too Large{}</body></html>",
            " x".repeat(300)
        );
        let error = decode("u", 413, Some("text/html"), html.as_bytes(), Some(1)).unwrap_err();
        let Error::Http {
            status,
            body,
            content_type,
            ..
        } = &error
        else {
            panic!("{error:?}")
        };
        assert_eq!((*status, content_type.as_deref()), (413, Some("text/html")));
        assert!(body.starts_with("<html> <body>413 Request Entity Too Large x x"));
        assert!(body.ends_with('…') && body.chars().count() == 201);
        let empty = decode("u", 403, None, b"", Some(1)).unwrap_err();
        assert_eq!(empty.to_string(), "HTTP 403 from u: (empty body)");
    }

    #[test]
    fn a_2xx_that_is_not_json_rpc_is_an_invalid_response() {
        for body in [&b"<html>"[..], b"{}", br#"{"jsonrpc":"2.0","id":1}"#] {
            let error = decode("u", 200, None, body, Some(1)).unwrap_err();
            assert!(matches!(error, Error::InvalidResponse { .. }), "{error:?}");
        }
        let wrong_id = decode(
            "u",
            200,
            None,
            br#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            Some(1),
        );
        assert!(
            wrong_id
                .unwrap_err()
                .to_string()
                .contains("id 9 is not the request's (1)")
        );
        assert!(
            decode(
                "u",
                200,
                None,
                br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                Some(1)
            )
            .is_ok()
        );
    }
}
