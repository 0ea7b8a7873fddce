//! How `a2a webhook listen` prints one delivery: a line for people (time, path, task id,
//! state) or, with `--json`, one JSON document with the secrets masked.

use serde_json::{Map, Value, json};

/// One POST the listener received.
pub struct Delivery {
    /// Arrival time, RFC 3339 with milliseconds (UTC).
    pub received_at: String,
    /// The path it was posted to.
    pub path: String,
    /// Its headers, names in lowercase, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Its body.
    pub body: Vec<u8>,
}

/// What a listener prints for a secret.
const MASK: &str = "****";

/// `value` as printed for header `name`: `Authorization` keeps only its scheme
/// (`Bearer ****`), `X-A2A-Notification-Token` (where A2A 0.3's push example carries the
/// config's `token`, specification v0.3.0 §9.5) is masked whole.
fn mask(name: &str, value: &str) -> String {
    if name.eq_ignore_ascii_case("authorization") {
        match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} {MASK}"),
            None => MASK.to_owned(),
        }
    } else if name.eq_ignore_ascii_case("x-a2a-notification-token") {
        MASK.to_owned()
    } else {
        value.to_owned()
    }
}

/// A state as people read it, whichever version spelled it: `TASK_STATE_INPUT_REQUIRED`
/// (1.0, ProtoJSON enum names) and `input-required` (0.3) both print `input-required`.
fn readable_state(state: &str) -> String {
    state.strip_prefix("TASK_STATE_").map_or_else(
        || state.to_owned(),
        |name| name.to_ascii_lowercase().replace('_', "-"),
    )
}

/// The task id and state a notification body names, when it names them: an A2A 0.3 body
/// is the task itself (`{"kind": "task", "id", "status": {"state"}}`) or one of its
/// events (`status-update`, `artifact-update`, with `taskId`); an A2A 1.0 body is a
/// `StreamResponse` (`{"task": …}`, `{"statusUpdate": …}`, `{"artifactUpdate": …}`,
/// `{"message": …}`).
fn task_and_state(body: &Value) -> (Option<&str>, Option<&str>) {
    fn state(event: &Value) -> Option<&str> {
        event.pointer("/status/state").and_then(Value::as_str)
    }
    fn task_id(event: &Value) -> Option<&str> {
        event.get("taskId").and_then(Value::as_str)
    }
    if let Some(task) = body.get("task") {
        return (task.get("id").and_then(Value::as_str), state(task));
    }
    for event in ["statusUpdate", "artifactUpdate", "message"] {
        if let Some(event) = body.get(event) {
            return (task_id(event), state(event));
        }
    }
    match body.get("kind").and_then(Value::as_str) {
        Some("task") => (body.get("id").and_then(Value::as_str), state(body)),
        Some(_) => (task_id(body), state(body)),
        None => (None, None),
    }
}

impl Delivery {
    /// `time  path  taskId  state`, with `-` for what the body does not name.
    pub fn line(&self) -> String {
        let body: Value = serde_json::from_slice(&self.body).unwrap_or(Value::Null);
        let (task, state) = task_and_state(&body);
        let state = state.map_or_else(|| "-".to_owned(), readable_state);
        let line = format!(
            "{}  {}  {}  {state}",
            self.received_at,
            self.path,
            task.unwrap_or("-")
        );
        // The body is the sender's: no control characters (terminal escapes) reach the
        // terminal.
        line.chars()
            .map(|c| if c.is_control() { '?' } else { c })
            .collect()
    }

    /// `{"receivedAt", "path", "headers", "contentType", "body"}`: headers an object of
    /// lowercase names (repeats joined with ", "), secrets masked; the body as JSON when it
    /// parses, else as text.
    pub fn json(&self) -> Value {
        let mut headers = Map::new();
        for (name, value) in &self.headers {
            let value = mask(name, value);
            match headers.get_mut(name) {
                Some(Value::String(joined)) => {
                    joined.push_str(", ");
                    joined.push_str(&value);
                }
                _ => {
                    headers.insert(name.clone(), Value::String(value));
                }
            }
        }
        let content_type = headers.get("content-type").cloned().unwrap_or(Value::Null);
        let body = serde_json::from_slice(&self.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&self.body).into_owned()));
        json!({
            "receivedAt": self.received_at,
            "path": self.path,
            "headers": headers,
            "contentType": content_type,
            "body": body,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn line(body: &str) -> String {
        Delivery {
            received_at: "T".to_owned(),
            path: "/p".to_owned(),
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        }
        .line()
    }

    #[test]
    fn both_versions_name_their_task_and_state() {
        let v0_3 = r#"{"kind":"task","id":"t1","status":{"state":"input-required"}}"#;
        assert_eq!(line(v0_3), "T  /p  t1  input-required");
        let v1_0 = r#"{"task":{"id":"t2","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}"#;
        assert_eq!(line(v1_0), "T  /p  t2  input-required");
        let update = r#"{"statusUpdate":{"taskId":"t3","status":{"state":"TASK_STATE_WORKING"}}}"#;
        assert_eq!(line(update), "T  /p  t3  working");
        let artifact = r#"{"artifactUpdate":{"taskId":"t4","artifact":{}}}"#;
        assert_eq!(line(artifact), "T  /p  t4  -");
        let event = r#"{"kind":"status-update","taskId":"t5","status":{"state":"failed"}}"#;
        assert_eq!(line(event), "T  /p  t5  failed");
        assert_eq!(line("not json"), "T  /p  -  -");
        assert_eq!(line("{}"), "T  /p  -  -");
        let escape = r#"{"kind":"task","id":"t\u001b[2J","status":{"state":"x\ny"}}"#;
        assert_eq!(line(escape), "T  /p  t?[2J  x?y");
    }

    #[test]
    fn secrets_are_masked_in_json() {
        let delivery = Delivery {
            received_at: "T".to_owned(),
            path: "/p".to_owned(),
            headers: vec![
                ("authorization".into(), "Basic abc".into()),
                ("x-a2a-notification-token".into(), "tok".into()),
                ("x-a".into(), "1".into()),
                ("x-a".into(), "2".into()),
            ],
            body: b"text".to_vec(),
        };
        assert_eq!(
            delivery.json(),
            json!({
                "receivedAt": "T",
                "path": "/p",
                "headers": {
                    "authorization": "Basic ****",
                    "x-a2a-notification-token": "****",
                    "x-a": "1, 2",
                },
                "contentType": null,
                "body": "text",
            })
        );
    }
}
