//! Helpers for the conformance suites (`conformance.rs`: the cases both protocol versions
//! share, run once per version; `conformance_v0_3.rs`, `conformance_v1_0.rs`: each
//! version's own), which check against the real emulator the behaviours the published A2A
//! conformance suite (the TCK) asserts.
//!
//! - [`tck_id`] and [`unique_id`] make the session-unique ids the suite sends, keeping the
//!   `messageId` prefix that tells the `conformance` agent what to do.
//! - [`send`], [`new_task`], [`follow_up`] send messages in either version; [`task_id`],
//!   [`history_len`] read tasks; [`rest_results`], [`stream_kind`] read streams.
//! - [`post_raw`] / [`rpc_with_headers`] send a body with chosen headers (a version header
//!   of any value, another content type).
//! - [`assert_a2a_error`] checks an error response the way the suite does: the JSON-RPC
//!   envelope, the code, a non-empty message, only `code`/`message`/`data`, and for A2A
//!   errors a `google.rpc.ErrorInfo` in `data` with the A2A domain and the code's reason.
//! - [`event_state`], [`is_terminal`] read task states out of send results and stream
//!   events of either version; [`snake_case_keys`], [`is_iso8601_utc`] and
//!   [`values_of`] check serialization conventions.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{Emulator, HeaderMap, Op, STEP_TIMEOUT, SseStream, Value, Version, header, json};

/// `TCK_STREAMING_TIMEOUT` for emulators that run `test-resubscribe-message-id` tasks: the
/// task then works for twice this many seconds, short enough to keep the suite fast.
pub const STREAMING_TIMEOUT: &str = "0.5";

/// The `conformance` agent with a short `TCK_STREAMING_TIMEOUT` ([`STREAMING_TIMEOUT`]).
pub fn conformance_emulator() -> Emulator {
    Emulator::builder()
        .args(["--agent", "conformance"])
        .env("TCK_STREAMING_TIMEOUT", STREAMING_TIMEOUT)
        .start()
}

/// A suffix unique to this test process.
fn session() -> &'static str {
    static SESSION: OnceLock<String> = OnceLock::new();
    SESSION.get_or_init(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.subsec_nanos())
            .unwrap_or_default();
        format!("{:x}{nanos:08x}", std::process::id())
    })
}

/// `{prefix}-{session}-{n}`: unique within the process and across runs.
pub fn unique_id(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{prefix}-{}-{}",
        session(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// `tck-{name}-…`, the ids the suite generates (`tck_id("complete-task")` starts with the
/// `tck-complete-task` prefix).
pub fn tck_id(name: &str) -> String {
    unique_id(&format!("tck-{name}"))
}

/// A user message with one text part that continues `task_id`.
pub fn follow_up(version: Version, message_id: &str, text: &str, task_id: &str) -> Value {
    let mut message = version.user_message(message_id, text);
    message["taskId"] = json!(task_id);
    message
}

/// `message/send` / `SendMessage` of `message`; the whole JSON-RPC response.
pub async fn send(emulator: &Emulator, version: Version, message: Value) -> Value {
    emulator
        .call_op(version, Op::Send, json!({"message": message}))
        .await
}

/// A new task from a message with this id (the suite's prerequisite task); the task.
pub async fn new_task(emulator: &Emulator, version: Version, message_id: &str) -> Value {
    emulator
        .send_task(
            version,
            version.send_params(message_id, "TCK prerequisite task creation"),
        )
        .await
}

/// A task's id, checked not empty.
///
/// # Panics
/// When the task has none.
pub fn task_id(task: &Value) -> String {
    let id = task["id"].as_str().unwrap_or_default();
    assert!(!id.is_empty(), "the task has no id: {task}");
    id.to_owned()
}

/// How many messages a task's history holds (0 without one).
pub fn history_len(task: &Value) -> usize {
    task.get("history")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// A JSON-RPC request body.
pub fn request(id: &str, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// The `result`s of the rest of a stream, until the server closes it.
///
/// # Panics
/// On an error event.
pub async fn rest_results(stream: &mut SseStream) -> Vec<Value> {
    stream
        .rest()
        .await
        .into_iter()
        .map(|event| {
            assert!(event.get("error").is_none(), "error event: {event}");
            event["result"].clone()
        })
        .collect()
}

/// The one key of a v1.0 StreamResponse (`task`, `message`, `statusUpdate`,
/// `artifactUpdate`).
///
/// # Panics
/// When it has another key, or more than one.
pub fn stream_kind(result: &Value) -> &str {
    let keys: Vec<&str> = result
        .as_object()
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys.len(),
        1,
        "a StreamResponse has exactly one field: {result}"
    );
    let kind = keys[0];
    assert!(
        ["task", "message", "statusUpdate", "artifactUpdate"].contains(&kind),
        "{result}"
    );
    kind
}

/// A raw HTTP answer.
#[derive(Debug)]
pub struct RawResponse {
    /// The status code.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub text: String,
}

impl RawResponse {
    /// The body as JSON.
    ///
    /// # Panics
    /// When it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|error| {
            panic!(
                "HTTP {} body is not JSON ({error}): {:?}",
                self.status, self.text
            )
        })
    }

    /// The `content-type` header.
    pub fn content_type(&self) -> Option<&str> {
        header(&self.headers, "content-type")
    }
}

/// POSTs `body` to `/` with exactly these headers (no content type unless given).
///
/// # Panics
/// When the request fails or the body does not arrive within [`STEP_TIMEOUT`].
pub async fn post_raw(
    emulator: &Emulator,
    headers: &[(&str, &str)],
    body: impl Into<Vec<u8>>,
) -> RawResponse {
    let mut request = emulator.http().post(emulator.url("/")).body(body.into());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = emulator.send(request).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = match tokio::time::timeout(STEP_TIMEOUT, response.text()).await {
        Ok(Ok(text)) => text,
        Ok(Err(error)) => panic!("reading the body failed: {error}"),
        Err(_) => panic!("no complete body within {STEP_TIMEOUT:?}"),
    };
    RawResponse {
        status,
        headers,
        text,
    }
}

/// POSTs a JSON-RPC body with `Content-Type: application/json` plus `headers`, and returns
/// the JSON answer after checking HTTP 200 and `application/json` (the JSON-RPC binding
/// answers errors with 200 too).
pub async fn rpc_with_headers(
    emulator: &Emulator,
    headers: &[(&str, &str)],
    body: &Value,
) -> Value {
    let mut all = vec![("content-type", "application/json")];
    all.extend_from_slice(headers);
    let response = post_raw(emulator, &all, body.to_string()).await;
    assert_eq!(response.status, 200, "{body} → {}", response.text);
    assert_eq!(
        response.content_type(),
        Some("application/json"),
        "{}",
        response.text
    );
    response.json()
}

/// The `google.rpc.ErrorInfo` reason the A2A spec gives each A2A error code.
pub fn reason_for(code: i64) -> Option<&'static str> {
    Some(match code {
        -32001 => "TASK_NOT_FOUND",
        -32002 => "TASK_NOT_CANCELABLE",
        -32003 => "PUSH_NOTIFICATION_NOT_SUPPORTED",
        -32004 => "UNSUPPORTED_OPERATION",
        -32005 => "CONTENT_TYPE_NOT_SUPPORTED",
        -32006 => "INVALID_AGENT_RESPONSE",
        -32007 => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        -32008 => "EXTENSION_SUPPORT_REQUIRED",
        -32009 => "VERSION_NOT_SUPPORTED",
        _ => return None,
    })
}

/// Checks that `response` is a JSON-RPC 2.0 error answering `id` with `code`, shaped as the
/// conformance suite requires, and returns its `error` object.
///
/// The error has only `code` (an integer), `message` (a non-empty string) and optional
/// `data`; A2A codes (-32001…-32099) carry in `data` a `google.rpc.ErrorInfo` whose domain
/// is `a2a-protocol.org` and whose reason is the code's.
///
/// # Panics
/// On any difference, with the response.
pub fn assert_a2a_error<'a>(response: &'a Value, id: &Value, code: i64) -> &'a Value {
    assert!(
        response.get("error").is_some() && response.get("result").is_none(),
        "expected error {code}, got an answer that is not (only) an error: {response}"
    );
    assert_eq!(response["jsonrpc"], "2.0", "{response}");
    assert_eq!(&response["id"], id, "the id is not echoed: {response}");
    let error = &response["error"];
    let Some(fields) = error.as_object() else {
        panic!("expected an error object with code {code}: {response}")
    };
    assert_eq!(error["code"].as_i64(), Some(code), "{response}");
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|text| !text.is_empty()),
        "the message must be a non-empty string: {response}"
    );
    assert!(
        fields
            .keys()
            .all(|key| ["code", "message", "data"].contains(&key.as_str())),
        "the error object has only code, message and data: {response}"
    );
    if let Some(reason) = reason_for(code) {
        let Some(details) = error["data"].as_array() else {
            panic!("an A2A error carries an array in data: {response}")
        };
        let info = details
            .iter()
            .find(|detail| detail["@type"] == "type.googleapis.com/google.rpc.ErrorInfo");
        let Some(info) = info else {
            panic!("data holds no google.rpc.ErrorInfo: {response}")
        };
        assert_eq!(info["domain"], "a2a-protocol.org", "{response}");
        assert_eq!(info["reason"], reason, "{response}");
    } else if let Some(data) = error.get("data") {
        assert!(
            data.is_array(),
            "error.data, when present, is an array: {response}"
        );
    }
    error
}

/// The task state carried by a send result, a `GetTask`/`CancelTask` task or a stream
/// event's `result`, in its wire spelling; `None` for a message or an artifact update.
pub fn event_state(version: Version, result: &Value) -> Option<String> {
    let status = match version {
        Version::V0_3 => match result["kind"].as_str() {
            Some("task" | "status-update") => &result["status"],
            _ => return None,
        },
        Version::V1_0 => {
            if result.get("task").is_some() {
                &result["task"]["status"]
            } else if result.get("statusUpdate").is_some() {
                &result["statusUpdate"]["status"]
            } else if result.get("status").is_some() {
                // A bare Task (GetTask, CancelTask).
                &result["status"]
            } else {
                return None;
            }
        }
    };
    status["state"].as_str().map(str::to_owned)
}

/// Whether a wire state is terminal: completed, failed, canceled or rejected.
pub fn is_terminal(version: Version, state: &str) -> bool {
    ["completed", "failed", "canceled", "rejected"]
        .iter()
        .any(|name| version.state(name) == state)
}

/// Every object key in `value`, at any depth, that is snake_case (`task_id`).
pub fn snake_case_keys(value: &Value) -> Vec<String> {
    fn is_snake(key: &str) -> bool {
        let mut words = key.split('_');
        let all_lower = key
            .split('_')
            .all(|word| !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase()));
        words.next().is_some() && words.next().is_some() && all_lower
    }
    let mut found = Vec::new();
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    if is_snake(key) {
                        found.push(key.clone());
                    }
                    pending.push(item);
                }
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    found
}

/// Every value of `key` in `value`, at any depth.
pub fn values_of<'a>(value: &'a Value, key: &str) -> Vec<&'a Value> {
    let mut found = Vec::new();
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let Some(item) = map.get(key) {
                    found.push(item);
                }
                pending.extend(map.values());
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    found
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`: ISO 8601 in UTC with the `Z` suffix.
pub fn is_iso8601_utc(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        range
            .clone()
            .all(|at| bytes.get(at).is_some_and(u8::is_ascii_digit))
    };
    let at = |index: usize, byte: u8| bytes.get(index) == Some(&byte);
    if !(digits(0..4)
        && at(4, b'-')
        && digits(5..7)
        && at(7, b'-')
        && digits(8..10)
        && at(10, b'T')
        && digits(11..13)
        && at(13, b':')
        && digits(14..16)
        && at(16, b':')
        && digits(17..19))
    {
        return false;
    }
    match &bytes[19..] {
        [b'Z'] => true,
        [b'.', rest @ .., b'Z'] => !rest.is_empty() && rest.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tck_ids_keep_the_prefix_and_differ() {
        let first = tck_id("complete-task");
        let second = tck_id("complete-task");
        assert!(first.starts_with("tck-complete-task-"), "{first}");
        assert_ne!(first, second);
    }

    #[test]
    fn snake_case_keys_are_found_at_any_depth() {
        let value = json!({"taskId": 1, "a": [{"context_id": 2}], "ok": {"x_y_z": 3, "_": 4}});
        let mut keys = snake_case_keys(&value);
        keys.sort();
        assert_eq!(keys, ["context_id", "x_y_z"]);
    }

    #[test]
    fn iso8601_utc_timestamps() {
        assert!(is_iso8601_utc("2026-01-02T03:04:05Z"));
        assert!(is_iso8601_utc("2026-01-02T03:04:05.678Z"));
        assert!(!is_iso8601_utc("2026-01-02T03:04:05.678+00:00"));
        assert!(!is_iso8601_utc("2026-01-02 03:04:05Z"));
        assert!(!is_iso8601_utc("2026-01-02T03:04:05.Z"));
    }

    #[test]
    fn states_are_read_from_results_and_events() {
        let v03 = json!({"kind": "status-update", "status": {"state": "completed"}});
        assert_eq!(
            event_state(Version::V0_3, &v03).as_deref(),
            Some("completed")
        );
        let v10 = json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING"}}});
        assert_eq!(
            event_state(Version::V1_0, &v10).as_deref(),
            Some("TASK_STATE_WORKING")
        );
        assert!(is_terminal(Version::V1_0, "TASK_STATE_REJECTED"));
        assert!(!is_terminal(Version::V0_3, "input-required"));
    }
}
