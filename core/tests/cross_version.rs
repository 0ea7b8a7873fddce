//! Cross-version: a v0.3 document and its v1.0 twin map to the same model, and the model
//! written in the other version gives the twin back.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::model;
use a2a_lambda_core::wire::{v0_3, v1_0};
use serde_json::{Value, json};

fn v0_3_message(value: &Value) -> model::Message {
    model::Message::from(serde_json::from_value::<v0_3::Message>(value.clone()).unwrap())
}

fn v1_0_message(value: &Value) -> model::Message {
    model::Message::from(serde_json::from_value::<v1_0::Message>(value.clone()).unwrap())
}

fn twins_message() -> (Value, Value) {
    let old = json!({
        "kind": "message",
        "messageId": "m-1",
        "contextId": "ctx-1",
        "taskId": "task-1",
        "role": "user",
        "parts": [
            {"kind": "text", "text": "summarise these"},
            {"kind": "file", "file": {"bytes": "aGVsbG8=", "mimeType": "text/plain", "name": "a.txt"}},
            {"kind": "file", "file": {"uri": "https://example.com/b.pdf", "mimeType": "application/pdf", "name": "b.pdf"}},
            {"kind": "data", "data": {"pages": [1, 2]}, "metadata": {"source": "ui"}}
        ],
        "metadata": {"channel": "web"},
        "referenceTaskIds": ["task-0"]
    });
    let new = json!({
        "messageId": "m-1",
        "contextId": "ctx-1",
        "taskId": "task-1",
        "role": "ROLE_USER",
        "parts": [
            {"text": "summarise these"},
            {"raw": "aGVsbG8=", "mediaType": "text/plain", "filename": "a.txt"},
            {"url": "https://example.com/b.pdf", "mediaType": "application/pdf", "filename": "b.pdf"},
            {"data": {"pages": [1, 2]}, "metadata": {"source": "ui"}}
        ],
        "metadata": {"channel": "web"},
        "referenceTaskIds": ["task-0"]
    });
    (old, new)
}

#[test]
fn message_twins_map_to_the_same_model() {
    let (old, new) = twins_message();
    let model = v0_3_message(&old);
    assert_eq!(model, v1_0_message(&new));
    assert_eq!(
        model.parts[1].content,
        model::PartContent::Bytes(b"hello".to_vec())
    );
    assert_eq!(
        serde_json::to_value(v1_0::Message::from(&model)).unwrap(),
        new
    );
    assert_eq!(
        serde_json::to_value(v0_3::Message::from(&model)).unwrap(),
        old
    );
}

#[test]
fn task_twins_map_to_the_same_model() {
    let (old_message, new_message) = twins_message();
    let old = json!({
        "kind": "task",
        "id": "task-1",
        "contextId": "ctx-1",
        "status": {"state": "input-required", "timestamp": "2026-01-02T03:04:05.678Z"},
        "artifacts": [{"artifactId": "a-1", "name": "answer", "parts": [{"kind": "text", "text": "42"}]}],
        "history": [old_message]
    });
    let new = json!({
        "id": "task-1",
        "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_INPUT_REQUIRED", "timestamp": "2026-01-02T03:04:05.678Z"},
        "artifacts": [{"artifactId": "a-1", "name": "answer", "parts": [{"text": "42"}]}],
        "history": [new_message]
    });
    let from_old = model::Task::from(serde_json::from_value::<v0_3::Task>(old.clone()).unwrap());
    let from_new = model::Task::from(serde_json::from_value::<v1_0::Task>(new.clone()).unwrap());
    assert_eq!(from_old, from_new);
    assert_eq!(from_old.status.state, model::TaskState::InputRequired);
    assert_eq!(serde_json::to_value(v1_0::task(&from_old)).unwrap(), new);
    assert_eq!(serde_json::to_value(v0_3::task(&from_new)).unwrap(), old);
}

#[test]
fn every_state_has_a_twin() {
    let pairs = [
        ("submitted", "TASK_STATE_SUBMITTED"),
        ("working", "TASK_STATE_WORKING"),
        ("input-required", "TASK_STATE_INPUT_REQUIRED"),
        ("auth-required", "TASK_STATE_AUTH_REQUIRED"),
        ("completed", "TASK_STATE_COMPLETED"),
        ("canceled", "TASK_STATE_CANCELED"),
        ("failed", "TASK_STATE_FAILED"),
        ("rejected", "TASK_STATE_REJECTED"),
        ("unknown", "TASK_STATE_UNSPECIFIED"),
    ];
    for (old, new) in pairs {
        let a: v0_3::TaskState = serde_json::from_value(json!(old)).unwrap();
        let b: v1_0::TaskState = serde_json::from_value(json!(new)).unwrap();
        assert_eq!(
            model::TaskState::from(a),
            model::TaskState::from(b),
            "{old} / {new}"
        );
    }
}

#[test]
fn stream_events_cross_over() {
    let old = json!({
        "kind": "artifact-update",
        "taskId": "t",
        "contextId": "c",
        "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "chunk"}]},
        "append": true,
        "lastChunk": false
    });
    let new = json!({
        "artifactUpdate": {
            "taskId": "t",
            "contextId": "c",
            "artifact": {"artifactId": "a", "parts": [{"text": "chunk"}]},
            "append": true
        }
    });
    let from_old =
        model::StreamEvent::from(serde_json::from_value::<v0_3::StreamEvent>(old.clone()).unwrap());
    let from_new = model::StreamEvent::from(
        serde_json::from_value::<v1_0::StreamResponse>(new.clone()).unwrap(),
    );
    assert_eq!(from_old, from_new);
    assert_eq!(
        serde_json::to_value(v1_0::stream_event(&from_old)).unwrap(),
        new
    );
    assert_eq!(
        serde_json::to_value(v0_3::stream_event(&from_new)).unwrap(),
        old
    );
}

#[test]
fn v1_0_only_part_members_are_dropped_in_v0_3_as_documented() {
    let new = json!({"messageId": "m", "role": "ROLE_AGENT",
                     "parts": [{"text": "# Title", "mediaType": "text/markdown"}]});
    let model = v1_0_message(&new);
    let old = serde_json::to_value(v0_3::Message::from(&model)).unwrap();
    assert_eq!(old["parts"][0], json!({"kind": "text", "text": "# Title"}));
}
