//! What every answer must be, whatever the input:
//!
//! - never a 5xx (the router turns a panic into an answer, so panics are counted apart,
//!   by the driver's panic hook);
//! - on a JSON-RPC path (`POST /`, the container's public URL path, AWS's invocation
//!   path; but see below for the front's 404s): a JSON-RPC 2.0 response (`"jsonrpc":"2.0"`, the id, exactly one of `result`
//!   and `error`, an error with an integer `code` and a string `message`) whose id is the
//!   request's — `null` when the body has none that can be read (JSON-RPC 2.0 §5: "If
//!   there was an error in detecting the id in the Request object … it MUST be Null") —
//!   or an SSE stream each of whose `data:` is such a response with that id;
//! - on an HTTP+JSON route: a JSON result, an SSE stream of JSON objects, or a
//!   `google.rpc.Status` body (`{"error":{"code","status","message"}}`) whose `code` is
//!   the HTTP status (A2A specification §11.6);
//! - the front's 404 for an invocation path naming no runtime or endpoint served here,
//!   its 402 (ServiceQuotaExceededException, AWS's own `{"message"}` shape) and
//!   StopRuntimeSession's empty 200 are the platform's documented answers;
//! - elsewhere (card, ping, the emulator's own paths, unknown paths): no 5xx, JSON that
//!   parses when the content type says JSON, and a JSON-RPC body's id the request's or
//!   `null`.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::generate::INTERFACE_PATH;
use crate::input::{Input, Target};
use crate::targets::Answer;

/// What is wrong with an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Violation {
    /// A 5xx status.
    #[error("HTTP {0}")]
    ServerError(u16),
    /// Not a JSON-RPC 2.0 response where one is due.
    #[error("not a JSON-RPC 2.0 response: {0}")]
    NotJsonRpc(String),
    /// The response's id is not the request's.
    #[error("id {got} where {expected} is due")]
    WrongId {
        /// The id due.
        expected: String,
        /// The id sent back.
        got: String,
    },
    /// 204: a JSON-RPC request left unanswered (A2A defines no notifications).
    #[error("204 No Content for a JSON-RPC request")]
    NoContent,
    /// A JSON content type with a body that is not JSON.
    #[error("content type JSON, body not: {0}")]
    NotJson(String),
    /// An HTTP+JSON refusal that is not a `google.rpc.Status` matching the status.
    #[error("not a google.rpc.Status for HTTP {status}: {detail}")]
    NotStatus {
        /// The HTTP status.
        status: u16,
        /// What is wrong.
        detail: String,
    },
}

impl Violation {
    /// A short name of its kind, for counting.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::ServerError(_) => "5xx",
            Self::NotJsonRpc(_) => "not JSON-RPC",
            Self::WrongId { .. } => "wrong id",
            Self::NoContent => "204 for a JSON-RPC request",
            Self::NotJson(_) => "not JSON",
            Self::NotStatus { .. } => "not google.rpc.Status",
        }
    }
}

/// The id the answer must carry: `Some(id)`, or `None` for a request without an `id`
/// member (a JSON-RPC notification). Read by JSON's grammar (RFC 8259): members whose
/// values `serde_json::Value` cannot hold (`1e400`, a lone surrogate escape) do not make
/// the id unreadable; an id that is itself such a value is unreadable (`null`).
pub fn expected_id(body: &[u8]) -> Option<Value> {
    type Members<'a> = std::collections::BTreeMap<std::borrow::Cow<'a, str>, &'a RawValue>;
    match serde_json::from_slice::<Members<'_>>(body) {
        Ok(members) => {
            let id = members.get("id")?;
            match serde_json::from_str::<Value>(id.get()) {
                Ok(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id),
                _ => Some(Value::Null),
            }
        }
        Err(_) => Some(Value::Null),
    }
}

/// Which kind of path an input is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    /// A JSON-RPC endpoint.
    JsonRpc,
    /// An HTTP+JSON route.
    Rest,
    /// Anything else.
    Other,
}

/// The kind of `input`'s path on its target.
pub fn path_kind(input: &Input) -> PathKind {
    let path = input.path.split(['?', '#']).next().unwrap_or_default();
    let json_rpc = match input.target {
        Target::Container => path == "/",
        Target::ContainerJsonRpc => path == "/" || path.trim_end_matches('/') == INTERFACE_PATH,
        Target::Front => {
            path == "/"
                || (path.starts_with("/runtimes/")
                    && (path.ends_with("/invocations") || path.ends_with("/invocations/")))
        }
    };
    if json_rpc {
        PathKind::JsonRpc
    } else if input.target.serves_rest()
        && (path.starts_with("/message:")
            || path.starts_with("/tasks")
            || path.contains("/message:")
            || path.contains("/tasks")
            || path.ends_with("/extendedAgentCard"))
    {
        PathKind::Rest
    } else {
        PathKind::Other
    }
}

/// Checks one answer to one input.
///
/// # Errors
/// The first [`Violation`] found.
pub fn check(input: &Input, answer: &Answer) -> Result<(), Violation> {
    let status = answer.status.as_u16();
    if status >= 500 {
        return Err(Violation::ServerError(status));
    }
    if input.method == "HEAD" || status == 304 {
        return Ok(());
    }
    if input.target == Target::Front && status == 402 {
        // ServiceQuotaExceededException, AWS's own shape (`{"message": …}`), not JSON-RPC:
        // the active-session quota (AgentCore quotas page, "Active session workloads per
        // account").
        return match serde_json::from_slice::<Value>(&answer.body) {
            Ok(value) if value.get("message").is_some_and(Value::is_string) => Ok(()),
            _ => Err(Violation::NotJson(preview(&answer.body))),
        };
    }
    let content_type = answer
        .headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let sse = content_type.starts_with("text/event-stream");
    let json = content_type.starts_with("application/json");
    match path_kind(input) {
        // Not a JSON-RPC request (JSON-RPC over HTTP is POST): its body's id, or null.
        PathKind::JsonRpc if input.method != "POST" => {
            json_rpc(&answer.body, Due::BodysOrNull(&input.body))
        }
        PathKind::JsonRpc => {
            let expected = expected_id(&input.body);
            if status == 204 {
                // Every request is answered, one without an id too (with `"id": null`).
                return Err(Violation::NoContent);
            }
            let expected = expected.unwrap_or(Value::Null);
            if input.target == Target::Front && status == 404 {
                // A path that names no runtime or endpoint here: the front refuses it
                // without reading the payload (`tests/tests/front_limits.rs`,
                // another_qualifier_is_not_found), so the id may be null.
                return json_rpc(&answer.body, Due::BodysOrNull(&input.body));
            }
            if sse {
                for (_, data) in events(&answer.body) {
                    json_rpc(&data, Due::Exactly(&expected))?;
                }
                Ok(())
            } else {
                json_rpc(&answer.body, Due::Exactly(&expected))
            }
        }
        PathKind::Rest if sse => {
            for (event, data) in events(&answer.body) {
                let value = parse(&data)?;
                if event.as_deref() == Some("error") {
                    google_status(&value, None)?;
                }
            }
            Ok(())
        }
        PathKind::Rest if json => {
            let value = parse(&answer.body)?;
            if value.get("jsonrpc").is_some() {
                // No route: the router's one refusal for every binding.
                return json_rpc(&answer.body, Due::BodysOrNull(&input.body));
            }
            if status >= 400 || value.get("error").is_some() {
                google_status(&value, Some(status))?;
            }
            Ok(())
        }
        // StopRuntimeSession's success: 200 and no body members (AWS API reference,
        // API_StopRuntimeSession.html), an empty body under a JSON content type.
        PathKind::Other
            if status == 200
                && answer.body.is_empty()
                && input.path.contains("/stopruntimesession") =>
        {
            Ok(())
        }
        PathKind::Rest | PathKind::Other if json => {
            let value = parse(&answer.body)?;
            if value.get("jsonrpc").is_some() {
                json_rpc(&answer.body, Due::BodysOrNull(&input.body))?;
            }
            Ok(())
        }
        PathKind::Rest | PathKind::Other => Ok(()),
    }
}

fn parse(body: &[u8]) -> Result<Value, Violation> {
    serde_json::from_slice(body).map_err(|error| Violation::NotJson(error.to_string()))
}

/// What id a response must have.
#[derive(Debug, Clone, Copy)]
enum Due<'a> {
    /// Exactly this one.
    Exactly(&'a Value),
    /// The request body's, or null: the request is not JSON-RPC (a `GET`, an unknown
    /// path), so its body's id is only the caller's guess.
    BodysOrNull(&'a [u8]),
}

/// Checks a JSON-RPC response and its id.
fn json_rpc(body: &[u8], due: Due<'_>) -> Result<(), Violation> {
    let bad = |why: &str| Violation::NotJsonRpc(format!("{why}: {}", preview(body)));
    let value: Value = serde_json::from_slice(body).map_err(|_| bad("not JSON"))?;
    let object = value.as_object().ok_or_else(|| bad("not an object"))?;
    if object.get("jsonrpc") != Some(&Value::String("2.0".to_owned())) {
        return Err(bad("no \"jsonrpc\":\"2.0\""));
    }
    let id = object.get("id").ok_or_else(|| bad("no id"))?;
    match (object.get("result"), object.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            let code = error.get("code").and_then(Value::as_i64);
            let message = error.get("message").and_then(Value::as_str);
            if code.is_none() || message.is_none() {
                return Err(bad("an error without an integer code and a string message"));
            }
        }
        _ => return Err(bad("not exactly one of result and error")),
    }
    let expected = match due {
        Due::Exactly(expected) => expected.clone(),
        Due::BodysOrNull(_) if id.is_null() => return Ok(()),
        Due::BodysOrNull(request) => expected_id(request).unwrap_or(Value::Null),
    };
    if *id == expected {
        Ok(())
    } else {
        Err(Violation::WrongId {
            expected: expected.to_string(),
            got: id.to_string(),
        })
    }
}

fn google_status(value: &Value, status: Option<u16>) -> Result<(), Violation> {
    let http = status.unwrap_or_default();
    let bad = |detail: String| Violation::NotStatus {
        status: http,
        detail,
    };
    let error = value
        .get("error")
        .ok_or_else(|| bad(format!("no error member: {value}")))?;
    let code = error.get("code").and_then(Value::as_u64);
    if error.get("status").and_then(Value::as_str).is_none()
        || error.get("message").and_then(Value::as_str).is_none()
    {
        return Err(bad(format!("no status or message: {value}")));
    }
    match (code, status) {
        (Some(code), Some(status)) if code == u64::from(status) => Ok(()),
        (Some(_), None) => Ok(()),
        _ => Err(bad(format!("code is not the HTTP status: {value}"))),
    }
}

/// The events of an SSE body: each one's `event:` name and its `data:` lines joined.
pub fn events(body: &[u8]) -> Vec<(Option<String>, Vec<u8>)> {
    let text = String::from_utf8_lossy(body);
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut event = None;
        let mut data: Option<Vec<u8>> = None;
        for line in block.lines() {
            if let Some(name) = line.strip_prefix("event:") {
                event = Some(name.trim().to_owned());
            } else if let Some(value) = line.strip_prefix("data:") {
                let value = value.strip_prefix(' ').unwrap_or(value);
                let data = data.get_or_insert_with(Vec::new);
                if !data.is_empty() {
                    data.push(b'\n');
                }
                data.extend_from_slice(value.as_bytes());
            }
        }
        if let Some(data) = data {
            out.push((event, data));
        }
    }
    out
}

/// The first bytes of a body, for a report.
pub fn preview(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(300)]);
    if body.len() > 300 {
        format!("{text}… ({} bytes)", body.len())
    } else {
        text.into_owned()
    }
}

/// The task ids an answer names (a result's `id`, or `task.id`), for later inputs.
pub fn task_ids(answer: &Answer) -> Vec<String> {
    let mut ids = Vec::new();
    let mut take = |value: &Value| {
        let result = value.get("result").unwrap_or(value);
        let task = result.get("task").unwrap_or(result);
        if let Some(id) = task.get("id").and_then(Value::as_str) {
            ids.push(id.to_owned());
        }
    };
    if answer.body.first() == Some(&b'{') {
        if let Ok(value) = serde_json::from_slice::<Value>(&answer.body) {
            take(&value);
        }
    } else if (answer.body.starts_with(b"data:") || answer.body.starts_with(b"event:"))
        && let Some((_, data)) = events(&answer.body).first()
        && let Ok(value) = serde_json::from_slice::<Value>(data)
    {
        take(&value);
    }
    ids
}
