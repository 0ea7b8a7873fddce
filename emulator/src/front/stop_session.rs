//! `StopRuntimeSession`: `POST /runtimes/{ARN or id}/stopruntimesession?qualifier=…` with
//! the session header and an optional JSON body `{"clientToken": "…"}`, answered as AWS
//! answers it
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_StopRuntimeSession.html>):
//!
//! - success: HTTP 200 with the session header (and no body members: an empty body);
//! - a missing or malformed session id, body or `clientToken`: 400 `ValidationException`;
//! - no such live session, another runtime, another qualifier: 404
//!   `ResourceNotFoundException`;
//! - a `clientToken` sent again with the same session: the same 200 ("If you use the same
//!   token with multiple requests, the same response is returned"); with another session:
//!   409 `ConflictException` (the emulator's choice: AWS documents no answer for it).
//!
//! Every refusal is AWS's restJson1 shape ([`AwsError`]), not JSON-RPC: this is not an
//! invocation. The session's open streams are cut, its container stops, and the next
//! invocation with its id starts a fresh session ([`Sessions::stop`](super::sessions::Sessions::stop)).
//!
//! The step ([`StopSessionLayer`]) answers these paths right after routing: the session
//! header, the runtime and the qualifier are checked here, AWS's way, not the invocation's.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::aws_error::AwsError;
use super::routes::{Route, Routed};
use super::runtime::{DEFAULT_QUALIFIER, Runtime, query_param};
use super::sessions::Sessions;
use super::step::{self, Answer, Next};
use super::{PLATFORM_REQUEST_ID, SESSION, SESSION_ID_LENGTH};

/// Largest StopRuntimeSession body read (it holds one token).
const MAX_BODY_BYTES: usize = 64 * 1024;
/// How many client tokens are remembered; the oldest is forgotten past that.
const REMEMBERED_TOKENS: usize = 10_000;

/// The client tokens of stops that succeeded, each with its session.
#[derive(Debug, Default)]
struct Tokens(Mutex<(HashMap<String, String>, VecDeque<String>)>);

impl Tokens {
    /// The session an earlier stop with `token` stopped.
    fn session_of(&self, token: &str) -> Option<String> {
        let tokens = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        tokens.0.get(token).cloned()
    }

    fn remember(&self, token: String, session: String) {
        let mut tokens = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (by_token, order) = &mut *tokens;
        if by_token.insert(token.clone(), session).is_none() {
            order.push_back(token);
            if order.len() > REMEMBERED_TOKENS
                && let Some(oldest) = order.pop_front()
            {
                by_token.remove(&oldest);
            }
        }
    }
}

/// `[a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}`, 33 to 256 characters: the API's `clientToken`.
fn is_client_token(token: &str) -> bool {
    let bytes = token.as_bytes();
    SESSION_ID_LENGTH.contains(&bytes.len())
        && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'-')
}

/// The `clientToken` of a StopRuntimeSession body (none, empty, or `{}`: none).
fn client_token(body: &[u8]) -> Result<Option<String>, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|_| "The request body is not valid JSON".to_owned())?;
    let Some(object) = value.as_object() else {
        return Err("The request body must be a JSON object".to_owned());
    };
    match object.get("clientToken") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(token)) if is_client_token(token) => Ok(Some(token.clone())),
        Some(_) => Err(
            "1 validation error detected: Value at 'clientToken' failed to satisfy \
                        constraint: Member must have length between 33 and 256 and match \
                        pattern [a-zA-Z0-9](-*[a-zA-Z0-9]){0,256}"
                .to_owned(),
        ),
    }
}

/// Answers StopRuntimeSession (and a path of its shape that names no runtime).
#[derive(Clone)]
pub(super) struct StopSessionLayer {
    stop: Arc<Stop>,
}

/// What a stop needs.
struct Stop {
    sessions: Arc<Sessions>,
    /// The one runtime served, when pinned.
    runtime_arn: Option<String>,
    /// The endpoint served.
    qualifier: String,
    tokens: Tokens,
}

impl StopSessionLayer {
    /// Stopping `sessions` of the runtime `runtime_arn` (any, when `None`) and endpoint
    /// `qualifier`.
    pub(super) fn new(
        sessions: Arc<Sessions>,
        runtime_arn: Option<String>,
        qualifier: String,
    ) -> Self {
        let stop = Stop {
            sessions,
            runtime_arn,
            qualifier,
            tokens: Tokens::default(),
        };
        Self {
            stop: Arc::new(stop),
        }
    }
}

impl<S> Layer<S> for StopSessionLayer {
    type Service = StopSession<S>;

    fn layer(&self, inner: S) -> Self::Service {
        StopSession {
            stop: Arc::clone(&self.stop),
            inner,
        }
    }
}

/// See [`StopSessionLayer`].
#[derive(Clone)]
pub(super) struct StopSession<S> {
    stop: Arc<Stop>,
    inner: S,
}

impl<S: Next<Body>> Service<Request> for StopSession<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let runtime = match request.extensions().get::<Routed>() {
            Some(Routed(Ok(Route::StopSession { runtime }))) => runtime.clone(),
            Some(Routed(Err(detail))) if is_stop_path(request.uri().path()) => {
                return step::now(unroutable(&request, detail));
            }
            _ => return step::pass(&mut self.inner, request),
        };
        let (parts, body) = request.into_parts();
        Box::pin(Arc::clone(&self.stop).answer(runtime, parts, body).map(Ok))
    }
}

impl Stop {
    /// Answers a StopRuntimeSession request on `runtime`, with the session header when it
    /// names a valid one.
    async fn answer(self: Arc<Self>, runtime: Runtime, parts: Parts, body: Body) -> Response {
        let request_id = parts.headers.get(&PLATFORM_REQUEST_ID).cloned();
        let (mut response, session) = self.stop(&runtime, &parts, body, request_id.as_ref()).await;
        if let Some(session) = session {
            response.headers_mut().insert(&SESSION, session);
        }
        response
    }

    async fn stop(
        &self,
        runtime: &Runtime,
        parts: &Parts,
        body: Body,
        request_id: Option<&HeaderValue>,
    ) -> (Response, Option<HeaderValue>) {
        let refuse = |error: AwsError, message: &str, session: Option<HeaderValue>| {
            tracing::info!(
                error = error.type_name(),
                message,
                "StopRuntimeSession refused"
            );
            (error.response(message, request_id), session)
        };
        let session = parts.headers.get(&SESSION).cloned();
        let Some(session) = session else {
            let message = "1 validation error detected: Value null at 'runtimeSessionId' \
                           failed to satisfy constraint: Member must not be null";
            return refuse(AwsError::Validation, message, None);
        };
        let id = match session.to_str() {
            Ok(id) if SESSION_ID_LENGTH.contains(&id.len()) => id.to_owned(),
            _ => {
                let message = "1 validation error detected: Value at 'runtimeSessionId' \
                               failed to satisfy constraint: Member must have length between \
                               33 and 256";
                return refuse(AwsError::Validation, message, None);
            }
        };
        if let Some(pinned) = &self.runtime_arn
            && !runtime.is(pinned)
        {
            let message = format!("Runtime {runtime} not found");
            return refuse(AwsError::ResourceNotFound, &message, Some(session));
        }
        let qualifier = query_param(parts.uri.query(), "qualifier");
        let qualifier = qualifier.as_deref().unwrap_or(DEFAULT_QUALIFIER);
        if qualifier != self.qualifier {
            let message = format!("Endpoint {qualifier} not found for runtime {runtime}");
            return refuse(AwsError::ResourceNotFound, &message, Some(session));
        }
        (self.stopped(id, body, request_id).await, Some(session))
    }

    /// Reads the body's `clientToken` and stops session `id`.
    async fn stopped(&self, id: String, body: Body, request_id: Option<&HeaderValue>) -> Response {
        let Ok(body) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
            let message = "The request body is too large or could not be read";
            return AwsError::Validation.response(message, request_id);
        };
        let token = match client_token(&body) {
            Ok(token) => token,
            Err(message) => return AwsError::Validation.response(&message, request_id),
        };
        if let Some(token) = &token
            && let Some(stopped) = self.tokens.session_of(token)
        {
            if stopped == id {
                tracing::info!(
                    session_id = id,
                    "StopRuntimeSession repeated (same clientToken)"
                );
                return stopped_answer(request_id);
            }
            let message = "The clientToken was already used to stop another session";
            return AwsError::Conflict.response(message, request_id);
        }
        match self.sessions.stop(&id, "StopRuntimeSession") {
            Ok(()) => {
                if let Some(token) = token {
                    self.tokens.remember(token, id);
                }
                stopped_answer(request_id)
            }
            Err(missing) => {
                tracing::info!(%missing, "StopRuntimeSession refused");
                let message = format!("Session {id} not found");
                AwsError::ResourceNotFound.response(&message, request_id)
            }
        }
    }
}

/// True for a path of StopRuntimeSession's shape, whatever runtime it names.
fn is_stop_path(path: &str) -> bool {
    path.starts_with("/runtimes/") && path.ends_with("/stopruntimesession")
}

/// A StopRuntimeSession path that names no runtime (`detail` says why): AWS's validation
/// error, not JSON-RPC.
fn unroutable(request: &Request, detail: &str) -> Response {
    tracing::info!(detail, "StopRuntimeSession refused");
    let request_id = request.headers().get(&PLATFORM_REQUEST_ID);
    AwsError::Validation.response(detail, request_id)
}

/// StopRuntimeSession's success: 200, AWS's request id, no body members.
fn stopped_answer(request_id: Option<&HeaderValue>) -> Response {
    let mut response = (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
    )
        .into_response();
    if let Some(id) = request_id {
        response.headers_mut().insert(
            axum::http::HeaderName::from_static(super::aws_error::AWS_REQUEST_ID_HEADER),
            id.clone(),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::sessions::testing::sessions;
    use crate::front::step::testing::{echo_path, read};
    use tower::ServiceExt as _;

    const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/echo-abcdefghij";

    #[tokio::test]
    async fn a_stop_is_answered_here_and_other_paths_go_on() {
        let sessions = Arc::new(sessions());
        let id = "s".repeat(33);
        let _ = sessions.enter(&id).unwrap();
        let stop = StopSessionLayer::new(
            Arc::clone(&sessions),
            Some(ARN.to_owned()),
            "DEFAULT".to_owned(),
        );
        let stack = RouteLayer::new(None).layer(stop.layer(echo_path()));
        let path = format!(
            "/runtimes/{}/stopruntimesession",
            crate::front::percent_encode(ARN)
        );
        let stop_of = |session: Option<&str>| {
            let mut request = Request::post(path.as_str()).body(Body::empty()).unwrap();
            if let Some(session) = session {
                request
                    .headers_mut()
                    .insert(&SESSION, session.parse().unwrap());
            }
            request
        };
        let stopped = stack.clone().oneshot(stop_of(Some(&id))).await.unwrap();
        assert_eq!(stopped.status(), 200);
        assert_eq!(stopped.headers()[&SESSION], id.as_str());
        let again = stack.clone().oneshot(stop_of(Some(&id))).await.unwrap();
        assert_eq!(again.status(), 404);
        let (status, body) = read(stack.clone().oneshot(stop_of(None)).await.unwrap()).await;
        assert_eq!(status, 400);
        assert!(String::from_utf8_lossy(&body).contains("runtimeSessionId"));
        let unroutable = Request::post("/runtimes/nope/stopruntimesession")
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            stack.clone().oneshot(unroutable).await.unwrap().status(),
            400
        );
        let ping = Request::get("/ping").body(Body::empty()).unwrap();
        assert_eq!(read(stack.oneshot(ping).await.unwrap()).await.1, "/ping");
    }

    #[test]
    fn client_tokens_follow_the_api() {
        let token = "t".repeat(33);
        assert_eq!(
            client_token(format!(r#"{{"clientToken":"{token}"}}"#).as_bytes()),
            Ok(Some(token))
        );
        assert_eq!(client_token(b""), Ok(None));
        assert_eq!(client_token(b"{}"), Ok(None));
        assert!(client_token(br#"{"clientToken":"short"}"#).is_err());
        assert!(
            client_token(format!(r#"{{"clientToken":"-{}"}}"#, "a".repeat(40)).as_bytes()).is_err()
        );
        assert!(client_token(b"[1]").is_err());
        assert!(client_token(b"{oops").is_err());
        assert!(is_client_token(&format!("a--{}", "b".repeat(40))));
    }

    #[test]
    fn tokens_are_remembered_up_to_a_bound() {
        let tokens = Tokens::default();
        for n in 0..=REMEMBERED_TOKENS {
            tokens.remember(format!("token-{n}"), "s".to_owned());
        }
        assert_eq!(tokens.session_of("token-0"), None);
        assert_eq!(tokens.session_of("token-1").as_deref(), Some("s"));
    }
}
