//! What differs between the two versions on the client's side: method names, how params
//! are written and how results are read. Both go through `a2a-lambda-core`'s wire types, so the
//! client writes and reads exactly what the server side does.
//!
//! The `*_json` functions write a model value back as the given version spells it (what
//! `a2a --json` prints).

use a2a_lambda_core::version::METHODS;
use a2a_lambda_core::wire::{v0_3, v1_0};
use a2a_lambda_core::{Operation, ProtocolVersion, model};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

/// The method name for `operation` in `version`, if the version has it.
pub fn method(version: ProtocolVersion, operation: Operation) -> Option<&'static str> {
    METHODS
        .iter()
        .find(|(_, v, op)| *v == version && *op == operation)
        .map(|(name, _, _)| *name)
}

/// A send's params.
pub fn send_params(version: ProtocolVersion, params: &model::SendMessageParams) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::MessageSendParams::from(params)),
        _ => serde_json::to_value(v1_0::SendMessageRequest::from(params)),
    })
}

/// A get's params.
pub fn get_params(version: ProtocolVersion, params: &model::GetTaskParams) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::TaskQueryParams::from(params)),
        _ => serde_json::to_value(v1_0::GetTaskRequest::from(params)),
    })
}

/// A cancel's params.
pub fn cancel_params(version: ProtocolVersion, params: &model::TaskIdParams) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::TaskIdParams::from(params)),
        _ => serde_json::to_value(v1_0::CancelTaskRequest::from(params)),
    })
}

/// A resubscribe's params.
pub fn subscribe_params(version: ProtocolVersion, params: &model::TaskIdParams) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::TaskIdParams::from(params)),
        _ => serde_json::to_value(v1_0::SubscribeToTaskRequest::from(params)),
    })
}

/// A list's params (v1.0 only).
pub fn list_params(params: &model::ListTasksParams) -> Value {
    to_value(serde_json::to_value(v1_0::ListTasksRequest::from(params)))
}

/// Serializing our own wire types cannot fail (string keys, no non-finite floats from
/// the model); should it, the params go out as `{}` and the server names what is missing.
fn to_value(result: serde_json::Result<Value>) -> Value {
    result.unwrap_or_else(|error| {
        tracing::error!(%error, "serializing params failed");
        Value::Object(serde_json::Map::new())
    })
}

/// Reads a send's result.
pub fn send_result(version: ProtocolVersion, raw: &RawValue) -> Result<model::SendResult, String> {
    match version {
        ProtocolVersion::V0_3 => read::<v0_3::SendResult>(raw).map(Into::into),
        _ => read::<v1_0::SendMessageResponse>(raw).map(Into::into),
    }
}

/// Reads a task (the result of get and cancel).
pub fn task(version: ProtocolVersion, raw: &RawValue) -> Result<model::Task, String> {
    match version {
        ProtocolVersion::V0_3 => read::<v0_3::Task>(raw).map(Into::into),
        _ => read::<v1_0::Task>(raw).map(Into::into),
    }
}

/// Reads one stream event.
pub fn stream_event(
    version: ProtocolVersion,
    raw: &RawValue,
) -> Result<model::StreamEvent, String> {
    match version {
        ProtocolVersion::V0_3 => read::<v0_3::StreamEvent>(raw).map(Into::into),
        _ => read::<v1_0::StreamResponse>(raw).map(Into::into),
    }
}

/// Reads a list's result (v1.0).
pub fn list_result(raw: &RawValue) -> Result<model::ListTasksResult, String> {
    read::<v1_0::ListTasksResponse>(raw).map(Into::into)
}

fn read<T: DeserializeOwned>(raw: &RawValue) -> Result<T, String> {
    serde_json::from_str(raw.get()).map_err(|error| format!("result: {error}"))
}

/// A send's result as `version` writes it.
pub fn send_result_json(version: ProtocolVersion, result: &model::SendResult) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::send_result(result)),
        _ => serde_json::to_value(v1_0::send_result(result)),
    })
}

/// A task as `version` writes it.
pub fn task_json(version: ProtocolVersion, task: &model::Task) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::task(task)),
        _ => serde_json::to_value(v1_0::task(task)),
    })
}

/// A stream event as `version` writes it.
pub fn stream_event_json(version: ProtocolVersion, event: &model::StreamEvent) -> Value {
    to_value(match version {
        ProtocolVersion::V0_3 => serde_json::to_value(v0_3::stream_event(event)),
        _ => serde_json::to_value(v1_0::stream_event(event)),
    })
}

/// A list result as v1.0 writes it.
pub fn list_result_json(result: &model::ListTasksResult) -> Value {
    to_value(serde_json::to_value(v1_0::list_tasks_result(result)))
}

/// Which kind of stream: they end differently (see [`model::StreamEvent::ends`], the rule
/// the engine closes streams by).
pub use a2a_lambda_core::model::StreamKind;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_operation_has_a_method_in_each_version() {
        use Operation::*;
        for op in [Send, Stream, GetTask, CancelTask, Subscribe] {
            assert!(method(ProtocolVersion::V0_3, op).is_some(), "{op:?}");
            assert!(method(ProtocolVersion::V1_0, op).is_some(), "{op:?}");
        }
        assert_eq!(method(ProtocolVersion::V0_3, ListTasks), None);
        assert_eq!(method(ProtocolVersion::V1_0, ListTasks), Some("ListTasks"));
        assert_eq!(method(ProtocolVersion::V0_3, Send), Some("message/send"));
        assert_eq!(
            method(ProtocolVersion::V1_0, Subscribe),
            Some("SubscribeToTask")
        );
    }

    #[test]
    fn params_are_written_in_each_version() {
        let params = model::SendMessageParams {
            message: model::Message::text(model::Role::User, "m-1", "hi"),
            configuration: None,
            metadata: None,
        };
        let v03 = send_params(ProtocolVersion::V0_3, &params);
        assert_eq!(v03["message"]["kind"], "message");
        assert_eq!(v03["message"]["role"], "user");
        assert_eq!(
            v03["message"]["parts"][0],
            serde_json::json!({"kind": "text", "text": "hi"})
        );
        let v10 = send_params(ProtocolVersion::V1_0, &params);
        assert_eq!(v10["message"]["role"], "ROLE_USER");
        assert_eq!(
            v10["message"]["parts"][0],
            serde_json::json!({"text": "hi"})
        );
        assert_eq!(v10["message"]["messageId"], "m-1");
    }
}
