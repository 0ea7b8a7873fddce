//! The borrowed views the engine answers with write the same bytes as the owned wire
//! types, for tasks with every kind of member set, unset and empty.

use a2a_lambda_core::model::{
    self, Artifact, Message, Part, PartContent, Role, Task, TaskState, TaskStatus,
};
use a2a_lambda_core::wire::{v0_3, v1_0};
use serde_json::{Map, json};

fn task(id: String, context_id: &str, state: TaskState) -> Task {
    Task {
        id,
        context_id: context_id.to_owned(),
        status: TaskStatus::new(state),
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    }
}

fn metadata() -> Map<String, serde_json::Value> {
    let mut map = Map::new();
    map.insert(
        "trace".to_owned(),
        json!({"depth": 2, "tags": ["a", "é\"\n"]}),
    );
    map
}

/// Parts of every content kind, each with nothing else set, then with everything set,
/// then with empty strings.
fn parts() -> Vec<Part> {
    let contents = [
        PartContent::Text("hello \"quoted\" \\ ünïcode \u{1}".to_owned()),
        PartContent::Text(String::new()),
        PartContent::Bytes(vec![0, 1, 2, 250, 251, 252, 253]),
        PartContent::Url("https://example.com/f?a=1&b=2".to_owned()),
        PartContent::Data(json!({"k": [1, 2.5, null, true]})),
        PartContent::Data(json!(null)),
        PartContent::Data(json!([1, "two"])),
    ];
    let mut parts = Vec::new();
    for content in contents {
        parts.push(Part::from_content(content.clone()));
        parts.push(Part {
            content: content.clone(),
            media_type: Some("text/plain".to_owned()),
            filename: Some("a.txt".to_owned()),
            metadata: Some(metadata()),
        });
        parts.push(Part {
            content,
            media_type: Some(String::new()),
            filename: Some(String::new()),
            metadata: None,
        });
    }
    parts
}

fn messages() -> Vec<Message> {
    let mut plain = Message::text(Role::User, "m-1", "hi");
    plain.parts = parts();
    let mut full = Message::text(Role::Agent, "m-2", "there");
    full.context_id = Some("ctx".to_owned());
    full.task_id = Some("task".to_owned());
    full.metadata = Some(metadata());
    full.extensions = vec!["https://ext.example/1".to_owned()];
    full.reference_task_ids = vec!["t-0".to_owned(), "t-00".to_owned()];
    let mut empty_ids = Message::text(Role::User, "m-3", "x");
    empty_ids.context_id = Some(String::new());
    empty_ids.task_id = Some(String::new());
    // No parts and an empty metadata object (the wire refuses the first on input; the
    // views still write what the owned types write).
    let mut bare = Message::text(Role::Agent, "m-4", "");
    bare.parts.clear();
    bare.metadata = Some(Map::new());
    vec![plain, full, empty_ids, bare]
}

fn artifacts() -> Vec<Artifact> {
    let mut plain = Artifact::text("a-1", "out");
    plain.parts = parts();
    let mut full = Artifact::text("a-2", "more");
    full.name = Some("Result".to_owned());
    full.description = Some("what came out".to_owned());
    full.metadata = Some(metadata());
    full.extensions = vec!["https://ext.example/2".to_owned()];
    let mut empty = Artifact::text("a-3", "");
    empty.name = Some(String::new());
    empty.description = Some(String::new());
    let mut bare = Artifact::text("a-4", "");
    bare.parts.clear();
    bare.metadata = Some(Map::new());
    vec![plain, full, empty, bare]
}

/// Tasks from bare to full, in every state.
fn tasks() -> Vec<Task> {
    let states = [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::InputRequired,
        TaskState::AuthRequired,
        TaskState::Completed,
        TaskState::Canceled,
        TaskState::Failed,
        TaskState::Rejected,
        TaskState::Unknown,
    ];
    let mut tasks = Vec::new();
    for (index, state) in states.into_iter().enumerate() {
        tasks.push(task(format!("t-{index}"), "", state));
        let mut full = task(format!("t-{index}"), "ctx-1", state);
        full.status.message = messages().into_iter().nth(index % 3);
        full.status.timestamp = Some(if index % 2 == 0 {
            "2026-11-30T21:00:00.000Z".to_owned()
        } else {
            String::new()
        });
        full.artifacts = artifacts();
        full.history = messages();
        full.metadata = Some(metadata());
        tasks.push(full);
    }
    tasks
}

#[test]
fn v1_0_task_views_write_what_the_owned_tasks_write() {
    for task in tasks() {
        let owned = serde_json::to_string(&v1_0::task(&task)).unwrap();
        let view = serde_json::to_string(&v1_0::task_view(&task)).unwrap();
        assert_eq!(view, owned);
        let owned =
            serde_json::to_string(&v1_0::send_result(&model::SendResult::Task(task.clone())))
                .unwrap();
        let view = serde_json::to_string(&v1_0::send_task_view(&task)).unwrap();
        assert_eq!(view, owned);
    }
}

#[test]
fn v0_3_task_views_write_what_the_owned_tasks_write() {
    for task in tasks() {
        let view = serde_json::to_string(&v0_3::task_view(&task)).unwrap();
        assert_eq!(view, serde_json::to_string(&v0_3::task(&task)).unwrap());
        let result = v0_3::send_result(&model::SendResult::Task(task.clone()));
        assert_eq!(view, serde_json::to_string(&result).unwrap());
    }
}
