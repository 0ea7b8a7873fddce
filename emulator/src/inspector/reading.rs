//! Reading what the journal notes from the payloads passing the front: a request's
//! JSON-RPC method and task id, an answer's error code and what it shows of a task, and
//! the events of an SSE answer.
//!
//! The shapes are A2A's: v1.0 wraps a send's answer and each stream event in one of
//! `task`, `message`, `statusUpdate`, `artifactUpdate` (specification/a2a.proto,
//! `SendMessageResponse`, `StreamResponse`; specification.md §3.1.7–3.1.10) and returns a
//! bare `Task` for `GetTask`; v0.3 tells them apart by `kind` (`task`, `message`,
//! `status-update`, `artifact-update`; the v0.3 `a2a-sdk` types).

use std::borrow::Cow;

use serde::Deserialize;

use super::journal::TaskSeen;

/// Bytes of one payload or SSE event read for the journal; a larger one is not read (it
/// is still kept, truncated, as a body).
pub(crate) const READ_LIMIT: usize = 64 * 1024;

// What the journal reads of a payload, borrowed from it: serde skips every other field
// without building a tree, which keeps the read cheap on the front's path.

/// A text field, borrowed unless it has escapes.
type Text<'a> = Option<Cow<'a, str>>;

#[derive(Deserialize)]
struct RequestPeek<'a> {
    #[serde(borrow)]
    method: Text<'a>,
    #[serde(borrow)]
    params: Option<ParamsPeek<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ParamsPeek<'a> {
    #[serde(borrow)]
    id: Text<'a>,
    #[serde(borrow)]
    task_id: Text<'a>,
    #[serde(borrow)]
    message: Option<MessagePeek<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessagePeek<'a> {
    #[serde(borrow)]
    task_id: Text<'a>,
    #[serde(borrow)]
    context_id: Text<'a>,
}

#[derive(Deserialize)]
struct AnswerPeek<'a> {
    #[serde(borrow)]
    result: Option<ResultPeek<'a>>,
    error: Option<ErrorPeek>,
}

#[derive(Deserialize)]
struct ErrorOnly {
    error: Option<ErrorPeek>,
}

#[derive(Deserialize)]
struct ErrorPeek {
    code: Option<i64>,
}

/// Any of the shapes a result or stream event takes (see the module's sources).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResultPeek<'a> {
    #[serde(borrow)]
    kind: Text<'a>,
    #[serde(borrow)]
    id: Text<'a>,
    #[serde(borrow)]
    task_id: Text<'a>,
    #[serde(borrow)]
    context_id: Text<'a>,
    #[serde(borrow)]
    status: Option<StatusPeek<'a>>,
    #[serde(borrow)]
    artifacts: Option<Vec<ArtifactPeek<'a>>>,
    #[serde(borrow)]
    artifact: Option<ArtifactPeek<'a>>,
    #[serde(borrow)]
    task: Option<Box<ResultPeek<'a>>>,
    #[serde(borrow)]
    status_update: Option<Box<ResultPeek<'a>>>,
    #[serde(borrow)]
    artifact_update: Option<Box<ResultPeek<'a>>>,
    #[serde(borrow)]
    message: Option<MessagePeek<'a>>,
}

#[derive(Deserialize)]
struct StatusPeek<'a> {
    #[serde(borrow)]
    state: Text<'a>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactPeek<'a> {
    #[serde(borrow)]
    artifact_id: Text<'a>,
    #[serde(borrow)]
    name: Text<'a>,
}

fn owned(text: Text<'_>) -> Option<String> {
    text.map(Cow::into_owned)
}

/// A request's JSON-RPC method and the task it names (`params.id` of the task methods,
/// `params.message.taskId` of a send, `params.taskId`).
pub(crate) fn request(body: &[u8]) -> (Option<String>, Option<String>) {
    if body.len() > READ_LIMIT {
        return (method_by_scan(&body[..READ_LIMIT]), None);
    }
    let Ok(peek) = serde_json::from_slice::<RequestPeek<'_>>(body) else {
        return (method_by_scan(body), None);
    };
    let method = owned(peek.method);
    let task = peek.params.and_then(|params| {
        let names_task = method.as_deref().is_some_and(|method| {
            method.starts_with("tasks/") && !method.starts_with("tasks/pushNotificationConfig")
                || matches!(method, "GetTask" | "CancelTask" | "SubscribeToTask")
        });
        let id = if names_task { owned(params.id) } else { None };
        id.or_else(|| params.message.and_then(|message| owned(message.task_id)))
            .or_else(|| owned(params.task_id))
    });
    (method, task)
}

/// The `"method": "…"` of a payload that is not whole JSON (cut short, or too large).
fn method_by_scan(body: &[u8]) -> Option<String> {
    let at = memchr::memmem::find(body, b"\"method\"")?;
    let text = String::from_utf8_lossy(&body[at + "\"method\"".len()..]);
    let value = text
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('"')?;
    let end = value.find('"')?;
    Some(value[..end].to_owned())
}

/// An answer's JSON-RPC error code, and what it shows of a task.
pub(crate) fn answer(body: &[u8]) -> (Option<i64>, Option<TaskSeen>) {
    if body.len() > READ_LIMIT {
        return (None, None);
    }
    let Ok(peek) = serde_json::from_slice::<AnswerPeek<'_>>(body) else {
        // A result of another shape (a list, a string): its error code, if any, still.
        let code = serde_json::from_slice::<ErrorOnly>(body)
            .ok()
            .and_then(|peek| peek.error)
            .and_then(|error| error.code);
        return (code, None);
    };
    let code = peek.error.and_then(|error| error.code);
    (code, peek.result.and_then(task_of))
}

/// What a JSON-RPC result (or stream event) shows of a task.
fn task_of(result: ResultPeek<'_>) -> Option<TaskSeen> {
    if let Some(task) = result.task {
        return whole_task(*task);
    }
    if let Some(update) = result.status_update {
        return status_update(*update);
    }
    if let Some(update) = result.artifact_update {
        return artifact_update(*update);
    }
    if let Some(message) = result.message {
        return message_of(message);
    }
    match result.kind.as_deref() {
        Some("status-update") => status_update(result),
        Some("artifact-update") => artifact_update(result),
        Some("message") => message_of(MessagePeek {
            task_id: result.task_id,
            context_id: result.context_id,
        }),
        Some("task") => whole_task(result),
        _ if result.id.is_some() && result.status.is_some() => whole_task(result),
        _ => None,
    }
}

fn status_update(update: ResultPeek<'_>) -> Option<TaskSeen> {
    Some(TaskSeen {
        id: owned(update.task_id)?,
        context_id: owned(update.context_id),
        state: update.status.and_then(|status| owned(status.state)),
        artifacts: Vec::new(),
    })
}

fn artifact_update(update: ResultPeek<'_>) -> Option<TaskSeen> {
    Some(TaskSeen {
        id: owned(update.task_id)?,
        context_id: owned(update.context_id),
        state: None,
        artifacts: update.artifact.map(artifact_name).into_iter().collect(),
    })
}

fn message_of(message: MessagePeek<'_>) -> Option<TaskSeen> {
    Some(TaskSeen {
        id: owned(message.task_id)?,
        context_id: owned(message.context_id),
        ..TaskSeen::default()
    })
}

fn whole_task(task: ResultPeek<'_>) -> Option<TaskSeen> {
    Some(TaskSeen {
        id: owned(task.id)?,
        context_id: owned(task.context_id),
        state: task.status.and_then(|status| owned(status.state)),
        artifacts: task
            .artifacts
            .unwrap_or_default()
            .into_iter()
            .map(artifact_name)
            .collect(),
    })
}

/// An artifact's id, else its name, else `artifact`.
fn artifact_name(artifact: ArtifactPeek<'_>) -> String {
    owned(artifact.artifact_id.or(artifact.name)).unwrap_or_else(|| "artifact".to_owned())
}

/// The events of an SSE answer as it passes, each event's `data` joined (WHATWG HTML
/// "Server-sent events": lines end in LF, CR LF or CR; a blank line ends an event; an
/// event larger than [`READ_LIMIT`] is skipped).
#[derive(Debug, Default)]
pub(crate) struct SseEvents {
    line: Vec<u8>,
    data: Vec<u8>,
    /// The event being read passed the limit.
    skipping: bool,
    /// The previous byte was a CR (a CR LF is one line end).
    after_cr: bool,
}

impl SseEvents {
    /// Reads `chunk`, calling `event` with each complete event's data.
    pub(crate) fn feed(&mut self, chunk: &[u8], mut event: impl FnMut(&[u8])) {
        for &byte in chunk {
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            match byte {
                b'\n' if after_cr => {}
                b'\n' | b'\r' => self.end_line(&mut event),
                _ if self.skipping => {}
                _ => {
                    self.line.push(byte);
                    if self.line.len() + self.data.len() > READ_LIMIT {
                        self.skipping = true;
                        self.line.clear();
                        self.data.clear();
                    }
                }
            }
        }
    }

    fn end_line(&mut self, event: &mut impl FnMut(&[u8])) {
        if self.line.is_empty() {
            if !self.data.is_empty() && !self.skipping {
                event(&self.data);
            }
            self.data.clear();
            self.skipping = false;
            return;
        }
        if let Some(value) = self.line.strip_prefix(b"data:") {
            if !self.data.is_empty() {
                self.data.push(b'\n');
            }
            self.data
                .extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
        }
        self.line.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_name_their_method_and_task() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t1"}});
        assert_eq!(
            request(body.to_string().as_bytes()),
            (Some("GetTask".into()), Some("t1".into()))
        );
        let send = json!({"method": "message/send", "params": {"message": {"taskId": "t2"}}});
        assert_eq!(
            request(send.to_string().as_bytes()),
            (Some("message/send".into()), Some("t2".into()))
        );
        assert_eq!(
            request(br#"{"jsonrpc":"2.0","method": "SendMessage","params":{"mess"#),
            (Some("SendMessage".into()), None)
        );
        assert_eq!(request(b"not json"), (None, None));
    }

    #[test]
    fn answers_show_codes_and_tasks_on_both_wires() {
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32053, "message": "x"}});
        assert_eq!(answer(error.to_string().as_bytes()), (Some(-32053), None));
        let v1 = json!({"result": {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}, "artifacts": [{"artifactId": "a1"}]}}});
        let (_, seen) = answer(v1.to_string().as_bytes());
        assert_eq!(
            seen.unwrap(),
            TaskSeen {
                id: "t".into(),
                context_id: Some("c".into()),
                state: Some("TASK_STATE_COMPLETED".into()),
                artifacts: vec!["a1".into()],
            }
        );
        let v03 = json!({"result": {"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}}});
        let (_, seen) = answer(v03.to_string().as_bytes());
        assert_eq!(seen.unwrap().state.as_deref(), Some("working"));
        let get = json!({"result": {"id": "t", "status": {"state": "completed"}}});
        assert_eq!(answer(get.to_string().as_bytes()).1.unwrap().id, "t");
    }

    #[test]
    fn sse_events_are_read_across_chunks_and_line_ends() {
        let mut reader = SseEvents::default();
        let mut events = Vec::new();
        reader.feed(b"event: x\r\ndata: {\"a\"", |data| {
            events.push(data.to_vec())
        });
        reader.feed(b":1}\r\n\r\ndata: 2\n\n: comment\n\n", |data| {
            events.push(data.to_vec());
        });
        assert_eq!(events, vec![b"{\"a\":1}".to_vec(), b"2".to_vec()]);
    }
}
