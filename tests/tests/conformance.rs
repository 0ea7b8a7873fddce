//! The conformance cases both protocol versions share, against the real emulator serving
//! the `conformance` agent: one table ([`per_version!`]) run once per version, as
//! `v0_3::{case}` (no `A2A-Version` header) and `v1_0::{case}` (`A2A-Version: 1.0`).
//!
//! Each case mirrors a scenario of the public TCK (a2aproject/a2a-tck) in both of its
//! revisions: the v0.3 suite's mandatory tests (`tests/mandatory/`, and the streaming
//! tests it makes mandatory when the card declares streaming) and the v1.0 suite's MUST
//! requirements (CORE-*, STREAM-*, JSONRPC-*). A case checks what either revision checks,
//! in each version's shapes. The cases of one version only are in `conformance_v0_3.rs`
//! and `conformance_v1_0.rs`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::conformance::{
    assert_a2a_error, conformance_emulator, event_state, follow_up, is_terminal, new_task,
    post_raw, rest_results, rpc_with_headers, send, stream_kind, task_id, tck_id, unique_id,
};
use a2a_test_support::harness::{Emulator, Op, Value, Version, header, json};

/// Runs each case once per version: `v0_3::{case}` and `v1_0::{case}`.
macro_rules! per_version {
    ($($case:ident),* $(,)?) => {
        mod v0_3 {
            $(
                #[tokio::test]
                async fn $case() {
                    super::$case(super::Version::V0_3).await;
                }
            )*
        }
        mod v1_0 {
            $(
                #[tokio::test]
                async fn $case() {
                    super::$case(super::Version::V1_0).await;
                }
            )*
        }
    };
}

per_version![
    malformed_json_is_a_parse_error,
    invalid_requests_get_their_precise_codes,
    unknown_method_is_method_not_found,
    invalid_send_parameters_are_invalid_params,
    send_returns_a_task_or_a_message,
    a_follow_up_naming_the_task_continues_it,
    get_of_an_unknown_task_is_task_not_found,
    cancel_of_an_unknown_task_is_task_not_found,
    subscribe_to_an_unknown_task_is_task_not_found,
    cancel_returns_the_canceled_task,
    a_task_sent_at_once_is_returned_unfinished_and_can_be_canceled,
    cancel_of_a_finished_task_is_not_cancelable,
    push_notification_methods_are_not_supported_when_off,
    extended_card_is_not_offered,
    stream_events_are_well_formed_and_ordered,
    stream_of_a_direct_reply_is_one_message,
    stream_stops_at_input_required,
    subscribe_to_a_streaming_task_follows_it_to_completion,
];

/// The states a send answer may carry (the v0.3 suite's accepted set).
const SEND_STATES: [&str; 4] = ["submitted", "working", "input-required", "completed"];

/// The task or message a send result holds: v0.3 the result itself (`kind` checked), v1.0
/// its one field (`{"task": …}` or `{"message": …}`, nothing else).
fn sent(version: Version, result: &Value, kind: &str) -> Value {
    match version {
        Version::V0_3 => {
            assert_eq!(result["kind"], kind, "{result}");
            result.clone()
        }
        Version::V1_0 => {
            let fields = result.as_object().unwrap();
            assert_eq!(fields.keys().collect::<Vec<_>>(), [kind], "{result}");
            result[kind].clone()
        }
    }
}

/// A stream event's kind and body: `task`, `message`, `status` or `artifact` (v0.3: its
/// `kind`; v1.0: its one field, checked by [`stream_kind`]).
fn update(version: Version, event: &Value) -> (&'static str, &Value) {
    match version {
        Version::V0_3 => {
            let kind = match event["kind"].as_str() {
                Some("task") => "task",
                Some("message") => "message",
                Some("status-update") => "status",
                Some("artifact-update") => "artifact",
                _ => panic!("unexpected event kind: {event}"),
            };
            (kind, event)
        }
        Version::V1_0 => {
            let field = stream_kind(event);
            let kind = match field {
                "task" => "task",
                "message" => "message",
                "statusUpdate" => "status",
                _ => "artifact",
            };
            (kind, &event[field])
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON-RPC 2.0 compliance
// ---------------------------------------------------------------------------------------

/// v0.3: jsonrpc/test_json_rpc_compliance::test_rejects_malformed_json and
/// jsonrpc/test_protocol_violations::test_raw_invalid_json; v1.0 (its revision, JSONRPC-*):
/// the same — syntactically invalid JSON is answered (HTTP 200) with -32700 and a null id.
async fn malformed_json_is_a_parse_error(version: Version) {
    let emulator = Emulator::conformance();
    let method = version.method(Op::Send);
    let mut headers = vec![("content-type", "application/json")];
    headers.extend(version.headers());
    for body in [
        format!(r#"{{"jsonrpc": "2.0", "method": "{method}", "params": {{"foo": "bar"}}"#),
        format!(r#"{{"jsonrpc": "2.0", "method": "{method}", "params": {{"unclosed_object": true"#),
    ] {
        let response = post_raw(&emulator, &headers, body).await;
        assert_eq!(response.status, 200, "{}", response.text);
        assert_a2a_error(&response.json(), &Value::Null, -32700);
    }
}

/// v0.3: jsonrpc/test_json_rpc_compliance::test_rejects_invalid_json_rpc_requests; v1.0:
/// its revision with v1.0 method names — each malformed request gets HTTP 200 and its
/// precise code: a wrong or missing `jsonrpc` and a missing `method` -32600, an unknown
/// method -32601, an object id -32600, params of the wrong shape -32602.
async fn invalid_requests_get_their_precise_codes(version: Version) {
    let emulator = Emulator::conformance();
    let send = version.method(Op::Send);
    let unknown = match version {
        Version::V0_3 => "message/ssend",
        Version::V1_0 => "SendMessageXXX",
    };
    let cases = [
        (
            json!({"jsonrpc": "aaa", "method": send, "params": {}}),
            Value::Null,
            -32600,
        ),
        (json!({"method": send, "params": {}}), Value::Null, -32600),
        (json!({"jsonrpc": "2.0", "params": {}}), Value::Null, -32600),
        (
            json!({"jsonrpc": "2.0", "method": unknown, "id": "3", "params": {}}),
            json!("3"),
            -32601,
        ),
        (
            json!({"jsonrpc": "2.0", "method": send, "params": {}, "id": {"bad": "type"}}),
            Value::Null,
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "method": send, "id": "4", "params": {"": "not_a_dict"}}),
            json!("4"),
            -32602,
        ),
    ];
    for (body, id, code) in cases {
        let response = rpc_with_headers(&emulator, &version.headers(), &body).await;
        assert_a2a_error(&response, &id, code);
    }
}

/// v0.3: jsonrpc/test_json_rpc_compliance::test_rejects_unknown_method; v1.0: CORE-ERR-001
/// (MUST) — an undefined method is -32601, with a message, echoing the request id.
async fn unknown_method_is_method_not_found(version: Version) {
    let emulator = Emulator::conformance();
    let method = match version {
        Version::V0_3 => "nonexistent/method",
        Version::V1_0 => "NonExistentMethod",
    };
    let response = emulator.call(version, method, json!({})).await;
    assert_a2a_error(&response, &response["id"], -32601);
}

/// v0.3: jsonrpc/test_json_rpc_compliance::test_rejects_invalid_params and
/// protocol/test_message_send_method::test_message_send_invalid_params; v1.0: CORE-ERR-002
/// (MUST) with its revision of those — parameters are validated before processing: a send
/// without a message, with a message missing messageId/role/parts, or with parts that are
/// not a list is -32602.
async fn invalid_send_parameters_are_invalid_params(version: Version) {
    let emulator = Emulator::conformance();
    for params in [
        json!({}),
        json!({"message": {"kind": "message"}}),
        json!({"message": {"parts": "invalid"}}),
    ] {
        let response = emulator.call_op(version, Op::Send, params).await;
        assert_a2a_error(&response, &response["id"], -32602);
    }
}

// ---------------------------------------------------------------------------------------
// Sending messages
// ---------------------------------------------------------------------------------------

/// v0.3: protocol/test_message_send_method::test_message_send_valid_text; v1.0:
/// CORE-SEND-001 (MUST); both with the SUT scenarios "Complete the task" and "Return
/// message instead of task" — a text message gets a Task (here completed, with the agent's
/// status message "Hello from TCK") or a Message (role agent, "Direct message response",
/// with an id), nothing else; a message without a scenario prefix (the suite's own
/// `text-…`) gets a task in one of the send states.
async fn send_returns_a_task_or_a_message(version: Version) {
    let emulator = Emulator::conformance();

    let response = send(
        &emulator,
        version,
        version.user_message(&tck_id("complete-task"), "Hello from TCK!"),
    )
    .await;
    let task = sent(version, &response["result"], "task");
    task_id(&task);
    assert!(task["contextId"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(
        task["status"]["state"],
        version.state("completed"),
        "{response}"
    );
    let reply = &task["status"]["message"];
    assert_eq!(reply["role"], version.role("agent"), "{response}");
    assert_eq!(reply["parts"][0]["text"], "Hello from TCK", "{response}");

    let response = send(
        &emulator,
        version,
        version.user_message(&tck_id("message-response"), "Hello"),
    )
    .await;
    let message = sent(version, &response["result"], "message");
    assert_eq!(message["role"], version.role("agent"), "{response}");
    if version == Version::V0_3 {
        assert_eq!(message["parts"][0]["kind"], "text", "{response}");
    }
    assert_eq!(
        message["parts"][0]["text"], "Direct message response",
        "{response}"
    );
    assert!(
        message["messageId"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );

    let response = send(
        &emulator,
        version,
        version.user_message(&unique_id("text"), "Hello from TCK!"),
    )
    .await;
    let state = event_state(version, &response["result"]).unwrap();
    assert!(
        SEND_STATES.iter().any(|name| version.state(name) == state),
        "{response}"
    );
}

/// v0.3: protocol/test_message_send_method::test_message_send_continue_task; v1.0:
/// CORE-MULTI-005 (MUST) with its revision of that test — a follow-up that names only the
/// task's id continues the same task, in its context (the follow-up message too), in one
/// of the send states.
async fn a_follow_up_naming_the_task_continues_it(version: Version) {
    let emulator = Emulator::conformance();
    let (first_id, follow_up_id) = match version {
        Version::V0_3 => (unique_id("text"), unique_id("continuation")),
        Version::V1_0 => (tck_id("input-required"), tck_id("infer-ctx")),
    };
    let first = new_task(&emulator, version, &first_id).await;
    let id = task_id(&first);
    let response = send(
        &emulator,
        version,
        follow_up(
            version,
            &follow_up_id,
            "Follow-up message for the existing task",
            &id,
        ),
    )
    .await;
    let task = sent(version, &response["result"], "task");
    assert_eq!(task["id"], id.as_str(), "{response}");
    assert_eq!(task["contextId"], first["contextId"], "{response}");
    let state = task["status"]["state"].as_str().unwrap();
    assert!(
        SEND_STATES.iter().any(|name| version.state(name) == state),
        "{response}"
    );
    let last_user = task["history"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|message| message["role"] == version.role("user"))
        .unwrap();
    assert_eq!(last_user["contextId"], first["contextId"], "{response}");
}

// ---------------------------------------------------------------------------------------
// Unknown tasks
// ---------------------------------------------------------------------------------------

/// v0.3: protocol/test_tasks_get_method::test_tasks_get_nonexistent; v1.0: CORE-GET-002
/// (MUST) — getting an unknown task is -32001 TaskNotFoundError.
async fn get_of_an_unknown_task_is_task_not_found(version: Version) {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(
            version,
            Op::Get,
            json!({"id": tck_id("nonexistent-get-002")}),
        )
        .await;
    assert_a2a_error(&response, &response["id"], -32001);
}

/// v0.3: protocol/test_tasks_cancel_method::test_tasks_cancel_nonexistent; v1.0:
/// CORE-CANCEL-003 (MUST) — canceling an unknown task is -32001 TaskNotFoundError.
async fn cancel_of_an_unknown_task_is_task_not_found(version: Version) {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(
            version,
            Op::Cancel,
            json!({"id": tck_id("nonexistent-cancel-003")}),
        )
        .await;
    assert_a2a_error(&response, &response["id"], -32001);
}

/// v0.3: optional/capabilities/test_streaming_methods::test_tasks_resubscribe_nonexistent;
/// v1.0: STREAM-SUB-004 (MUST) — subscribing to an unknown task is -32001, a plain
/// JSON-RPC error (no stream), whose message says the task was not found.
async fn subscribe_to_an_unknown_task_is_task_not_found(version: Version) {
    let emulator = Emulator::conformance();
    let response = emulator
        .call_op(
            version,
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

// ---------------------------------------------------------------------------------------
// Canceling tasks
// ---------------------------------------------------------------------------------------

/// v0.3: protocol/test_tasks_cancel_method::test_tasks_cancel_valid; v1.0: CORE-CANCEL-001
/// (MUST), compatibility/core_operations/test_task_lifecycle — canceling an open
/// (input-required) task answers the task, same id, canceled, and it stays canceled.
async fn cancel_returns_the_canceled_task(version: Version) {
    let emulator = Emulator::conformance();
    let created = new_task(&emulator, version, &tck_id("input-required")).await;
    let id = task_id(&created);
    let task = emulator
        .result(version, Op::Cancel, json!({"id": id}))
        .await;
    assert_eq!(task["id"], id.as_str(), "{task}");
    assert_eq!(task["status"]["state"], version.state("canceled"), "{task}");
    assert_eq!(
        emulator.get_task(version, &id).await["status"]["state"],
        version.state("canceled")
    );
}

/// v0.3: protocol/test_tasks_cancel_method::test_tasks_cancel_valid on a working task;
/// v1.0: CORE-EXECUTION-MODE-002, CORE-CANCEL-001 (MUST) — a task that keeps working
/// (`slow-`) sent with `blocking: false` / `returnImmediately: true` is returned at once,
/// still in progress (submitted or working); canceling it returns it, same id, canceled.
async fn a_task_sent_at_once_is_returned_unfinished_and_can_be_canceled(version: Version) {
    let emulator = Emulator::conformance();
    let result = emulator
        .result(
            version,
            Op::Send,
            version.send_params_at_once(&unique_id("slow"), "Non-blocking request"),
        )
        .await;
    let task = version.task_in(&result);
    let current = event_state(version, &result).unwrap();
    assert!(
        [version.state("submitted"), version.state("working")].contains(&current),
        "{result}"
    );
    assert!(!is_terminal(version, &current));
    let id = task_id(&task);
    let canceled = emulator
        .result(version, Op::Cancel, json!({"id": id}))
        .await;
    assert_eq!(canceled["id"], id.as_str(), "{canceled}");
    assert_eq!(
        canceled["status"]["state"],
        version.state("canceled"),
        "{canceled}"
    );
}

/// v0.3: jsonrpc/test_a2a_error_codes (-32002 TaskNotCancelableError, covered by the cancel
/// tests); v1.0: CORE-CANCEL-002 (MUST) — canceling a completed, rejected or already
/// canceled task is -32002 (reason TASK_NOT_CANCELABLE) and leaves the task as it was.
async fn cancel_of_a_finished_task_is_not_cancelable(version: Version) {
    let emulator = Emulator::conformance();
    let completed = new_task(&emulator, version, &tck_id("complete-task")).await;
    let rejected = new_task(&emulator, version, &tck_id("reject-task")).await;
    let canceled = new_task(&emulator, version, &tck_id("input-required")).await;
    emulator
        .result(version, Op::Cancel, json!({"id": task_id(&canceled)}))
        .await;
    for (task, state) in [
        (completed, "completed"),
        (rejected, "rejected"),
        (canceled, "canceled"),
    ] {
        let id = task_id(&task);
        let response = emulator
            .call_op(version, Op::Cancel, json!({"id": id}))
            .await;
        assert_a2a_error(&response, &response["id"], -32002);
        assert_eq!(
            emulator.get_task(version, &id).await["status"]["state"],
            version.state(state)
        );
    }
}

// ---------------------------------------------------------------------------------------
// Capabilities: push notifications, extended card
// ---------------------------------------------------------------------------------------

/// v0.3: jsonrpc/test_a2a_error_codes::test_push_notification_not_supported_error_32003 and
/// jsonrpc/test_a2a_error_codes_enhanced::
/// test_push_notification_not_supported_error_32003_enhanced; v1.0: CORE-CAP-001 (MUST),
/// JSONRPC-SSE-002 — with push notifications off (`--push-notifications off`), the card
/// does not declare them, so every push-notification method (in the version's shapes; in
/// v1.0 also for an unknown task) is -32003, with a message saying push notifications are
/// not supported.
async fn push_notification_methods_are_not_supported_when_off(version: Version) {
    let emulator = Emulator::start(&["--agent", "conformance", "--push-notifications", "off"]);
    let card = emulator.card().await;
    assert_ne!(card["capabilities"]["pushNotifications"], true, "{card}");
    let task = new_task(&emulator, version, &tck_id("input-required")).await;
    let id = task_id(&task);
    let calls = match version {
        Version::V0_3 => {
            let config = json!({"url": "https://example.com/webhook", "token": "test-token"});
            vec![
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
            ]
        }
        Version::V1_0 => vec![
            (
                Op::SetPush,
                json!({"taskId": id, "url": "https://example.com"}),
            ),
            (
                Op::SetPush,
                json!({"taskId": tck_id("error-code-003"), "config": {"url": "https://example.com"}}),
            ),
            (Op::GetPush, json!({"taskId": id, "id": "config-1"})),
            (Op::ListPush, json!({"taskId": id})),
            (Op::DeletePush, json!({"taskId": id, "id": "config-1"})),
        ],
    };
    for (op, params) in calls {
        let response = emulator.call_op(version, op, params).await;
        let error = assert_a2a_error(&response, &response["id"], -32003);
        let message = error["message"].as_str().unwrap().to_lowercase();
        for keyword in ["push", "notification", "not", "supported"] {
            assert!(message.contains(keyword), "{response}");
        }
    }
}

/// v0.3: protocol/test_a2a_v030_new_methods::TestAuthenticatedExtendedCard (skipped by the
/// suite when the card does not say `supportsAuthenticatedExtendedCard`); v1.0:
/// CARD-EXT-002 / CORE-CAP-003 (MUST) — the card declares no extended card (in either
/// version's field), and asking for it is refused: UnsupportedOperationError (-32004; in
/// v0.3 ExtendedCardNotConfigured, -32007, too).
async fn extended_card_is_not_offered(version: Version) {
    let emulator = Emulator::conformance();
    let card = emulator.card().await;
    assert_ne!(card["supportsAuthenticatedExtendedCard"], true, "{card}");
    assert_ne!(card["capabilities"]["extendedAgentCard"], true, "{card}");
    let response = emulator.call_op(version, Op::ExtendedCard, json!({})).await;
    let code = response["error"]["code"].as_i64();
    match version {
        Version::V0_3 => assert!(
            matches!(code, Some(-32004 | -32007)),
            "expected UnsupportedOperation or ExtendedCardNotConfigured: {response}"
        ),
        Version::V1_0 => assert_eq!(code, Some(-32004), "{response}"),
    }
    assert_a2a_error(&response, &response["id"], code.unwrap());
}

// ---------------------------------------------------------------------------------------
// Streaming (the card declares capabilities.streaming)
// ---------------------------------------------------------------------------------------

/// v0.3: optional/capabilities/test_streaming_methods::{test_message_stream_basic,
/// test_sse_header_compliance, test_sse_event_format_compliance}; v1.0: CORE-STREAM-001,
/// CORE-STREAM-003, JSONRPC-SSE-001, STREAM-ORDER-001 (MUST) — the card declares streaming;
/// a streaming send answers HTTP 200 `text/event-stream`; every event is a JSON-RPC 2.0
/// response with the request's id (in v1.0 a StreamResponse with exactly one field); the
/// stream begins with the Task, then status and artifact updates of that task in the order
/// generated (working, the three chunks in order, completed); in v0.3 only the last is
/// `final`; the stream then closes.
async fn stream_events_are_well_formed_and_ordered(version: Version) {
    let emulator = Emulator::conformance();
    assert_eq!(emulator.card().await["capabilities"]["streaming"], true);
    let mut stream = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params(&tck_id("stream-001"), "Stream hello from TCK"),
        )
        .await;
    assert!(
        header(&stream.headers, "content-type")
            .is_some_and(|value| value.starts_with("text/event-stream"))
    );
    let first = stream.next_result().await;
    let (kind, task) = update(version, &first);
    assert_eq!(kind, "task", "{first}");
    let id = task_id(task);
    assert!(task["status"]["state"].is_string(), "{first}");
    let rest = rest_results(&mut stream).await;
    let mut story = Vec::new();
    for event in &rest {
        let (kind, body) = update(version, event);
        assert_eq!(body["taskId"], id.as_str(), "{event}");
        match kind {
            "status" => story.push(body["status"]["state"].as_str().unwrap().to_owned()),
            "artifact" => {
                assert!(body["artifact"].is_object(), "{event}");
                let text = body["artifact"]["parts"][0]["text"].as_str().unwrap();
                story.push(text.to_owned());
            }
            other => panic!("a {other} after the task: {event}"),
        }
    }
    assert_eq!(
        story,
        [
            version.state("working").as_str(),
            "Streaming ",
            "chunk ",
            "content",
            version.state("completed").as_str()
        ]
    );
    if version == Version::V0_3 {
        let last = rest.last().expect("events after the task");
        assert_eq!(last["final"], true, "{last}");
        assert!(
            rest[..rest.len() - 1]
                .iter()
                .all(|event| event["final"] != true),
            "only the last event is final: {rest:?}"
        );
    }
}

/// The SUT scenario "Return message instead of task" over a streaming send (v1.0:
/// CORE-STREAM-002, MUST) — a direct reply is the stream's one event (a Message, role
/// agent), then the stream ends.
async fn stream_of_a_direct_reply_is_one_message(version: Version) {
    let emulator = Emulator::conformance();
    let mut stream = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params(&tck_id("message-response"), "Stream message-only response"),
        )
        .await;
    let only = stream.next_result().await;
    let (kind, message) = update(version, &only);
    assert_eq!(kind, "message", "{only}");
    assert_eq!(message["role"], version.role("agent"), "{only}");
    assert_eq!(message["parts"][0]["text"], "Direct message response");
    stream.expect_end().await;
}

/// The SUT scenario "Task requiring user input" over a streaming send (v1.0:
/// JSONRPC-SSE-001, MUST, compatibility/jsonrpc/test_sse_streaming, whose messageId has no
/// scenario prefix, which this agent answers by asking for input) — every event is a
/// JSON-RPC envelope around an event of the task, and the stream ends with the
/// input-required status (in v0.3 marked `final`).
async fn stream_stops_at_input_required(version: Version) {
    let emulator = Emulator::conformance();
    let message_id = match version {
        Version::V0_3 => tck_id("input-required"),
        Version::V1_0 => tck_id("sse-streaming-001"),
    };
    let mut stream = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params(&message_id, "TCK streaming test"),
        )
        .await;
    let first = stream.next_result().await;
    assert_eq!(update(version, &first).0, "task", "{first}");
    let rest = rest_results(&mut stream).await;
    for event in &rest {
        update(version, event);
    }
    let last = rest.last().expect("a status update");
    assert_eq!(update(version, last).0, "status", "{last}");
    assert_eq!(
        event_state(version, last),
        Some(version.state("input-required")),
        "{last}"
    );
    if version == Version::V0_3 {
        assert_eq!(last["final"], true, "{last}");
    }
}

/// v0.3: optional/capabilities/test_streaming_methods::test_tasks_resubscribe; v1.0: that
/// scenario for SubscribeToTask, STREAM-SUB-001/002 — while a `test-resubscribe-message-id`
/// task streams, a subscription to its id first answers the Task (same id, not finished)
/// and ends with its completion (in v0.3 `final`), as does the original stream.
async fn subscribe_to_a_streaming_task_follows_it_to_completion(version: Version) {
    let emulator = conformance_emulator();
    let mut original = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params(
                &unique_id("test-resubscribe-message-id"),
                "Test message for resubscribe",
            ),
        )
        .await;
    let first = original.next_result().await;
    let id = task_id(update(version, &first).1);
    let mut subscribed = emulator
        .stream(version, Op::Subscribe, json!({"id": id}))
        .await;
    let snapshot = subscribed.next_result().await;
    let (kind, task) = update(version, &snapshot);
    assert_eq!(kind, "task", "{snapshot}");
    assert_eq!(task["id"], id.as_str(), "{snapshot}");
    let now = event_state(version, &snapshot).unwrap();
    assert!(!is_terminal(version, &now), "{snapshot}");
    for stream in [&mut subscribed, &mut original] {
        let rest = rest_results(stream).await;
        let last = rest.last().expect("the completion");
        assert_eq!(update(version, last).0, "status", "{last}");
        assert_eq!(
            event_state(version, last),
            Some(version.state("completed")),
            "{last}"
        );
        if version == Version::V0_3 {
            assert_eq!(last["final"], true, "{last}");
        }
    }
}
