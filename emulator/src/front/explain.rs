//! The platform's surprises, explained in the log where a developer looks. Nothing here
//! changes what goes on the wire.
//!
//! - A call whose answer is -32001 (task not found) for a task another session holds: one
//!   line naming the session and the header to send. AgentCore gives each session its own
//!   microVM and starts a new session for an invocation that names none
//!   (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-sessions.html>;
//!   the session is InvokeAgentRuntime's `X-Amzn-Bedrock-AgentCore-Runtime-Session-Id`,
//!   <https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html>),
//!   so a client that sends no session header finds none of its earlier tasks.
//! - A session refused as starting (409/-32054 "Session operation in progress, please
//!   retry", retryable:
//!   <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>):
//!   one line per session saying so and that the client should retry.
//!
//! In-process containers are asked which session holds a task (`--agent-cmd` processes
//! are indexed from their answers instead, in `task_index`); the answers
//! watched are the small whole ones (an error answer is a few hundred bytes) to calls
//! that may name a task (a plain send costs one substring search of its payload), read
//! without waiting, and only one that says -32001 is parsed.
//!
//! The explain step ([`ExplainLayer`]) watches the answers; the session entry step
//! explains a refused entry ([`Explained::refused`]).

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use axum::body::{Body, Bytes, HttpBody as _};
use axum::http::Request;
use axum::response::Response;
use futures_util::{FutureExt as _, StreamExt as _};
use serde_json::Value;
use tower::{Layer, Service};
use tracing::Instrument as _;

use super::container::Container;
use super::session_entry::Entered;
use super::session_header::session_of;
use super::sessions::Unavailable;
use super::step::{self, Answer, Next};
use super::stream_end::is_whole;
use super::task_index::{AnswerWatch, TaskIndex};

/// Watches the answers to calls that may name a task.
#[derive(Debug, Clone, Default)]
pub(super) struct ExplainLayer {
    /// Which agent process made which task.
    index: Arc<TaskIndex>,
}

impl<S> Layer<S> for ExplainLayer {
    type Service = Explain<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Explain {
            index: Arc::clone(&self.index),
            inner,
        }
    }
}

/// See [`ExplainLayer`].
#[derive(Debug, Clone)]
pub(super) struct Explain<S> {
    index: Arc<TaskIndex>,
    inner: S,
}

impl<S: Next<Bytes>> Service<Request<Bytes>> for Explain<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        let (Some(entered), Some(call)) =
            (request.extensions().get::<Entered>(), session_of(&request))
        else {
            return step::pass(&mut self.inner, request);
        };
        // A health check names no task.
        if entered.mark.is_none() {
            return step::pass(&mut self.inner, request);
        }
        let session = Arc::clone(&entered.session);
        let payload = request.body();
        // Only a call that may name a task can be told where the task lives.
        let caller = may_name_a_task(payload).then_some(call.caller);
        // An agent process is indexed from its answers (see `task_index`).
        let watch = if session.container.is_process() {
            AnswerWatch::new(
                &self.index,
                call.name.as_str(),
                payload,
                caller,
                session.container.ping_ledger(),
            )
        } else {
            None
        };
        if caller.is_none() && watch.is_none() {
            return step::pass(&mut self.inner, request);
        }
        let payload = payload.clone();
        Box::pin(self.inner.call(request).map(move |answered| {
            answered.map(|response| {
                let container = &session.container;
                if is_whole(&response, container) {
                    return match caller {
                        Some(caller) => watch_not_found(response, container, &payload, caller),
                        None => response,
                    };
                }
                match watch {
                    Some(watch) => {
                        let (parts, body) = response.into_parts();
                        let watched = watch.observe(body.into_data_stream());
                        Response::from_parts(parts, Body::from_stream(watched))
                    }
                    None => response,
                }
            })
        }))
    }
}

/// Answers at most this long are watched for -32001.
const WATCHED_BYTES: u64 = 1024;
/// Sessions remembered as told they are starting; past it the memory starts again.
const TOLD_SESSIONS: usize = 10_000;

/// How a call named its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// With the session header.
    Header,
    /// Without it: on an invocation path a new session was started for the call; on the
    /// container paths it went to the emulator's default session.
    NoHeader {
        /// A new session was started for it.
        new_session: bool,
    },
}

/// What the front has explained already.
#[derive(Debug, Default)]
pub struct Explained {
    /// Sessions told they are starting.
    starting: Mutex<HashSet<String>>,
}

impl Explained {
    /// Explains a refused entry the first time a session is refused as starting.
    pub fn refused(&self, unavailable: &Unavailable) {
        let Unavailable::Busy(session, "starting") = unavailable else {
            return;
        };
        let mut told = self.starting.lock().unwrap_or_else(PoisonError::into_inner);
        if told.len() >= TOLD_SESSIONS {
            told.clear();
        }
        if told.insert(session.clone()) {
            tracing::info!(
                session_id = session.as_str(),
                "session {session} is starting (AgentCore starts a microVM for a new session): \
                 calls that arrive meanwhile get the retryable 409/-32054 \"Session operation in \
                 progress, please retry\"; the client should retry them with backoff"
            );
        }
    }
}

/// True when a payload may name a task (`tasks/…`, `…Task…`, `taskId`): only the answers
/// to those are watched, so a plain send costs one substring search.
pub fn may_name_a_task(payload: &[u8]) -> bool {
    static ASK: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"ask"));
    ASK.find(payload).is_some()
}

/// `response` as it is; when it is a small whole answer saying -32001 for a task another
/// in-process session holds, that is logged (looked up after the answer is handed back).
pub fn watch_not_found(
    response: Response,
    container: &Container,
    payload: &[u8],
    caller: Caller,
) -> Response {
    let Some(tasks) = container.session_tasks() else {
        return response;
    };
    if response
        .body()
        .size_hint()
        .exact()
        .is_none_or(|length| length > WATCHED_BYTES)
    {
        return response;
    }
    let (parts, mut body) = response.into_parts();
    // An in-process answer is all there at once: one poll reads it (or the body is handed
    // back untouched).
    let mut context = Context::from_waker(Waker::noop());
    let bytes = match Pin::new(&mut body).poll_frame(&mut context) {
        Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
            Ok(bytes) if body.is_end_stream() => bytes,
            // More to come (not an in-process JSON answer): handed back whole, not watched.
            Ok(bytes) => {
                let first = futures_util::stream::once(std::future::ready(Ok(bytes)));
                let rest = first.chain(body.into_data_stream());
                return Response::from_parts(parts, Body::from_stream(rest));
            }
            // Trailers alone: nothing to watch; the answer goes on as it is.
            Err(_) => return Response::from_parts(parts, body),
        },
        Poll::Ready(None) => return Response::from_parts(parts, Body::empty()),
        Poll::Ready(Some(Err(_))) | Poll::Pending => return Response::from_parts(parts, body),
    };
    if says_task_not_found(&bytes)
        && let Some(task_id) = task_id_of(payload)
    {
        let owners = std::sync::Arc::clone(&tasks.owners);
        let session = std::sync::Arc::clone(&tasks.session);
        let explain = async move {
            if let Some(owner) = owners.owner_of(&task_id, &session).await {
                log_not_found(&task_id, &owner, &session, caller);
            }
        };
        tokio::spawn(explain.instrument(tracing::Span::current()));
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Logs that task `task_id`, held by session `owner`, was not found by a call in `session`.
pub fn log_not_found(task_id: &str, owner: &str, session: &str, caller: Caller) {
    tracing::warn!(
        task_id,
        session_id = owner,
        call_session_id = session,
        "{}",
        not_found_line(task_id, owner, session, caller)
    );
}

/// The line for task `task_id`, held by session `owner`, not found by a call in `session`.
fn not_found_line(task_id: &str, owner: &str, session: &str, caller: Caller) -> String {
    let why = match caller {
        Caller::NoHeader { new_session: true } => format!(
            "this call carried no session header, so AgentCore started a new session ({session})"
        ),
        Caller::NoHeader { new_session: false } => format!(
            "this call carried no session header, so it went to the emulator's default session ({session})"
        ),
        Caller::Header => format!("this call carried session id {session}, another session"),
    };
    format!(
        "task {task_id} lives in session {owner}; {why}: send {SESSION_HEADER_AS_WRITTEN}: {owner}"
    )
}

/// The session header as AWS's documents write it.
const SESSION_HEADER_AS_WRITTEN: &str = "X-Amzn-Bedrock-AgentCore-Runtime-Session-Id";

/// True when `answer` is a JSON-RPC error -32001 (checked cheaply before it is parsed).
fn says_task_not_found(answer: &[u8]) -> bool {
    memchr::memmem::find(answer, b"-32001").is_some()
        && serde_json::from_slice::<Value>(answer)
            .is_ok_and(|answer| answer["error"]["code"].as_i64() == Some(-32001))
}

/// The task a request names: `params.id` (get, cancel, resubscribe, push configs of 0.3),
/// `params.taskId` (push configs), or `params.message.taskId` (a follow-up message).
pub fn task_id_of(payload: &[u8]) -> Option<String> {
    let request: Value = serde_json::from_slice(payload).ok()?;
    let params = &request["params"];
    [
        &params["id"],
        &params["taskId"],
        &params["message"]["taskId"],
    ]
    .into_iter()
    .find_map(|id| id.as_str().map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::session_header::CallSession;
    use crate::front::session_name::SessionName;
    use crate::front::sessions::testing::sessions;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn a_watched_answer_reaches_the_client_as_it_was() {
        let sessions = sessions();
        let (session, mark, _) = sessions.enter("s").unwrap();
        let payload = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-1"}}"#;
        let mut request = Request::post("/").body(Bytes::from(payload)).unwrap();
        request.extensions_mut().insert(Entered {
            session,
            mark: Some(Arc::new(mark)),
        });
        request.extensions_mut().insert(CallSession {
            name: SessionName::from_text("s".to_owned()).unwrap(),
            caller: Caller::Header,
        });
        let answer =
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}"#;
        let inner = tower::service_fn(move |_: Request<Bytes>| async move {
            Ok::<_, std::convert::Infallible>(Response::new(Body::from(answer)))
        });
        let response = ExplainLayer::default()
            .layer(inner)
            .oneshot(request)
            .await
            .unwrap();
        let length = answer.len() as u64;
        assert_eq!(response.body().size_hint().exact(), Some(length));
        assert_eq!(
            axum::body::to_bytes(response.into_body(), 1024)
                .await
                .unwrap(),
            answer
        );
    }

    #[test]
    fn the_line_names_the_owner_the_cause_and_the_header() {
        assert_eq!(
            not_found_line(
                "t-1",
                "s-own",
                "s-new",
                Caller::NoHeader { new_session: true }
            ),
            "task t-1 lives in session s-own; this call carried no session header, so AgentCore \
             started a new session (s-new): send X-Amzn-Bedrock-AgentCore-Runtime-Session-Id: s-own"
        );
        assert_eq!(
            not_found_line("t-1", "s-own", "s-other", Caller::Header),
            "task t-1 lives in session s-own; this call carried session id s-other, another \
             session: send X-Amzn-Bedrock-AgentCore-Runtime-Session-Id: s-own"
        );
    }

    #[test]
    fn only_a_task_not_found_error_is_one() {
        assert!(says_task_not_found(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}"#
        ));
        assert!(!says_task_not_found(
            br#"{"jsonrpc":"2.0","id":1,"result":{"text":"-32001"}}"#
        ));
        assert!(!says_task_not_found(b"-32001 not json"));
        assert_eq!(
            task_id_of(br#"{"method":"tasks/get","params":{"id":"t-9"}}"#).as_deref(),
            Some("t-9")
        );
        assert_eq!(
            task_id_of(br#"{"method":"SendMessage","params":{"message":{"taskId":"t-8"}}}"#)
                .as_deref(),
            Some("t-8")
        );
        assert_eq!(task_id_of(b"[]"), None);
        for named in [&b"tasks/get"[..], b"GetTask", b"\"taskId\""] {
            assert!(may_name_a_task(named));
        }
        assert!(!may_name_a_task(
            br#"{"method":"message/send","params":{}}"#
        ));
    }
}
