//! Golden fixtures, round trips and refusals for the A2A v0.3 wire
//! (`a2a_lambda_core::wire::v0_3`).

// A failed expectation is a failed test.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::model::{self, PartContent, Role, TaskState};
use a2a_lambda_core::wire::{self, v0_3};
use a2a_lambda_core::{ErrorProfile, Refusal, jsonrpc};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Value, json};

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("fixtures/v0_3/", $name, ".json"))
    };
}

fn value(text: &str) -> Value {
    serde_json::from_str(text).expect("fixture is JSON")
}

/// fixture → wire → model → wire → JSON must equal `expected`; returns the model.
fn round_trip_to<W, M>(fixture: &str, expected: &Value) -> M
where
    W: DeserializeOwned + Serialize + for<'a> From<&'a M>,
    M: From<W>,
{
    let wire: W = serde_json::from_str(fixture).expect("fixture parses");
    let model = M::from(wire);
    let back = serde_json::to_value(W::from(&model)).expect("serializes");
    assert_eq!(&back, expected);
    model
}

/// A canonical fixture survives the round trip unchanged.
fn round_trip<W, M>(fixture: &str) -> M
where
    W: DeserializeOwned + Serialize + for<'a> From<&'a M>,
    M: From<W>,
{
    round_trip_to::<W, M>(fixture, &value(fixture))
}

fn raw(params: &Value) -> Box<RawValue> {
    to_raw_value(params).expect("raw value")
}

/// Asserts a refusal is -32602 with exactly `message` under the spec profile.
fn assert_invalid_params(error: &a2a_lambda_core::Error, message: &str) {
    assert_eq!(error.refusal(), Refusal::InvalidParams);
    let (status, object) = error.to_wire(ErrorProfile::Spec);
    assert_eq!(status, 200);
    assert_eq!(object.code, -32602);
    assert_eq!(object.message, message);
    let info = &object.data.as_ref().expect("ErrorInfo data")[0];
    assert_eq!(info["reason"], "INVALID_PARAMS");
    assert_eq!(
        info["metadata"]["detail"],
        message.trim_start_matches("Invalid parameters: ")
    );
}

fn refuse_send(params: Value, message: &str) {
    let error = v0_3::parse_send_params(Some(&raw(&params))).expect_err("must be refused");
    assert_invalid_params(&error, message);
}

/// Refusals of types that are not request params (results, events) go through the same
/// `parse_params` so the message carries the same path.
fn refuse_as<T: DeserializeOwned + std::fmt::Debug>(input: Value, message: &str) {
    let error = wire::parse_params::<T>(Some(&raw(&input))).expect_err("must be refused");
    assert_invalid_params(&error, message);
}

fn minimal_send(message: Value) -> Value {
    json!({ "message": message })
}

fn message_with_parts(parts: Value) -> Value {
    json!({ "kind": "message", "messageId": "m-1", "role": "user", "parts": parts })
}

// ---------------------------------------------------------------- golden round trips

#[test]
fn message_with_every_field_round_trips() {
    let message = round_trip::<v0_3::Message, model::Message>(fixture!("message"));
    assert_eq!(message.message_id, "msg-001");
    assert_eq!(message.role, Role::User);
    assert_eq!(message.context_id.as_deref(), Some("ctx-001"));
    assert_eq!(message.task_id.as_deref(), Some("task-001"));
    assert_eq!(
        message.extensions,
        ["https://example.com/extensions/citations/v1"]
    );
    assert_eq!(message.reference_task_ids, ["task-000"]);
    assert_eq!(
        message.metadata,
        Some(
            json!({"source": "fixture", "attempt": 2})
                .as_object()
                .cloned()
                .expect("object")
        )
    );
    assert_eq!(message.parts.len(), 4);
    assert_eq!(
        message.parts[0].content,
        PartContent::Text("Summarise the attached report.".into())
    );
    assert_eq!(
        message.parts[1].content,
        PartContent::Bytes(b"hello world".to_vec())
    );
    assert_eq!(message.parts[1].media_type.as_deref(), Some("text/plain"));
    assert_eq!(message.parts[1].filename.as_deref(), Some("report.txt"));
    assert_eq!(
        message.parts[2].content,
        PartContent::Url("https://example.com/data.csv".into())
    );
    assert_eq!(message.parts[2].filename, None);
    assert_eq!(
        message.parts[3].content,
        PartContent::Data(json!({"priority": "high", "pages": [1, 2]}))
    );
}

#[test]
fn minimal_message_round_trips() {
    let message = round_trip::<v0_3::Message, model::Message>(fixture!("message_minimal"));
    assert_eq!(
        message,
        model::Message::text(Role::Agent, "msg-002", "Hello")
    );
}

#[test]
fn text_part_round_trips() {
    let part = round_trip::<v0_3::Part, model::Part>(fixture!("part_text"));
    assert_eq!(
        part.content,
        PartContent::Text("Why did the chicken cross the road?".into())
    );
    assert_eq!(part.metadata, json!({"lang": "en"}).as_object().cloned());
}

#[test]
fn file_part_with_bytes_round_trips() {
    let part = round_trip::<v0_3::Part, model::Part>(fixture!("part_file_bytes"));
    assert_eq!(
        part.content,
        PartContent::Bytes(b"\x89PNG\r\n\x1a\n".to_vec())
    );
    assert_eq!(part.media_type.as_deref(), Some("image/png"));
    assert_eq!(part.filename.as_deref(), Some("input_image.png"));
    assert_eq!(
        part.metadata,
        json!({"origin": "upload"}).as_object().cloned()
    );
}

#[test]
fn file_part_with_uri_round_trips() {
    let part = round_trip::<v0_3::Part, model::Part>(fixture!("part_file_uri"));
    assert_eq!(
        part.content,
        PartContent::Url(
            "https://storage.example.com/processed/task-bbb/output.png?token=xyz".into()
        )
    );
    assert_eq!(part.media_type.as_deref(), Some("image/png"));
    assert_eq!(part.filename.as_deref(), Some("output.png"));
}

#[test]
fn data_part_round_trips() {
    let part = round_trip::<v0_3::Part, model::Part>(fixture!("part_data"));
    assert_eq!(
        part.content,
        PartContent::Data(json!({"key": "value", "count": 42, "nested": {"ok": true}}))
    );
}

#[test]
fn artifact_round_trips() {
    let artifact = round_trip::<v0_3::Artifact, model::Artifact>(fixture!("artifact"));
    assert_eq!(artifact.artifact_id, "artifact-001");
    assert_eq!(artifact.name.as_deref(), Some("joke"));
    assert_eq!(
        artifact.description.as_deref(),
        Some("A joke about chickens")
    );
    assert_eq!(artifact.parts.len(), 2);
    assert_eq!(artifact.extensions.len(), 1);
}

#[test]
fn task_with_history_artifacts_and_status_message_round_trips() {
    let task = round_trip::<v0_3::Task, model::Task>(fixture!("task"));
    assert_eq!(task.id, "task-001");
    assert_eq!(task.status.state, TaskState::InputRequired);
    assert_eq!(
        task.status.timestamp.as_deref(),
        Some("2025-04-02T16:59:35.331Z")
    );
    let status_message = task.status.message.as_ref().expect("status message");
    assert_eq!(status_message.role, Role::Agent);
    assert_eq!(task.history.len(), 2);
    assert_eq!(task.artifacts.len(), 1);
    assert!(task.metadata.is_some());
}

#[test]
fn minimal_task_round_trips() {
    let task = round_trip::<v0_3::Task, model::Task>(fixture!("task_minimal"));
    assert_eq!(task.status, model::TaskStatus::new(TaskState::Submitted));
    assert!(task.artifacts.is_empty() && task.history.is_empty() && task.metadata.is_none());
}

#[test]
fn every_task_state_round_trips() {
    let states = [
        ("submitted", TaskState::Submitted),
        ("working", TaskState::Working),
        ("input-required", TaskState::InputRequired),
        ("completed", TaskState::Completed),
        ("canceled", TaskState::Canceled),
        ("failed", TaskState::Failed),
        ("rejected", TaskState::Rejected),
        ("auth-required", TaskState::AuthRequired),
        ("unknown", TaskState::Unknown),
    ];
    for (text, state) in states {
        let fixture = json!({"state": text}).to_string();
        let status = round_trip::<v0_3::TaskStatus, model::TaskStatus>(&fixture);
        assert_eq!(status.state, state);
    }
}

#[test]
fn status_update_event_round_trips() {
    let event = round_trip::<v0_3::TaskStatusUpdateEvent, model::TaskStatusUpdateEvent>(fixture!(
        "status_update_event"
    ));
    assert!(!event.is_final);
    assert_eq!(event.status.state, TaskState::Working);
    let as_stream =
        round_trip::<v0_3::StreamEvent, model::StreamEvent>(fixture!("status_update_event"));
    assert_eq!(as_stream, model::StreamEvent::StatusUpdate(event));
}

#[test]
fn artifact_update_event_round_trips() {
    let event = round_trip::<v0_3::TaskArtifactUpdateEvent, model::TaskArtifactUpdateEvent>(
        fixture!("artifact_update_event"),
    );
    assert!(event.append && event.last_chunk);
    let as_stream =
        round_trip::<v0_3::StreamEvent, model::StreamEvent>(fixture!("artifact_update_event"));
    assert_eq!(as_stream, model::StreamEvent::ArtifactUpdate(event));
}

#[test]
fn artifact_update_without_append_or_last_chunk_means_false_and_emits_both() {
    let input = json!({
        "kind": "artifact-update", "taskId": "t", "contextId": "c",
        "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]}
    });
    let mut expected = input.clone();
    expected["append"] = json!(false);
    expected["lastChunk"] = json!(false);
    let event = round_trip_to::<v0_3::TaskArtifactUpdateEvent, model::TaskArtifactUpdateEvent>(
        &input.to_string(),
        &expected,
    );
    assert!(!event.append && !event.last_chunk);
}

#[test]
fn send_params_with_configuration_and_push_config_round_trip() {
    let params =
        round_trip::<v0_3::MessageSendParams, model::SendMessageParams>(fixture!("send_params"));
    let configuration = params.configuration.expect("configuration");
    assert_eq!(
        configuration.accepted_output_modes,
        ["text/plain", "application/json"]
    );
    assert_eq!(configuration.history_length, Some(10));
    assert!(configuration.return_immediately);
    let push = configuration.push_notification_config.expect("push config");
    assert_eq!(push.id.as_deref(), Some("push-001"));
    assert_eq!(push.url, "https://client.example.com/webhook/a2a");
    assert_eq!(push.token.as_deref(), Some("secure-client-token"));
    let authentication = push.authentication.expect("authentication");
    assert_eq!(authentication.schemes, ["Bearer"]);
    assert_eq!(
        authentication.credentials.as_deref(),
        Some("secret-credentials")
    );
    assert_eq!(
        params.metadata,
        json!({"trace": "abc"}).as_object().cloned()
    );
}

#[test]
fn send_params_parse_through_the_public_function() {
    let params =
        v0_3::parse_send_params(Some(&raw(&value(fixture!("send_params"))))).expect("parses");
    assert_eq!(params.message.message_id, "msg-001");
    assert!(
        params
            .configuration
            .expect("configuration")
            .return_immediately
    );
}

#[test]
fn blocking_maps_to_return_immediately() {
    for (blocking, return_immediately, emitted) in [
        (Some(true), false, true),
        (Some(false), true, false),
        (None, false, true),
    ] {
        let mut configuration = json!({});
        if let Some(blocking) = blocking {
            configuration["blocking"] = json!(blocking);
        }
        let params = json!({
            "message": message_with_parts(json!([{"kind": "text", "text": "hi"}])),
            "configuration": configuration,
        });
        let model = v0_3::parse_send_params(Some(&raw(&params))).expect("parses");
        let configuration = model.configuration.as_ref().expect("configuration");
        assert_eq!(configuration.return_immediately, return_immediately);
        let back = serde_json::to_value(v0_3::MessageSendParams::from(&model)).expect("serializes");
        assert_eq!(back["configuration"], json!({ "blocking": emitted }));
    }
}

#[test]
fn task_query_params_round_trip() {
    let params =
        round_trip::<v0_3::TaskQueryParams, model::GetTaskParams>(fixture!("task_query_params"));
    assert_eq!(params.history_length, Some(5));
    let parsed = v0_3::parse_get_task_params(Some(&raw(&value(fixture!("task_query_params")))))
        .expect("parses");
    assert_eq!(parsed, params);
}

#[test]
fn task_id_params_round_trip() {
    let params = round_trip::<v0_3::TaskIdParams, model::TaskIdParams>(fixture!("task_id_params"));
    assert_eq!(params.id, "task-001");
    let parsed =
        v0_3::parse_task_id_params(Some(&raw(&value(fixture!("task_id_params"))))).expect("parses");
    assert_eq!(parsed, params);
}

#[test]
fn task_push_config_params_round_trip() {
    let config = round_trip::<v0_3::TaskPushNotificationConfig, model::TaskPushNotificationConfig>(
        fixture!("task_push_config_params"),
    );
    assert_eq!(config.task_id, "task-001");
    assert_eq!(config.config.id, None);
    let parsed = v0_3::parse_task_push_config_params(Some(&raw(&value(fixture!(
        "task_push_config_params"
    )))))
    .expect("parses");
    assert_eq!(parsed, config);
    assert_eq!(
        serde_json::to_value(v0_3::task_push_config(&parsed)).expect("serializes"),
        value(fixture!("task_push_config_params"))
    );
}

#[test]
fn message_result_round_trips_as_send_result_and_stream_event() {
    let result = round_trip::<v0_3::SendResult, model::SendResult>(fixture!("send_result_message"));
    let model::SendResult::Message(message) = &result else {
        panic!("expected a message, got {result:?}")
    };
    assert_eq!(message.joined_text(), "Direct message response");
    let event =
        round_trip::<v0_3::StreamEvent, model::StreamEvent>(fixture!("send_result_message"));
    assert_eq!(event, model::StreamEvent::Message(message.clone()));
}

#[test]
fn task_round_trips_as_send_result_and_stream_event() {
    let result = round_trip::<v0_3::SendResult, model::SendResult>(fixture!("task"));
    assert!(matches!(result, model::SendResult::Task(ref task) if task.id == "task-001"));
    let event = round_trip::<v0_3::StreamEvent, model::StreamEvent>(fixture!("task_minimal"));
    assert!(matches!(event, model::StreamEvent::Task(ref task) if task.id == "task-002"));
}

#[test]
fn result_functions_emit_the_kind_tagged_shapes() {
    let task: model::Task = serde_json::from_str::<v0_3::Task>(fixture!("task"))
        .expect("parses")
        .into();
    assert_eq!(
        serde_json::to_value(v0_3::task(&task)).expect("json"),
        value(fixture!("task"))
    );
    assert_eq!(
        serde_json::to_value(v0_3::send_result(&model::SendResult::Task(task.clone())))
            .expect("json"),
        value(fixture!("task"))
    );
    let message = model::Message::text(Role::Agent, "msg-002", "Hello");
    assert_eq!(
        serde_json::to_value(v0_3::send_result(&model::SendResult::Message(
            message.clone()
        )))
        .expect("json"),
        value(fixture!("message_minimal"))
    );
    assert_eq!(
        serde_json::to_value(v0_3::stream_event(&model::StreamEvent::Message(message)))
            .expect("json"),
        value(fixture!("message_minimal"))
    );
    let update: model::TaskStatusUpdateEvent =
        serde_json::from_str::<v0_3::TaskStatusUpdateEvent>(fixture!("status_update_event"))
            .expect("parses")
            .into();
    assert_eq!(
        serde_json::to_value(v0_3::stream_event(&model::StreamEvent::StatusUpdate(
            update
        )))
        .expect("json"),
        value(fixture!("status_update_event"))
    );
}

// ---------------------------------------------------------------- specification examples

/// Adds `"kind":"message"` where the specification's examples leave it out.
fn with_message_kind(mut message: Value) -> Value {
    message["kind"] = json!("message");
    message
}

#[test]
fn spec_send_request_parses_and_emits_kind() {
    let body = fixture!("spec_send_request");
    let request = jsonrpc::parse_request(body.as_bytes()).expect("valid envelope");
    assert_eq!(request.method, "message/send");
    let params = v0_3::parse_send_params(request.params).expect("valid params");
    assert_eq!(
        params.message,
        model::Message::text(
            Role::User,
            "9229e770-767c-417b-a0b0-f0741243c589",
            "tell me a joke"
        )
    );
    assert_eq!(params.configuration, None);
    assert_eq!(params.metadata, Some(serde_json::Map::new()));

    let mut expected = value(body)["params"].clone();
    expected["message"] = with_message_kind(expected["message"].clone());
    let params_text = request.params.expect("params").get();
    round_trip_to::<v0_3::MessageSendParams, model::SendMessageParams>(params_text, &expected);
}

#[test]
fn spec_send_response_task_parses_and_round_trips() {
    let result = value(fixture!("spec_send_response_task"))["result"].clone();
    let mut expected = result.clone();
    expected["history"][0] = with_message_kind(expected["history"][0].clone());
    let model =
        round_trip_to::<v0_3::SendResult, model::SendResult>(&result.to_string(), &expected);
    let model::SendResult::Task(task) = model else {
        panic!("expected a task")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.artifacts[0].name.as_deref(), Some("joke"));
    assert_eq!(task.history[0].role, Role::User);
    assert_eq!(task.metadata, Some(serde_json::Map::new()));
}

#[test]
fn spec_send_response_message_is_refused_for_its_missing_role() {
    let result = value(fixture!("spec_send_response_message"))["result"].clone();
    refuse_as::<v0_3::SendResult>(result, "Invalid parameters: params: missing field `role`");
}

#[test]
fn spec_stream_events_round_trip() {
    let artifact = round_trip::<v0_3::StreamEvent, model::StreamEvent>(fixture!(
        "spec_stream_artifact_update"
    ));
    assert!(
        matches!(artifact, model::StreamEvent::ArtifactUpdate(ref e) if !e.append && !e.last_chunk)
    );
    let status =
        round_trip::<v0_3::StreamEvent, model::StreamEvent>(fixture!("spec_stream_status_update"));
    assert!(matches!(status, model::StreamEvent::StatusUpdate(ref e) if e.is_final));
}

#[test]
fn agentcore_send_request_parses() {
    let body = fixture!("agentcore_send_request");
    let request = jsonrpc::parse_request(body.as_bytes()).expect("valid envelope");
    let params = v0_3::parse_send_params(request.params).expect("valid params");
    assert_eq!(
        params.message,
        model::Message::text(Role::User, "unique-message-id", "Your message content here")
    );
    let mut expected = value(body)["params"].clone();
    expected["message"] = with_message_kind(expected["message"].clone());
    round_trip_to::<v0_3::MessageSendParams, model::SendMessageParams>(
        request.params.expect("params").get(),
        &expected,
    );
}

#[test]
fn agentcore_send_response_is_not_a_valid_result() {
    let result = value(fixture!("agentcore_send_response"))["result"].clone();
    refuse_as::<v0_3::SendResult>(
        result.clone(),
        "Invalid parameters: params: missing field `kind` (expected \"task\" or \"message\")",
    );
    refuse_as::<v0_3::Task>(
        result.clone(),
        "Invalid parameters: params: missing field `kind`",
    );
    let mut tagged = result;
    tagged["kind"] = json!("task");
    refuse_as::<v0_3::SendResult>(tagged, "Invalid parameters: params: missing field `id`");
}

#[test]
fn project_send_request_fixture_parses() {
    let request =
        jsonrpc::parse_request(fixture!("send_request").as_bytes()).expect("valid envelope");
    let params = v0_3::parse_send_params(request.params).expect("valid params");
    assert_eq!(params.message.joined_text(), "tell me a joke");
    let configuration = params.configuration.expect("configuration");
    assert_eq!(configuration.accepted_output_modes, ["text/plain"]);
    assert!(!configuration.return_immediately);
}

// ---------------------------------------------------------------- model → wire choices

#[test]
fn text_and_data_parts_drop_media_type_and_filename() {
    let text = model::Part {
        content: PartContent::Text("hi".into()),
        media_type: Some("text/markdown".into()),
        filename: Some("notes.md".into()),
        metadata: None,
    };
    assert_eq!(
        serde_json::to_value(v0_3::Part::from(&text)).expect("json"),
        json!({"kind": "text", "text": "hi"})
    );
    let data = model::Part {
        content: PartContent::Data(json!({"a": 1})),
        media_type: Some("application/json".into()),
        filename: Some("a.json".into()),
        metadata: None,
    };
    assert_eq!(
        serde_json::to_value(v0_3::Part::from(&data)).expect("json"),
        json!({"kind": "data", "data": {"a": 1}})
    );
}

#[test]
fn non_object_model_data_is_emitted_as_is() {
    let part = model::Part::data(json!([1, 2, 3]));
    assert_eq!(
        serde_json::to_value(v0_3::Part::from(&part)).expect("json"),
        json!({"kind": "data", "data": [1, 2, 3]})
    );
}

#[test]
fn file_bytes_accept_url_safe_and_unpadded_base64_and_emit_standard_padded() {
    // 0xfb 0xff 0xfe is "+//+" in the standard alphabet and "-__-" in the URL-safe one.
    for encoded in ["+//+", "-__-", "aGVsbG8", "aGVsbG8="] {
        let part = json!({"kind": "file", "file": {"bytes": encoded}});
        let wire: v0_3::Part = serde_json::from_value(part).expect("parses");
        let model = model::Part::from(wire);
        let expected: &[u8] = if encoded.starts_with('a') {
            b"hello"
        } else {
            b"\xfb\xff\xfe"
        };
        assert_eq!(model.content, PartContent::Bytes(expected.to_vec()));
        let back = serde_json::to_value(v0_3::Part::from(&model)).expect("json");
        let standard = if encoded.starts_with('a') {
            "aGVsbG8="
        } else {
            "+//+"
        };
        assert_eq!(back, json!({"kind": "file", "file": {"bytes": standard}}));
    }
}

#[test]
fn message_without_kind_is_accepted() {
    let params = minimal_send(
        json!({"messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}),
    );
    let parsed = v0_3::parse_send_params(Some(&raw(&params))).expect("parses");
    assert_eq!(
        parsed.message,
        model::Message::text(Role::User, "m-1", "hi")
    );
}

// ---------------------------------------------------------------- unknown members

#[test]
fn unknown_members_are_ignored_everywhere() {
    let noisy = json!({
        "message": {
            "kind": "message", "messageId": "m-1", "role": "user", "x-trace": [1, 2],
            "parts": [
                {"kind": "text", "text": "hi", "mediaType": "text/plain", "extra": {"a": 1}},
                {"kind": "file", "file": {"uri": "https://e.com/f", "size": 12}, "extra": null},
                {"kind": "data", "data": {"k": "v"}, "text": "not mine"}
            ]
        },
        "configuration": {"blocking": true, "streaming": "yes", "pushNotificationConfig": {"url": "https://hook", "retries": 3}},
        "metadata": {},
        "tenant": "acme"
    });
    let clean = json!({
        "message": {
            "kind": "message", "messageId": "m-1", "role": "user",
            "parts": [
                {"kind": "text", "text": "hi"},
                {"kind": "file", "file": {"uri": "https://e.com/f"}},
                {"kind": "data", "data": {"k": "v"}}
            ]
        },
        "configuration": {"blocking": true, "pushNotificationConfig": {"url": "https://hook"}},
        "metadata": {}
    });
    let noisy = v0_3::parse_send_params(Some(&raw(&noisy))).expect("noisy parses");
    let clean_model = v0_3::parse_send_params(Some(&raw(&clean))).expect("clean parses");
    assert_eq!(noisy, clean_model);
    assert_eq!(
        serde_json::to_value(v0_3::MessageSendParams::from(&noisy)).expect("json"),
        clean
    );

    let task_query = v0_3::parse_get_task_params(Some(&raw(&json!({"id": "t", "unknown": true}))))
        .expect("parses");
    assert_eq!(task_query.id, "t");
    let task_id =
        v0_3::parse_task_id_params(Some(&raw(&json!({"id": "t", "tenant": "x"})))).expect("parses");
    assert_eq!(task_id.id, "t");
    let mut task = value(fixture!("task_minimal"));
    task["createdAt"] = json!("2025-01-01T00:00:00Z");
    task["status"]["progress"] = json!(0.5);
    let parsed: v0_3::Task = serde_json::from_value(task).expect("parses");
    assert_eq!(
        serde_json::to_value(parsed).expect("json"),
        value(fixture!("task_minimal"))
    );
}

// ---------------------------------------------------------------- refusals: message

#[test]
fn missing_params_are_refused_by_every_parser() {
    let message = "Invalid parameters: params: required";
    assert_invalid_params(
        &v0_3::parse_send_params(None).expect_err("refused"),
        message,
    );
    assert_invalid_params(
        &v0_3::parse_get_task_params(None).expect_err("refused"),
        message,
    );
    assert_invalid_params(
        &v0_3::parse_task_id_params(None).expect_err("refused"),
        message,
    );
    assert_invalid_params(
        &v0_3::parse_task_push_config_params(None).expect_err("refused"),
        message,
    );
}

#[test]
fn by_position_params_are_refused_by_every_parser() {
    let params = raw(&json!([{"id": "t"}]));
    let message = "Invalid parameters: params: must be an object, found an array";
    assert_invalid_params(
        &v0_3::parse_send_params(Some(&params)).expect_err("refused"),
        message,
    );
    assert_invalid_params(
        &v0_3::parse_get_task_params(Some(&params)).expect_err("refused"),
        message,
    );
    assert_invalid_params(
        &v0_3::parse_task_id_params(Some(&params)).expect_err("refused"),
        message,
    );
    assert_invalid_params(
        &v0_3::parse_task_push_config_params(Some(&params)).expect_err("refused"),
        message,
    );
}

#[test]
fn missing_message_is_refused() {
    refuse_send(
        json!({"metadata": {}}),
        "Invalid parameters: params: missing field `message`",
    );
}

#[test]
fn missing_message_id_is_refused() {
    refuse_send(
        minimal_send(
            json!({"kind": "message", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}),
        ),
        "Invalid parameters: params.message: missing field `messageId`",
    );
}

#[test]
fn empty_message_id_is_refused() {
    refuse_send(
        minimal_send(
            json!({"messageId": "", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}),
        ),
        "Invalid parameters: params.message.messageId: must not be empty",
    );
}

#[test]
fn wrong_role_is_refused() {
    refuse_send(
        minimal_send(
            json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"kind": "text", "text": "hi"}]}),
        ),
        "Invalid parameters: params.message.role: unknown variant `ROLE_USER`, expected `user` or `agent`",
    );
}

#[test]
fn wrong_kind_on_message_is_refused() {
    refuse_send(
        minimal_send(
            json!({"kind": "task", "messageId": "m-1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}),
        ),
        "Invalid parameters: params.message.kind: must be \"message\", found \"task\"",
    );
}

#[test]
fn empty_parts_are_refused() {
    refuse_send(
        minimal_send(message_with_parts(json!([]))),
        "Invalid parameters: params.message.parts: must contain at least one part",
    );
}

#[test]
fn missing_parts_are_refused() {
    refuse_send(
        minimal_send(json!({"messageId": "m-1", "role": "user"})),
        "Invalid parameters: params.message: missing field `parts`",
    );
}

// ---------------------------------------------------------------- refusals: parts

#[test]
fn unknown_part_kind_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "text", "text": "hi"}, {"kind": "image", "url": "x"}]),
        )),
        "Invalid parameters: params.message.parts[1].kind: unknown variant `image`, expected one of `text`, `file`, `data`",
    );
}

#[test]
fn part_without_kind_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(json!([{"text": "hi"}]))),
        "Invalid parameters: params.message.parts[0]: missing field `kind`",
    );
}

#[test]
fn text_part_without_text_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(json!([{"kind": "text", "data": {}}]))),
        "Invalid parameters: params.message.parts[0]: a text part must carry `text`",
    );
}

#[test]
fn file_part_without_file_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "file", "uri": "https://e.com"}]),
        )),
        "Invalid parameters: params.message.parts[0]: a file part must carry `file`",
    );
}

#[test]
fn file_with_both_bytes_and_uri_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(json!([
            {"kind": "text", "text": "hi"},
            {"kind": "file", "file": {"bytes": "aGk=", "uri": "https://e.com/f"}}
        ]))),
        "Invalid parameters: params.message.parts[1].file: must carry exactly one of `bytes` and `uri`, found both",
    );
}

#[test]
fn file_with_neither_bytes_nor_uri_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "file", "file": {"name": "f.txt", "mimeType": "text/plain"}}]),
        )),
        "Invalid parameters: params.message.parts[0].file: must carry exactly one of `bytes` and `uri`, found neither",
    );
}

#[test]
fn bad_base64_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "file", "file": {"bytes": "aGVs!G8="}}]),
        )),
        "Invalid parameters: params.message.parts[0].file.bytes: not valid base64: unexpected character '!' at offset 4",
    );
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "file", "file": {"bytes": "aGVsb"}}]),
        )),
        "Invalid parameters: params.message.parts[0].file.bytes: not valid base64: its length cannot be that of base64 text",
    );
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "file", "file": {"bytes": 42}}]),
        )),
        "Invalid parameters: params.message.parts[0].file.bytes: invalid type: integer `42`, expected a base64 string",
    );
}

#[test]
fn data_that_is_not_an_object_is_refused() {
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "data", "data": [1, 2]}]),
        )),
        "Invalid parameters: params.message.parts[0]: a data part's `data` must be a JSON object, found an array",
    );
    refuse_send(
        minimal_send(message_with_parts(
            json!([{"kind": "data", "data": "text"}]),
        )),
        "Invalid parameters: params.message.parts[0]: a data part's `data` must be a JSON object, found a string",
    );
    refuse_send(
        minimal_send(message_with_parts(json!([{"kind": "data"}]))),
        "Invalid parameters: params.message.parts[0]: a data part must carry `data`",
    );
}

// ---------------------------------------------------------------- refusals: params

#[test]
fn negative_history_length_is_refused() {
    let error = v0_3::parse_get_task_params(Some(&raw(&json!({"id": "t", "historyLength": -1}))))
        .expect_err("refused");
    assert_invalid_params(
        &error,
        "Invalid parameters: params.historyLength: must be a non-negative integer, found -1",
    );
    let mut params = value(fixture!("send_params"));
    params["configuration"]["historyLength"] = json!(-3);
    refuse_send(
        params,
        "Invalid parameters: params.configuration.historyLength: must be a non-negative integer, found -3",
    );
}

#[test]
fn history_length_that_is_not_a_u32_is_refused() {
    for (length, message) in [
        (json!(2.5), "must be a non-negative integer, found 2.5"),
        (
            json!(4_294_967_296_u64),
            "must be at most 4294967295, found 4294967296",
        ),
        (
            json!("5"),
            "invalid type: string \"5\", expected a non-negative integer",
        ),
    ] {
        let error =
            v0_3::parse_get_task_params(Some(&raw(&json!({"id": "t", "historyLength": length}))))
                .expect_err("refused");
        assert_invalid_params(
            &error,
            &format!("Invalid parameters: params.historyLength: {message}"),
        );
    }
    let parsed =
        v0_3::parse_get_task_params(Some(&raw(&json!({"id": "t", "historyLength": null}))))
            .expect("null is absent");
    assert_eq!(parsed.history_length, None);
}

#[test]
fn empty_or_missing_task_ids_are_refused() {
    let error = v0_3::parse_get_task_params(Some(&raw(&json!({"id": ""})))).expect_err("refused");
    assert_invalid_params(&error, "Invalid parameters: params.id: must not be empty");
    let error = v0_3::parse_task_id_params(Some(&raw(&json!({"id": ""})))).expect_err("refused");
    assert_invalid_params(&error, "Invalid parameters: params.id: must not be empty");
    let error =
        v0_3::parse_task_id_params(Some(&raw(&json!({"metadata": {}})))).expect_err("refused");
    assert_invalid_params(&error, "Invalid parameters: params: missing field `id`");
    let error = v0_3::parse_task_id_params(Some(&raw(&json!({"id": 7})))).expect_err("refused");
    assert_invalid_params(
        &error,
        "Invalid parameters: params.id: invalid type: integer `7`, expected a string",
    );
}

#[test]
fn malformed_push_configs_are_refused() {
    let error = v0_3::parse_task_push_config_params(Some(&raw(&json!({
        "taskId": "", "pushNotificationConfig": {"url": "https://hook"}
    }))))
    .expect_err("refused");
    assert_invalid_params(
        &error,
        "Invalid parameters: params.taskId: must not be empty",
    );
    let error = v0_3::parse_task_push_config_params(Some(&raw(&json!({
        "taskId": "t", "pushNotificationConfig": {"token": "x"}
    }))))
    .expect_err("refused");
    assert_invalid_params(
        &error,
        "Invalid parameters: params.pushNotificationConfig: missing field `url`",
    );
    let error = v0_3::parse_task_push_config_params(Some(&raw(&json!({
        "taskId": "t", "pushNotificationConfig": {"url": "https://hook", "authentication": {"credentials": "c"}}
    }))))
    .expect_err("refused");
    assert_invalid_params(
        &error,
        "Invalid parameters: params.pushNotificationConfig.authentication: missing field `schemes`",
    );
}

// ---------------------------------------------------------------- refusals: results and events

#[test]
fn status_update_without_final_is_refused() {
    let mut event = value(fixture!("status_update_event"));
    event.as_object_mut().expect("object").remove("final");
    refuse_as::<v0_3::TaskStatusUpdateEvent>(
        event.clone(),
        "Invalid parameters: params: missing field `final`",
    );
    refuse_as::<v0_3::StreamEvent>(event, "Invalid parameters: params: missing field `final`");
}

#[test]
fn unknown_task_state_is_refused() {
    let mut task = value(fixture!("task_minimal"));
    task["status"]["state"] = json!("TASK_STATE_COMPLETED");
    refuse_as::<v0_3::Task>(
        task,
        "Invalid parameters: params.status.state: unknown variant `TASK_STATE_COMPLETED`, expected one of \
         `submitted`, `working`, `input-required`, `completed`, `canceled`, `failed`, `rejected`, \
         `auth-required`, `unknown`",
    );
}

#[test]
fn wrong_kind_on_task_and_events_is_refused() {
    let mut task = value(fixture!("task_minimal"));
    task["kind"] = json!("message");
    refuse_as::<v0_3::Task>(
        task,
        "Invalid parameters: params.kind: must be \"task\", found \"message\"",
    );
    let mut event = value(fixture!("status_update_event"));
    event["kind"] = json!("artifact-update");
    refuse_as::<v0_3::TaskStatusUpdateEvent>(
        event,
        "Invalid parameters: params.kind: must be \"status-update\", found \"artifact-update\"",
    );
}

#[test]
fn result_unions_refuse_unknown_missing_or_non_string_kinds() {
    refuse_as::<v0_3::SendResult>(
        value(fixture!("status_update_event")),
        "Invalid parameters: params: unknown kind \"status-update\" (expected \"task\" or \"message\")",
    );
    refuse_as::<v0_3::StreamEvent>(
        json!({"kind": "progress"}),
        "Invalid parameters: params: unknown kind \"progress\" (expected \"task\", \"message\", \
         \"status-update\" or \"artifact-update\")",
    );
    refuse_as::<v0_3::StreamEvent>(
        json!({"kind": 3}),
        "Invalid parameters: params: `kind` must be a string (\"task\", \"message\", \"status-update\" or \
         \"artifact-update\"), found a number",
    );
    refuse_as::<v0_3::SendResult>(
        json!([]),
        "Invalid parameters: params: expected an object with a `kind` of \"task\" or \"message\", found an array",
    );
}

#[test]
fn result_unions_name_the_offending_member_inside() {
    let mut event = value(fixture!("artifact_update_event"));
    event["artifact"]["artifactId"] = json!("");
    refuse_as::<v0_3::StreamEvent>(
        event,
        "Invalid parameters: params: artifact.artifactId: must not be empty",
    );
    let mut task = value(fixture!("task"));
    task["history"][1]["parts"][0]["kind"] = json!("video");
    refuse_as::<v0_3::SendResult>(
        task,
        "Invalid parameters: params: history[1].parts[0].kind: unknown variant `video`, expected one of \
         `text`, `file`, `data`",
    );
}

#[test]
fn empty_task_ids_in_results_are_refused() {
    let mut task = value(fixture!("task_minimal"));
    task["contextId"] = json!("");
    refuse_as::<v0_3::Task>(
        task,
        "Invalid parameters: params.contextId: must not be empty",
    );
    let mut event = value(fixture!("status_update_event"));
    event["taskId"] = json!("");
    refuse_as::<v0_3::TaskStatusUpdateEvent>(
        event,
        "Invalid parameters: params.taskId: must not be empty",
    );
}
