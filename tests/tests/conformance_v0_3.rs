//! The A2A v0.3 conformance suite's mandatory scenarios, against the real emulator serving
//! the `conformance` agent.
//!
//! Mirrors the scenarios of the public TCK (a2aproject/a2a-tck): `tests/mandatory/`
//! (agent card, JSON-RPC compliance and protocol violations, A2A error codes,
//! `message/send`, `tasks/get`, `tasks/cancel`, history length, method mapping) and the
//! `tests/optional/capabilities/test_streaming_methods.py` scenarios, which the suite makes
//! mandatory when the card declares `capabilities.streaming` (this card does). Requests
//! carry no `A2A-Version` header: they speak v0.3. Each test names the scenario it
//! mirrors; the facts checked are the suite's, the code is ours.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::conformance::{
    assert_a2a_error, conformance_emulator, is_terminal, post_raw, rpc_with_headers, tck_id,
    unique_id,
};
use a2a_test_support::harness::{Emulator, Op, STEP_TIMEOUT, Value, Version, eventually, json};

const V: Version = Version::V0_3;

/// The states a `message/send` answer may carry (the suite's accepted set).
const SEND_STATES: [&str; 4] = ["submitted", "working", "input-required", "completed"];

/// A user message with one text part that continues `task_id`.
fn follow_up(message_id: &str, text: &str, task_id: &str) -> Value {
    let mut message = V.user_message(message_id, text);
    message["taskId"] = json!(task_id);
    message
}

/// `message/send` of `message`; the whole JSON-RPC response.
async fn send(emulator: &Emulator, message: Value) -> Value {
    emulator
        .call_op(V, Op::Send, json!({"message": message}))
        .await
}

/// A new task from a message whose id has this `prefix`; the task.
async fn new_task(emulator: &Emulator, message_id: &str) -> Value {
    emulator
        .send_task(
            V,
            V.send_params(message_id, "TCK prerequisite task creation"),
        )
        .await
}

fn task_id(task: &Value) -> String {
    let id = task["id"].as_str().unwrap_or_default();
    assert!(!id.is_empty(), "the task has no id: {task}");
    id.to_owned()
}

fn history_len(task: &Value) -> usize {
    task.get("history")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

// ---------------------------------------------------------------------------------------
// Agent card
// ---------------------------------------------------------------------------------------

/// TCK mandatory: protocol/test_agent_card::test_agent_card_available — "A2A Servers MUST
/// make an Agent Card available": `GET /.well-known/agent-card.json` answers a JSON object.
#[tokio::test]
async fn agent_card_is_available() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    assert!(card.is_object(), "{card}");
}

/// TCK mandatory: protocol/test_agent_card_mandatory::test_agent_card_mandatory_fields and
/// protocol/test_agent_card::test_mandatory_fields_present — capabilities,
/// defaultInputModes, defaultOutputModes, description, name, protocolVersion, skills, url
/// and version are present and not null.
#[tokio::test]
async fn agent_card_has_the_mandatory_fields() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    for field in [
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "description",
        "name",
        "protocolVersion",
        "skills",
        "url",
        "version",
    ] {
        assert!(
            card.get(field).is_some_and(|value| !value.is_null()),
            "the card lacks {field}: {card}"
        );
    }
}

/// TCK mandatory: protocol/test_agent_card::test_mandatory_field_types and
/// protocol/test_agent_card_mandatory::{test_agent_card_basic_info_mandatory,
/// test_agent_card_capabilities_mandatory, test_agent_card_input_output_modes_mandatory,
/// test_agent_card_skills_mandatory} — name, description, version are non-empty strings;
/// url an http(s) URL; capabilities an object; the modes arrays of non-empty strings;
/// skills a non-empty array whose items have id, name, description and tags. The v0.3
/// protocolVersion is 0.3.x and the url is where the agent answers JSON-RPC.
#[tokio::test]
async fn agent_card_fields_have_the_mandatory_types() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    for field in ["name", "description", "version", "url", "protocolVersion"] {
        assert!(
            card[field]
                .as_str()
                .is_some_and(|text| !text.trim().is_empty()),
            "{field} must be a non-empty string: {card}"
        );
    }
    let url = card["url"].as_str().unwrap();
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or_else(|| panic!("url must be an http(s) URL: {url}"));
    assert!(
        !rest.is_empty()
            && !rest.starts_with(['/', '$', '.', '?', '#'])
            && !rest.contains(char::is_whitespace),
        "url is not a valid URL: {url}"
    );
    assert_eq!(url, emulator.url("/"), "the card points at this endpoint");
    assert!(
        card["protocolVersion"].as_str().unwrap().starts_with("0.3"),
        "{card}"
    );
    if let Some(transport) = card.get("preferredTransport") {
        assert_eq!(transport, "JSONRPC", "{card}");
    }
    assert!(card["capabilities"].is_object(), "{card}");
    for field in ["defaultInputModes", "defaultOutputModes"] {
        let modes = card[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field} must be an array: {card}"));
        assert!(
            modes
                .iter()
                .all(|mode| mode.as_str().is_some_and(|text| !text.trim().is_empty())),
            "{field} must hold non-empty strings: {card}"
        );
    }
    let skills = card["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("skills must be an array: {card}"));
    assert!(!skills.is_empty(), "skills cannot be empty: {card}");
    for skill in skills {
        assert!(skill.is_object(), "{skill}");
        for field in ["id", "name", "description", "tags"] {
            assert!(
                skill.get(field).is_some_and(|value| !value.is_null()),
                "the skill lacks {field}: {skill}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON-RPC 2.0 compliance
// ---------------------------------------------------------------------------------------

/// TCK mandatory: jsonrpc/test_json_rpc_compliance::test_rejects_malformed_json and
/// jsonrpc/test_protocol_violations::test_raw_invalid_json — syntactically invalid JSON is
/// answered (HTTP 200) with -32700 and a null id.
#[tokio::test]
async fn malformed_json_is_a_parse_error() {
    let emulator = Emulator::conformance();
    for body in [
        r#"{"jsonrpc": "2.0", "method": "message/send", "params": {"foo": "bar"}"#,
        r#"{"jsonrpc": "2.0", "method": "message/send", "params": {"unclosed_object": true"#,
    ] {
        let response = post_raw(&emulator, &[("content-type", "application/json")], body).await;
        assert_eq!(response.status, 200, "{}", response.text);
        assert_a2a_error(&response.json(), &Value::Null, -32700);
    }
}

/// TCK mandatory: jsonrpc/test_json_rpc_compliance::test_rejects_invalid_json_rpc_requests —
/// each malformed request gets HTTP 200 and its precise code: a wrong or missing
/// `jsonrpc` and a missing `method` -32600, an unknown method -32601, an object id
/// -32600, params of the wrong shape -32602.
#[tokio::test]
async fn invalid_requests_get_their_precise_codes() {
    let emulator = Emulator::conformance();
    let cases = [
        (
            json!({"jsonrpc": "aaa", "method": "message/send", "params": {}}),
            Value::Null,
            -32600,
        ),
        (
            json!({"method": "message/send", "params": {}}),
            Value::Null,
            -32600,
        ),
        (json!({"jsonrpc": "2.0", "params": {}}), Value::Null, -32600),
        (
            json!({"jsonrpc": "2.0", "method": "message/ssend", "id": "3", "params": {}}),
            json!("3"),
            -32601,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "message/send", "params": {}, "id": {"bad": "type"}}),
            Value::Null,
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "method": "message/send", "id": "4", "params": {"": "not_a_dict"}}),
            json!("4"),
            -32602,
        ),
    ];
    for (body, id, code) in cases {
        let response = rpc_with_headers(&emulator, &[], &body).await;
        assert_a2a_error(&response, &id, code);
    }
}

/// TCK mandatory: jsonrpc/test_json_rpc_compliance::test_rejects_unknown_method — an
/// undefined method is -32601 and the answer echoes the request id.
#[tokio::test]
async fn unknown_method_is_method_not_found() {
    let emulator = Emulator::conformance();
    let response = emulator.call(V, "nonexistent/method", json!({})).await;
    assert_a2a_error(&response, &response["id"], -32601);
}

/// TCK mandatory: jsonrpc/test_json_rpc_compliance::test_rejects_invalid_params —
/// `message/send` with `parts` that is not an array is -32602.
#[tokio::test]
async fn invalid_params_are_invalid_params() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(V, Op::Send, json!({"message": {"parts": "invalid"}}))
        .await;
    assert_a2a_error(&response, &response["id"], -32602);
}

/// TCK mandatory: jsonrpc/test_protocol_violations::{test_invalid_jsonrpc_version,
/// test_missing_method_field} — a request with `"jsonrpc": "1.0"`, or without `method`,
/// is -32600 and the error echoes the request's id.
#[tokio::test]
async fn wrong_version_or_missing_method_is_invalid_request_with_the_id() {
    let emulator = Emulator::conformance();
    let params = V.send_params(&unique_id("test-protocol-message-id"), "Hello");
    let wrong_version =
        json!({"jsonrpc": "1.0", "id": "req-v", "method": "message/send", "params": params});
    let response = rpc_with_headers(&emulator, &[], &wrong_version).await;
    assert_a2a_error(&response, &json!("req-v"), -32600);
    let no_method = json!({"jsonrpc": "2.0", "id": "req-m", "params": params});
    let response = rpc_with_headers(&emulator, &[], &no_method).await;
    assert_a2a_error(&response, &json!("req-m"), -32600);
}

/// TCK mandatory: jsonrpc/test_protocol_violations::test_duplicate_request_ids — two
/// requests with the same id each get a JSON-RPC answer echoing that id (the first a
/// success).
#[tokio::test]
async fn duplicate_request_ids_each_get_an_answer() {
    let emulator = Emulator::conformance();
    let id = json!(unique_id("duplicate"));
    let message_id = unique_id("test-protocol-message-id");
    for text in [
        "Hello from protocol violation test!",
        "This is a different message with the same ID",
    ] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "message/send",
            "params": V.send_params(&message_id, text)});
        let response = rpc_with_headers(&emulator, &[], &body).await;
        assert_eq!(response["jsonrpc"], "2.0", "{response}");
        assert_eq!(response["id"], id, "{response}");
        assert!(
            response.get("result").is_some() != response.get("error").is_some(),
            "{response}"
        );
        if text.starts_with("Hello") {
            assert!(response.get("result").is_some(), "{response}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// message/send
// ---------------------------------------------------------------------------------------

/// TCK mandatory: protocol/test_message_send_method::test_message_send_valid_text, with
/// the SUT scenarios "Complete the task" and "Return message instead of task" — a text
/// message gets a Task (`kind: task`, a state of submitted/working/input-required/
/// completed) or a Message (`kind: message`, role agent, parts).
#[tokio::test]
async fn message_send_valid_text_returns_a_task_or_a_message() {
    let emulator = Emulator::conformance();

    let response = send(
        &emulator,
        V.user_message(&tck_id("complete-task"), "Hello from TCK!"),
    )
    .await;
    let task = &response["result"];
    assert_eq!(task["kind"], "task", "{response}");
    task_id(task);
    assert!(task["contextId"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(task["status"]["state"], "completed", "{response}");
    let reply = &task["status"]["message"];
    assert_eq!(reply["role"], "agent", "{response}");
    assert_eq!(reply["parts"][0]["text"], "Hello from TCK", "{response}");

    let response = send(
        &emulator,
        V.user_message(&tck_id("message-response"), "Hello"),
    )
    .await;
    let message = &response["result"];
    assert_eq!(message["kind"], "message", "{response}");
    assert_eq!(message["role"], "agent", "{response}");
    assert_eq!(message["parts"][0]["kind"], "text", "{response}");
    assert_eq!(
        message["parts"][0]["text"], "Direct message response",
        "{response}"
    );
    assert!(
        message["messageId"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );

    // The suite's own messageId ("text-…") has no recognised prefix.
    let response = send(
        &emulator,
        V.user_message(&unique_id("text"), "Hello from TCK!"),
    )
    .await;
    let state = response["result"]["status"]["state"].as_str().unwrap();
    assert!(SEND_STATES.contains(&state), "{response}");
}

/// TCK mandatory: protocol/test_message_send_method::test_message_send_invalid_params — a
/// message missing messageId, role and parts is -32602.
#[tokio::test]
async fn message_send_missing_fields_is_invalid_params() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(V, Op::Send, json!({"message": {"kind": "message"}}))
        .await;
    assert_a2a_error(&response, &response["id"], -32602);
}

/// TCK mandatory: protocol/test_message_send_method::test_message_send_continue_task — a
/// follow-up naming the task's id continues the same task.
#[tokio::test]
async fn message_send_continues_a_task() {
    let emulator = Emulator::conformance();
    let first = new_task(&emulator, &unique_id("text")).await;
    let id = task_id(&first);
    let response = send(
        &emulator,
        follow_up(
            &unique_id("continuation"),
            "Follow-up message for the existing task",
            &id,
        ),
    )
    .await;
    let task = &response["result"];
    assert_eq!(task["kind"], "task", "{response}");
    assert_eq!(task["id"], id.as_str(), "{response}");
    assert_eq!(task["contextId"], first["contextId"], "{response}");
    let state = task["status"]["state"].as_str().unwrap();
    assert!(SEND_STATES.contains(&state), "{response}");
}

/// TCK SUT scenarios (scenarios/core_operations.feature): "Task with text artifact",
/// "… file artifact", "… file URL artifact", "… data artifact", "Task rejected by
/// executor" — in v0.3 shapes: `kind`-tagged parts, `file.bytes`/`file.uri` with
/// `mimeType` and `name`.
#[tokio::test]
async fn message_send_artifact_and_rejection_scenarios() {
    let emulator = Emulator::conformance();
    let part_of = |task: &Value| task["artifacts"][0]["parts"][0].clone();

    let task = new_task(&emulator, &tck_id("artifact-text")).await;
    assert_eq!(task["status"]["state"], "completed", "{task}");
    assert_eq!(
        part_of(&task),
        json!({"kind": "text", "text": "Generated text content"})
    );

    let task = new_task(&emulator, &tck_id("artifact-file")).await;
    let part = part_of(&task);
    assert_eq!(part["kind"], "file", "{task}");
    assert_eq!(part["file"]["name"], "output.txt", "{task}");
    assert_eq!(part["file"]["mimeType"], "text/plain", "{task}");
    assert!(part["file"]["bytes"].is_string(), "{task}");

    let task = new_task(&emulator, &tck_id("artifact-file-url")).await;
    let part = part_of(&task);
    assert_eq!(part["kind"], "file", "{task}");
    assert_eq!(
        part["file"]["uri"], "https://example.com/output.txt",
        "{task}"
    );
    assert_eq!(part["file"]["name"], "output.txt", "{task}");
    assert_eq!(part["file"]["mimeType"], "text/plain", "{task}");

    let task = new_task(&emulator, &tck_id("artifact-data")).await;
    assert_eq!(
        part_of(&task),
        json!({"kind": "data", "data": {"key": "value", "count": 42}})
    );

    let task = new_task(&emulator, &tck_id("reject-task")).await;
    assert_eq!(task["status"]["state"], "rejected", "{task}");
}

/// TCK SUT scenario "Task requiring user input" with the multi-turn follow-ups the suite
/// sends — tck-input-required stops at input-required (with the agent's question); a
/// follow-up on the task keeps the same task and context, and one that finishes it
/// (tck-complete-task, or "done") completes it; history keeps every turn in order.
#[tokio::test]
async fn input_required_then_follow_ups_complete_the_task() {
    let emulator = Emulator::conformance();
    for finisher in [tck_id("complete-task"), unique_id("finish")] {
        let first_id = tck_id("input-required");
        let task = new_task(&emulator, &first_id).await;
        assert_eq!(task["status"]["state"], "input-required", "{task}");
        assert_eq!(task["status"]["message"]["role"], "agent", "{task}");
        let id = task_id(&task);

        let more_id = unique_id("more");
        let response = send(&emulator, follow_up(&more_id, "more details", &id)).await;
        let task = &response["result"];
        assert_eq!(task["id"], id.as_str(), "{response}");
        assert_eq!(task["status"]["state"], "input-required", "{response}");

        let text = if finisher.starts_with("tck-") {
            "go"
        } else {
            "done"
        };
        let response = send(&emulator, follow_up(&finisher, text, &id)).await;
        let task = &response["result"];
        assert_eq!(task["status"]["state"], "completed", "{response}");
        let users: Vec<&str> = task["history"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|message| message["role"] == "user")
            .map(|message| message["messageId"].as_str().unwrap())
            .collect();
        assert_eq!(
            users,
            [first_id.as_str(), &more_id, &finisher],
            "{response}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// tasks/get
// ---------------------------------------------------------------------------------------

/// TCK mandatory: protocol/test_tasks_get_method::{test_tasks_get_valid,
/// test_tasks_get_with_history_length} — `tasks/get` returns the task by id with its
/// status; with `historyLength: 1` the task includes `history`, at most one message.
#[tokio::test]
async fn tasks_get_returns_the_task_and_honours_history_length() {
    let emulator = Emulator::conformance();
    let created = new_task(&emulator, &unique_id("get-test")).await;
    let id = task_id(&created);

    let task = emulator.get_task(V, &id).await;
    assert_eq!(task["id"], id.as_str(), "{task}");
    assert_eq!(task["kind"], "task", "{task}");
    assert!(task["status"].is_object(), "{task}");

    let task = emulator
        .result(V, Op::Get, json!({"id": id, "historyLength": 1}))
        .await;
    assert_eq!(task["id"], id.as_str(), "{task}");
    assert!(
        task.get("history").is_some_and(Value::is_array),
        "history must be present when historyLength is given: {task}"
    );
    assert!(history_len(&task) <= 1, "{task}");
}

/// TCK mandatory: protocol/test_tasks_get_method::test_tasks_get_nonexistent — an unknown
/// id is -32001 TaskNotFoundError.
#[tokio::test]
async fn tasks_get_unknown_task_is_task_not_found() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(V, Op::Get, json!({"id": "nonexistent-task-id"}))
        .await;
    assert_a2a_error(&response, &response["id"], -32001);
}

/// TCK mandatory: protocol/test_state_transitions::test_task_history_length — after three
/// follow-ups the full history has more than two messages; `historyLength: 2` returns at
/// most two (the most recent).
#[tokio::test]
async fn history_length_limits_the_history() {
    let emulator = Emulator::conformance();
    let created = new_task(&emulator, &unique_id("test-history-create-message-id")).await;
    let id = task_id(&created);
    for turn in 1..=3 {
        let message_id = unique_id(&format!("test-history-message-{turn}"));
        let text = format!("Follow-up message {turn} for history test");
        let response = send(&emulator, follow_up(&message_id, &text, &id)).await;
        assert!(response.get("result").is_some(), "{response}");
    }
    let full = emulator.get_task(V, &id).await;
    let limited = emulator
        .result(V, Op::Get, json!({"id": id, "historyLength": 2}))
        .await;
    assert!(history_len(&full) > 2, "{full}");
    assert!(history_len(&limited) <= 2, "{limited}");
    assert!(history_len(&full) > history_len(&limited));
    assert_eq!(
        limited["history"].as_array().unwrap().last(),
        full["history"].as_array().unwrap().last(),
        "the limited history keeps the most recent messages"
    );
}

// ---------------------------------------------------------------------------------------
// tasks/cancel
// ---------------------------------------------------------------------------------------

/// TCK mandatory: protocol/test_tasks_cancel_method::test_tasks_cancel_valid — canceling an
/// open task answers the task, same id, state canceled (and it stays canceled); a working
/// task (`slow-`, sent with `blocking: false`) is canceled the same way.
#[tokio::test]
async fn tasks_cancel_cancels_open_tasks() {
    let emulator = Emulator::conformance();
    let created = new_task(&emulator, &unique_id("cancel-test")).await;
    let id = task_id(&created);
    let task = emulator.result(V, Op::Cancel, json!({"id": id})).await;
    assert_eq!(task["id"], id.as_str(), "{task}");
    assert_eq!(task["status"]["state"], "canceled", "{task}");
    assert_eq!(
        emulator.get_task(V, &id).await["status"]["state"],
        "canceled"
    );

    let working = emulator
        .send_task(V, V.send_params_at_once(&unique_id("slow"), "work"))
        .await;
    let id = task_id(&working);
    assert!(!is_terminal(
        V,
        working["status"]["state"].as_str().unwrap()
    ));
    let task = emulator.result(V, Op::Cancel, json!({"id": id})).await;
    assert_eq!(task["id"], id.as_str(), "{task}");
    assert_eq!(task["status"]["state"], "canceled", "{task}");
}

/// TCK mandatory: protocol/test_tasks_cancel_method::test_tasks_cancel_nonexistent — an
/// unknown id is -32001 TaskNotFoundError.
#[tokio::test]
async fn tasks_cancel_unknown_task_is_task_not_found() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(V, Op::Cancel, json!({"id": "nonexistent-task-id"}))
        .await;
    assert_a2a_error(&response, &response["id"], -32001);
}

/// TCK mandatory: jsonrpc/test_a2a_error_codes (coverage of -32002 TaskNotCancelableError
/// by the cancel tests) — canceling a completed, rejected or already canceled task is
/// -32002 and leaves the task as it was.
#[tokio::test]
async fn tasks_cancel_of_a_finished_task_is_not_cancelable() {
    let emulator = Emulator::conformance();
    let completed = new_task(&emulator, &tck_id("complete-task")).await;
    let rejected = new_task(&emulator, &tck_id("reject-task")).await;
    let canceled = new_task(&emulator, &tck_id("input-required")).await;
    emulator
        .result(V, Op::Cancel, json!({"id": task_id(&canceled)}))
        .await;
    for (task, state) in [
        (completed, "completed"),
        (rejected, "rejected"),
        (canceled, "canceled"),
    ] {
        let id = task_id(&task);
        let response = emulator.call_op(V, Op::Cancel, json!({"id": id})).await;
        assert_a2a_error(&response, &response["id"], -32002);
        assert_eq!(emulator.get_task(V, &id).await["status"]["state"], state);
    }
}

/// TCK mandatory: protocol/test_a2a_v030_new_methods::TestMethodMappingCompliance::
/// test_core_method_mapping_compliance — `message/send`, `tasks/get` and `tasks/cancel`
/// all answer about the same task id.
#[tokio::test]
async fn core_method_mapping_send_get_cancel() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, &unique_id("mapping-test")).await;
    let id = task_id(&task);
    assert_eq!(emulator.get_task(V, &id).await["id"], id.as_str());
    assert_eq!(
        emulator.result(V, Op::Cancel, json!({"id": id})).await["id"],
        id.as_str()
    );
}

// ---------------------------------------------------------------------------------------
// Capabilities: push notifications, extended card
// ---------------------------------------------------------------------------------------

/// TCK mandatory: jsonrpc/test_a2a_error_codes::test_push_notification_not_supported_error_32003
/// and jsonrpc/test_a2a_error_codes_enhanced::
/// test_push_notification_not_supported_error_32003_enhanced
/// — with push notifications off (`--push-notifications off`), the card does not declare
/// them, so every `tasks/pushNotificationConfig/*` method is -32003 with a message saying
/// push notifications are not supported.
#[tokio::test]
async fn push_notification_methods_are_not_supported_when_off() {
    let emulator = Emulator::start(&["--agent", "conformance", "--push-notifications", "off"]);
    let card = emulator.card().await;
    assert_ne!(card["capabilities"]["pushNotifications"], true, "{card}");
    let task = new_task(&emulator, &unique_id("msg")).await;
    let id = task_id(&task);
    let config = json!({"url": "https://example.com/webhook", "token": "test-token"});
    for (op, params) in [
        (
            Op::SetPush,
            json!({"taskId": id, "pushNotificationConfig": config}),
        ),
        (Op::GetPush, json!({"id": id})),
        (Op::ListPush, json!({"id": id})),
        (
            Op::DeletePush,
            json!({"id": id, "pushNotificationConfigId": "config-1"}),
        ),
    ] {
        let response = emulator.call_op(V, op, params).await;
        let error = assert_a2a_error(&response, &response["id"], -32003);
        let message = error["message"].as_str().unwrap().to_lowercase();
        for keyword in ["push", "notification", "not", "supported"] {
            assert!(message.contains(keyword), "{response}");
        }
    }
}

/// TCK mandatory: protocol/test_a2a_v030_new_methods::TestAuthenticatedExtendedCard (the
/// suite skips it when the card does not say `supportsAuthenticatedExtendedCard`) — the
/// card says it has none, and `agent/getAuthenticatedExtendedCard` is refused rather than
/// answered.
#[tokio::test]
async fn extended_card_is_not_offered() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    assert_ne!(card["supportsAuthenticatedExtendedCard"], true, "{card}");
    let response = emulator.call_op(V, Op::ExtendedCard, json!({})).await;
    let code = response["error"]["code"].as_i64();
    assert!(
        matches!(code, Some(-32004 | -32007)),
        "expected UnsupportedOperation or ExtendedCardNotConfigured: {response}"
    );
    assert_a2a_error(&response, &response["id"], code.unwrap());
}

// ---------------------------------------------------------------------------------------
// Streaming (mandatory: the card declares capabilities.streaming)
// ---------------------------------------------------------------------------------------

/// TCK capability-mandatory: optional/capabilities/test_streaming_methods::
/// {test_message_stream_basic,
/// test_sse_header_compliance, test_sse_event_format_compliance} — the card declares
/// streaming; `message/stream` answers HTTP 200 `text/event-stream`; every event is a
/// JSON-RPC response with the request's id; the first is the Task, then status and
/// artifact updates of that task (kinds task/status-update/artifact-update, each update
/// with taskId, artifact updates with the artifact) in the order generated; the last is the
/// completed status with `final: true`, and the stream then ends.
#[tokio::test]
async fn message_stream_events_are_well_formed_and_ordered() {
    let emulator = Emulator::conformance();
    assert_eq!(emulator.card().await["capabilities"]["streaming"], true);
    let mut stream = emulator
        .stream(
            V,
            Op::Stream,
            V.send_params(&tck_id("stream"), "Stream test message"),
        )
        .await;
    let first = stream.next_result().await;
    assert_eq!(first["kind"], "task", "{first}");
    let id = task_id(&first);
    assert!(first["status"]["state"].is_string(), "{first}");
    let rest: Vec<Value> = stream
        .rest()
        .await
        .into_iter()
        .map(|event| event["result"].clone())
        .collect();
    let mut chunks = Vec::new();
    for event in &rest {
        assert_eq!(event["taskId"], id.as_str(), "{event}");
        match event["kind"].as_str() {
            Some("status-update") => assert!(event["status"]["state"].is_string(), "{event}"),
            Some("artifact-update") => {
                assert!(event["artifact"].is_object(), "{event}");
                chunks.push(event["artifact"]["parts"][0]["text"].as_str().unwrap());
            }
            _ => panic!("unexpected event kind: {event}"),
        }
    }
    assert_eq!(chunks, ["Streaming ", "chunk ", "content"]);
    let last = rest.last().expect("events after the task");
    assert_eq!(last["kind"], "status-update", "{last}");
    assert_eq!(last["status"]["state"], "completed", "{last}");
    assert_eq!(last["final"], true, "{last}");
    assert!(
        rest[..rest.len() - 1]
            .iter()
            .all(|event| event["final"] != true),
        "only the last event is final: {rest:?}"
    );
}

/// TCK capability-mandatory: optional/capabilities/test_streaming_methods::
/// test_message_stream_invalid_params
/// — `message/stream` without a message is refused with a JSON-RPC error (-32602), not a
/// stream.
#[tokio::test]
async fn message_stream_invalid_params_is_an_error() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(V, Op::Stream, json!({"invalid": "params"}))
        .await;
    assert_a2a_error(&response, &response["id"], -32602);
}

/// TCK SUT scenario "Return message instead of task" over `message/stream` — a direct reply
/// is the stream's one event (a Message), then the stream ends.
#[tokio::test]
async fn message_stream_direct_reply_is_one_message() {
    let emulator = Emulator::conformance();
    let mut stream = emulator
        .stream(
            V,
            Op::Stream,
            V.send_params(&tck_id("message-response"), "Hello"),
        )
        .await;
    let message = stream.next_result().await;
    assert_eq!(message["kind"], "message", "{message}");
    assert_eq!(message["role"], "agent", "{message}");
    assert_eq!(message["parts"][0]["text"], "Direct message response");
    stream.expect_end().await;
}

/// TCK SUT scenario "Task requiring user input" over `message/stream` — the stream ends
/// with the input-required status, marked `final`.
#[tokio::test]
async fn message_stream_stops_at_input_required() {
    let emulator = Emulator::conformance();
    let mut stream = emulator
        .stream(
            V,
            Op::Stream,
            V.send_params(&tck_id("input-required"), "hi"),
        )
        .await;
    let first = stream.next_result().await;
    assert_eq!(first["kind"], "task", "{first}");
    let rest = stream.rest().await;
    let last = &rest.last().expect("a status update")["result"];
    assert_eq!(last["kind"], "status-update", "{last}");
    assert_eq!(last["status"]["state"], "input-required", "{last}");
    assert_eq!(last["final"], true, "{last}");
}

/// TCK capability-mandatory: optional/capabilities/test_streaming_methods::test_tasks_resubscribe
/// — while a `test-resubscribe-message-id` task streams, `tasks/resubscribe` on its id
/// answers a stream whose first event is the task (same id, not finished) and which ends
/// with its completion; the original stream completes too.
#[tokio::test]
async fn tasks_resubscribe_streams_a_running_task() {
    let emulator = conformance_emulator();
    let mut original = emulator
        .stream(
            V,
            Op::Stream,
            V.send_params(
                &unique_id("test-resubscribe-message-id"),
                "Test message for resubscribe",
            ),
        )
        .await;
    let first = original.next_result().await;
    let id = task_id(&first);

    let mut resubscribed = emulator.stream(V, Op::Subscribe, json!({"id": id})).await;
    let snapshot = resubscribed.next_result().await;
    assert_eq!(snapshot["kind"], "task", "{snapshot}");
    assert_eq!(snapshot["id"], id.as_str(), "{snapshot}");
    assert!(
        !is_terminal(V, snapshot["status"]["state"].as_str().unwrap()),
        "{snapshot}"
    );
    let rest = resubscribed.rest().await;
    let last = &rest.last().expect("the completion")["result"];
    assert_eq!(last["kind"], "status-update", "{last}");
    assert_eq!(last["status"]["state"], "completed", "{last}");
    assert_eq!(last["final"], true, "{last}");

    let original_rest = original.rest().await;
    let last = &original_rest.last().expect("the completion")["result"];
    assert_eq!(last["status"]["state"], "completed", "{last}");
}

/// TCK capability-mandatory: optional/capabilities/test_streaming_methods::
/// test_tasks_resubscribe_nonexistent
/// — resubscribing to an unknown task is -32001, with a message that says the task was not
/// found.
#[tokio::test]
async fn tasks_resubscribe_unknown_task_is_task_not_found() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(
            V,
            Op::Subscribe,
            json!({"id": unique_id("non-existent-task-id")}),
        )
        .await;
    let error = assert_a2a_error(&response, &response["id"], -32001);
    let message = error["message"].as_str().unwrap().to_lowercase();
    assert!(
        message.contains("not found") || message.contains("task"),
        "{response}"
    );
}

/// TCK mandatory: protocol/test_tasks_cancel_method::test_tasks_cancel_valid, streamed — a
/// resubscription to a working task sees its cancellation as the final event.
#[tokio::test]
async fn resubscription_sees_a_cancellation() {
    let emulator = Emulator::conformance();
    let working = emulator
        .send_task(V, V.send_params_at_once(&unique_id("slow"), "work"))
        .await;
    let id = task_id(&working);
    eventually("the task to be working", STEP_TIMEOUT, || async {
        (emulator.get_task(V, &id).await["status"]["state"] == "working").then_some(())
    })
    .await;
    let mut stream = emulator.stream(V, Op::Subscribe, json!({"id": id})).await;
    let snapshot = stream.next_result().await;
    assert_eq!(snapshot["status"]["state"], "working", "{snapshot}");
    emulator.result(V, Op::Cancel, json!({"id": id})).await;
    let rest = stream.rest().await;
    let last = &rest.last().expect("the cancellation")["result"];
    assert_eq!(last["status"]["state"], "canceled", "{last}");
    assert_eq!(last["final"], true, "{last}");
}
