//! The invocation path: a JSON-RPC payload read, checked against the rate limit and the
//! injected faults, and forwarded to the session's container.
//!
//! Each step is decided before the next future is made and the futures are chained, not
//! nested `async fn`s: this is the path every request takes, and an `async fn` keeps each
//! of its arguments at every level of the chain.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::error::Refusal;
use a2a_core::jsonrpc::Id;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Uri, header};
use axum::response::Response;
use futures_util::FutureExt as _;
use futures_util::future::{Either, ready};

use super::container::RuntimeFailure;
use super::errors::platform_error;
use super::explain::{self, Caller};
use super::limits::{Fault, FaultInjector};
use super::sessions::{self, Unavailable};
use super::stream_end;
use super::task_index::AnswerWatch;
use super::workload_token;
use super::{Front, Later, SESSION, SessionName, request_id_of};

/// A POST of a JSON-RPC payload for the session's container.
pub(super) struct Invocation {
    pub(super) front: Arc<Front>,
    /// `/` with the client's query.
    pub(super) target: Uri,
    pub(super) headers: HeaderMap,
    pub(super) body: Body,
    pub(super) session: SessionName,
}

impl Front {
    /// Enters the session and calls its container; the in-flight mark lives as long as the
    /// response body, so a stream keeps its session busy until it ends. A refusal echoes
    /// the payload's id. The session is entered (or refused) before the future is made.
    pub(super) fn forward(
        &self,
        method: Method,
        target: Uri,
        mut headers: HeaderMap,
        body: Bytes,
        session: SessionName,
    ) -> impl Future<Output = Response> + Send + use<> {
        tracing::debug!(session_id = session.as_str(), %method, %target, "calling the container");
        let (entered, mark, wait) = match self.sessions.enter(session.as_str()) {
            Ok(entered) => entered,
            Err(unavailable) => {
                self.explained.refused(&unavailable);
                return Either::Left(ready(refused_entry(&unavailable, &body)));
            }
        };
        // Only a call that may name a task can be told where the task lives.
        let caller = explain::may_name_a_task(&body).then(|| {
            if headers.contains_key(&SESSION) {
                Caller::Header
            } else {
                Caller::NoHeader {
                    new_session: session.as_str() != self.default_session.as_str(),
                }
            }
        });
        // An agent process is indexed from its answers (see `task_index`).
        let watch = if entered.container.is_process() {
            AnswerWatch::new(&self.task_index, session.as_str(), &body, caller)
        } else {
            None
        };
        // What AgentCore passes: the allowlisted caller's headers and the platform's own.
        let token = workload_token::for_invocation(&headers);
        self.header_filter.apply(&mut headers, session.as_str());
        headers.insert(&SESSION, session.into_header());
        if let Some(token) = token {
            headers.insert(&workload_token::WORKLOAD_ACCESS_TOKEN, token);
        }
        if self.config.journal.is_some() {
            crate::inspector::notes::container_headers(&headers);
        }
        let timeout = self.config.request_timeout;
        // The invocation that starts a session waits for it (boxed: this is rare), then the
        // call has its full time.
        let started = if wait.is_zero() {
            Either::Left(ready(()))
        } else {
            Either::Right(Box::pin(tokio::time::sleep(wait)))
        };
        let max_stream = self.config.max_stream;
        Either::Right(started.then(move |()| {
            // The session this call started is ready now (for the inspector's journal).
            entered.note_ready();
            let call = entered
                .container
                .call(method, target, headers, body.clone(), timeout);
            call.map(move |answered| {
                let watched = (caller, watch);
                settle(answered, &entered, mark, &body, watched, max_stream)
            })
        }))
    }
}

/// AgentCore's answer when a session cannot take a request; echoes the payload's id.
pub(super) fn refused_entry(unavailable: &Unavailable, payload: &[u8]) -> Response {
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

/// The container's answer as the client gets it: a whole answer as it is, a stream with
/// the in-flight mark riding along until its end (cut when the session ends, or after
/// `max_stream`), a failure as AgentCore's 424.
fn settle(
    answered: Result<Response, RuntimeFailure>,
    session: &sessions::Session,
    mark: sessions::InFlight,
    payload: &[u8],
    (caller, watch): (Option<Caller>, Option<AnswerWatch>),
    max_stream: Duration,
) -> Response {
    match answered {
        Ok(response) => {
            let streaming = response
                .headers()
                .get(header::CONTENT_TYPE)
                .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
            if !streaming && session.container.answers_whole() {
                // A whole answer: the invocation is over when it is handed back.
                return match caller {
                    Some(caller) => {
                        explain::watch_not_found(response, &session.container, payload, caller)
                    }
                    None => response,
                };
            }
            let (parts, body) = response.into_parts();
            let limit = streaming.then_some(max_stream);
            let body = stream_end::bounded(body, session, limit, mark);
            match watch {
                Some(watch) => Response::from_parts(
                    parts,
                    Body::from_stream(watch.observe(body.into_data_stream())),
                ),
                None => Response::from_parts(parts, body),
            }
        }
        Err(failure) => platform_error(
            Refusal::RuntimeUnavailable,
            request_id_of(payload),
            &failure.to_string(),
        ),
    }
}

impl Invocation {
    /// Reads the payload, applies the rate limit and injected faults, and forwards it.
    pub(super) fn run(self) -> impl Future<Output = Response> + Send {
        let Self {
            front,
            target,
            headers,
            body,
            session,
        } = self;
        let limit = front.config.max_body_bytes;
        axum::body::to_bytes(body, limit).then(move |read| {
            let Ok(body) = read else {
                let detail =
                    format!("the payload is larger than {limit} bytes (or could not be read)");
                let refused = platform_error(Refusal::PlatformValidation, Id::Null, &detail);
                return Either::Left(ready(refused));
            };
            if front.config.journal.is_some() {
                crate::inspector::notes::request_body(&body);
            }
            // The payload is opaque to the platform, as InvokeAgentRuntime's is: a body that
            // is not JSON reaches the container, which answers -32700 as the A2A spec says.
            // Its id is read only when the platform refuses it.
            if let Some(limiter) = &front.config.rate_limit
                && !limiter.try_acquire()
            {
                let refused =
                    platform_error(Refusal::Throttled, request_id_of(&body), "rate limit");
                return Either::Left(ready(refused));
            }
            if let Some(faults) = &front.config.faults {
                let latency = faults.latency();
                let faulty = front.with_faults(latency, target, headers, body, session);
                return Either::Right(Either::Right(Box::pin(faulty) as Later));
            }
            let forwarded = front.forward(Method::POST, target, headers, body, session);
            Either::Right(Either::Left(forwarded))
        })
    }
}

impl Front {
    /// An invocation under `--fault`: the injected latency, then maybe a fault, else the
    /// container.
    async fn with_faults(
        self: Arc<Self>,
        latency: Duration,
        target: Uri,
        headers: HeaderMap,
        body: Bytes,
        session: SessionName,
    ) -> Response {
        let noting = self.config.journal.is_some();
        if !latency.is_zero() {
            if noting {
                crate::inspector::notes::fault(&format!("latency {}ms", latency.as_millis()));
            }
            tokio::time::sleep(latency).await;
        }
        if let Some(fault) = self.config.faults.as_ref().and_then(FaultInjector::draw) {
            if noting {
                crate::inspector::notes::fault(&format!("{fault:?}"));
            }
            if fault == Fault::AccessDenied {
                return super::auth::unsigned(headers.get(&super::PLATFORM_REQUEST_ID));
            }
            let refusal = match fault {
                Fault::Throttle => Refusal::Throttled,
                Fault::Conflict => Refusal::SessionBusy,
                Fault::RuntimeError => Refusal::RuntimeUnavailable,
                Fault::Internal | Fault::AccessDenied => Refusal::Internal,
                Fault::SessionLost => {
                    // AgentCore answers RuntimeClientError when a container dies under an
                    // invocation; the session is over, its tasks with it.
                    let _ = self
                        .sessions
                        .stop(session.as_str(), "injected fault SessionLost");
                    Refusal::RuntimeUnavailable
                }
            };
            let detail = format!("injected fault {fault:?}");
            return platform_error(refusal, request_id_of(&body), &detail);
        }
        let cut = self
            .config
            .faults
            .as_ref()
            .and_then(FaultInjector::stream_cut);
        let response = self
            .forward(Method::POST, target, headers, body, session)
            .await;
        match cut {
            Some(events) => {
                if noting {
                    crate::inspector::notes::fault(&format!("StreamCut after {events} events"));
                }
                super::stream_cut::cut_after(response, events)
            }
            None => response,
        }
    }
}
