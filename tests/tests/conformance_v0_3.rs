//! The A2A v0.3 conformance suite's mandatory scenarios that only v0.3 has, against the
//! real emulator serving the `conformance` agent (the cases both versions share, run in
//! each: `conformance.rs`).
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
    assert_a2a_error, follow_up, history_len, new_task, rpc_with_headers, send, task_id, tck_id,
    unique_id,
};
use a2a_test_support::harness::{Emulator, Op, STEP_TIMEOUT, Value, Version, eventually, json};

const V: Version = Version::V0_3;

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

/// TCK SUT scenarios (scenarios/core_operations.feature): "Task with text artifact",
/// "… file artifact", "… file URL artifact", "… data artifact", "Task rejected by
/// executor" — in v0.3 shapes: `kind`-tagged parts, `file.bytes`/`file.uri` with
/// `mimeType` and `name`.
#[tokio::test]
async fn message_send_artifact_and_rejection_scenarios() {
    let emulator = Emulator::conformance();
    let part_of = |task: &Value| task["artifacts"][0]["parts"][0].clone();

    let task = new_task(&emulator, V, &tck_id("artifact-text")).await;
    assert_eq!(task["status"]["state"], "completed", "{task}");
    assert_eq!(
        part_of(&task),
        json!({"kind": "text", "text": "Generated text content"})
    );

    let task = new_task(&emulator, V, &tck_id("artifact-file")).await;
    let part = part_of(&task);
    assert_eq!(part["kind"], "file", "{task}");
    assert_eq!(part["file"]["name"], "output.txt", "{task}");
    assert_eq!(part["file"]["mimeType"], "text/plain", "{task}");
    assert!(part["file"]["bytes"].is_string(), "{task}");

    let task = new_task(&emulator, V, &tck_id("artifact-file-url")).await;
    let part = part_of(&task);
    assert_eq!(part["kind"], "file", "{task}");
    assert_eq!(
        part["file"]["uri"], "https://example.com/output.txt",
        "{task}"
    );
    assert_eq!(part["file"]["name"], "output.txt", "{task}");
    assert_eq!(part["file"]["mimeType"], "text/plain", "{task}");

    let task = new_task(&emulator, V, &tck_id("artifact-data")).await;
    assert_eq!(
        part_of(&task),
        json!({"kind": "data", "data": {"key": "value", "count": 42}})
    );

    let task = new_task(&emulator, V, &tck_id("reject-task")).await;
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
        let task = new_task(&emulator, V, &first_id).await;
        assert_eq!(task["status"]["state"], "input-required", "{task}");
        assert_eq!(task["status"]["message"]["role"], "agent", "{task}");
        let id = task_id(&task);

        let more_id = unique_id("more");
        let response = send(&emulator, V, follow_up(V, &more_id, "more details", &id)).await;
        let task = &response["result"];
        assert_eq!(task["id"], id.as_str(), "{response}");
        assert_eq!(task["status"]["state"], "input-required", "{response}");

        let text = if finisher.starts_with("tck-") {
            "go"
        } else {
            "done"
        };
        let response = send(&emulator, V, follow_up(V, &finisher, text, &id)).await;
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
    let created = new_task(&emulator, V, &unique_id("get-test")).await;
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

/// TCK mandatory: protocol/test_state_transitions::test_task_history_length — after three
/// follow-ups the full history has more than two messages; `historyLength: 2` returns at
/// most two (the most recent).
#[tokio::test]
async fn history_length_limits_the_history() {
    let emulator = Emulator::conformance();
    let created = new_task(&emulator, V, &unique_id("test-history-create-message-id")).await;
    let id = task_id(&created);
    for turn in 1..=3 {
        let message_id = unique_id(&format!("test-history-message-{turn}"));
        let text = format!("Follow-up message {turn} for history test");
        let response = send(&emulator, V, follow_up(V, &message_id, &text, &id)).await;
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
// Method mapping
// ---------------------------------------------------------------------------------------

/// TCK mandatory: protocol/test_a2a_v030_new_methods::TestMethodMappingCompliance::
/// test_core_method_mapping_compliance — `message/send`, `tasks/get` and `tasks/cancel`
/// all answer about the same task id.
#[tokio::test]
async fn core_method_mapping_send_get_cancel() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &unique_id("mapping-test")).await;
    let id = task_id(&task);
    assert_eq!(emulator.get_task(V, &id).await["id"], id.as_str());
    assert_eq!(
        emulator.result(V, Op::Cancel, json!({"id": id})).await["id"],
        id.as_str()
    );
}

// ---------------------------------------------------------------------------------------
// Streaming (mandatory: the card declares capabilities.streaming)
// ---------------------------------------------------------------------------------------

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
