//! A2A v1.0 wire: golden fixtures, round trips, ProtoJSON input tolerances and refusals.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Debug;

use a2a_lambda_core::model::{self, PartContent, Role, TaskState};
use a2a_lambda_core::wire::{self, v1_0};
use a2a_lambda_core::{Error, ErrorProfile, jsonrpc};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!("fixtures/v1_0/", $name, ".json"))
    };
}

fn value(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

fn raw(json: &Value) -> Box<RawValue> {
    RawValue::from_string(json.to_string()).unwrap()
}

/// fixture → wire `W` → model `M` → wire `W` → JSON, which must equal the fixture.
fn round_trip<W, M>(json: &str) -> M
where
    W: DeserializeOwned + Serialize,
    M: From<W>,
    for<'a> W: From<&'a M>,
{
    let wire: W = serde_json::from_str(json).unwrap();
    let model = M::from(wire);
    let back = W::from(&model);
    assert_eq!(serde_json::to_value(&back).unwrap(), value(json));
    model
}

/// A JSON-RPC request fixture: parses the envelope, checks the method, parses the params
/// with `parse`, writes the model back through `W` and compares with the fixture's params.
fn envelope_round_trip<W, M>(
    json: &str,
    method: &str,
    parse: fn(Option<&RawValue>) -> Result<M, Error>,
) -> M
where
    W: Serialize,
    for<'a> W: From<&'a M>,
{
    let request = jsonrpc::parse_request(json.as_bytes()).unwrap();
    assert_eq!(request.method, method);
    assert!(!request.is_notification());
    let model = parse(request.params).unwrap();
    assert_eq!(
        serde_json::to_value(W::from(&model)).unwrap(),
        value(json)["params"]
    );
    model
}

/// The params of an envelope fixture, as raw JSON.
fn params_of(json: &str) -> Box<RawValue> {
    raw(&value(json)["params"])
}

/// Asserts a -32602 whose Spec-profile wire object carries exactly `detail`.
#[track_caller]
fn assert_refused<T: Debug>(result: Result<T, Error>, detail: &str) {
    let error = result.unwrap_err();
    let (status, object) = error.to_wire(ErrorProfile::Spec);
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::to_value(object).unwrap(),
        json!({
            "code": -32602,
            "message": format!("Invalid parameters: {detail}"),
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "INVALID_PARAMS",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": detail},
            }]
        })
    );
}

fn send(params: Value) -> Result<model::SendMessageParams, Error> {
    v1_0::parse_send_params(Some(&raw(&params)))
}

/// A send request around one message.
fn send_message(message: Value) -> Result<model::SendMessageParams, Error> {
    send(json!({ "message": message }))
}

/// A send request whose message carries `parts`.
fn send_parts(parts: Value) -> Result<model::SendMessageParams, Error> {
    send_message(json!({"messageId": "m-1", "role": "ROLE_USER", "parts": parts}))
}

fn parse<T: DeserializeOwned>(json: Value) -> Result<T, Error> {
    wire::parse_params::<T>(Some(&raw(&json)))
}

// ---------------------------------------------------------------------------------------
// Round trips of every fixture
// ---------------------------------------------------------------------------------------

#[test]
fn message_round_trips_with_every_field() {
    let message: model::Message = round_trip::<v1_0::Message, _>(fixture!("message"));
    assert_eq!(message.message_id, "7d2b9e1a-5c3f-4f0e-9a61-2f8e4b1c0d33");
    assert_eq!(
        message.context_id.as_deref(),
        Some("c295ea44-7543-4f78-b524-7a38915ad6e4")
    );
    assert_eq!(
        message.task_id.as_deref(),
        Some("3f36680c-7f37-4a5f-945e-d78981fafd36")
    );
    assert_eq!(message.role, Role::User);
    assert_eq!(message.parts.len(), 4);
    assert_eq!(
        message.parts[1].content,
        PartContent::Bytes(b"hello world".to_vec())
    );
    assert!(matches!(message.parts[2].content, PartContent::Url(_)));
    assert!(matches!(message.parts[3].content, PartContent::Data(_)));
    assert_eq!(message.metadata.unwrap()["priority"], 1);
    assert_eq!(
        message.extensions,
        ["https://example.com/extensions/geo/v1"]
    );
    assert_eq!(message.reference_task_ids.len(), 2);
}

#[test]
fn minimal_message_round_trips() {
    let message: model::Message = round_trip::<v1_0::Message, _>(fixture!("message_minimal"));
    assert_eq!(message, model::Message::text(Role::Agent, "msg-1", "Hello"));
}

#[test]
fn text_part_round_trips_with_media_type() {
    let part: model::Part = round_trip::<v1_0::Part, _>(fixture!("part_text"));
    assert!(matches!(&part.content, PartContent::Text(text) if text.starts_with("# Forecast")));
    assert_eq!(part.media_type.as_deref(), Some("text/markdown"));
    assert_eq!(part.filename, None);
}

#[test]
fn raw_part_decodes_bytes_and_round_trips() {
    let part: model::Part = round_trip::<v1_0::Part, _>(fixture!("part_raw"));
    let PartContent::Bytes(bytes) = &part.content else {
        panic!("expected bytes, got {:?}", part.content);
    };
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(part.filename.as_deref(), Some("input_image.png"));
    assert_eq!(part.media_type.as_deref(), Some("image/png"));
}

#[test]
fn url_part_round_trips() {
    let part: model::Part = round_trip::<v1_0::Part, _>(fixture!("part_url"));
    assert_eq!(
        part.content,
        PartContent::Url(
            "https://storage.example.com/processed/task-bbb/output.png?token=xyz".into()
        )
    );
    assert_eq!(part.filename.as_deref(), Some("output.png"));
}

#[test]
fn data_parts_round_trip_objects_and_other_values() {
    let object: model::Part = round_trip::<v1_0::Part, _>(fixture!("part_data"));
    assert!(
        matches!(&object.content, PartContent::Data(Value::Object(map)) if map["unit"] == "celsius")
    );
    assert_eq!(object.metadata.unwrap()["source"], "sensor-7");

    let array: model::Part = round_trip::<v1_0::Part, _>(fixture!("part_data_array"));
    assert!(matches!(&array.content, PartContent::Data(Value::Array(items)) if items.len() == 6));
}

#[test]
fn null_data_is_a_value_not_an_absence() {
    let part: model::Part = round_trip::<v1_0::Part, _>(r#"{"data": null}"#);
    assert_eq!(part.content, PartContent::Data(Value::Null));
}

#[test]
fn task_round_trips_with_history_artifacts_and_status_message() {
    let task: model::Task = round_trip::<v1_0::Task, _>(fixture!("task"));
    assert_eq!(task.status.state, TaskState::InputRequired);
    assert_eq!(
        task.status.timestamp.as_deref(),
        Some("2024-03-15T10:15:00.000Z")
    );
    let status_message = task.status.message.as_ref().unwrap();
    assert_eq!(status_message.role, Role::Agent);
    assert_eq!(task.history.len(), 2);
    assert_eq!(task.history[1], *status_message);
    assert_eq!(task.artifacts.len(), 2);
    assert_eq!(task.artifacts[0].name.as_deref(), Some("draft-itinerary"));
    assert_eq!(task.metadata.unwrap()["costCents"], 12);
}

#[test]
fn minimal_task_round_trips_without_context_id() {
    let task: model::Task = round_trip::<v1_0::Task, _>(fixture!("task_minimal"));
    assert_eq!(task.id, "task-1");
    assert_eq!(task.context_id, "");
    assert_eq!(task.status, model::TaskStatus::new(TaskState::Submitted));
    assert!(task.history.is_empty() && task.artifacts.is_empty() && task.metadata.is_none());
}

#[test]
fn artifact_round_trips() {
    let artifact: model::Artifact = round_trip::<v1_0::Artifact, _>(fixture!("artifact"));
    assert_eq!(artifact.artifact_id, "9b6934dd-37e3-4eb1-8766-962efaab63a1");
    assert_eq!(
        artifact.description.as_deref(),
        Some("A short joke about chickens")
    );
    assert_eq!(artifact.extensions.len(), 1);
}

#[test]
fn status_update_event_round_trips_and_derives_is_final() {
    let event: model::TaskStatusUpdateEvent =
        round_trip::<v1_0::TaskStatusUpdateEvent, _>(fixture!("status_update_event"));
    assert_eq!(event.status.state, TaskState::Working);
    assert!(!event.is_final, "a working task does not end the stream");
    assert_eq!(event.metadata.unwrap()["progress"], 0.25);
}

#[test]
fn artifact_update_event_round_trips_with_append_and_last_chunk() {
    let event: model::TaskArtifactUpdateEvent =
        round_trip::<v1_0::TaskArtifactUpdateEvent, _>(fixture!("artifact_update_event"));
    assert!(event.append);
    assert!(event.last_chunk);
    assert_eq!(event.artifact.name.as_deref(), Some("report"));
}

#[test]
fn send_message_request_envelope_round_trips() {
    let params = envelope_round_trip::<v1_0::SendMessageRequest, _>(
        fixture!("send_message_request"),
        "SendMessage",
        v1_0::parse_send_params,
    );
    assert_eq!(
        params.message.message_id,
        "6dbc13b5-bd57-4c2b-b503-24e381b6c8d6"
    );
    assert_eq!(
        params.metadata.as_ref().unwrap()["traceId"],
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    let configuration = params.configuration.unwrap();
    assert_eq!(
        configuration.accepted_output_modes,
        ["text/plain", "application/pdf"]
    );
    assert_eq!(configuration.history_length, Some(5));
    assert!(configuration.return_immediately);
    assert_eq!(
        configuration.push_notification_config,
        Some(model::PushNotificationConfig {
            id: Some("push-1".into()),
            url: "https://client.example.com/webhook/a2a-notifications".into(),
            token: Some("secure-client-token-for-task-aaa".into()),
            authentication: Some(model::PushAuthentication {
                schemes: vec!["Bearer".into()],
                credentials: Some("c2VydmVyLXRva2Vu".into()),
            }),
        })
    );
}

#[test]
fn send_message_responses_round_trip() {
    let result: model::SendResult =
        round_trip::<v1_0::SendMessageResponse, _>(fixture!("send_message_response_task"));
    let model::SendResult::Task(task) = &result else {
        panic!("expected a task, got {result:?}");
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.metadata, Some(serde_json::Map::new()));
    assert_eq!(
        serde_json::to_value(v1_0::send_result(&result)).unwrap(),
        value(fixture!("send_message_response_task"))
    );

    let result: model::SendResult =
        round_trip::<v1_0::SendMessageResponse, _>(fixture!("send_message_response_message"));
    assert!(matches!(&result, model::SendResult::Message(message) if message.role == Role::Agent));
    assert_eq!(
        serde_json::to_value(v1_0::send_result(&result)).unwrap(),
        value(fixture!("send_message_response_message"))
    );
}

#[test]
fn stream_responses_round_trip() {
    let fixtures = [
        fixture!("stream_response_task"),
        fixture!("stream_response_message"),
        fixture!("stream_response_status_update"),
        fixture!("stream_response_artifact_update"),
    ];
    let events: Vec<model::StreamEvent> = fixtures
        .iter()
        .map(|json| round_trip::<v1_0::StreamResponse, _>(json))
        .collect();
    assert!(matches!(events[0], model::StreamEvent::Task(_)));
    assert!(matches!(events[1], model::StreamEvent::Message(_)));
    assert!(
        matches!(&events[2], model::StreamEvent::StatusUpdate(event) if event.is_final),
        "a completed status ends the stream"
    );
    assert!(
        matches!(&events[3], model::StreamEvent::ArtifactUpdate(event) if event.last_chunk && !event.append)
    );
    for (event, json) in events.iter().zip(fixtures) {
        assert_eq!(
            serde_json::to_value(v1_0::stream_event(event)).unwrap(),
            value(json)
        );
    }
}

#[test]
fn get_task_request_envelope_round_trips() {
    let params = envelope_round_trip::<v1_0::GetTaskRequest, _>(
        fixture!("get_task_request"),
        "GetTask",
        v1_0::parse_get_task_params,
    );
    assert_eq!(
        params,
        model::GetTaskParams {
            id: "task-uuid".into(),
            history_length: Some(10),
            metadata: None,
        }
    );
}

#[test]
fn cancel_task_request_envelope_round_trips() {
    let params = envelope_round_trip::<v1_0::CancelTaskRequest, _>(
        fixture!("cancel_task_request"),
        "CancelTask",
        v1_0::parse_task_id_params,
    );
    assert_eq!(params.id, "task-uuid");
    assert_eq!(params.metadata.unwrap()["reason"], "no longer needed");
}

#[test]
fn subscribe_to_task_request_envelope_round_trips() {
    let params = envelope_round_trip::<v1_0::SubscribeToTaskRequest, _>(
        fixture!("subscribe_to_task_request"),
        "SubscribeToTask",
        v1_0::parse_task_id_params,
    );
    assert_eq!(
        params,
        model::TaskIdParams {
            id: "task-uuid".into(),
            metadata: None,
        }
    );
}

#[test]
fn list_tasks_request_envelope_round_trips() {
    let params = envelope_round_trip::<v1_0::ListTasksRequest, _>(
        fixture!("list_tasks_request"),
        "ListTasks",
        v1_0::parse_list_tasks_params,
    );
    assert_eq!(
        params,
        model::ListTasksParams {
            context_id: Some("context-uuid".into()),
            status: Some(TaskState::Working),
            page_size: Some(50),
            page_token: Some("cursor-token".into()),
            history_length: Some(2),
            status_timestamp_after: Some("2024-03-15T00:00:00Z".into()),
            include_artifacts: true,
        }
    );
}

#[test]
fn list_tasks_response_round_trips_the_spec_example() {
    let result: model::ListTasksResult =
        round_trip::<v1_0::ListTasksResponse, _>(fixture!("list_tasks_response"));
    assert_eq!(result.tasks.len(), 1);
    assert_eq!(result.next_page_token, "");
    assert_eq!(result.page_size, 10);
    assert_eq!(result.total_size, 5);
    assert_eq!(
        serde_json::to_value(v1_0::list_tasks_result(&result)).unwrap(),
        value(fixture!("list_tasks_response"))
    );
}

#[test]
fn create_push_config_request_envelope_round_trips() {
    let config = envelope_round_trip::<v1_0::TaskPushNotificationConfig, _>(
        fixture!("create_task_push_notification_config_request"),
        "CreateTaskPushNotificationConfig",
        v1_0::parse_task_push_config_params,
    );
    assert_eq!(config.task_id, "43667960-d455-4453-b0cf-1bae4955270d");
    assert_eq!(config.config.id, None);
    assert_eq!(
        config.config.authentication,
        Some(model::PushAuthentication {
            schemes: vec!["Bearer".into()],
            credentials: None,
        })
    );
}

#[test]
fn push_config_result_round_trips() {
    let config: model::TaskPushNotificationConfig = round_trip::<v1_0::TaskPushNotificationConfig, _>(
        fixture!("task_push_notification_config"),
    );
    assert_eq!(config.config.id.as_deref(), Some("push-config-1"));
    assert_eq!(
        serde_json::to_value(v1_0::task_push_config(&config)).unwrap(),
        value(fixture!("task_push_notification_config"))
    );
}

#[test]
fn task_function_writes_a_bare_task() {
    let task: model::Task = round_trip::<v1_0::Task, _>(fixture!("task"));
    assert_eq!(
        serde_json::to_value(v1_0::task(&task)).unwrap(),
        value(fixture!("task"))
    );
}

// ---------------------------------------------------------------------------------------
// Specification examples, verbatim
// ---------------------------------------------------------------------------------------

#[test]
fn spec_webhook_status_update_round_trips() {
    let event: model::StreamEvent =
        round_trip::<v1_0::StreamResponse, _>(fixture!("spec_stream_status_update"));
    let model::StreamEvent::StatusUpdate(update) = event else {
        panic!("expected a status update, got {event:?}");
    };
    assert_eq!(update.task_id, "43667960-d455-4453-b0cf-1bae4955270d");
    assert_eq!(update.status.state, TaskState::Completed);
    assert!(update.is_final);
}

#[test]
fn spec_follow_up_message_request_parses_and_round_trips() {
    let params = round_trip::<v1_0::SendMessageRequest, model::SendMessageParams>(fixture!(
        "spec_follow_up_message_request"
    ));
    let from_function = v1_0::parse_send_params(Some(&raw(&value(fixture!(
        "spec_follow_up_message_request"
    )))))
    .unwrap();
    assert_eq!(params, from_function);
    assert_eq!(params.message.task_id.as_deref(), Some("task-uuid"));
    assert_eq!(params.message.context_id, None);
    assert_eq!(
        params.message.joined_text(),
        "From San Francisco to New York"
    );
    assert_eq!(params.configuration, None);
}

#[test]
fn spec_send_message_examples_round_trip() {
    let params = round_trip::<v1_0::SendMessageRequest, model::SendMessageParams>(fixture!(
        "spec_send_message_request"
    ));
    assert_eq!(
        params.message,
        model::Message::text(Role::User, "msg-uuid", "What is the weather today?")
    );
    let result = round_trip::<v1_0::SendMessageResponse, model::SendResult>(fixture!(
        "spec_send_message_response"
    ));
    assert!(
        matches!(result, model::SendResult::Task(task) if task.artifacts[0].name.as_deref() == Some("Weather Report"))
    );
}

#[test]
fn spec_list_tasks_params_round_trip() {
    let params = round_trip::<v1_0::ListTasksRequest, model::ListTasksParams>(fixture!(
        "spec_list_tasks_params"
    ));
    assert_eq!(params.status, Some(TaskState::Working));
    assert_eq!(params.page_size, Some(50));
    assert!(!params.include_artifacts);
}

#[test]
fn spec_push_request_with_legacy_push_config_is_accepted() {
    let params = v1_0::parse_send_params(Some(&raw(&value(fixture!(
        "spec_push_send_message_request"
    )))))
    .unwrap();
    let configuration = params.configuration.unwrap();
    assert!(!configuration.return_immediately);
    assert_eq!(
        configuration.push_notification_config,
        Some(model::PushNotificationConfig {
            id: None,
            url: "https://client.example.com/webhook/a2a-notifications".into(),
            token: Some("secure-client-token-for-task-aaa".into()),
            authentication: Some(model::PushAuthentication {
                schemes: vec!["Bearer".into()],
                credentials: None,
            }),
        })
    );
    // Written back in the v1.0.0 shape.
    let written = serde_json::to_value(v1_0::SendMessageRequest::from(&model::SendMessageParams {
        configuration: Some(configuration),
        ..params
    }))
    .unwrap();
    assert_eq!(
        written["configuration"],
        json!({"taskPushNotificationConfig": {
            "url": "https://client.example.com/webhook/a2a-notifications",
            "token": "secure-client-token-for-task-aaa",
            "authentication": {"scheme": "Bearer"}
        }})
    );
}

// ---------------------------------------------------------------------------------------
// ProtoJSON input tolerances
// ---------------------------------------------------------------------------------------

#[test]
fn snake_case_names_and_numeric_enums_read_like_the_canonical_message() {
    let canonical: v1_0::Message = serde_json::from_str(fixture!("message")).unwrap();
    let aliased: v1_0::Message = serde_json::from_str(fixture!("message_snake_case")).unwrap();
    assert_eq!(
        model::Message::from(aliased),
        model::Message::from(canonical)
    );
}

#[test]
fn snake_case_names_and_numeric_enums_read_like_the_canonical_task() {
    let canonical: v1_0::Task = serde_json::from_str(fixture!("task")).unwrap();
    let aliased: v1_0::Task = serde_json::from_str(fixture!("task_snake_case")).unwrap();
    assert_eq!(model::Task::from(aliased), model::Task::from(canonical));
}

#[test]
fn snake_case_send_request_with_string_int32_reads_like_the_canonical_one() {
    let canonical = v1_0::parse_send_params(Some(&params_of(fixture!("send_message_request"))));
    let aliased = v1_0::parse_send_params(Some(&params_of(fixture!(
        "send_message_request_snake_case"
    ))));
    assert_eq!(aliased.unwrap(), canonical.unwrap());
}

#[test]
fn legacy_blocking_push_config_and_schemes_read_like_the_canonical_request() {
    // `tenant` is accepted and ignored, `blocking: false` is `returnImmediately: true`,
    // `pushNotificationConfig` is `taskPushNotificationConfig`, `schemes` gives `scheme`.
    let canonical = v1_0::parse_send_params(Some(&params_of(fixture!("send_message_request"))));
    let legacy = v1_0::parse_send_params(Some(&params_of(fixture!("send_message_request_legacy"))));
    assert_eq!(legacy.unwrap(), canonical.unwrap());
}

#[test]
fn blocking_is_read_only_when_return_immediately_is_absent() {
    let configuration = |configuration: Value| {
        send(json!({
            "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": configuration
        }))
        .unwrap()
        .configuration
        .unwrap()
        .return_immediately
    };
    assert!(!configuration(json!({"blocking": true})));
    assert!(configuration(json!({"blocking": false})));
    assert!(!configuration(json!({})));
    assert!(configuration(
        json!({"returnImmediately": true, "blocking": true})
    ));
    assert!(!configuration(
        json!({"returnImmediately": false, "blocking": false})
    ));
}

#[test]
fn every_task_state_reads_by_name_and_by_number_and_writes_its_name() {
    let states = [
        ("TASK_STATE_UNSPECIFIED", TaskState::Unknown),
        ("TASK_STATE_SUBMITTED", TaskState::Submitted),
        ("TASK_STATE_WORKING", TaskState::Working),
        ("TASK_STATE_COMPLETED", TaskState::Completed),
        ("TASK_STATE_FAILED", TaskState::Failed),
        ("TASK_STATE_CANCELED", TaskState::Canceled),
        ("TASK_STATE_INPUT_REQUIRED", TaskState::InputRequired),
        ("TASK_STATE_REJECTED", TaskState::Rejected),
        ("TASK_STATE_AUTH_REQUIRED", TaskState::AuthRequired),
    ];
    for (number, (name, state)) in states.into_iter().enumerate() {
        let by_name: v1_0::TaskStatus = serde_json::from_value(json!({"state": name})).unwrap();
        let by_number: v1_0::TaskStatus = serde_json::from_value(json!({"state": number})).unwrap();
        assert_eq!(model::TaskStatus::from(by_name.clone()).state, state);
        assert_eq!(by_number, by_name);
        let written = v1_0::TaskStatus::from(&model::TaskStatus::new(state));
        assert_eq!(
            serde_json::to_value(written).unwrap(),
            json!({"state": name})
        );
    }
}

#[test]
fn roles_read_by_number_and_write_their_names() {
    for (number, name, role) in [(1, "ROLE_USER", Role::User), (2, "ROLE_AGENT", Role::Agent)] {
        let message: v1_0::Message = serde_json::from_value(
            json!({"messageId": "m", "role": number, "parts": [{"text": "x"}]}),
        )
        .unwrap();
        assert_eq!(model::Message::from(message.clone()).role, role);
        assert_eq!(serde_json::to_value(&message).unwrap()["role"], name);
    }
}

#[test]
fn base64_reads_either_alphabet_padded_or_not_and_writes_standard_padded() {
    for encoded in ["+/+/", "-_-_", "aGk=", "aGk", "aGk_"] {
        let part: v1_0::Part = serde_json::from_value(json!({ "raw": encoded })).unwrap();
        let PartContent::Bytes(bytes) = model::Part::from(part).content else {
            panic!("raw must read as bytes");
        };
        let expected: &[u8] = match encoded {
            "+/+/" | "-_-_" => &[0xfb, 0xff, 0xbf],
            "aGk_" => &[0x68, 0x69, 0x3f],
            _ => b"hi",
        };
        assert_eq!(bytes, expected, "{encoded}");
    }
    let written = v1_0::Part::from(&model::Part::from_content(PartContent::Bytes(vec![
        0xfb, 0xff, 0xbf, 0x68,
    ])));
    assert_eq!(
        serde_json::to_value(written).unwrap(),
        json!({"raw": "+/+/aA=="})
    );
}

#[test]
fn int32_members_read_numbers_numeric_strings_and_integral_floats() {
    for history_length in [json!(10), json!("10"), json!(10.0)] {
        let params = v1_0::parse_get_task_params(Some(&raw(
            &json!({"id": "t-1", "historyLength": history_length}),
        )))
        .unwrap();
        assert_eq!(params.history_length, Some(10), "{history_length}");
    }
    let params =
        v1_0::parse_get_task_params(Some(&raw(&json!({"id": "t-1", "historyLength": null}))))
            .unwrap();
    assert_eq!(params.history_length, None);
    let params = v1_0::parse_list_tasks_params(Some(&raw(&json!({"pageSize": "100"})))).unwrap();
    assert_eq!(params.page_size, Some(100));
}

#[test]
fn tenant_is_accepted_and_ignored_everywhere() {
    let get = v1_0::parse_get_task_params(Some(&raw(&json!({"tenant": "acme", "id": "t-1"}))));
    assert_eq!(get.unwrap().id, "t-1");
    let cancel = v1_0::parse_task_id_params(Some(&raw(&json!({"tenant": "acme", "id": "t-1"}))));
    assert_eq!(
        cancel.unwrap(),
        model::TaskIdParams {
            id: "t-1".into(),
            metadata: None
        }
    );
    let list = v1_0::parse_list_tasks_params(Some(&raw(&json!({"tenant": "acme"}))));
    assert_eq!(list.unwrap(), model::ListTasksParams::default());
    let push = v1_0::parse_task_push_config_params(Some(&raw(
        &json!({"tenant": "acme", "taskId": "t-1", "url": "https://hook.example.com"}),
    )));
    assert_eq!(push.unwrap().task_id, "t-1");
}

#[test]
fn unspecified_status_filter_means_no_filter() {
    for status in [json!("TASK_STATE_UNSPECIFIED"), json!(0), json!(null)] {
        let params =
            v1_0::parse_list_tasks_params(Some(&raw(&json!({ "status": status })))).unwrap();
        assert_eq!(params.status, None, "{status}");
    }
}

#[test]
fn unknown_fields_are_ignored() {
    let params = send(json!({
        "message": {
            "kind": "message",
            "messageId": "m-1",
            "role": "ROLE_USER",
            "parts": [{"kind": "text", "text": "hi", "mimeType": "text/plain"}],
            "timestamp": "2025-01-01T00:00:00Z"
        },
        "configuration": {"acceptedOutputModes": ["text/plain"], "pushNotifications": true},
        "extra": {"anything": [1, 2, 3]}
    }))
    .unwrap();
    assert_eq!(
        params.message,
        model::Message::text(Role::User, "m-1", "hi")
    );
    assert_eq!(params.metadata, None);

    let event: v1_0::StreamResponse = parse(json!({
        "statusUpdate": {
            "taskId": "t-1",
            "contextId": "c-1",
            "status": {"state": "TASK_STATE_FAILED", "reason": "x"},
            "final": true
        },
        "kind": "status-update"
    }))
    .unwrap();
    assert!(matches!(
        model::StreamEvent::from(event),
        model::StreamEvent::StatusUpdate(update) if update.is_final && update.status.state == TaskState::Failed
    ));
}

#[test]
fn empty_optional_strings_and_nulls_read_as_unset() {
    let message: v1_0::Message = serde_json::from_value(json!({
        "messageId": "m-1", "contextId": "", "taskId": null, "role": "ROLE_USER",
        "parts": [{"text": "hi", "mediaType": "", "filename": null}],
        "metadata": null, "extensions": null, "referenceTaskIds": []
    }))
    .unwrap();
    assert_eq!(
        model::Message::from(message.clone()),
        model::Message::text(Role::User, "m-1", "hi")
    );
    assert_eq!(
        serde_json::to_value(message).unwrap(),
        json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]})
    );
}

#[test]
fn list_tasks_response_always_writes_its_four_members_and_reads_their_absence() {
    let empty = model::ListTasksResult {
        tasks: Vec::new(),
        next_page_token: String::new(),
        page_size: 0,
        total_size: 0,
    };
    assert_eq!(
        serde_json::to_value(v1_0::list_tasks_result(&empty)).unwrap(),
        json!({"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0})
    );
    let read: v1_0::ListTasksResponse = serde_json::from_value(json!({})).unwrap();
    assert_eq!(model::ListTasksResult::from(read), empty);
}

#[test]
fn model_only_fields_are_dropped_when_writing() {
    // `is_final` is not written; false booleans and empty ids are left out.
    let event = model::StreamEvent::StatusUpdate(model::TaskStatusUpdateEvent {
        task_id: "t-1".into(),
        context_id: "c-1".into(),
        status: model::TaskStatus::new(TaskState::Completed),
        is_final: true,
        metadata: None,
    });
    assert_eq!(
        serde_json::to_value(v1_0::stream_event(&event)).unwrap(),
        json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}})
    );
    let chunk = model::StreamEvent::ArtifactUpdate(model::TaskArtifactUpdateEvent {
        task_id: "t-1".into(),
        context_id: "c-1".into(),
        artifact: model::Artifact {
            artifact_id: "a-1".into(),
            name: None,
            description: None,
            parts: vec![model::Part::text("x")],
            metadata: None,
            extensions: Vec::new(),
        },
        append: false,
        last_chunk: false,
        metadata: None,
    });
    assert_eq!(
        serde_json::to_value(v1_0::stream_event(&chunk)).unwrap(),
        json!({"artifactUpdate": {"taskId": "t-1", "contextId": "c-1",
            "artifact": {"artifactId": "a-1", "parts": [{"text": "x"}]}}})
    );
    let get = v1_0::GetTaskRequest::from(&model::GetTaskParams {
        id: "t-1".into(),
        history_length: None,
        metadata: Some(serde_json::Map::new()),
    });
    assert_eq!(serde_json::to_value(get).unwrap(), json!({"id": "t-1"}));
}

// ---------------------------------------------------------------------------------------
// Refusals: -32602 with the offending member's path and a specific message
// ---------------------------------------------------------------------------------------

#[test]
fn missing_params_are_refused() {
    assert_refused(v1_0::parse_send_params(None), "params: required");
    assert_refused(v1_0::parse_get_task_params(None), "params: required");
    assert_refused(v1_0::parse_task_id_params(None), "params: required");
    assert_refused(v1_0::parse_list_tasks_params(None), "params: required");
    assert_refused(
        v1_0::parse_task_push_config_params(None),
        "params: required",
    );
}

#[test]
fn missing_message_is_refused() {
    assert_refused(send(json!({})), "params: missing field `message`");
}

#[test]
fn missing_message_id_is_refused() {
    assert_refused(
        send_message(json!({"role": "ROLE_USER", "parts": [{"text": "hi"}]})),
        "params.message: missing field `messageId`",
    );
}

#[test]
fn empty_message_id_is_refused() {
    assert_refused(
        send_message(json!({"messageId": "", "role": "ROLE_USER", "parts": [{"text": "hi"}]})),
        "params.message.messageId: must not be empty",
    );
}

#[test]
fn missing_role_is_refused() {
    assert_refused(
        send_message(json!({"messageId": "m-1", "parts": [{"text": "hi"}]})),
        "params.message: missing field `role`",
    );
}

#[test]
fn unspecified_role_is_refused() {
    let message = |role: Value| {
        send_message(json!({"messageId": "m-1", "role": role, "parts": [{"text": "hi"}]}))
    };
    assert_refused(
        message(json!("ROLE_UNSPECIFIED")),
        "params.message.role: role must be ROLE_USER or ROLE_AGENT, got ROLE_UNSPECIFIED",
    );
    assert_refused(
        message(json!(0)),
        "params.message.role: role must be ROLE_USER or ROLE_AGENT, got 0 (ROLE_UNSPECIFIED)",
    );
}

#[test]
fn unknown_role_is_refused() {
    let message = |role: Value| {
        send_message(json!({"messageId": "m-1", "role": role, "parts": [{"text": "hi"}]}))
    };
    assert_refused(
        message(json!("ROLE_ADMIN")),
        "params.message.role: role must be ROLE_USER or ROLE_AGENT, got \"ROLE_ADMIN\"",
    );
    assert_refused(
        message(json!("user")),
        "params.message.role: role must be ROLE_USER or ROLE_AGENT, got \"user\" (the v0.3 spelling)",
    );
    assert_refused(
        message(json!(3)),
        "params.message.role: role must be ROLE_USER or ROLE_AGENT, got 3",
    );
    assert_refused(
        message(json!(true)),
        "params.message.role: invalid type: boolean `true`, expected ROLE_USER or ROLE_AGENT",
    );
}

#[test]
fn part_without_content_is_refused() {
    assert_refused(
        send_parts(json!([{"mediaType": "text/plain", "metadata": {}}])),
        "params.message.parts[0]: a part must carry exactly one of text, raw, url, data (found none)",
    );
}

#[test]
fn part_with_two_or_more_members_is_refused() {
    assert_refused(
        send_parts(json!([{"text": "ok"}, {"text": "hi", "url": "https://example.com/a"}])),
        "params.message.parts[1]: a part must carry exactly one of text, raw, url, data (found text and url)",
    );
    assert_refused(
        send_parts(json!([{"text": "hi", "raw": "aGk=", "data": null}])),
        "params.message.parts[0]: a part must carry exactly one of text, raw, url, data (found text, raw and data)",
    );
}

#[test]
fn bad_base64_is_refused() {
    assert_refused(
        send_parts(json!([{"raw": "aGk!"}])),
        "params.message.parts[0].raw: not valid base64: unexpected '!' at offset 3",
    );
    assert_refused(
        send_parts(json!([{"text": "ok"}, {"raw": "aGVsbG"}])),
        "params.message.parts[1].raw: not valid base64: the last symbol 'G' at offset 5 has bits left over",
    );
    assert_refused(
        send_parts(json!([{"raw": "aGVsb"}])),
        "params.message.parts[0].raw: not valid base64: 5 symbols cannot encode whole bytes",
    );
    assert_refused(
        send_parts(json!([{"raw": 42}])),
        "params.message.parts[0].raw: invalid type: integer `42`, expected a base64 string",
    );
}

#[test]
fn empty_parts_are_refused() {
    assert_refused(
        send_parts(json!([])),
        "params.message.parts: must contain at least one part",
    );
    assert_refused(
        send_parts(json!("hi")),
        "params.message.parts: invalid type: string \"hi\", expected a sequence",
    );
}

#[test]
fn negative_or_malformed_history_length_is_refused() {
    let configured = |history_length: Value| {
        send(json!({
            "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": {"historyLength": history_length}
        }))
    };
    assert_refused(
        configured(json!(-1)),
        "params.configuration.historyLength: must be a non-negative integer, got -1",
    );
    assert_refused(
        configured(json!("-3")),
        "params.configuration.historyLength: must be a non-negative integer, got -3",
    );
    assert_refused(
        configured(json!(1.5)),
        "params.configuration.historyLength: must be a non-negative integer, got 1.5",
    );
    assert_refused(
        configured(json!("ten")),
        "params.configuration.historyLength: must be a non-negative integer, got \"ten\"",
    );
    assert_refused(
        configured(json!(3_000_000_000_u64)),
        "params.configuration.historyLength: must be at most 2147483647, got 3000000000",
    );
    assert_refused(
        configured(json!(true)),
        "params.configuration.historyLength: invalid type: boolean `true`, expected a non-negative integer (a JSON number or a numeric string)",
    );
    assert_refused(
        v1_0::parse_get_task_params(Some(&raw(&json!({"id": "t-1", "historyLength": -5})))),
        "params.historyLength: must be a non-negative integer, got -5",
    );
}

#[test]
fn page_size_outside_1_to_100_is_refused() {
    let list = |page_size: Value| {
        v1_0::parse_list_tasks_params(Some(&raw(&json!({ "pageSize": page_size }))))
    };
    assert_refused(
        list(json!(0)),
        "params.pageSize: must be between 1 and 100, got 0",
    );
    assert_refused(
        list(json!(101)),
        "params.pageSize: must be between 1 and 100, got 101",
    );
    assert_refused(
        list(json!(-1)),
        "params.pageSize: must be a non-negative integer, got -1",
    );
    assert_eq!(list(json!(1)).unwrap().page_size, Some(1));
}

#[test]
fn unknown_task_state_is_refused() {
    let list =
        |status: Value| v1_0::parse_list_tasks_params(Some(&raw(&json!({ "status": status }))));
    assert_refused(
        list(json!("completed")),
        "params.status: unknown task state \"completed\" (the v0.3 spelling of TASK_STATE_COMPLETED)",
    );
    assert_refused(
        list(json!("TASK_STATE_DONE")),
        "params.status: unknown task state \"TASK_STATE_DONE\"; expected a TASK_STATE_* name such as TASK_STATE_WORKING",
    );
    assert_refused(
        list(json!(9)),
        "params.status: unknown task state 9; expected 0 to 8",
    );
}

#[test]
fn stream_response_with_two_members_or_none_is_refused() {
    let status_update =
        json!({"taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}});
    let message = json!({"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]});
    assert_refused(
        parse::<v1_0::StreamResponse>(json!({"message": message, "statusUpdate": status_update})),
        "params: a stream response must carry exactly one of task, message, statusUpdate, artifactUpdate (found message and statusUpdate)",
    );
    assert_refused(
        parse::<v1_0::StreamResponse>(json!({"kind": "status-update"})),
        "params: a stream response must carry exactly one of task, message, statusUpdate, artifactUpdate (found none)",
    );
}

#[test]
fn send_message_response_with_two_members_or_none_is_refused() {
    let task = json!({"id": "t-1", "status": {"state": "TASK_STATE_WORKING"}});
    let message = json!({"messageId": "m-1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]});
    assert_refused(
        parse::<v1_0::SendMessageResponse>(json!({"task": task, "message": message})),
        "params: a send-message response must carry exactly one of task, message (found task and message)",
    );
    assert_refused(
        parse::<v1_0::SendMessageResponse>(json!({})),
        "params: a send-message response must carry exactly one of task, message (found none)",
    );
}

#[test]
fn malformed_events_are_refused_with_their_path() {
    assert_refused(
        parse::<v1_0::StreamResponse>(
            json!({"statusUpdate": {"taskId": "t-1", "status": {"state": "TASK_STATE_WORKING"}}}),
        ),
        "params.statusUpdate: missing field `contextId`",
    );
    assert_refused(
        parse::<v1_0::StreamResponse>(json!({"artifactUpdate": {
            "taskId": "t-1", "contextId": "c-1", "artifact": {"artifactId": "a-1", "parts": []}
        }})),
        "params.artifactUpdate.artifact.parts: must contain at least one part",
    );
    assert_refused(
        parse::<v1_0::StreamResponse>(json!({"task": {"id": "t-1", "status": {}}})),
        "params.task.status: missing field `state`",
    );
    assert_refused(
        parse::<v1_0::StreamResponse>(json!({"task": {"id": "t-1", "contextId": "c-1"}})),
        "params.task: missing field `status`",
    );
}

#[test]
fn task_requests_without_an_id_are_refused() {
    assert_refused(
        v1_0::parse_get_task_params(Some(&raw(&json!({"historyLength": 1})))),
        "params: missing field `id`",
    );
    assert_refused(
        v1_0::parse_get_task_params(Some(&raw(&json!({"id": ""})))),
        "params.id: must not be empty",
    );
    assert_refused(
        v1_0::parse_task_id_params(Some(&raw(&json!({"id": 7})))),
        "params.id: invalid type: integer `7`, expected a string",
    );
}

#[test]
fn push_config_without_task_id_url_or_scheme_is_refused() {
    let create = |params: Value| v1_0::parse_task_push_config_params(Some(&raw(&params)));
    assert_refused(
        create(json!({"url": "https://hook.example.com"})),
        "params: missing or empty `taskId` (the task the configuration is for)",
    );
    assert_refused(
        create(json!({"taskId": "t-1"})),
        "params: missing field `url`",
    );
    assert_refused(
        create(json!({"taskId": "t-1", "url": ""})),
        "params.url: must not be empty",
    );
    assert_refused(
        send(json!({
            "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            "configuration": {"taskPushNotificationConfig": {
                "url": "https://hook.example.com", "authentication": {"credentials": "x"}
            }}
        })),
        "params.configuration.taskPushNotificationConfig.authentication: authentication needs a non-empty `scheme` (an HTTP authentication scheme such as \"Bearer\")",
    );
}
