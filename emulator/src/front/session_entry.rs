//! Entering the session: each session has a container of its own (AgentCore's microVM),
//! made by the call that starts the session. The call is refused when the session cannot
//! take it: 409 -32054 while it is starting, stopping or (`--exclusive-sessions`) busy,
//! 402 `ServiceQuotaExceededException` past `--max-sessions`, 500 when its container cannot
//! be made. The call that starts a session waits for its start (`--session-startup-ms`),
//! then has its full time.
//!
//! A `/ping` is a health check, not an invocation: it reaches a starting or busy session's
//! container too, and does not count as in flight. One without a session header starts no
//! session: while the default session is not live, the emulator answers it itself
//! (`front/readiness.rs`).
//!
//! The session entered rides in the request's extensions ([`Entered`]) to the container
//! call; its in-flight mark lives as long as the answer's body (`stream_end`).

use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_lambda_core::error::Refusal;
use axum::body::Bytes;
use axum::http::Request;
use axum::response::Response;
use tower::{Layer, Service};

use super::errors::platform_error;
use super::explain::{Caller, Explained};
use super::readiness;
use super::routes::{Route, route_of};
use super::session_header::session_of;
use super::sessions::{InFlight, Session, Sessions, Unavailable};
use super::step::{self, Answer, Next, request_id_of};

/// The session a request entered, and its in-flight mark (none for a health check).
#[derive(Clone)]
pub(super) struct Entered {
    pub(super) session: Arc<Session>,
    pub(super) mark: Option<Arc<InFlight>>,
}

/// Enters each request's session.
#[derive(Clone)]
pub(super) struct SessionEntryLayer {
    sessions: Arc<Sessions>,
    /// The sessions told (in the log) that they are starting.
    explained: Arc<Explained>,
}

impl SessionEntryLayer {
    /// Entering `sessions`.
    pub(super) fn new(sessions: Arc<Sessions>) -> Self {
        Self {
            sessions,
            explained: Arc::default(),
        }
    }
}

impl<S> Layer<S> for SessionEntryLayer {
    type Service = SessionEntry<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SessionEntry {
            layer: self.clone(),
            inner,
        }
    }
}

/// See [`SessionEntryLayer`].
#[derive(Clone)]
pub(super) struct SessionEntry<S> {
    layer: SessionEntryLayer,
    inner: S,
}

impl<S: Next<Bytes>> Service<Request<Bytes>> for SessionEntry<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Bytes>) -> Self::Future {
        let Some(session) = session_of(&request).map(|session| session.name.clone()) else {
            let refused = platform_error(
                Refusal::Internal,
                a2a_lambda_core::jsonrpc::Id::Null,
                "no session",
            );
            return step::now(refused);
        };
        let sessions = &self.layer.sessions;
        if matches!(route_of(&request), Some(Route::Ping)) {
            // A readiness check names no session: it starts none (`front/readiness.rs`).
            let named =
                session_of(&request).is_some_and(|call| matches!(call.caller, Caller::Header));
            if !named && !sessions.is_live(session.as_str()) {
                return step::now(readiness::own_ping(sessions));
            }
            return match sessions.enter_for_health(session.as_str()) {
                Ok(session) => {
                    request.extensions_mut().insert(Entered {
                        session,
                        mark: None,
                    });
                    step::pass(&mut self.inner, request)
                }
                Err(unavailable) => step::now(refused_entry(&unavailable, &[])),
            };
        }
        tracing::debug!(
            session_id = session.as_str(),
            method = %request.method(),
            target = %request.uri(),
            "calling the container"
        );
        let (session, mark, wait) = match sessions.enter(session.as_str()) {
            Ok(entered) => entered,
            Err(unavailable) => {
                self.layer.explained.refused(&unavailable);
                return step::now(refused_entry(&unavailable, request.body()));
            }
        };
        let entered = Entered {
            session: Arc::clone(&session),
            mark: Some(Arc::new(mark)),
        };
        request.extensions_mut().insert(entered);
        let mut inner = step::take(&mut self.inner);
        Box::pin(async move {
            if !wait.is_zero() {
                tokio::time::sleep(wait).await;
            }
            // The session this call started is ready now (for the inspector's journal).
            session.note_ready();
            inner.call(request).await
        })
    }
}

/// AgentCore's answer when a session cannot take a request; echoes the payload's id.
fn refused_entry(unavailable: &Unavailable, payload: &[u8]) -> Response {
    match unavailable {
        Unavailable::Busy(session, why) => platform_error(
            Refusal::SessionBusy,
            request_id_of(payload),
            &format!("session {session} is {why}"),
        ),
        Unavailable::Container(error) => platform_error(
            Refusal::Internal,
            request_id_of(payload),
            &format!("the container could not start: {error}"),
        ),
        Unavailable::Quota(_) => super::session_quota::refused(unavailable),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::explain::Caller;
    use crate::front::routes::RouteLayer;
    use crate::front::session_header::CallSession;
    use crate::front::session_name::SessionName;
    use crate::front::sessions::testing::sessions_of;
    use axum::body::Body;
    use std::time::Duration;
    use tower::ServiceExt as _;

    /// Answers 200 naming whether it got a mark, and holds on to nothing.
    fn inner() -> impl crate::front::step::testing::Fine<Bytes> {
        tower::service_fn(|request: Request<Bytes>| async move {
            let marked = request
                .extensions()
                .get::<Entered>()
                .map(|entered| entered.mark.is_some());
            Ok::<_, std::convert::Infallible>(Response::new(Body::from(format!("{marked:?}"))))
        })
    }

    fn request(method: &str, uri: &str, session: &str) -> Request<Bytes> {
        let mut request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Bytes::from(r#"{"id":4}"#))
            .unwrap();
        request.extensions_mut().insert(CallSession {
            name: SessionName::from_text(session.to_owned()).unwrap(),
            caller: Caller::Header,
        });
        request
    }

    async fn status_and_body(
        stack: impl Service<Request<Bytes>, Response = Response, Error = std::convert::Infallible>,
        request: Request<Bytes>,
    ) -> (u16, String) {
        let response = stack.oneshot(request).await.unwrap();
        let (status, body) = crate::front::step::testing::read(response).await;
        (status.as_u16(), String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn a_call_enters_its_session_a_starting_one_refuses_others_and_pings_pass() {
        let sessions = Arc::new(sessions_of(Duration::from_millis(200), 1));
        let stack = RouteLayer::new(None)
            .layer(SessionEntryLayer::new(Arc::clone(&sessions)).layer(inner()));
        let one = "a".repeat(33);
        // The first call starts the session and waits for it.
        let first = tokio::spawn(status_and_body(stack.clone(), request("POST", "/", &one)));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (status, body) = status_and_body(stack.clone(), request("POST", "/", &one)).await;
        assert_eq!(status, 409, "{body}");
        assert!(body.contains(r#""id":4"#), "{body}");
        assert_eq!(
            status_and_body(stack.clone(), request("GET", "/ping", &one)).await,
            (200, "Some(false)".to_owned())
        );
        assert_eq!(first.await.unwrap(), (200, "Some(true)".to_owned()));
        // One session at most: another is refused with AWS's quota error.
        let two = "b".repeat(33);
        let (status, _) = status_and_body(stack, request("POST", "/", &two)).await;
        assert_eq!(status, 402);
    }
}
