//! Requests without an `id`.
//!
//! JSON-RPC 2.0 calls a request without an `id` member a notification, which a server
//! must not answer. A2A defines no notifications (every A2A method has a result its
//! caller needs: a task's id, its state), and the official A2A servers answer such
//! requests: the Python `a2a-sdk` 0.3 refuses them (its request models require the id),
//! the JS `@a2a-js/sdk` 0.3 answers with `"id": null`. Here an id-less request is
//! answered like any other, with `"id": null`:
//!
//! - a request with a problem gets that problem's error (-32700, -32600, -32601 for an
//!   unknown method, -32602 for bad params, -32004 for a method the agent does not serve);
//! - a valid one is refused with -32600 and does **not** run: work started for a caller
//!   that cannot match the answer to its request (and, had it meant a notification, does
//!   not wait for one) is work nobody follows. Sending an id runs it.

use a2a_core::error::Error;
use a2a_core::version::{Operation, ProtocolVersion};
use a2a_core::wire::{v0_3, v1_0};
use serde_json::value::RawValue;

use super::Engine;

/// The refusal of a valid request sent without an id.
pub(super) fn refusal(method: &str) -> Error {
    Error::invalid_request(format!(
        "{method}: the request has no \"id\"; A2A defines no notifications, so the request \
         was not run: send it with an id to get its result"
    ))
}

impl Engine {
    /// The checks `operation` would make before any work, without doing the work: the
    /// error a request of it would get, or `Ok` when it would run.
    pub(super) fn precheck(
        &self,
        version: ProtocolVersion,
        operation: Operation,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<(), Error> {
        let v0 = version == ProtocolVersion::V0_3;
        match operation {
            Operation::Send => super::parse_send(version, params).map(drop),
            Operation::Stream => {
                self.require_streaming(method)?;
                super::parse_send(version, params).map(drop)
            }
            Operation::GetTask if v0 => v0_3::parse_get_task_params(params).map(drop),
            Operation::GetTask => v1_0::parse_get_task_params(params).map(drop),
            Operation::ListTasks => match params {
                None => Ok(()),
                Some(_) => v1_0::parse_list_tasks_params(params).map(drop),
            },
            Operation::CancelTask => super::parse_task_id(version, params).map(drop),
            Operation::Subscribe => {
                self.require_streaming(method)?;
                super::parse_task_id(version, params).map(drop)
            }
            Operation::SetPushConfig
            | Operation::GetPushConfig
            | Operation::ListPushConfigs
            | Operation::DeletePushConfig => {
                self.require_push(method)?;
                push_params(version, operation, params)
            }
            Operation::GetExtendedCard => Err(super::no_extended_card(method)),
            _ => Err(super::not_served(method)),
        }
    }
}

fn push_params(
    version: ProtocolVersion,
    operation: Operation,
    params: Option<&RawValue>,
) -> Result<(), Error> {
    match (version, operation) {
        (ProtocolVersion::V0_3, Operation::SetPushConfig) => {
            v0_3::parse_task_push_config_params(params).map(drop)
        }
        (ProtocolVersion::V0_3, Operation::GetPushConfig) => {
            v0_3::parse_get_push_config_params(params).map(drop)
        }
        (ProtocolVersion::V0_3, Operation::ListPushConfigs) => {
            v0_3::parse_list_push_configs_params(params).map(drop)
        }
        (ProtocolVersion::V0_3, _) => v0_3::parse_delete_push_config_params(params).map(drop),
        (_, Operation::SetPushConfig) => v1_0::parse_task_push_config_params(params).map(drop),
        (_, Operation::ListPushConfigs) => v1_0::parse_list_push_configs_params(params).map(drop),
        (_, _) => v1_0::parse_push_config_id_params(params).map(drop),
    }
}
