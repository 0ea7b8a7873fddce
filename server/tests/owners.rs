//! Tasks belong to their caller, in the engine on the in-memory store, in both protocol
//! versions: another owner's task answers every method exactly as a task that never
//! existed does (`-32001`, only the id differing), nothing it asks for happens to the task,
//! `ListTasks` lists only the caller's tasks, and the agent is told who calls.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::card::AgentCard;
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::agents::ConformanceAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use futures_util::StreamExt as _;
use serde_json::{Value, json};

/// A task id that was never made.
const NEVER: &str = "00000000-0000-4000-8000-000000000000";

fn alice() -> Owner {
    Owner::jwt(Some("https://idp"), Some("alice"))
}

fn bob() -> Owner {
    Owner::agentcore_user("bob")
}

/// Alice's subject at another issuer: someone else.
fn alice_elsewhere() -> Owner {
    Owner::jwt(Some("https://other-idp"), Some("alice"))
}

/// Everyone who is not alice.
fn strangers() -> [(&'static str, Owner); 3] {
    [
        ("bob", bob()),
        ("anonymous", Owner::anonymous()),
        ("alice at another issuer", alice_elsewhere()),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    V0_3,
    V1_0,
}

use Version::{V0_3, V1_0};

impl Version {
    fn method(self, operation: &str) -> &'static str {
        match (self, operation) {
            (V0_3, "send") => "message/send",
            (V0_3, "stream") => "message/stream",
            (V0_3, "get") => "tasks/get",
            (V0_3, "cancel") => "tasks/cancel",
            (V0_3, "subscribe") => "tasks/resubscribe",
            (V0_3, "push") => "tasks/pushNotificationConfig/get",
            (V1_0, "send") => "SendMessage",
            (V1_0, "stream") => "SendStreamingMessage",
            (V1_0, "get") => "GetTask",
            (V1_0, "cancel") => "CancelTask",
            (V1_0, "subscribe") => "SubscribeToTask",
            (V1_0, "push") => "GetTaskPushNotificationConfig",
            (V1_0, "list") => "ListTasks",
            other => panic!("no method for {other:?}"),
        }
    }

    fn header(self) -> Option<String> {
        match self {
            V0_3 => None,
            V1_0 => Some("1.0".to_owned()),
        }
    }

    fn state(self, v0_3: &str) -> String {
        match self {
            V0_3 => v0_3.to_owned(),
            V1_0 => format!("TASK_STATE_{}", v0_3.replace('-', "_").to_uppercase()),
        }
    }

    /// A user's text message, continuing `task_id` when given.
    fn message(self, message_id: &str, text: &str, task_id: Option<&str>) -> Value {
        let mut message = match self {
            V0_3 => json!({"kind": "message", "messageId": message_id, "role": "user",
                           "parts": [{"kind": "text", "text": text}]}),
            V1_0 => json!({"messageId": message_id, "role": "ROLE_USER",
                           "parts": [{"text": text}]}),
        };
        if let Some(task_id) = task_id {
            message["taskId"] = json!(task_id);
        }
        message
    }

    fn request(self, operation: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 9, "method": self.method(operation), "params": params})
    }

    fn send(self, message_id: &str, text: &str, task_id: Option<&str>) -> Value {
        self.request(
            "send",
            json!({"message": self.message(message_id, text, task_id)}),
        )
    }

    /// A send answered as soon as the task exists.
    fn send_immediately(self, message_id: &str) -> Value {
        let configuration = match self {
            V0_3 => json!({"blocking": false}),
            V1_0 => json!({"returnImmediately": true}),
        };
        self.request(
            "send",
            json!({"message": self.message(message_id, "go", None),
                   "configuration": configuration}),
        )
    }

    fn stream(self, message_id: &str, text: &str, task_id: Option<&str>) -> Value {
        self.request(
            "stream",
            json!({"message": self.message(message_id, text, task_id)}),
        )
    }

    fn on_task(self, operation: &str, task_id: &str) -> Value {
        let params = match (self, operation) {
            (V0_3, "push") => json!({"id": task_id, "pushNotificationConfigId": "c"}),
            (V1_0, "push") => json!({"taskId": task_id, "id": "c"}),
            _ => json!({"id": task_id}),
        };
        self.request(operation, params)
    }

    /// The task of a send's result.
    fn task_of(self, answer: &Value) -> Value {
        match self {
            V0_3 => answer["result"].clone(),
            V1_0 => answer["result"]["task"].clone(),
        }
    }
}

fn engine(agent: impl a2a_lambda_server::IntoAgent) -> Engine {
    common::engine(
        agent,
        Arc::new(InMemoryTaskStore::new()) as Arc<dyn TaskStore>,
    )
}

async fn reply(engine: &Engine, owner: &Owner, version: Version, body: &Value) -> Reply {
    let call = CallContext {
        version_header: version.header(),
        request_id: "owners".to_owned(),
        owner: owner.clone(),
        ..CallContext::default()
    };
    tokio::time::timeout(
        Duration::from_secs(10),
        engine.handle(body.to_string().as_bytes(), &call),
    )
    .await
    .expect("the engine answers")
}

fn is_stream_method(body: &Value) -> bool {
    matches!(
        body["method"].as_str(),
        Some("message/stream" | "tasks/resubscribe")
    )
}

/// A JSON answer: HTTP 200 and its body (for a refused v0.3 stream, its one event).
async fn answer(engine: &Engine, owner: &Owner, version: Version, body: &Value) -> Value {
    match reply(engine, owner, version, body).await {
        Reply::Json { status, body } => {
            assert_eq!(status, 200);
            serde_json::from_slice(&body).unwrap()
        }
        // A v0.3 stream refused once its request was found valid: one error event.
        stream @ Reply::Stream(_) if version == V0_3 && is_stream_method(body) => {
            common::refusal(stream).await
        }
        other => panic!("expected JSON for {body}, got {other:?}"),
    }
}

/// The first event of a stream answer (the stream itself is dropped).
async fn first_event(engine: &Engine, owner: &Owner, version: Version, body: &Value) -> Value {
    match reply(engine, owner, version, body).await {
        Reply::Stream(mut events) => {
            let event = tokio::time::timeout(Duration::from_secs(10), events.next())
                .await
                .expect("an event comes")
                .expect("the stream has an event");
            serde_json::from_slice(&event).unwrap()
        }
        other => panic!("expected a stream for {body}, got {other:?}"),
    }
}

/// `answer` with every occurrence of `task_id` replaced by `<task>`.
fn without(answer: &Value, task_id: &str) -> Value {
    serde_json::from_str(&answer.to_string().replace(task_id, "<task>")).unwrap()
}

/// The exact -32001 answer for an unknown task (the same in both versions, under the
/// spec's error profile).
fn not_found() -> Value {
    json!({"jsonrpc": "2.0", "id": 9, "error": {
        "code": -32001,
        "message": "Task not found: no task with id \"<task>\"",
        "data": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "domain": "a2a-protocol.org",
            "metadata": {"detail": "no task with id \"<task>\"", "taskId": "<task>"},
            "reason": "TASK_NOT_FOUND",
        }],
    }})
}

/// `stranger` asking `operation` about `task_id` gets exactly what a task that never
/// existed gets, and that is -32001.
async fn refused_as_unknown(
    engine: &Engine,
    stranger: &(&str, Owner),
    version: Version,
    operation: &str,
    task_id: &str,
) {
    let (who, owner) = stranger;
    let body = |id: &str| match operation {
        "follow-up send" => version.send("m-follow", "done", Some(id)),
        "follow-up stream" => version.stream("m-follow", "done", Some(id)),
        other => version.on_task(other, id),
    };
    let theirs = answer(engine, owner, version, &body(task_id)).await;
    let unknown = answer(engine, owner, version, &body(NEVER)).await;
    assert_eq!(
        without(&theirs, task_id),
        without(&unknown, NEVER),
        "{version:?} {operation} by {who} of another's task: {theirs}"
    );
    if operation != "push" {
        assert_eq!(
            without(&theirs, task_id),
            not_found(),
            "{version:?} {operation} by {who}: {theirs}"
        );
    }
}

/// Alice's two open tasks: one waiting for input, one working until canceled.
async fn alices_tasks(engine: &Engine, version: Version) -> (String, String) {
    let asked = answer(
        engine,
        &alice(),
        version,
        &version.send("tck-input-required-1", "hello", None),
    )
    .await;
    let waiting = version.task_of(&asked);
    assert_eq!(
        waiting["status"]["state"],
        version.state("input-required"),
        "{asked}"
    );
    let started = answer(
        engine,
        &alice(),
        version,
        &version.send_immediately("slow-1"),
    )
    .await;
    let working = version.task_of(&started);
    let working = working["id"].as_str().unwrap().to_owned();
    // Answered once the task exists (submitted); the agent soon says it works.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while state_for_alice(engine, version, &working).await != version.state("working") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{version:?}: the slow task never worked: {started}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    (waiting["id"].as_str().unwrap().to_owned(), working)
}

async fn state_for_alice(engine: &Engine, version: Version, task_id: &str) -> Value {
    let got = answer(engine, &alice(), version, &version.on_task("get", task_id)).await;
    got["result"]["status"]["state"].clone()
}

async fn another_owners_task_is_unknown_to_every_method(version: Version) {
    let engine = engine(Arc::new(ConformanceAgent::default()));
    let (waiting, working) = alices_tasks(&engine, version).await;

    for stranger in &strangers() {
        for task_id in [&waiting, &working] {
            for operation in [
                "get",
                "cancel",
                "subscribe",
                "follow-up send",
                "follow-up stream",
                "push",
            ] {
                refused_as_unknown(&engine, stranger, version, operation, task_id).await;
            }
        }
    }

    // Nothing a stranger asked for happened: both tasks stand as they were, alice's alone.
    assert_eq!(
        state_for_alice(&engine, version, &waiting).await,
        version.state("input-required")
    );
    assert_eq!(
        state_for_alice(&engine, version, &working).await,
        version.state("working")
    );
    let got = answer(
        &engine,
        &alice(),
        version,
        &version.on_task("get", &waiting),
    )
    .await;
    let history = got["result"]["history"].as_array().unwrap();
    assert!(
        history
            .iter()
            .all(|message| message["messageId"] != "m-follow"),
        "a stranger's follow-up reached the task: {got}"
    );

    // Alice herself can follow, cancel and continue them.
    let followed = first_event(
        &engine,
        &alice(),
        version,
        &version.on_task("subscribe", &working),
    )
    .await;
    let followed = match version {
        V0_3 => followed["result"].clone(),
        V1_0 => followed["result"]["task"].clone(),
    };
    assert_eq!(followed["id"], json!(working), "{followed}");
    let canceled = answer(
        &engine,
        &alice(),
        version,
        &version.on_task("cancel", &working),
    )
    .await;
    assert_eq!(
        canceled["result"]["status"]["state"],
        version.state("canceled"),
        "{canceled}"
    );
    let done = answer(
        &engine,
        &alice(),
        version,
        &version.send("m-done", "done", Some(&waiting)),
    )
    .await;
    let done = version.task_of(&done);
    assert_eq!(
        done["status"]["state"],
        version.state("completed"),
        "{done}"
    );
}

#[tokio::test]
async fn another_owners_task_is_unknown_to_every_v0_3_method() {
    another_owners_task_is_unknown_to_every_method(V0_3).await;
}

#[tokio::test]
async fn another_owners_task_is_unknown_to_every_v1_0_method() {
    another_owners_task_is_unknown_to_every_method(V1_0).await;
}

/// A follow-up stream of alice's own waiting task streams; a stranger's is refused before
/// anything streams.
#[tokio::test]
async fn only_the_owner_continues_a_task_by_stream() {
    for version in [V0_3, V1_0] {
        let engine = engine(Arc::new(ConformanceAgent::default()));
        let (waiting, _) = alices_tasks(&engine, version).await;
        let bob_stream = reply(
            &engine,
            &bob(),
            version,
            &version.stream("m-2", "more", Some(&waiting)),
        )
        .await;
        // Refused before any event: JSON for v1.0, a stream of one error event for v0.3.
        assert_eq!(
            matches!(bob_stream, Reply::Json { .. }),
            version == V1_0,
            "{version:?}: bob's follow-up stream is refused, got {bob_stream:?}"
        );
        let refused = common::refusal(bob_stream).await;
        assert_eq!(refused["error"]["code"], -32001, "{refused}");
        let first = first_event(
            &engine,
            &alice(),
            version,
            &version.stream("m-3", "more", Some(&waiting)),
        )
        .await;
        assert!(first.get("error").is_none(), "{version:?}: {first}");
    }
}

/// The ids of a ListTasks answer, in order.
async fn listed(engine: &Engine, owner: &Owner, params: Value) -> (Vec<String>, Value) {
    let list = answer(engine, owner, V1_0, &V1_0.request("list", params)).await;
    let ids = list["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|task| task["id"].as_str().unwrap().to_owned())
        .collect();
    (ids, list)
}

#[tokio::test]
async fn list_tasks_lists_only_the_callers_tasks() {
    let engine = engine(Arc::new(ConformanceAgent::default()));
    // Alice's tasks through both versions, two anonymous tasks, and none of bob's.
    let (a1, a2) = alices_tasks(&engine, V0_3).await;
    let (a3, a4) = alices_tasks(&engine, V1_0).await;
    let mut anonymous = Vec::new();
    for n in 0..2 {
        let done = answer(
            &engine,
            &Owner::anonymous(),
            V1_0,
            &V1_0.send(&format!("tck-complete-task-{n}"), "hi", None),
        )
        .await;
        anonymous.push(V1_0.task_of(&done)["id"].as_str().unwrap().to_owned());
    }

    let (bobs, list) = listed(&engine, &bob(), json!({})).await;
    assert_eq!(
        list,
        json!({"jsonrpc": "2.0", "id": 9, "result": {
            "tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0,
        }}),
        "bob has no task"
    );
    assert!(bobs.is_empty());
    // Without params at all, too.
    let bare = answer(
        &engine,
        &bob(),
        V1_0,
        &json!({"jsonrpc": "2.0", "id": 9, "method": "ListTasks"}),
    )
    .await;
    assert_eq!(bare, list);
    let (elsewhere, _) = listed(&engine, &alice_elsewhere(), json!({})).await;
    assert!(elsewhere.is_empty(), "{elsewhere:?}");

    let (mut alices, list) = listed(&engine, &alice(), json!({})).await;
    assert_eq!(list["result"]["totalSize"], 4, "{list}");
    alices.sort();
    let mut expected = vec![a1.clone(), a2, a3, a4];
    expected.sort();
    assert_eq!(alices, expected);

    let (mut anons, list) = listed(&engine, &Owner::anonymous(), json!({})).await;
    assert_eq!(list["result"]["totalSize"], 2, "{list}");
    anons.sort();
    anonymous.sort();
    assert_eq!(anons, anonymous);

    // A context filter does not reach past the owner: bob names alice's context.
    let context =
        answer(&engine, &alice(), V1_0, &V1_0.on_task("get", &a1)).await["result"]["contextId"]
            .as_str()
            .unwrap()
            .to_owned();
    let (in_context, _) = listed(&engine, &bob(), json!({"contextId": context})).await;
    assert!(in_context.is_empty(), "{in_context:?}");
    let (in_context, _) = listed(&engine, &alice(), json!({"contextId": context})).await;
    assert_eq!(in_context, [a1]);

    // Paging stays within the owner: two pages of two for alice.
    let (first, page) = listed(&engine, &alice(), json!({"pageSize": 2})).await;
    assert_eq!(first.len(), 2);
    assert_eq!(page["result"]["totalSize"], 4, "{page}");
    let token = page["result"]["nextPageToken"].as_str().unwrap().to_owned();
    let (second, page) = listed(
        &engine,
        &alice(),
        json!({"pageSize": 2, "pageToken": token}),
    )
    .await;
    assert_eq!(page["result"]["nextPageToken"], "", "{page}");
    let mut both: Vec<String> = first.into_iter().chain(second).collect();
    both.sort();
    assert_eq!(both, expected);
    // Alice's page token read by bob pages through bob's (empty) list.
    let (bobs, _) = listed(&engine, &bob(), json!({"pageSize": 2, "pageToken": token})).await;
    assert!(bobs.is_empty(), "{bobs:?}");
}

/// Answers with who it was told calls.
struct WhoCalls;

impl Agent for WhoCalls {
    fn card(&self) -> AgentCard {
        ConformanceAgent::default().card()
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        let text = format!("{} continued={}", context.owner, context.previous.is_some());
        if context.message.joined_text() == "ask" {
            events
                .status(a2a_lambda_core::model::TaskState::InputRequired, &text)
                .await?;
        } else {
            events.complete_with(&text).await?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn the_agent_is_told_who_calls() {
    let engine = engine(Arc::new(WhoCalls));
    for (owner, expected) in [
        (alice(), "jwt:https://idp|alice"),
        (bob(), "agentcore-user:bob"),
        (Owner::anonymous(), "anonymous"),
    ] {
        for version in [V0_3, V1_0] {
            let asked = answer(&engine, &owner, version, &version.send("m-1", "ask", None)).await;
            let task = version.task_of(&asked);
            let said = |task: &Value| task["status"]["message"]["parts"][0]["text"].clone();
            assert_eq!(
                said(&task),
                json!(format!("{expected} continued=false")),
                "{asked}"
            );
            let task_id = task["id"].as_str().unwrap();
            let continued = answer(
                &engine,
                &owner,
                version,
                &version.send("m-2", "go on", Some(task_id)),
            )
            .await;
            assert_eq!(
                said(&version.task_of(&continued)),
                json!(format!("{expected} continued=true")),
                "{continued}"
            );
        }
    }
}
