//! Push-notification configuration params and results in both versions: exact JSON, round
//! trips through the model, refusals, and the notification bodies.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a_lambda_core::model::{self, PushConfigId, TaskState};
use a2a_lambda_core::wire::{v0_3, v1_0};
use serde_json::value::RawValue;
use serde_json::{Value, json};

fn raw(params: &Value) -> Box<RawValue> {
    RawValue::from_string(params.to_string()).unwrap()
}

fn refusal(error: &a2a_lambda_core::Error) -> String {
    error.to_string()
}

fn config(id: &str) -> model::TaskPushNotificationConfig {
    model::TaskPushNotificationConfig {
        task_id: "t-1".into(),
        config: model::PushNotificationConfig {
            id: Some(id.into()),
            url: "https://hooks.example.com/a2a".into(),
            token: Some("tok".into()),
            authentication: Some(model::PushAuthentication {
                schemes: vec!["Bearer".into()],
                credentials: Some("secret".into()),
            }),
        },
    }
}

fn task() -> model::Task {
    model::Task {
        id: "t-1".into(),
        context_id: "c-1".into(),
        status: model::TaskStatus {
            state: TaskState::Completed,
            message: None,
            timestamp: Some("2026-12-01T10:00:00.000Z".into()),
        },
        artifacts: vec![],
        history: vec![],
        metadata: None,
    }
}

#[test]
fn v0_3_get_reads_the_task_and_an_optional_config_id() {
    let params = raw(&json!({"id": "t-1", "pushNotificationConfigId": "c-9"}));
    assert_eq!(
        v0_3::parse_get_push_config_params(Some(&params)).unwrap(),
        PushConfigId {
            task_id: "t-1".into(),
            config_id: Some("c-9".into())
        }
    );
    let params = raw(&json!({"id": "t-1", "metadata": {"k": 1}}));
    assert_eq!(
        v0_3::parse_get_push_config_params(Some(&params)).unwrap(),
        PushConfigId {
            task_id: "t-1".into(),
            config_id: None
        }
    );
    let written = serde_json::to_value(v0_3::GetTaskPushNotificationConfigParams::from(
        &PushConfigId {
            task_id: "t-1".into(),
            config_id: Some("c-9".into()),
        },
    ))
    .unwrap();
    assert_eq!(
        written,
        json!({"id": "t-1", "pushNotificationConfigId": "c-9"})
    );
}

#[test]
fn v0_3_delete_needs_both_ids_and_list_needs_the_task() {
    let params = raw(&json!({"id": "t-1", "pushNotificationConfigId": "c-9"}));
    assert_eq!(
        v0_3::parse_delete_push_config_params(Some(&params))
            .unwrap()
            .config_id
            .as_deref(),
        Some("c-9")
    );
    let missing = raw(&json!({"id": "t-1"}));
    let error = v0_3::parse_delete_push_config_params(Some(&missing)).unwrap_err();
    assert_eq!(
        error.to_wire(a2a_lambda_core::ErrorProfile::Spec).1.code,
        -32602
    );
    assert!(
        refusal(&error).contains("pushNotificationConfigId"),
        "{error}"
    );

    let list = raw(&json!({"id": "t-1"}));
    assert_eq!(
        v0_3::parse_list_push_configs_params(Some(&list)).unwrap(),
        model::ListPushConfigsParams {
            task_id: "t-1".into(),
            page_size: None,
            page_token: None
        }
    );
    let empty = raw(&json!({"id": ""}));
    assert!(v0_3::parse_list_push_configs_params(Some(&empty)).is_err());
}

#[test]
fn v0_3_results_are_the_nested_config_and_a_bare_array() {
    let written = serde_json::to_value(v0_3::task_push_config(&config("c-1"))).unwrap();
    let nested = json!({
        "taskId": "t-1",
        "pushNotificationConfig": {
            "id": "c-1",
            "url": "https://hooks.example.com/a2a",
            "token": "tok",
            "authentication": {"schemes": ["Bearer"], "credentials": "secret"}
        }
    });
    assert_eq!(written, nested);
    let list = model::ListPushConfigsResult {
        configs: vec![config("c-1")],
        next_page_token: String::new(),
    };
    assert_eq!(
        serde_json::to_value(v0_3::push_config_list(&list)).unwrap(),
        json!([nested])
    );
}

#[test]
fn v1_0_get_and_delete_name_the_task_and_the_config() {
    let params = raw(&json!({"tenant": "x", "taskId": "t-1", "id": "c-9"}));
    assert_eq!(
        v1_0::parse_push_config_id_params(Some(&params)).unwrap(),
        PushConfigId {
            task_id: "t-1".into(),
            config_id: Some("c-9".into())
        }
    );
    let snake = raw(&json!({"task_id": "t-1", "id": "c-9"}));
    assert!(v1_0::parse_push_config_id_params(Some(&snake)).is_ok());
    for bad in [
        json!({"taskId": "t-1"}),
        json!({"id": "c-9"}),
        json!({"taskId": "", "id": "c"}),
    ] {
        let error = v1_0::parse_push_config_id_params(Some(&raw(&bad))).unwrap_err();
        assert_eq!(
            error.to_wire(a2a_lambda_core::ErrorProfile::Spec).1.code,
            -32602,
            "{bad}"
        );
    }
    let written = serde_json::to_value(v1_0::TaskPushNotificationConfigRequest::from(
        &PushConfigId {
            task_id: "t-1".into(),
            config_id: Some("c-9".into()),
        },
    ))
    .unwrap();
    assert_eq!(written, json!({"taskId": "t-1", "id": "c-9"}));
}

#[test]
fn v1_0_list_pages_and_writes_both_members() {
    let params = raw(&json!({"taskId": "t-1", "pageSize": "2", "pageToken": "p"}));
    assert_eq!(
        v1_0::parse_list_push_configs_params(Some(&params)).unwrap(),
        model::ListPushConfigsParams {
            task_id: "t-1".into(),
            page_size: Some(2),
            page_token: Some("p".into())
        }
    );
    let zero = raw(&json!({"taskId": "t-1", "pageSize": 0}));
    assert!(v1_0::parse_list_push_configs_params(Some(&zero)).is_err());

    let list = model::ListPushConfigsResult {
        configs: vec![config("c-1")],
        next_page_token: String::new(),
    };
    assert_eq!(
        serde_json::to_value(v1_0::push_config_list(&list)).unwrap(),
        json!({
            "configs": [{
                "id": "c-1",
                "taskId": "t-1",
                "url": "https://hooks.example.com/a2a",
                "token": "tok",
                "authentication": {"scheme": "Bearer", "credentials": "secret"}
            }],
            "nextPageToken": ""
        })
    );
    let read: v1_0::ListTaskPushNotificationConfigsResponse =
        serde_json::from_value(json!({"configs": null})).unwrap();
    assert_eq!(
        model::ListPushConfigsResult::from(read),
        model::ListPushConfigsResult::default()
    );
}

#[test]
fn v1_0_create_needs_a_task_id_and_a_url() {
    let params = raw(&json!({"taskId": "t-1", "id": "c-1", "url": "https://h.example/x"}));
    let parsed = v1_0::parse_task_push_config_params(Some(&params)).unwrap();
    assert_eq!(parsed.task_id, "t-1");
    assert_eq!(parsed.config.url, "https://h.example/x");
    let no_task = raw(&json!({"url": "https://h.example/x"}));
    assert!(
        refusal(&v1_0::parse_task_push_config_params(Some(&no_task)).unwrap_err())
            .contains("taskId")
    );
    let no_url = raw(&json!({"taskId": "t-1"}));
    assert!(
        refusal(&v1_0::parse_task_push_config_params(Some(&no_url)).unwrap_err()).contains("url")
    );
}

#[test]
fn notification_bodies_are_the_task_in_each_version() {
    let task = task();
    assert_eq!(
        serde_json::to_value(v0_3::push_payload(&task)).unwrap(),
        json!({
            "kind": "task",
            "id": "t-1",
            "contextId": "c-1",
            "status": {"state": "completed", "timestamp": "2026-12-01T10:00:00.000Z"}
        })
    );
    assert_eq!(
        serde_json::to_value(v1_0::push_payload(&task)).unwrap(),
        json!({
            "task": {
                "id": "t-1",
                "contextId": "c-1",
                "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2026-12-01T10:00:00.000Z"}
            }
        })
    );
}
