//! The A2A v1.0 conformance suite's MUST requirements that only v1.0 has, against the real
//! emulator serving the `conformance` agent over the JSON-RPC binding (the cases both
//! versions share, run in each: `conformance.rs`).
//!
//! Mirrors the requirement ids of the public TCK (a2aproject/a2a-tck, `tck/requirements/`:
//! CARD-*, CORE-*, STREAM-*, VER-*, JSONRPC-*, DM-*) and the scenarios its
//! `tests/compatibility/` modules run for them (`@must`), plus the v1.0 revision of the
//! mandatory JSON-RPC compliance scenarios. Requests send `A2A-Version: 1.0` unless a test
//! is about the header itself. Each test names the requirements it mirrors; the facts
//! checked are the suite's, the code is ours.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::conformance::{
    assert_a2a_error, conformance_emulator, event_state, follow_up, history_len, is_iso8601_utc,
    is_terminal, new_task, post_raw, request, rest_results, rpc_with_headers, send,
    snake_case_keys, stream_kind, task_id, tck_id, unique_id, values_of,
};
use a2a_test_support::harness::{
    Emulator, Op, STEP_TIMEOUT, SseStream, Value, Version, eventually, json,
};

const V: Version = Version::V1_0;
const V1: (&str, &str) = ("A2A-Version", "1.0");

/// `SendMessage` with `params`; the whole JSON-RPC response.
async fn send_params(emulator: &Emulator, params: Value) -> Value {
    emulator.call_op(V, Op::Send, params).await
}

fn state(name: &str) -> String {
    V.state(name)
}

/// A short account of stream events for failure messages: `task:TASK_STATE_…`,
/// `statusUpdate:TASK_STATE_…`, `artifactUpdate`, `message`.
fn summary(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            let kind = event
                .as_object()
                .and_then(|map| map.keys().next().cloned())
                .unwrap_or_default();
            match event_state(V, event) {
                Some(state) => format!("{kind}:{state}"),
                None => kind,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Agent card (CARD-*)
// ---------------------------------------------------------------------------------------

/// TCK CARD-DISC-001 (MUST), CARD-STRUCT-001 (MUST) — the card is served (with or without
/// the version header, the same document) and has name, description, supportedInterfaces,
/// version, capabilities, defaultInputModes, defaultOutputModes and skills, each skill
/// with id, name, description and tags.
#[tokio::test]
async fn agent_card_is_available_with_the_required_fields() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    let response = emulator
        .send(
            emulator
                .http()
                .get(emulator.url("/.well-known/agent-card.json"))
                .header(V1.0, V1.1),
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    let with_header: Value = response.json().await.unwrap();
    assert_eq!(with_header, card);

    for field in ["name", "description", "version"] {
        assert!(
            card[field].as_str().is_some_and(|text| !text.is_empty()),
            "{field}: {card}"
        );
    }
    assert!(
        card["supportedInterfaces"]
            .as_array()
            .is_some_and(|list| !list.is_empty()),
        "{card}"
    );
    assert!(card["capabilities"].is_object(), "{card}");
    for field in ["defaultInputModes", "defaultOutputModes"] {
        let modes = card[field].as_array().unwrap_or_else(|| panic!("{card}"));
        assert!(modes.iter().all(Value::is_string), "{card}");
    }
    let skills = card["skills"]
        .as_array()
        .unwrap_or_else(|| panic!("{card}"));
    assert!(!skills.is_empty(), "{card}");
    for skill in skills {
        for field in ["id", "name", "description"] {
            assert!(skill[field].is_string(), "{skill}");
        }
        assert!(skill["tags"].is_array(), "{skill}");
    }
}

/// TCK CARD-PROTO-001, CARD-PROTO-002 (MUST), VER-CLIENT-002 — each supported interface
/// declares its URL, its binding and its protocol version (Major.Minor, no patch); the
/// JSON-RPC 1.0 interface is declared and its URL really serves JSON-RPC at v1.0.
#[tokio::test]
async fn agent_card_declares_its_interfaces_accurately() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    for interface in interfaces {
        let url = interface["url"].as_str().unwrap_or_default();
        assert!(
            url.starts_with("http://") || url.starts_with("https://"),
            "{interface}"
        );
        assert!(
            ["JSONRPC", "GRPC", "HTTP+JSON"]
                .contains(&interface["protocolBinding"].as_str().unwrap_or_default()),
            "{interface}"
        );
        let version = interface["protocolVersion"].as_str().unwrap_or_default();
        assert_eq!(version.split('.').count(), 2, "Major.Minor: {interface}");
    }
    let jsonrpc_1_0 = interfaces
        .iter()
        .find(|interface| {
            interface["protocolBinding"] == "JSONRPC" && interface["protocolVersion"] == "1.0"
        })
        .unwrap_or_else(|| panic!("no JSONRPC 1.0 interface: {card}"));
    let url = jsonrpc_1_0["url"].as_str().unwrap();
    let response = emulator
        .send(
            emulator
                .http()
                .post(url)
                .header("content-type", "application/json")
                .header(V1.0, V1.1)
                .body(
                    request("probe", "GetTask", json!({"id": tck_id("nonexistent")})).to_string(),
                ),
        )
        .await;
    let body: Value = response.json().await.unwrap();
    assert_a2a_error(&body, &json!("probe"), -32001);
}

// ---------------------------------------------------------------------------------------
// JSON-RPC binding (JSONRPC-*), errors (CORE-ERR-*)
// ---------------------------------------------------------------------------------------

/// TCK JSONRPC-FMT-001, JSONRPC-FMT-002 (MUST) — a `SendMessage` answer is a JSON-RPC 2.0
/// response (`jsonrpc`, the request's `id`, exactly one of result/error) with
/// `Content-Type: application/json`.
#[tokio::test]
async fn responses_are_json_rpc_2_0_with_json_content_type() {
    let emulator = Emulator::conformance();
    let body = request(
        "fmt-1",
        "SendMessage",
        V.send_params(
            &tck_id("transport-test-001"),
            "Hello from TCK transport test",
        ),
    );
    let response = post_raw(
        &emulator,
        &[("content-type", "application/json"), V1],
        body.to_string(),
    )
    .await;
    assert_eq!(response.status, 200);
    assert!(
        response
            .content_type()
            .is_some_and(|value| value.starts_with("application/json")),
        "{:?}",
        response.content_type()
    );
    let answer = response.json();
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    assert_eq!(answer["id"], "fmt-1", "{answer}");
    assert!(answer.get("result").is_some() != answer.get("error").is_some());
}

/// TCK JSONRPC-ERR-001, JSONRPC-ERR-002, JSONRPC-ERR-003, JSONRPC-SSE-002 (MUST) and
/// CORE-GET-002 — `GetTask` of an unknown id: the error object has only code, message and
/// data; the code is TaskNotFoundError's -32001 (in the A2A range); `data` holds a
/// `google.rpc.ErrorInfo` with domain `a2a-protocol.org` and reason `TASK_NOT_FOUND`.
#[tokio::test]
async fn task_not_found_error_is_well_formed() {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(V, Op::Get, json!({"id": tck_id("nonexistent-err-test")}))
        .await;
    assert_a2a_error(&response, &response["id"], -32001);
}

/// TCK JSONRPC-SSE-002 (MUST): jsonrpc/test_error_codes::test_content_type_not_supported_error
/// — a JSON-RPC request sent as `text/plain` is answered with ContentTypeNotSupportedError
/// (-32005) and its ErrorInfo.
#[tokio::test]
async fn wrong_content_type_is_content_type_not_supported() {
    let emulator = Emulator::conformance();
    let body = request(
        "1",
        "SendMessage",
        V.send_params(&tck_id("error-code-005"), "content type test"),
    );
    let response = post_raw(
        &emulator,
        &[("content-type", "text/plain"), V1],
        body.to_string(),
    )
    .await;
    assert_eq!(response.status, 200, "{}", response.text);
    let answer = response.json();
    assert_eq!(answer["error"]["code"], -32005, "{answer}");
    assert_a2a_error(&answer, &answer["id"], -32005);
}

/// TCK JSONRPC-SVC-002 (MUST) — service parameters travel as HTTP headers: a request with
/// `A2A-Extensions` naming extensions the agent does not know is served, not failed.
#[tokio::test]
async fn extensions_header_is_accepted() {
    let emulator = Emulator::conformance();
    let body = request(
        "ext-1",
        "SendMessage",
        V.send_params(&tck_id("complete-task"), "Extensions header test"),
    );
    let response = rpc_with_headers(
        &emulator,
        &[
            V1,
            (
                "A2A-Extensions",
                "https://example.com/ext/v1,https://example.com/ext/v2",
            ),
        ],
        &body,
    )
    .await;
    assert_eq!(
        response["result"]["task"]["status"]["state"],
        state("completed"),
        "{response}"
    );
}

// ---------------------------------------------------------------------------------------
// Versioning (VER-*)
// ---------------------------------------------------------------------------------------

/// TCK VER-SERVER-002 (MUST), JSONRPC-SSE-002:
/// jsonrpc/test_error_codes::test_version_not_supported_error
/// and test_error_code_in_valid_range — an `A2A-Version` the interface does not support
/// is VersionNotSupportedError (-32009, reason VERSION_NOT_SUPPORTED), HTTP 200, id echoed.
#[tokio::test]
async fn unsupported_version_is_version_not_supported() {
    let emulator = Emulator::conformance();
    for version in ["99.0", "2.0", "0.4"] {
        let body = request(
            "ver-1",
            "SendMessage",
            V.send_params(&tck_id("ver-002"), "version test"),
        );
        let response = rpc_with_headers(&emulator, &[("A2A-Version", version)], &body).await;
        assert_a2a_error(&response, &json!("ver-1"), -32009);
    }
}

/// TCK VER-SERVER-003 (MUST) — an empty `A2A-Version` is interpreted as 0.3: a v0.3
/// `message/send` is served with v0.3 semantics, and a v1.0 `SendMessage` gets a
/// well-formed JSON-RPC answer (never a crash).
#[tokio::test]
async fn empty_version_header_means_0_3() {
    let emulator = Emulator::conformance();
    let empty = ("A2A-Version", "");
    let body = request(
        "e-1",
        "message/send",
        Version::V0_3.send_params(&tck_id("complete-task"), "empty version test"),
    );
    let response = rpc_with_headers(&emulator, &[empty], &body).await;
    assert_eq!(response["result"]["kind"], "task", "{response}");
    assert_eq!(
        response["result"]["status"]["state"], "completed",
        "{response}"
    );

    let body = request(
        "e-2",
        "SendMessage",
        V.send_params(&tck_id("ver-003"), "empty version test"),
    );
    let response = rpc_with_headers(&emulator, &[empty], &body).await;
    assert_eq!(response["id"], "e-2", "{response}");
    assert!(
        response.get("result").is_some() || response.get("error").is_some(),
        "{response}"
    );
}

/// TCK VER-SERVER-001 (MUST), VER-CLIENT-002 (MUST) — requests are processed with the
/// semantics of the requested Major.Minor: `1.0`, `1.0.0`, `1.0.1` (patch ignored) and the
/// `A2A-Version` query parameter all give v1.0 shapes (`{"task": …}`, `TASK_STATE_*`,
/// `ROLE_*`), while the same task read without a version is v0.3 (`kind`, lowercase
/// states).
#[tokio::test]
async fn requests_are_served_with_the_requested_version() {
    let emulator = Emulator::conformance();
    let mut ids = Vec::new();
    for version in ["1.0", "1.0.0", "1.0.1"] {
        let body = request(
            "v",
            "SendMessage",
            V.send_params(&tck_id("complete-task"), "hi"),
        );
        let response = rpc_with_headers(&emulator, &[("A2A-Version", version)], &body).await;
        let task = &response["result"]["task"];
        assert_eq!(task["status"]["state"], state("completed"), "{response}");
        assert_eq!(
            task["status"]["message"]["role"], "ROLE_AGENT",
            "{response}"
        );
        ids.push(task_id(task));
    }
    let response = post_raw(
        &emulator,
        &[("content-type", "application/json")],
        request("q", "GetTask", json!({"id": ids[0]})).to_string(),
    )
    .await;
    // Without header or query a v1.0 method is not served as v1.0…
    assert!(response.json().get("error").is_some(), "{}", response.text);
    // …with the query parameter it is.
    let answer = emulator
        .send(
            emulator
                .http()
                .post(emulator.url("/?A2A-Version=1.0"))
                .header("content-type", "application/json")
                .body(request("q", "GetTask", json!({"id": ids[0]})).to_string()),
        )
        .await
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(answer["result"]["id"], ids[0].as_str(), "{answer}");
    assert_eq!(
        answer["result"]["status"]["state"],
        state("completed"),
        "{answer}"
    );
    assert!(answer["result"].get("kind").is_none(), "{answer}");

    let v0_3 = emulator.get_task(Version::V0_3, &ids[0]).await;
    assert_eq!(v0_3["kind"], "task", "{v0_3}");
    assert_eq!(v0_3["status"]["state"], "completed", "{v0_3}");
    assert_eq!(v0_3["status"]["message"]["role"], "agent", "{v0_3}");
}

// ---------------------------------------------------------------------------------------
// SendMessage (CORE-SEND-*), multi-turn (CORE-MULTI-*), execution mode
// ---------------------------------------------------------------------------------------

/// TCK CORE-SEND-002 (MUST) — a message to a task in a terminal state (completed,
/// rejected, canceled) is UnsupportedOperationError (-32004).
#[tokio::test]
async fn send_message_to_a_terminal_task_is_unsupported() {
    let emulator = Emulator::conformance();
    let completed = new_task(&emulator, V, &tck_id("complete-task")).await;
    let rejected = new_task(&emulator, V, &tck_id("reject-task")).await;
    assert_eq!(rejected["status"]["state"], state("rejected"), "{rejected}");
    let canceled = new_task(&emulator, V, &tck_id("input-required")).await;
    emulator
        .result(V, Op::Cancel, json!({"id": task_id(&canceled)}))
        .await;
    for task in [completed, rejected, canceled] {
        let response = send(
            &emulator,
            V,
            follow_up(
                V,
                &tck_id("terminal"),
                "Follow-up to terminal task",
                &task_id(&task),
            ),
        )
        .await;
        assert_a2a_error(&response, &response["id"], -32004);
    }
}

/// TCK CORE-SEND-003 (MUST) — "A Media Type provided in the request's message parts that
/// is not supported by the agent MUST result in ContentTypeNotSupportedError": the card's
/// defaultInputModes do not include `application/x-unsupported-tck-type`, so a part of that
/// type is -32005.
#[tokio::test]
async fn send_message_with_an_unsupported_media_type_is_refused() {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    let modes = card["defaultInputModes"].as_array().unwrap();
    assert!(
        !modes.contains(&json!("application/x-unsupported-tck-type"))
            && !modes.contains(&json!("*/*")),
        "{card}"
    );
    let message = json!({"role": "ROLE_USER", "messageId": tck_id("send-003"),
        "parts": [{"raw": "dGNr", "mediaType": "application/x-unsupported-tck-type"}]});
    let response = send(&emulator, V, message).await;
    assert_a2a_error(&response, &response["id"], -32005);
}

/// TCK CORE-MULTI-001a, CORE-MULTI-002a, CORE-MULTI-003 (MUST) — without a contextId the
/// response (Task or Message) includes the one the agent generated; a client contextId
/// is accepted and kept (not replaced by a generated one); every new task gets its own
/// server-generated id.
#[tokio::test]
async fn context_and_task_ids_are_generated_and_kept() {
    let emulator = Emulator::conformance();
    let first = new_task(&emulator, V, &tck_id("complete-task")).await;
    let second = new_task(&emulator, V, &tck_id("complete-task")).await;
    for task in [&first, &second] {
        assert!(
            task["contextId"].as_str().is_some_and(|id| !id.is_empty()),
            "{task}"
        );
    }
    assert_ne!(task_id(&first), task_id(&second));
    let response = send(
        &emulator,
        V,
        V.user_message(&tck_id("message-response"), "Hello"),
    )
    .await;
    assert!(
        response["result"]["message"]["contextId"]
            .as_str()
            .is_some_and(|id| !id.is_empty()),
        "{response}"
    );

    let context = tck_id("client-context-001");
    let mut message = V.user_message(&tck_id("complete-task"), "Message with contextId");
    message["contextId"] = json!(context);
    let response = send(&emulator, V, message).await;
    assert_eq!(
        response["result"]["task"]["contextId"],
        context.as_str(),
        "{response}"
    );
}

/// TCK CORE-MULTI-004 (MUST) — a message naming a taskId that does not exist is
/// TaskNotFoundError (-32001).
#[tokio::test]
async fn send_message_to_an_unknown_task_is_task_not_found() {
    let emulator = Emulator::conformance();
    let response = send(
        &emulator,
        V,
        follow_up(
            V,
            &tck_id("multi-004"),
            "Message to invalid task",
            &tck_id("nonexistent-multi-004"),
        ),
    )
    .await;
    assert_a2a_error(&response, &response["id"], -32001);
}

/// TCK CORE-MULTI-006 (MUST) — a message whose contextId differs from its task's is
/// rejected (for a completed and for an open task), and the task is left as it was.
#[tokio::test]
async fn mismatching_context_and_task_ids_are_rejected() {
    let emulator = Emulator::conformance();
    for prefix in ["complete-task", "input-required"] {
        let task = new_task(&emulator, V, &tck_id(prefix)).await;
        let id = task_id(&task);
        let mut message = follow_up(V, &tck_id("mismatch"), "Mismatched context test", &id);
        message["contextId"] = json!(tck_id("wrong-context"));
        let response = send(&emulator, V, message).await;
        assert!(response.get("error").is_some(), "{response}");
        assert!(response.get("result").is_none(), "{response}");
        assert_eq!(
            emulator.get_task(V, &id).await["status"],
            task["status"],
            "the task is unchanged"
        );
    }
}

/// TCK CORE-EXECUTION-MODE-001 (MUST): compatibility/core_operations/test_task_input_required
/// — a blocking send that needs input returns the task in TASK_STATE_INPUT_REQUIRED (not a
/// terminal state); a blocking follow-up that completes it returns it terminal.
#[tokio::test]
async fn blocking_send_waits_for_interrupted_and_terminal_states() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("input-required")).await;
    assert_eq!(task["status"]["state"], state("input-required"), "{task}");
    let response = send(
        &emulator,
        V,
        follow_up(
            V,
            &tck_id("complete-task"),
            "TCK follow-up completion",
            &task_id(&task),
        ),
    )
    .await;
    let done = event_state(V, &response["result"]).unwrap_or_default();
    assert!(is_terminal(V, &done), "{response}");
}

/// TCK CORE-EXECUTION-MODE-001, CORE-EXECUTION-MODE-002 (MUST):
/// compatibility/core_operations/test_execution_mode
/// with the SUT scenario "Work before completing the task" (`tck-delayed-complete`: working
/// for one streaming timeout, then completed) — a blocking send (`returnImmediately:
/// false`) returns the task terminal; a non-blocking one returns it before it completes.
#[tokio::test]
async fn execution_mode_with_a_delayed_completion() {
    let emulator = conformance_emulator();
    let response = send_params(
        &emulator,
        json!({"message": V.user_message(&tck_id("delayed-complete"), "Execution-mode probe"),
            "configuration": {"returnImmediately": false}}),
    )
    .await;
    let blocking = event_state(V, &response["result"]).unwrap_or_default();
    let response_at_once = send_params(
        &emulator,
        json!({"message": V.user_message(&tck_id("delayed-complete"), "Execution-mode probe"),
            "configuration": {"returnImmediately": true}}),
    )
    .await;
    let at_once = event_state(V, &response_at_once["result"]).unwrap_or_default();
    assert!(
        !is_terminal(V, &at_once),
        "a non-blocking send returned a finished task: {response_at_once}"
    );
    assert!(
        is_terminal(V, &blocking),
        "a blocking send of tck-delayed-complete returned the task in {blocking}, not terminal \
         (task {})",
        response["result"]["task"]["id"]
    );
}

// ---------------------------------------------------------------------------------------
// GetTask (CORE-GET-*), history (CORE-HIST-*), ListTasks (CORE-LIST-*)
// ---------------------------------------------------------------------------------------

/// TCK CORE-GET-001 (MUST) — GetTask returns the task's current state: its id, status and
/// artifacts.
#[tokio::test]
async fn get_task_returns_the_current_state() {
    let emulator = Emulator::conformance();
    let created = new_task(&emulator, V, &tck_id("artifact-text")).await;
    let id = task_id(&created);
    let task = emulator.get_task(V, &id).await;
    assert_eq!(task["id"], id.as_str(), "{task}");
    assert_eq!(task["status"]["state"], state("completed"), "{task}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"], "Generated text content",
        "{task}"
    );
}

/// TCK CORE-HIST-002 (MUST), with CORE-HIST-001/003 (SHOULD) and CORE-HIST-004 (MAY):
/// compatibility/core_operations/test_task_history — on a multi-turn task, GetTask never
/// returns more history than `historyLength`; 0 returns none (GetTask and SendMessage);
/// a large value returns the persisted messages.
#[tokio::test]
async fn history_length_is_honoured() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("input-required")).await;
    let id = task_id(&task);
    let response = send(
        &emulator,
        V,
        follow_up(
            V,
            &tck_id("complete-task"),
            "TCK follow-up for history",
            &id,
        ),
    )
    .await;
    assert_eq!(
        response["result"]["task"]["status"]["state"],
        state("completed")
    );

    let limited = emulator
        .result(V, Op::Get, json!({"id": id, "historyLength": 1}))
        .await;
    assert!(history_len(&limited) <= 1, "{limited}");
    let none = emulator
        .result(V, Op::Get, json!({"id": id, "historyLength": 0}))
        .await;
    assert_eq!(history_len(&none), 0, "{none}");
    let all = emulator
        .result(V, Op::Get, json!({"id": id, "historyLength": 10}))
        .await;
    assert!(history_len(&all) >= 2, "{all}");

    let open = new_task(&emulator, V, &tck_id("input-required")).await;
    let response = send_params(
        &emulator,
        json!({"message": follow_up(V, &tck_id("complete-task"), "No history", &task_id(&open)),
            "configuration": {"historyLength": 0}}),
    )
    .await;
    assert_eq!(history_len(&response["result"]["task"]), 0, "{response}");
}

/// TCK CORE-LIST-001 … CORE-LIST-005 (MUST) — ListTasks filtered by context returns only
/// that context's tasks, newest status first; pages with `pageSize`/`pageToken` and
/// `nextPageToken` (always present, "" on the last page); artifacts are left out unless
/// `includeArtifacts` is true.
#[tokio::test]
async fn list_tasks_filters_pages_sorts_and_omits_artifacts() {
    let emulator = Emulator::conformance();
    let context = tck_id("test-context");
    let mut created = Vec::new();
    for _ in 0..3 {
        let mut message = V.user_message(&tck_id("artifact-text"), "make it");
        message["contextId"] = json!(context);
        let response = send(&emulator, V, message).await;
        created.push(task_id(&response["result"]["task"]));
    }
    new_task(&emulator, V, &tck_id("complete-task")).await; // another context

    let everything = emulator
        .result(V, Op::List, json!({"contextId": context, "pageSize": 100}))
        .await;
    assert_eq!(everything["nextPageToken"], "", "{everything}");
    let tasks = everything["tasks"].as_array().unwrap();
    let mut listed: Vec<String> = tasks.iter().map(task_id).collect();
    assert!(
        tasks
            .iter()
            .all(|task| task["contextId"] == context.as_str()),
        "{everything}"
    );
    let stamps: Vec<&str> = tasks
        .iter()
        .map(|task| task["status"]["timestamp"].as_str().unwrap())
        .collect();
    assert!(
        stamps.windows(2).all(|pair| pair[0] >= pair[1]),
        "most recently updated first: {stamps:?}"
    );
    assert!(
        tasks.iter().all(|task| task.get("artifacts").is_none()),
        "{everything}"
    );
    listed.sort();
    created.sort();
    assert_eq!(listed, created);

    let first = emulator
        .result(V, Op::List, json!({"contextId": context, "pageSize": 2}))
        .await;
    assert_eq!(first["tasks"].as_array().unwrap().len(), 2, "{first}");
    let token = first["nextPageToken"].as_str().unwrap();
    assert!(!token.is_empty(), "{first}");
    let second = emulator
        .result(
            V,
            Op::List,
            json!({"contextId": context, "pageSize": 2, "pageToken": token}),
        )
        .await;
    assert_eq!(second["tasks"].as_array().unwrap().len(), 1, "{second}");
    assert_eq!(second["nextPageToken"], "", "{second}");

    let with_artifacts = emulator
        .result(
            V,
            Op::List,
            json!({"contextId": context, "includeArtifacts": true}),
        )
        .await;
    assert!(
        with_artifacts["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|task| task["artifacts"].is_array()),
        "{with_artifacts}"
    );
}

// ---------------------------------------------------------------------------------------
// SubscribeToTask (STREAM-SUB-*), multiple streams (STREAM-ORDER-002…004)
// ---------------------------------------------------------------------------------------

/// TCK STREAM-SUB-001 (MUST):
/// compatibility/jsonrpc/test_sse_streaming::test_subscribe_first_event_is_task
/// — SubscribeToTask on an open (input-required) task first sends the Task as it is now.
#[tokio::test]
async fn subscribe_first_event_is_the_current_task() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("input-required")).await;
    let id = task_id(&task);
    let mut stream = emulator.stream(V, Op::Subscribe, json!({"id": id})).await;
    let first = stream.next_result().await;
    assert_eq!(stream_kind(&first), "task", "{first}");
    assert_eq!(first["task"]["id"], id.as_str(), "{first}");
    assert_eq!(first["task"]["status"], task["status"], "{first}");
}

/// TCK STREAM-SUB-002 (MUST): compatibility/core_operations/test_task_lifecycle::
/// test_subscribe_terminates_at_terminal_state
/// — "The SubscribeToTask stream MUST terminate when the task reaches a terminal state":
/// subscribed to an input-required task, the stream stays open while a follow-up
/// (tck-complete-task) completes the task, and its last event carries the terminal state.
#[tokio::test]
async fn subscribe_stream_ends_at_the_terminal_state() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("input-required")).await;
    let id = task_id(&task);
    let mut stream = emulator.stream(V, Op::Subscribe, json!({"id": id})).await;
    let first = stream.next_result().await;
    let response = send(
        &emulator,
        V,
        follow_up(V, &tck_id("complete-task"), "Complete", &id),
    )
    .await;
    assert_eq!(
        response["result"]["task"]["status"]["state"],
        state("completed"),
        "{response}"
    );
    let rest = rest_results(&mut stream).await;
    let last = rest.last().unwrap_or(&first);
    assert!(
        event_state(V, last).is_some_and(|name| is_terminal(V, &name)),
        "the stream closed without the terminal state; its events: {:?}",
        summary(&[vec![first.clone()], rest.clone()].concat())
    );
}

/// TCK STREAM-SUB-003 (MUST) — SubscribeToTask on a task in a terminal state is
/// UnsupportedOperationError (-32004), not a stream.
#[tokio::test]
async fn subscribe_to_a_terminal_task_is_unsupported() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("complete-task")).await;
    let response = emulator
        .call_op(V, Op::Subscribe, json!({"id": task_id(&task)}))
        .await;
    assert_a2a_error(&response, &response["id"], -32004);
}

/// Opens `count` subscriptions to `id` and reads each one's first event.
async fn subscribe(emulator: &Emulator, id: &str, count: usize) -> (Vec<SseStream>, Vec<Value>) {
    let mut streams = Vec::new();
    let mut firsts = Vec::new();
    for _ in 0..count {
        let mut stream = emulator.stream(V, Op::Subscribe, json!({"id": id})).await;
        firsts.push(stream.next_result().await);
        streams.push(stream);
    }
    (streams, firsts)
}

/// TCK STREAM-ORDER-002, STREAM-ORDER-003 (MUST): compatibility/core_operations/test_multi_stream
/// — two SubscribeToTask streams on an input-required task both receive the events that
/// follow (the follow-up completing it), the same events in the same order.
#[tokio::test]
async fn events_reach_every_subscriber_of_an_open_task_in_order() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("input-required")).await;
    let id = task_id(&task);
    let (mut streams, firsts) = subscribe(&emulator, &id, 2).await;
    send(
        &emulator,
        V,
        follow_up(
            V,
            &tck_id("complete-task"),
            "Complete multi-stream task",
            &id,
        ),
    )
    .await;
    let mut seen = Vec::new();
    for (stream, first) in streams.iter_mut().zip(firsts) {
        let mut events = vec![first];
        events.extend(rest_results(stream).await);
        seen.push(events);
    }
    for events in &seen {
        assert!(
            events.len() >= 2,
            "a subscriber received only the initial Task, nothing after it: {:?}",
            summary(events)
        );
    }
    assert_eq!(seen[0], seen[1], "the streams differ");
}

/// TCK STREAM-ORDER-004 (MUST): compatibility/core_operations/test_multi_stream::
/// test_closing_one_stream_does_not_affect_others
/// — with two subscribers on an input-required task, closing one after its first event
/// leaves the other receiving what follows.
#[tokio::test]
async fn closing_one_subscriber_leaves_the_other() {
    let emulator = Emulator::conformance();
    let task = new_task(&emulator, V, &tck_id("input-required")).await;
    let id = task_id(&task);
    let (mut streams, firsts) = subscribe(&emulator, &id, 2).await;
    drop(streams.remove(0));
    send(
        &emulator,
        V,
        follow_up(
            V,
            &tck_id("complete-task"),
            "Complete multi-stream task",
            &id,
        ),
    )
    .await;
    let rest = rest_results(&mut streams[0]).await;
    assert!(
        !rest.is_empty(),
        "the remaining stream received nothing after {:?}",
        summary(&firsts[1..])
    );
}

/// TCK STREAM-ORDER-002, STREAM-ORDER-003, STREAM-ORDER-004 (MUST) on a working task (`slow-`,
/// ended by CancelTask) rather than an input-required one — both subscribers get the same
/// events in the same order, ending with the cancellation, and closing a third early
/// affects neither.
#[tokio::test]
async fn events_reach_every_subscriber_of_a_working_task_in_order() {
    let emulator = Emulator::conformance();
    let response = send_params(
        &emulator,
        json!({"message": V.user_message(&unique_id("slow"), "work"),
            "configuration": {"returnImmediately": true}}),
    )
    .await;
    let id = task_id(&response["result"]["task"]);
    eventually("the task to be working", STEP_TIMEOUT, || async {
        (emulator.get_task(V, &id).await["status"]["state"] == state("working")).then_some(())
    })
    .await;
    let (mut streams, firsts) = subscribe(&emulator, &id, 3).await;
    drop(streams.remove(2));
    emulator.result(V, Op::Cancel, json!({"id": id})).await;
    let mut seen = Vec::new();
    for (stream, first) in streams.iter_mut().zip(firsts) {
        let mut events = vec![first];
        events.extend(rest_results(stream).await);
        seen.push(events);
    }
    for events in &seen {
        assert!(events.len() >= 2, "{events:?}");
        assert_eq!(
            event_state(V, events.last().unwrap()).as_deref(),
            Some(state("canceled").as_str()),
            "{events:?}"
        );
    }
    assert_eq!(seen[0], seen[1], "the streams differ");
}

// ---------------------------------------------------------------------------------------
// Data model and serialization (DM-*)
// ---------------------------------------------------------------------------------------

/// TCK DM-TASK-001/002, DM-MSG-001/002, DM-PART-001, DM-ART-001, DM-STATUS-001,
/// DM-SERIAL-001…004 (MUST): compatibility/core_operations/test_data_model — across send
/// results (task, message, every artifact kind), GetTask and stream events: field names
/// are camelCase; enums are strings (`TASK_STATE_*`, `ROLE_*`); timestamps are ISO 8601
/// UTC with `Z`; tasks have id, contextId and status.state; messages have messageId, role
/// and parts; artifacts have artifactId and parts; every part holds exactly one of
/// text/raw/url/data.
#[tokio::test]
async fn responses_follow_the_data_model_and_serialization_rules() {
    let emulator = Emulator::conformance();
    let mut documents = Vec::new();
    for prefix in [
        "dm-test-001",
        "complete-task",
        "message-response",
        "artifact-text",
        "artifact-file",
        "artifact-file-url",
        "artifact-data",
        "reject-task",
    ] {
        let response = send(
            &emulator,
            V,
            V.user_message(&tck_id(prefix), "Hello from TCK data model test"),
        )
        .await;
        assert!(response.get("result").is_some(), "{response}");
        if let Some(id) = response["result"]["task"]["id"].as_str() {
            documents.push(emulator.get_task(V, id).await);
        }
        documents.push(response);
    }
    let mut stream = emulator
        .stream(
            V,
            Op::Stream,
            V.send_params(&tck_id("stream-003"), "Stream task lifecycle"),
        )
        .await;
    documents.extend(stream.rest().await);

    for document in &documents {
        assert!(
            snake_case_keys(document).is_empty(),
            "snake_case keys: {document}"
        );
        for value in values_of(document, "state") {
            assert!(
                value
                    .as_str()
                    .is_some_and(|name| name.starts_with("TASK_STATE_")),
                "{document}"
            );
        }
        for value in values_of(document, "role") {
            assert!(
                ["ROLE_USER", "ROLE_AGENT"].contains(&value.as_str().unwrap_or_default()),
                "{document}"
            );
        }
        for value in values_of(document, "timestamp") {
            assert!(value.as_str().is_some_and(is_iso8601_utc), "{document}");
        }
        for status in values_of(document, "status") {
            assert!(status["state"].is_string(), "{document}");
        }
        for parts in values_of(document, "parts") {
            let parts = parts.as_array().unwrap_or_else(|| panic!("{document}"));
            assert!(!parts.is_empty(), "{document}");
            for part in parts {
                let contents = ["text", "raw", "url", "data"]
                    .iter()
                    .filter(|key| part.get(**key).is_some())
                    .count();
                assert_eq!(contents, 1, "one of text/raw/url/data: {part}");
            }
        }
        for message in values_of(document, "message").into_iter().chain(
            values_of(document, "history").into_iter().flat_map(|list| {
                list.as_array()
                    .map(|items| items.iter().collect::<Vec<_>>())
                    .unwrap_or_default()
            }),
        ) {
            for field in ["messageId", "role", "parts"] {
                assert!(
                    message.get(field).is_some(),
                    "message lacks {field}: {document}"
                );
            }
        }
        for artifacts in values_of(document, "artifacts") {
            for artifact in artifacts.as_array().unwrap() {
                assert!(artifact["artifactId"].is_string(), "{document}");
                assert!(artifact["parts"].is_array(), "{document}");
            }
        }
        for task in values_of(document, "task") {
            for field in ["id", "contextId"] {
                assert!(task[field].is_string(), "task lacks {field}: {document}");
            }
            assert!(task["status"]["state"].is_string(), "{document}");
        }
    }
}
