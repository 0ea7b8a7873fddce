//! JSON-RPC requests: every method of v0.3 and v1.0 (and some that are none) with params
//! of the right shape, an id of every kind, on each target's JSON-RPC paths; and a
//! JSON-RPC POST whose body is anything at all.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};

use super::mutate::{mutate_bytes, mutate_value};
use super::values::{number, odd_string, part_v0_3, part_v1_0, random_body, random_value, webhook};
use super::{ARN, INTERFACE_PATH, Known};
use crate::input::{Input, Target};

/// Every JSON-RPC method name, both versions, and some that are none.
const METHODS_V0_3: [&str; 10] = [
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
];

const METHODS_V1_0: [&str; 11] = [
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];

const ODD_METHODS: [&str; 8] = [
    "",
    "message/Send",
    "sendMessage",
    "message/send/",
    "rpc.discover",
    "tasks/list",
    "GetTask\u{0}",
    "ΣendMessage",
];

pub(super) fn json_rpc(u: &mut Unstructured<'_>, known: &Known, target: Target) -> Result<Input> {
    let v1 = u.ratio(1, 2)?;
    let method = if u.ratio(1, 20)? {
        u.choose(&ODD_METHODS)?.to_string()
    } else if v1 {
        u.choose(&METHODS_V1_0)?.to_string()
    } else {
        u.choose(&METHODS_V0_3)?.to_string()
    };
    let params = params(u, known, &method)?;
    let mut envelope = Map::new();
    envelope.insert("jsonrpc".to_owned(), json!("2.0"));
    envelope.insert("id".to_owned(), id(u)?);
    envelope.insert("method".to_owned(), Value::String(method));
    if let Some(params) = params {
        envelope.insert("params".to_owned(), params);
    }
    let mut envelope = Value::Object(envelope);
    mutate_value(u, &mut envelope, 0)?;
    let mut body = serde_json::to_vec(&envelope).unwrap_or_default();
    mutate_bytes(u, &mut body)?;
    let path = json_rpc_path(u, target)?;
    let mut headers = vec![("content-type".to_owned(), b"application/json".to_vec())];
    if v1 {
        headers.push(("a2a-version".to_owned(), b"1.0".to_vec()));
    }
    Ok(Input {
        target,
        method: "POST".to_owned(),
        path,
        headers,
        body,
    })
}

fn json_rpc_path(u: &mut Unstructured<'_>, target: Target) -> Result<String> {
    let invocations = format!(
        "/runtimes/{}/invocations",
        a2a_lambda_core::percent::encode_component(ARN)
    );
    let choices: Vec<String> = match target {
        Target::Container => vec!["/".to_owned()],
        Target::ContainerJsonRpc => vec![
            "/".to_owned(),
            format!("{INTERFACE_PATH}/"),
            INTERFACE_PATH.to_owned(),
        ],
        Target::Front => vec![
            "/".to_owned(),
            format!("{invocations}/"),
            invocations.clone(),
            format!("{invocations}?qualifier=DEFAULT"),
            format!("{invocations}/?qualifier=OTHER"),
            "/runtimes/fuzz_agent-AbCdEf1234/invocations".to_owned(),
            "/runtimes/not%an%arn/invocations".to_owned(),
        ],
    };
    let mut path = u.choose(&choices)?.clone();
    if u.ratio(1, 16)? {
        path.push_str(u.choose(&ODD_QUERIES)?);
    }
    Ok(path)
}

const ODD_QUERIES: [&str; 7] = [
    "?A2A-Version=1.0",
    "?A2A-Version=0.3",
    "?A2A-Version=9.9",
    "?A2A-Version=",
    "?a2a-version=1.0&A2A-Version=0.3",
    "?%ff=%00",
    "?qualifier=%E2%82%AC",
];

fn params(u: &mut Unstructured<'_>, known: &Known, method: &str) -> Result<Option<Value>> {
    let task = known.task_id(u)?;
    let v1_message =
        || json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]});
    let params = match method {
        "message/send" | "message/stream" => {
            let mut message = json!({
                "kind": "message", "role": "user", "messageId": message_id(u)?,
                "parts": [part_v0_3(u)?],
            });
            if u.ratio(1, 4)? {
                message["taskId"] = Value::String(task);
            }
            if u.ratio(1, 4)? {
                message["contextId"] = Value::String(odd_string(u)?);
            }
            let mut params = json!({ "message": message });
            if u.ratio(1, 3)? {
                params["configuration"] = json!({
                    "blocking": u.arbitrary::<bool>()?,
                    "acceptedOutputModes": ["text/plain"],
                    "historyLength": number(u)?,
                });
            }
            params
        }
        "SendMessage" | "SendStreamingMessage" => {
            let mut message = v1_message();
            message["messageId"] = Value::String(message_id(u)?);
            message["parts"] = json!([part_v1_0(u)?]);
            if u.ratio(1, 4)? {
                message["taskId"] = Value::String(task);
            }
            let mut params = json!({ "message": message });
            if u.ratio(1, 3)? {
                params["configuration"] = json!({
                    "returnImmediately": u.arbitrary::<bool>()?,
                    "acceptedOutputModes": ["text/plain", "application/json"],
                    "historyLength": number(u)?,
                });
            }
            params
        }
        "tasks/get" | "GetTask" => json!({"id": task, "historyLength": number(u)?}),
        "tasks/cancel" | "tasks/resubscribe" | "CancelTask" | "SubscribeToTask" => {
            json!({ "id": task })
        }
        "ListTasks" => json!({
            "contextId": odd_string(u)?,
            "status": u.choose(&["TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "working", "TASK_STATE_UNSPECIFIED"])?,
            "pageSize": number(u)?,
            "pageToken": odd_string(u)?,
            "includeArtifacts": u.arbitrary::<bool>()?,
        }),
        "tasks/pushNotificationConfig/set" => json!({
            "taskId": task,
            "pushNotificationConfig": {"id": "c-1", "url": webhook(u)?, "token": "t"},
        }),
        "tasks/pushNotificationConfig/get" | "tasks/pushNotificationConfig/delete" => {
            json!({"id": task, "pushNotificationConfigId": "c-1"})
        }
        "tasks/pushNotificationConfig/list" => json!({ "id": task }),
        "CreateTaskPushNotificationConfig" => {
            json!({"taskId": task, "id": "c-1", "url": webhook(u)?, "token": "t"})
        }
        "GetTaskPushNotificationConfig" | "DeleteTaskPushNotificationConfig" => {
            json!({"taskId": task, "id": "c-1"})
        }
        "ListTaskPushNotificationConfigs" => json!({"taskId": task, "pageSize": number(u)?}),
        "agent/getAuthenticatedExtendedCard" | "GetExtendedAgentCard" => {
            return Ok(u.ratio(1, 2)?.then(|| json!({})));
        }
        _ => random_value(u, 0)?,
    };
    Ok(Some(params))
}

fn message_id(u: &mut Unstructured<'_>) -> Result<String> {
    // The echo agent reads no prefix; odd ids still reach the store and the logs.
    if u.ratio(3, 4)? {
        Ok(format!("m-{}", u.arbitrary::<u32>()?))
    } else {
        odd_string(u)
    }
}

/// An id of every kind JSON-RPC allows and some it does not.
fn id(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=11)? {
        0..=3 => json!(u.int_in_range(0..=1_000_000u32)?),
        4 | 5 => Value::String(format!("req-{}", u.arbitrary::<u16>()?)),
        6 => Value::Null,
        7 => json!(u.arbitrary::<i64>()?),
        8 => json!(
            u.arbitrary::<f64>()
                .map(|f| if f.is_finite() { f } else { 0.5 })?
        ),
        9 => Value::String(odd_string(u)?),
        10 => json!(u.arbitrary::<bool>()?),
        _ => random_value(u, 3)?,
    })
}

pub(super) fn random_request(u: &mut Unstructured<'_>, target: Target) -> Result<Input> {
    let path = json_rpc_path(u, target)?;
    let body = random_body(u)?;
    Ok(Input {
        target,
        method: "POST".to_owned(),
        path,
        headers: vec![("content-type".to_owned(), b"application/json".to_vec())],
        body,
    })
}
