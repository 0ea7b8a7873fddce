//! What the journal holds: [`InvocationRecord`]s, [`SessionRecord`]s and [`TaskRecord`]s,
//! every secret already masked (see `mask`), and how the API shows each as JSON.

use std::time::{Duration, SystemTime};

use axum::body::Bytes;
use axum::http::HeaderMap;
use serde_json::{Map, Value, json};

use crate::front::webhooks::rfc3339_millis;

/// Which of the emulator's paths an invocation took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RouteKind {
    /// The container's own paths (`/`, the card, `/ping`), as inside a microVM.
    Container,
    /// AWS's data-plane paths (`/runtimes/{arn}/invocations`, `…/stopruntimesession`).
    Aws,
    /// A local Lambda's front (`a2a-emulator lambda`): a Function URL or API Gateway call.
    Lambda,
}

impl RouteKind {
    /// `"container"`, `"aws"` or `"lambda"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Container => "container",
            Self::Aws => "aws",
            Self::Lambda => "lambda",
        }
    }

    /// The route of a request path.
    pub(crate) fn of(path: &str) -> Self {
        if path.starts_with("/runtimes/") {
            Self::Aws
        } else {
            Self::Container
        }
    }
}

/// One request the front answered, as the journal keeps it. Read through
/// [`Journal::invocations`](crate::Journal::invocations).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InvocationRecord {
    /// Its place in the journal: 1 for the first request, counting up.
    pub seq: u64,
    /// When it arrived.
    pub at: SystemTime,
    /// The session the front used (the session header it answered with).
    pub session: Option<String>,
    /// Container path or AWS path.
    pub route: RouteKind,
    /// The path and query as sent (presigned secrets masked).
    pub path: String,
    /// The HTTP method.
    pub http_method: String,
    /// The JSON-RPC method of the payload (`SendMessage`, `message/send`, …).
    pub method: Option<String>,
    /// The A2A version the request asked for: its `A2A-Version` header, else its query
    /// parameter, else `0.3` (what a request naming none is served as, see
    /// `a2a_lambda_core::version`); `None` for a request without a JSON-RPC payload.
    pub version: Option<String>,
    /// The HTTP status of the answer.
    pub status: u16,
    /// The JSON-RPC error code of the answer (of a stream: its first error event).
    pub code: Option<i64>,
    /// From arrival to the answer's headers.
    pub head_latency: Duration,
    /// From arrival to the answer's last byte; `None` while a stream is open.
    pub latency: Option<Duration>,
    /// The fault `--fault` injected, if any (`Throttle`, `latency 200ms`, `stream-cut after 2`).
    pub fault: Option<String>,
    /// The headers as the caller sent them (secrets masked).
    pub request_headers: HeaderMap,
    /// The headers the container received (after the allowlist, the platform's own
    /// added; the client calling the container adds `host` and `content-length`); `None`
    /// when the request never reached a container.
    pub container_headers: Option<HeaderMap>,
    /// The answer's headers.
    pub response_headers: HeaderMap,
    /// The payload's first bytes (the journal's body size), secrets masked; `None` when
    /// the front did not read one.
    pub request_body: Option<Bytes>,
    /// The payload's size in bytes.
    pub request_bytes: u64,
    /// The answer's first bytes, secrets masked.
    pub response_body: Bytes,
    /// The answer's size in bytes, so far for an open stream.
    pub response_bytes: u64,
    /// The task the invocation named or its answer made.
    pub task_id: Option<String>,
    /// The answer is an SSE stream.
    pub stream: bool,
    /// The answer has ended (or its client went away).
    pub done: bool,
    /// What a local Lambda noted of the invocation (route `lambda` only).
    pub lambda: Option<LambdaInvocation>,
}

/// A local Lambda's invocation as the journal keeps it: Lambda's request id, how long
/// the function took, and how it failed.
///
/// ```
/// let note = a2a_lambda_emulator::inspector::LambdaInvocation::default();
/// assert_eq!(note.to_json()["thawed"], false);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LambdaInvocation {
    /// Lambda's request id (`Lambda-Runtime-Aws-Request-Id`), once handed out.
    pub request_id: Option<String>,
    /// From the hand-out to the invocation's end (the runtime and every extension done),
    /// the `REPORT` line's `Duration`.
    pub duration: Option<Duration>,
    /// The error type when it failed (`Sandbox.Timedout`, `Runtime.ExitError`, the
    /// function's own).
    pub error: Option<String>,
    /// It thawed a frozen environment.
    pub thawed: bool,
}

impl LambdaInvocation {
    /// How the API shows it.
    ///
    /// ```
    /// let note = a2a_lambda_emulator::inspector::LambdaInvocation::default();
    /// assert_eq!(note.to_json()["requestId"], serde_json::Value::Null);
    /// ```
    pub fn to_json(&self) -> Value {
        json!({
            "requestId": self.request_id,
            "durationMs": self.duration.map(millis),
            "error": self.error,
            "thawed": self.thawed,
        })
    }
}

impl InvocationRecord {
    /// The value of header `name` (any case) as the caller sent it (masked).
    pub fn request_header(&self, name: &str) -> Option<&str> {
        self.request_headers.get(name)?.to_str().ok()
    }

    /// The value of header `name` (any case) as the container received it (masked).
    pub fn container_header(&self, name: &str) -> Option<&str> {
        self.container_headers.as_ref()?.get(name)?.to_str().ok()
    }

    /// The trace the caller's W3C `traceparent` header names (its 32 hex digits,
    /// lowercase), else the one the container received; `None` without a valid one.
    /// Format: W3C Trace Context, "traceparent Header"
    /// (<https://www.w3.org/TR/trace-context/#traceparent-header>): `00-{trace id}-{parent
    /// id}-{flags}`, an all-zero trace id invalid.
    ///
    /// ```
    /// # use a2a_lambda_emulator::{Emulator, InvocationFilter};
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # use std::time::Duration;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// reqwest::Client::new()
    ///     .get(format!("{}/ping", emulator.url()))
    ///     .header("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    ///     .send()
    ///     .await?;
    /// let journal = emulator.journal().expect("the inspector is on by default");
    /// let seen = journal.wait_for(&InvocationFilter::all(), 1, Duration::from_secs(5)).await;
    /// assert_eq!(seen[0].trace_id().as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn trace_id(&self) -> Option<String> {
        let header = self
            .request_header("traceparent")
            .or_else(|| self.container_header("traceparent"))?;
        let mut fields = header.trim().split('-');
        let (_version, trace, parent, _flags) = (
            fields.next()?,
            fields.next()?,
            fields.next()?,
            fields.next()?,
        );
        let hex = |field: &str, len: usize| {
            field.len() == len
                && field.bytes().all(|byte| byte.is_ascii_hexdigit())
                && field.bytes().any(|byte| byte != b'0')
        };
        (hex(trace, 32) && hex(parent, 16)).then(|| trace.to_ascii_lowercase())
    }

    /// How the API shows it.
    pub fn to_json(&self) -> Value {
        let mut record = json!({
            "seq": self.seq,
            "at": rfc3339_millis(self.at),
            "session": self.session,
            "route": self.route.as_str(),
            "path": self.path,
            "httpMethod": self.http_method,
            "method": self.method,
            "version": self.version,
            "status": self.status,
            "code": self.code,
            "headMs": millis(self.head_latency),
            "latencyMs": self.latency.map(millis),
            "fault": self.fault,
            "requestHeaders": headers_json(&self.request_headers),
            "containerHeaders": self.container_headers.as_ref().map(headers_json),
            "responseHeaders": headers_json(&self.response_headers),
            "requestBody": self.request_body.as_deref().map(String::from_utf8_lossy),
            "requestBytes": self.request_bytes,
            "responseBody": String::from_utf8_lossy(&self.response_body),
            "responseBytes": self.response_bytes,
            "taskId": self.task_id,
            "traceId": self.trace_id(),
            "stream": self.stream,
            "done": self.done,
        });
        if let (Some(lambda), Value::Object(object)) = (&self.lambda, &mut record) {
            object.insert("lambda".to_owned(), lambda.to_json());
        }
        record
    }
}

/// Milliseconds with three decimals.
fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1_000_000.0).round() / 1000.0
}

/// Headers as a JSON object; a repeated header's values joined with `", "` (RFC 9110 §5.3).
fn headers_json(headers: &HeaderMap) -> Value {
    let mut object = Map::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes());
        match object.get_mut(name.as_str()) {
            Some(Value::String(joined)) => {
                joined.push_str(", ");
                joined.push_str(&value);
            }
            _ => {
                object.insert(name.as_str().to_owned(), Value::String(value.into_owned()));
            }
        }
    }
    Value::Object(object)
}

/// Where a session is in AgentCore's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionState {
    /// Made; its container is starting (`--session-startup-ms`, an agent process's first
    /// `/ping`).
    Starting,
    /// Ready and unused.
    Ready,
    /// An invocation is in flight.
    Busy,
    /// Its last invocation has ended.
    Idle,
    /// Ended (see [`SessionRecord::why`]).
    Stopped,
    /// A local Lambda's execution environment, frozen (`SIGSTOP`) between invocations.
    Frozen,
}

impl SessionState {
    /// `"starting"`, `"ready"`, `"busy"`, `"idle"`, `"stopped"` or `"frozen"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Ready => "ready",
            Self::Busy => "busy",
            Self::Idle => "idle",
            Self::Stopped => "stopped",
            Self::Frozen => "frozen",
        }
    }
}

/// One change of a session's state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionEvent {
    /// When.
    pub at: SystemTime,
    /// The state entered.
    pub state: SessionState,
    /// Why it stopped (`idle timeout`, `StopRuntimeSession`, …).
    pub why: Option<String>,
}

/// A session as the journal knows it: its state now and its newest events.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session id.
    pub id: String,
    /// Its state now.
    pub state: SessionState,
    /// When it started.
    pub started_at: SystemTime,
    /// Why it stopped, once it has.
    pub why: Option<String>,
    /// Invocations it took.
    pub invocations: u64,
    /// Its newest state changes, oldest first (at most [`SESSION_EVENTS`](crate::inspector::SESSION_EVENTS)).
    pub events: Vec<SessionEvent>,
}

impl SessionRecord {
    /// How the API shows it.
    pub fn to_json(&self) -> Value {
        let events: Vec<Value> = self
            .events
            .iter()
            .map(|event| {
                json!({
                    "at": rfc3339_millis(event.at),
                    "state": event.state.as_str(),
                    "why": event.why,
                })
            })
            .collect();
        json!({
            "id": self.id,
            "state": self.state.as_str(),
            "startedAt": rfc3339_millis(self.started_at),
            "why": self.why,
            "invocations": self.invocations,
            "events": events,
        })
    }
}

/// One step of a task's timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStep {
    /// The task entered a state (as the wire names it: `working`, `TASK_STATE_WORKING`).
    State(String),
    /// An artifact arrived (its id, or its name, or `artifact`).
    Artifact(String),
}

/// A task's timeline entry.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskEvent {
    /// When the answer carrying it passed the front.
    pub at: SystemTime,
    /// What happened.
    pub step: TaskStep,
    /// The invocation whose answer carried it.
    pub invocation: u64,
}

/// A task as the answers passing the front showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id.
    pub id: String,
    /// The session whose container holds it.
    pub session: Option<String>,
    /// Its context id.
    pub context_id: Option<String>,
    /// Its newest state.
    pub state: Option<String>,
    /// State changes and artifacts, oldest first (at most [`TASK_EVENTS`](crate::inspector::TASK_EVENTS)).
    pub timeline: Vec<TaskEvent>,
}

impl TaskRecord {
    /// How the API shows it.
    pub fn to_json(&self) -> Value {
        let timeline: Vec<Value> = self
            .timeline
            .iter()
            .map(|event| {
                let (kind, value) = match &event.step {
                    TaskStep::State(state) => ("state", state),
                    TaskStep::Artifact(artifact) => ("artifact", artifact),
                };
                json!({
                    "at": rfc3339_millis(event.at),
                    kind: value,
                    "invocation": event.invocation,
                })
            })
            .collect();
        json!({
            "id": self.id,
            "session": self.session,
            "contextId": self.context_id,
            "state": self.state,
            "timeline": timeline,
        })
    }
}
