//! What the emulator's streams send, event by event, in either protocol version (the
//! conformance agent's `stream` artifact), redacted as [`super::redact`] does: for the
//! stream tests of the emulator in-process and of its binary.

use super::{Value, Version, json, redact};

/// The user message of a task's history (redacted), in `version`'s shape.
pub fn user(
    version: Version,
    message_id: &str,
    text: &str,
    task_id: &str,
    context_id: &str,
) -> Value {
    match version {
        Version::V0_3 => json!({"kind": "message", "role": "user", "messageId": message_id,
            "parts": [{"kind": "text", "text": text}], "contextId": context_id, "taskId": task_id}),
        Version::V1_0 => json!({"role": "ROLE_USER", "messageId": message_id,
            "parts": [{"text": text}], "contextId": context_id, "taskId": task_id}),
    }
}

/// The Task event that opens a stream (redacted).
pub fn task_event(
    version: Version,
    (task_id, context_id): (&str, &str),
    state: &str,
    history: Vec<Value>,
) -> Value {
    let task = json!({"id": task_id, "contextId": context_id,
        "status": {"state": version.state(state), "timestamp": "<timestamp>"}, "history": history});
    match version {
        Version::V0_3 => {
            let mut task = task;
            task["kind"] = json!("task");
            task
        }
        Version::V1_0 => json!({"task": task}),
    }
}

/// A status-update event (redacted); v0.3 says `final`.
pub fn status_event(
    version: Version,
    (task_id, context_id): (&str, &str),
    state: &str,
    last: bool,
) -> Value {
    let status = json!({"state": version.state(state), "timestamp": "<timestamp>"});
    match version {
        Version::V0_3 => {
            json!({"kind": "status-update", "taskId": task_id, "contextId": context_id,
            "status": status, "final": last})
        }
        Version::V1_0 => json!({"statusUpdate": {"taskId": task_id, "contextId": context_id,
            "status": status}}),
    }
}

/// One chunk of the `stream` artifact.
pub fn chunk_event(
    version: Version,
    (task_id, context_id): (&str, &str),
    text: &str,
    append: bool,
    last_chunk: bool,
) -> Value {
    match version {
        Version::V0_3 => {
            json!({"kind": "artifact-update", "taskId": task_id, "contextId": context_id,
            "artifact": {"artifactId": "stream", "parts": [{"kind": "text", "text": text}]},
            "append": append, "lastChunk": last_chunk})
        }
        Version::V1_0 => {
            let mut update = json!({"taskId": task_id, "contextId": context_id,
                "artifact": {"artifactId": "stream", "parts": [{"text": text}]}});
            // ProtoJSON leaves false booleans out.
            if append {
                update["append"] = json!(true);
            }
            if last_chunk {
                update["lastChunk"] = json!(true);
            }
            json!({"artifactUpdate": update})
        }
    }
}

/// The task and context ids of a stream's first event.
pub fn ids_of(version: Version, first: &Value) -> (String, String) {
    let task = version.task_in(first);
    (
        task["id"].as_str().unwrap().to_owned(),
        task["contextId"].as_str().unwrap().to_owned(),
    )
}

/// The `result` of every event (redacted), checking that none is an error.
pub fn results(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .map(|event| {
            assert!(event.get("error").is_none(), "error event: {event}");
            redact(&event["result"])
        })
        .collect()
}
