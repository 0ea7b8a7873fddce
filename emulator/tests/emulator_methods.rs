//! Every non-streaming method of both versions against the real emulator and its
//! `conformance` agent: send (task and direct replies), multi-turn, get, list, cancel,
//! push-notification configs and the extended card.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::{
    Emulator, Op, Value, Version, eventually, json, redact, spec_error,
};

fn text_part(version: Version, text: &str) -> Value {
    match version {
        Version::V0_3 => json!({"kind": "text", "text": text}),
        Version::V1_0 => json!({"text": text}),
    }
}

fn message(
    version: Version,
    role: &str,
    message_id: &str,
    text: &str,
    task_id: Option<&str>,
    context_id: &str,
) -> Value {
    let mut message = match version {
        Version::V0_3 => json!({"kind": "message", "role": role}),
        Version::V1_0 => json!({"role": format!("ROLE_{}", role.to_uppercase())}),
    };
    message["messageId"] = json!(message_id);
    message["parts"] = json!([text_part(version, text)]);
    message["contextId"] = json!(context_id);
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    message
}

/// The user message as the task's history keeps it (with the task's ids).
fn user(version: Version, message_id: &str, text: &str, task_id: &str, context_id: &str) -> Value {
    message(version, "user", message_id, text, Some(task_id), context_id)
}

/// An agent message (its id is generated: redacted).
fn agent(version: Version, text: &str, task_id: &str, context_id: &str) -> Value {
    message(version, "agent", "<uuid>", text, Some(task_id), context_id)
}

fn task(
    version: Version,
    (task_id, context_id): (&str, &str),
    state: &str,
    status_message: Option<Value>,
    history: Vec<Value>,
    artifacts: Option<Value>,
) -> Value {
    let mut status = json!({"state": version.state(state), "timestamp": "<timestamp>"});
    if let Some(message) = status_message {
        status["message"] = message;
    }
    let mut task = json!({"id": task_id, "contextId": context_id, "status": status});
    if version == Version::V0_3 {
        task["kind"] = json!("task");
    }
    if !history.is_empty() {
        task["history"] = Value::Array(history);
    }
    if let Some(artifacts) = artifacts {
        task["artifacts"] = artifacts;
    }
    task
}

fn ids(task: &Value) -> (String, String) {
    (
        task["id"].as_str().unwrap().to_owned(),
        task["contextId"].as_str().unwrap().to_owned(),
    )
}

/// The artifact each `tck-artifact-*` prefix produces, in the version's shape.
fn expected_artifact(version: Version, prefix: &str) -> Value {
    let (id, part) = match (prefix, version) {
        ("tck-artifact-text", _) => ("text", text_part(version, "Generated text content")),
        ("tck-artifact-file", Version::V0_3) => (
            "file",
            json!({"kind": "file", "file": {
                "bytes": "R2VuZXJhdGVkIGZpbGUgY29udGVudA==",
                "mimeType": "text/plain",
                "name": "output.txt",
            }}),
        ),
        ("tck-artifact-file", Version::V1_0) => (
            "file",
            json!({"raw": "R2VuZXJhdGVkIGZpbGUgY29udGVudA==", "filename": "output.txt", "mediaType": "text/plain"}),
        ),
        ("tck-artifact-file-url", Version::V0_3) => (
            "file-url",
            json!({"kind": "file", "file": {
                "uri": "https://example.com/output.txt",
                "mimeType": "text/plain",
                "name": "output.txt",
            }}),
        ),
        ("tck-artifact-file-url", Version::V1_0) => (
            "file-url",
            json!({"url": "https://example.com/output.txt", "filename": "output.txt", "mediaType": "text/plain"}),
        ),
        ("tck-artifact-data", Version::V0_3) => (
            "data",
            json!({"kind": "data", "data": {"key": "value", "count": 42}}),
        ),
        ("tck-artifact-data", Version::V1_0) => {
            ("data", json!({"data": {"key": "value", "count": 42}}))
        }
        _ => unreachable!("{prefix}"),
    };
    json!([{"artifactId": id, "name": id, "parts": [part]}])
}

#[tokio::test]
async fn send_answers_each_conformance_prefix_in_both_versions() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        // Tasks that end (or stop) with a status message.
        for (prefix, state, text) in [
            ("tck-complete-task", "completed", "Hello from TCK"),
            (
                "tck-input-required",
                "input-required",
                "Please provide more input",
            ),
            ("tck-reject-task", "rejected", "Task rejected"),
        ] {
            let message_id = format!("{prefix}-{version:?}");
            let response = emulator
                .call_op(version, Op::Send, version.send_params(&message_id, "hi"))
                .await;
            let found = version.task_in(&response["result"]);
            let (task_id, context_id) = ids(&found);
            let ids = (task_id.as_str(), context_id.as_str());
            let reply = agent(version, text, &task_id, &context_id);
            let expected = task(
                version,
                ids,
                state,
                Some(reply.clone()),
                vec![
                    user(version, &message_id, "hi", &task_id, &context_id),
                    reply,
                ],
                None,
            );
            assert_eq!(redact(&found), expected, "{version:?} {prefix}");
            if version == Version::V1_0 {
                assert_eq!(
                    response["result"].as_object().unwrap().len(),
                    1,
                    "{response}"
                );
            }
        }
        // Tasks that complete with an artifact and no status message.
        for prefix in [
            "tck-artifact-text",
            "tck-artifact-file",
            "tck-artifact-file-url",
            "tck-artifact-data",
        ] {
            let message_id = format!("{prefix}-{version:?}");
            let found = emulator
                .send_task(version, version.send_params(&message_id, "make it"))
                .await;
            let (task_id, context_id) = ids(&found);
            let expected = task(
                version,
                (&task_id, &context_id),
                "completed",
                None,
                vec![user(version, &message_id, "make it", &task_id, &context_id)],
                Some(expected_artifact(version, prefix)),
            );
            assert_eq!(redact(&found), expected, "{version:?} {prefix}");
        }
    }
}

#[tokio::test]
async fn send_tck_message_response_is_a_direct_message() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let mut params = version.send_params("tck-message-response-1", "hi");
        params["message"]["contextId"] = json!("ctx-direct");
        let result = emulator.result(version, Op::Send, params).await;
        let reply = match version {
            Version::V0_3 => json!({"kind": "message", "messageId": "<uuid>", "role": "agent",
                "parts": [{"kind": "text", "text": "Direct message response"}], "contextId": "ctx-direct"}),
            Version::V1_0 => json!({"message": {"messageId": "<uuid>", "contextId": "ctx-direct",
                "role": "ROLE_AGENT", "parts": [{"text": "Direct message response"}]}}),
        };
        assert_eq!(redact(&result), reply, "{version:?}");
    }
}

#[tokio::test]
async fn input_required_then_done_completes_the_task() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let first_id = format!("tck-input-required-{version:?}");
        let first = emulator
            .send_task(version, version.send_params(&first_id, "start"))
            .await;
        let (task_id, context_id) = ids(&first);
        assert_eq!(first["status"]["state"], version.state("input-required"));
        // Let the task's runner finish (see a_follow_up_right_after_input_required_is_accepted
        // for what happens when the follow-up comes at once).
        emulator.wait_idle().await;

        // The follow-up names the task; v0.3 leaves the context out (it is the task's),
        // v1.0 repeats it.
        let mut follow_up = version.user_message(&format!("follow-{version:?}"), "done");
        follow_up["taskId"] = json!(task_id);
        if version == Version::V1_0 {
            follow_up["contextId"] = json!(context_id);
        }
        let done = emulator
            .send_task(version, json!({"message": follow_up}))
            .await;
        let asked = agent(version, "Please provide more input", &task_id, &context_id);
        let finished = agent(version, "Done", &task_id, &context_id);
        let expected = task(
            version,
            (&task_id, &context_id),
            "completed",
            Some(finished.clone()),
            vec![
                user(version, &first_id, "start", &task_id, &context_id),
                asked,
                user(
                    version,
                    &format!("follow-{version:?}"),
                    "done",
                    &task_id,
                    &context_id,
                ),
                finished,
            ],
            None,
        );
        assert_eq!(redact(&done), expected, "{version:?}");
        assert_eq!(
            redact(&emulator.get_task(version, &task_id).await),
            expected
        );
    }
}

#[tokio::test]
async fn an_unrecognised_message_is_multi_turn_until_done() {
    let emulator = Emulator::conformance();
    let version = Version::V1_0;
    let first = emulator
        .send_task(version, version.send_params("chat-1", "hello"))
        .await;
    let (task_id, context_id) = ids(&first);
    let ask = "Tell me more, or say \"done\" to finish.";
    assert_eq!(
        redact(&first["status"]),
        json!({"state": "TASK_STATE_INPUT_REQUIRED", "timestamp": "<timestamp>",
            "message": agent(version, ask, &task_id, &context_id)})
    );
    for (turn, text, state) in [
        (2, "more detail", "input-required"),
        (3, "done", "completed"),
    ] {
        emulator.wait_idle().await;
        let mut follow_up = version.user_message(&format!("chat-{turn}"), text);
        follow_up["taskId"] = json!(task_id);
        let next = emulator
            .send_task(version, json!({"message": follow_up}))
            .await;
        assert_eq!(next["id"], task_id.as_str());
        assert_eq!(next["contextId"], context_id.as_str());
        assert_eq!(next["status"]["state"], version.state(state), "{next}");
    }
    let history = emulator.get_task(version, &task_id).await["history"].clone();
    let texts: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["parts"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        ["hello", ask, "more detail", ask, "done", "Done"],
        "{history}"
    );
}

/// A follow-up sent as soon as the input-required answer arrives must be taken: the task
/// is interrupted, not working. Repeated (until the first failure) because the window
/// between the answer and the runner leaving the registry is short.
#[tokio::test]
async fn a_follow_up_right_after_input_required_is_accepted() {
    let emulator = Emulator::conformance();
    let version = Version::V1_0;
    for round in 0..1000 {
        let first = emulator
            .send_task(
                version,
                version.send_params(&format!("tck-input-required-{round}"), "go"),
            )
            .await;
        assert_eq!(first["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        let mut follow_up = version.user_message(&format!("follow-{round}"), "done");
        follow_up["taskId"] = first["id"].clone();
        let response = emulator
            .call_op(version, Op::Send, json!({"message": follow_up}))
            .await;
        assert_eq!(
            response["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "round {round}: {response}"
        );
    }
}

#[tokio::test]
async fn get_task_trims_history_to_history_length() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let message_id = format!("tck-complete-task-get-{version:?}");
        let sent = emulator
            .send_task(version, version.send_params(&message_id, "hi"))
            .await;
        let (task_id, context_id) = ids(&sent);
        let reply = agent(version, "Hello from TCK", &task_id, &context_id);
        let asked = user(version, &message_id, "hi", &task_id, &context_id);
        let with = |history: Vec<Value>| {
            task(
                version,
                (&task_id, &context_id),
                "completed",
                Some(reply.clone()),
                history,
                None,
            )
        };
        for (params, expected) in [
            (
                json!({"id": task_id}),
                with(vec![asked.clone(), reply.clone()]),
            ),
            (json!({"id": task_id, "historyLength": 0}), with(vec![])),
            (
                json!({"id": task_id, "historyLength": 1}),
                with(vec![reply.clone()]),
            ),
            (
                json!({"id": task_id, "historyLength": 5}),
                with(vec![asked.clone(), reply.clone()]),
            ),
        ] {
            let got = emulator.result(version, Op::Get, params.clone()).await;
            assert_eq!(redact(&got), expected, "{version:?} {params}");
        }
        // The send itself honours historyLength too.
        let mut params = version.send_params(&format!("{message_id}-b"), "hi");
        params["configuration"] = json!({"historyLength": 0});
        let trimmed = emulator.send_task(version, params).await;
        assert!(trimmed.get("history").is_none(), "{trimmed}");
    }
}

#[tokio::test]
async fn list_tasks_filters_by_context_and_pages() {
    let emulator = Emulator::conformance();
    let version = Version::V1_0;
    let mut in_context = Vec::new();
    for index in 0..3 {
        let mut params = version.send_params(&format!("tck-artifact-text-{index}"), "hi");
        params["message"]["contextId"] = json!("ctx-list");
        let sent = emulator.send_task(version, params).await;
        assert_eq!(sent["contextId"], "ctx-list");
        in_context.push(sent["id"].as_str().unwrap().to_owned());
    }
    let other = emulator
        .send_task(
            version,
            version.send_params("tck-complete-task-other", "hi"),
        )
        .await;
    assert_ne!(other["contextId"], "ctx-list");

    // The whole context, newest first, without artifacts unless asked.
    let all = emulator
        .result(version, Op::List, json!({"contextId": "ctx-list"}))
        .await;
    assert_eq!(all["totalSize"], 3, "{all}");
    assert_eq!(all["pageSize"], 50, "{all}");
    assert_eq!(all["nextPageToken"], "", "{all}");
    let listed: Vec<&str> = all["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| task["id"].as_str().unwrap())
        .collect();
    let mut newest_first = in_context.clone();
    newest_first.reverse();
    assert_eq!(listed, newest_first, "{all}");
    for listed in all["tasks"].as_array().unwrap() {
        assert!(listed.get("artifacts").is_none(), "{listed}");
        assert_eq!(listed["contextId"], "ctx-list");
        let got = emulator
            .get_task(version, listed["id"].as_str().unwrap())
            .await;
        let mut without_artifacts = got.clone();
        without_artifacts
            .as_object_mut()
            .unwrap()
            .remove("artifacts");
        assert_eq!(*listed, without_artifacts);
    }
    let with_artifacts = emulator
        .result(
            version,
            Op::List,
            json!({"contextId": "ctx-list", "includeArtifacts": true, "historyLength": 0}),
        )
        .await;
    for listed in with_artifacts["tasks"].as_array().unwrap() {
        assert_eq!(
            listed["artifacts"],
            expected_artifact(version, "tck-artifact-text")
        );
        assert!(listed.get("history").is_none(), "{listed}");
    }

    // Two pages of two.
    let first = emulator
        .result(
            version,
            Op::List,
            json!({"contextId": "ctx-list", "pageSize": 2}),
        )
        .await;
    assert_eq!(first["tasks"].as_array().unwrap().len(), 2, "{first}");
    assert_eq!(first["pageSize"], 2);
    assert_eq!(first["totalSize"], 3);
    let token = first["nextPageToken"].as_str().unwrap();
    assert!(!token.is_empty(), "{first}");
    let second = emulator
        .result(
            version,
            Op::List,
            json!({"contextId": "ctx-list", "pageSize": 2, "pageToken": token}),
        )
        .await;
    assert_eq!(second["tasks"].as_array().unwrap().len(), 1, "{second}");
    assert_eq!(second["nextPageToken"], "");
    let paged: Vec<&str> = first["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["tasks"].as_array().unwrap())
        .map(|task| task["id"].as_str().unwrap())
        .collect();
    assert_eq!(paged, newest_first);

    // Every task when no context is named.
    let everything = emulator.result(version, Op::List, json!({})).await;
    assert_eq!(everything["totalSize"], 4, "{everything}");

    // A token this agent never issued.
    let response = emulator
        .call_op(version, Op::List, json!({"pageToken": "not-a-token"}))
        .await;
    assert_eq!(
        response,
        spec_error(
            &response["id"],
            -32602,
            "Invalid parameters",
            "INVALID_PARAMS",
            "params.pageToken: \"not-a-token\" is not a token this agent issued",
            &[],
        )
    );

    // v0.3 has no list.
    let response = emulator.call_op(Version::V0_3, Op::List, json!({})).await;
    assert_eq!(
        response,
        spec_error(
            &response["id"],
            -32009,
            "Protocol version is not supported",
            "VERSION_NOT_SUPPORTED",
            "ListTasks is an A2A 1.0 method; send the header `A2A-Version: 1.0` (this request speaks 0.3)",
            &[],
        )
    );
}

#[tokio::test]
async fn send_at_once_returns_a_running_task_immediately() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let message_id = format!("slow-at-once-{version:?}");
        let started = Instant::now();
        let result = emulator
            .result(
                version,
                Op::Send,
                version.send_params_at_once(&message_id, "wait"),
            )
            .await;
        assert!(started.elapsed() < Duration::from_secs(5));
        let sent = version.task_in(&result);
        let (task_id, context_id) = ids(&sent);
        assert_eq!(
            redact(&sent),
            task(
                version,
                (&task_id, &context_id),
                "submitted",
                None,
                vec![user(version, &message_id, "wait", &task_id, &context_id)],
                None,
            )
        );
        // It keeps working.
        eventually("the task to be working", Duration::from_secs(5), || async {
            let got = emulator.get_task(version, &task_id).await;
            (got["status"]["state"] == version.state("working")).then_some(())
        })
        .await;
    }
    assert_eq!(emulator.ping().await["status"], "HealthyBusy");
}

#[tokio::test]
async fn cancel_a_running_task_then_cancel_again() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let message_id = format!("slow-cancel-{version:?}");
        let sent = version.task_in(
            &emulator
                .result(
                    version,
                    Op::Send,
                    version.send_params_at_once(&message_id, "wait"),
                )
                .await,
        );
        let (task_id, context_id) = ids(&sent);
        let canceled = task(
            version,
            (&task_id, &context_id),
            "canceled",
            None,
            vec![user(version, &message_id, "wait", &task_id, &context_id)],
            None,
        );
        let result = emulator
            .result(version, Op::Cancel, json!({"id": task_id}))
            .await;
        assert_eq!(redact(&result), canceled, "{version:?}");
        assert_eq!(
            emulator.get_task(version, &task_id).await,
            result,
            "{version:?}"
        );

        let response = emulator
            .call_op(version, Op::Cancel, json!({"id": task_id}))
            .await;
        assert_eq!(
            response,
            spec_error(
                &response["id"],
                -32002,
                "Task cannot be canceled",
                "TASK_NOT_CANCELABLE",
                &format!("task {task_id} is already canceled"),
                &[("taskId", &task_id)],
            )
        );
    }
}

#[tokio::test]
async fn cancel_an_input_required_task_and_a_completed_one() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let open = emulator
            .send_task(version, version.send_params("tck-input-required-c", "go"))
            .await;
        let task_id = open["id"].as_str().unwrap();
        let canceled = emulator
            .result(version, Op::Cancel, json!({"id": task_id}))
            .await;
        assert_eq!(canceled["status"]["state"], version.state("canceled"));
        assert!(canceled["status"].get("message").is_none(), "{canceled}");

        let done = emulator
            .send_task(version, version.send_params("tck-complete-task-c", "go"))
            .await;
        let task_id = done["id"].as_str().unwrap();
        let response = emulator
            .call_op(version, Op::Cancel, json!({"id": task_id}))
            .await;
        assert_eq!(
            response,
            spec_error(
                &response["id"],
                -32002,
                "Task cannot be canceled",
                "TASK_NOT_CANCELABLE",
                &format!("task {task_id} is already completed"),
                &[("taskId", task_id)],
            )
        );
    }
}

#[tokio::test]
async fn push_notification_config_methods_are_not_supported_when_off() {
    let emulator = Emulator::start(&["--agent", "conformance", "--push-notifications", "off"]);
    for version in Version::ALL {
        for op in [Op::SetPush, Op::GetPush, Op::ListPush, Op::DeletePush] {
            let method = version.method(op);
            let params = match op {
                Op::SetPush => match version {
                    Version::V0_3 => {
                        json!({"taskId": "t-1", "pushNotificationConfig": {"url": "https://example.com/hook"}})
                    }
                    Version::V1_0 => {
                        json!({"taskId": "t-1", "config": {"url": "https://example.com/hook"}})
                    }
                },
                _ => json!({"id": "t-1", "taskId": "t-1"}),
            };
            let response = emulator.call(version, method, params).await;
            assert_eq!(
                response,
                spec_error(
                    &response["id"],
                    -32003,
                    "Push Notification is not supported",
                    "PUSH_NOTIFICATION_NOT_SUPPORTED",
                    &format!(
                        "{method}: this agent does not send push notifications \
                         (capabilities.pushNotifications is false)"
                    ),
                    &[],
                ),
                "{method}"
            );
        }
    }
}

#[tokio::test]
async fn the_extended_card_is_not_supported() {
    let emulator = Emulator::conformance();
    for version in Version::ALL {
        let method = version.method(Op::ExtendedCard);
        let response = emulator.call(version, method, json!({})).await;
        assert_eq!(
            response,
            spec_error(
                &response["id"],
                -32004,
                "This operation is not supported",
                "UNSUPPORTED_OPERATION",
                &format!(
                    "{method}: this agent has no extended card \
                     (capabilities.extendedAgentCard is false)"
                ),
                &[],
            ),
            "{method}"
        );
    }
}

#[tokio::test]
async fn a_blocking_send_answers_when_another_request_cancels_its_task() {
    let emulator = Emulator::conformance();
    let send = emulator.call_op(
        Version::V0_3,
        Op::Send,
        Version::V0_3.send_params("slow-blocking", "wait"),
    );
    let cancel = async {
        let task_id = eventually("the task to be working", Duration::from_secs(5), || async {
            let listed = emulator
                .result(
                    Version::V1_0,
                    Op::List,
                    json!({"status": "TASK_STATE_WORKING"}),
                )
                .await;
            listed["tasks"][0]["id"].as_str().map(str::to_owned)
        })
        .await;
        emulator
            .result(Version::V1_0, Op::Cancel, json!({"id": task_id}))
            .await
    };
    let (response, canceled) = tokio::join!(send, cancel);
    let task = &response["result"];
    assert_eq!(task["kind"], "task", "{response}");
    assert_eq!(task["id"], canceled["id"]);
    assert_eq!(task["status"]["state"], "canceled", "{response}");
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
}
