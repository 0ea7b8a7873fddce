//! Which session made which task, for containers the front cannot ask (`--agent-cmd`
//! processes): task ids read from the answers to sends, at most [`INDEXED_TASKS`], and
//! the answers to calls that name a task watched for -32001 (task not found), so that the
//! log can say where the task lives; a send's task shown at work is told to the agent
//! process's pings (`ping_report.rs`: a `Healthy` ping while it works gets a warning).
//! Only those answers are read, and only their first bytes; what goes on the wire is
//! untouched.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Bytes;
use futures_util::Stream;
use serde_json::Value;

use super::explain::{self, Caller};
use super::ping_report::{PingLedger, TaskAtWork, shows_at_work};

/// Tasks remembered; the oldest are forgotten past it.
pub const INDEXED_TASKS: usize = 10_000;
/// Bytes of an answer kept to read its task id or its error.
const WATCHED_BYTES: usize = 16 * 1024;

/// Task ids and the sessions whose answers named them.
#[derive(Debug, Default)]
pub struct TaskIndex {
    inner: Mutex<Index>,
}

#[derive(Debug, Default)]
struct Index {
    sessions: HashMap<String, Arc<str>>,
    order: VecDeque<String>,
}

impl TaskIndex {
    /// Records that session `session` made task `task_id`.
    fn record(&self, task_id: &str, session: &Arc<str>) {
        let mut index = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if index
            .sessions
            .insert(task_id.to_owned(), Arc::clone(session))
            .is_none()
        {
            index.order.push_back(task_id.to_owned());
        }
        if index.order.len() > INDEXED_TASKS
            && let Some(oldest) = index.order.pop_front()
        {
            index.sessions.remove(&oldest);
        }
    }

    /// The session, other than `except`, that made task `task_id`.
    fn owner_of(&self, task_id: &str, except: &str) -> Option<Arc<str>> {
        let index = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        index
            .sessions
            .get(task_id)
            .filter(|session| &***session != except)
            .cloned()
    }
}

/// What to read in the answer to one call: the task a send made, or a -32001 for the task
/// the call named.
pub struct AnswerWatch {
    index: Arc<TaskIndex>,
    session: Arc<str>,
    /// The call may have made a task (a send).
    send: bool,
    /// The call may name a task, and how it named its session.
    named: Option<Caller>,
    /// The task the call named, read from its payload when its answer is -32001.
    payload: Bytes,
    /// The agent process's pings, told of a task the send's answer shows at work.
    pings: Option<Arc<PingLedger>>,
}

impl AnswerWatch {
    /// A watch over the answer to `payload` in `session`; `None` when nothing in it can
    /// be of use (checked with substring searches only).
    pub fn new(
        index: &Arc<TaskIndex>,
        session: &str,
        payload: &Bytes,
        named: Option<Caller>,
        pings: Option<Arc<PingLedger>>,
    ) -> Option<Self> {
        let send = memchr::memmem::find(payload, b"essage").is_some();
        (send || named.is_some()).then(|| Self {
            index: Arc::clone(index),
            session: Arc::from(session),
            send,
            named,
            payload: payload.clone(),
            pings,
        })
    }

    /// `body` as it is, read on the way.
    pub fn observe<S>(self, body: S) -> Watched<S> {
        Watched {
            body,
            watch: Some(self),
            seen: Vec::new(),
        }
    }

    /// Reads `seen` (the answer's first bytes); `end` once the answer is over. True when
    /// nothing more needs reading.
    fn read(&self, seen: &[u8], end: bool) -> bool {
        if self.send
            && let Some(answer) = first_result(seen)
            && let Some(task_id) = task_in_result(&answer)
        {
            self.index.record(&task_id, &self.session);
            if let Some(pings) = &self.pings
                && shows_at_work(&answer["result"])
            {
                pings.task_at_work(TaskAtWork {
                    id: task_id,
                    v1_0: is_v1_0_send(&self.payload),
                });
            }
            return true;
        }
        if !end {
            return false;
        }
        if let Some(caller) = self.named
            && first_error_code(seen) == Some(-32001)
            && let Some(task_id) = explain::task_id_of(&self.payload)
            && let Some(owner) = self.index.owner_of(&task_id, &self.session)
        {
            explain::log_not_found(&task_id, &owner, &self.session, caller);
        }
        true
    }
}

/// An answer's body, read on the way by its [`AnswerWatch`].
pub struct Watched<S> {
    body: S,
    watch: Option<AnswerWatch>,
    seen: Vec<u8>,
}

impl<S, E> Stream for Watched<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    type Item = Result<Bytes, E>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_next(cx);
        if let Some(watch) = &this.watch {
            let done = match &polled {
                Poll::Ready(Some(Ok(chunk))) => {
                    let room = WATCHED_BYTES.saturating_sub(this.seen.len());
                    this.seen
                        .extend_from_slice(chunk.get(..room.min(chunk.len())).unwrap_or_default());
                    watch.read(&this.seen, this.seen.len() >= WATCHED_BYTES)
                }
                Poll::Ready(None) => watch.read(&this.seen, true),
                Poll::Ready(Some(Err(_))) => true,
                Poll::Pending => false,
            };
            if done {
                this.watch = None;
                this.seen = Vec::new();
            }
        }
        polled
    }
}

/// The first JSON-RPC answer in `seen`: the whole of it, or the first SSE event's data.
fn first_result(seen: &[u8]) -> Option<Value> {
    if let Ok(whole) = serde_json::from_slice::<Value>(seen) {
        return Some(whole);
    }
    let start = memchr::memmem::find(seen, b"data:")? + b"data:".len();
    let line = &seen[start..];
    let end = memchr::memchr2(b'\n', b'\r', line)?;
    serde_json::from_slice(&line[..end]).ok()
}

/// Whether `payload` is an A2A v1.0 send (`SendMessage`, `SendStreamingMessage`).
fn is_v1_0_send(payload: &[u8]) -> bool {
    serde_json::from_slice::<Value>(payload).is_ok_and(|call| {
        matches!(
            call["method"].as_str(),
            Some("SendMessage" | "SendStreamingMessage")
        )
    })
}

/// The error code of the first JSON-RPC answer in `seen`.
fn first_error_code(seen: &[u8]) -> Option<i64> {
    first_result(seen)?["error"]["code"].as_i64()
}

/// The task a send's answer (or its first stream event) names, in either version.
fn task_in_result(answer: &Value) -> Option<String> {
    let result = &answer["result"];
    let v0_3_task = (result["kind"] == "task").then(|| &result["id"]);
    [
        &result["task"]["id"],
        &result["statusUpdate"]["taskId"],
        &result["artifactUpdate"]["taskId"],
        &result["taskId"],
        &result["message"]["taskId"],
    ]
    .into_iter()
    .chain(v0_3_task)
    .find_map(|id| id.as_str().map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_read_from_answers_and_streams_of_both_versions() {
        let v0_3 =
            br#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t-3","contextId":"c"}}"#;
        let v1_0 = b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"t-1\"}}}\nid: t-1:1.0\n\n";
        let message = br#"{"jsonrpc":"2.0","id":1,"result":{"kind":"message","messageId":"m"}}"#;
        let read = |seen: &[u8]| first_result(seen).as_ref().and_then(task_in_result);
        assert_eq!(read(v0_3).as_deref(), Some("t-3"));
        assert_eq!(read(v1_0).as_deref(), Some("t-1"));
        assert_eq!(read(message), None);
        assert_eq!(read(b"data: {\"half"), None);
        assert_eq!(
            first_error_code(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x"}}"#),
            Some(-32001)
        );
    }

    #[test]
    fn the_index_forgets_its_oldest_tasks() {
        let index = TaskIndex::default();
        let session: Arc<str> = Arc::from("s-1");
        for n in 0..=INDEXED_TASKS {
            index.record(&format!("t-{n}"), &session);
        }
        assert_eq!(index.owner_of("t-0", "other"), None);
        assert_eq!(index.owner_of("t-1", "other").as_deref(), Some("s-1"));
        assert_eq!(index.owner_of("t-1", "s-1"), None);
    }
}
