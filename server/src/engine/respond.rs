//! Serializing results in the version the request speaks, framed for the binding the
//! request came on: a JSON-RPC response, or the bare result of the HTTP+JSON binding.

use axum::http::StatusCode;
use serde::Serialize;

use a2a_lambda_core::error::{Error, ErrorProfile, Refusal};
use a2a_lambda_core::jsonrpc::{ErrorResponse, Id, SuccessResponse};
use a2a_lambda_core::model::{ListTasksResult, SendResult, StreamEvent, Task};
use a2a_lambda_core::version::ProtocolVersion;
use a2a_lambda_core::wire::{v0_3, v1_0};

/// How a reply is framed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// The JSON-RPC binding: a JSON-RPC response echoing the request's id.
    JsonRpc(Id),
    /// The HTTP+JSON binding: the result itself, and errors as `google.rpc.Status`.
    HttpJson,
}

/// A success response, as bytes.
pub(crate) fn success<T: Serialize>(frame: &Frame, result: &T) -> Vec<u8> {
    // A task with its history and artifacts passes 512 bytes: start at 1 KiB rather than
    // grow from 128 through three copies.
    let mut body = Vec::with_capacity(1024);
    let written = match frame {
        Frame::JsonRpc(id) => serde_json::to_writer(&mut body, &SuccessResponse::new(id, result)),
        Frame::HttpJson => serde_json::to_writer(&mut body, result),
    };
    match written {
        Ok(()) => body,
        Err(error) => {
            tracing::error!(%error, "serializing a result failed");
            error_body(frame, &Error::bare(Refusal::Internal), ErrorProfile::Spec).1
        }
    }
}

/// An error response and its HTTP status.
pub(crate) fn error_body(
    frame: &Frame,
    error: &Error,
    profile: ErrorProfile,
) -> (StatusCode, Vec<u8>) {
    let Frame::JsonRpc(id) = frame else {
        return a2a_lambda_core::rest::status::to_bytes(error, None);
    };
    let (status, response) = ErrorResponse::from_error(id.clone(), error, profile);
    let body = serde_json::to_vec(&response).unwrap_or_else(|_| {
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
            .to_vec()
    });
    (status, body)
}

/// The result of a send.
pub(crate) fn send_result(version: ProtocolVersion, frame: &Frame, result: &SendResult) -> Vec<u8> {
    match version {
        ProtocolVersion::V0_3 => success(frame, &v0_3::send_result(result)),
        ProtocolVersion::V1_0 => success(frame, &v1_0::send_result(result)),
    }
}

/// The result of a send that made or continued a task (as [`send_result`] writes
/// `SendResult::Task`, without owning the task).
pub(crate) fn send_task(version: ProtocolVersion, frame: &Frame, task: &Task) -> Vec<u8> {
    match version {
        ProtocolVersion::V0_3 => success(frame, &v0_3::task_view(task)),
        ProtocolVersion::V1_0 => success(frame, &v1_0::send_task_view(task)),
    }
}

/// One stream event, as the JSON of one JSON-RPC response.
pub(crate) fn stream_event(
    version: ProtocolVersion,
    frame: &Frame,
    event: &StreamEvent,
) -> Vec<u8> {
    match version {
        ProtocolVersion::V0_3 => success(frame, &v0_3::stream_event(event)),
        ProtocolVersion::V1_0 => success(frame, &v1_0::stream_event(event)),
    }
}

/// A bare task (get, cancel).
pub(crate) fn task(version: ProtocolVersion, frame: &Frame, task: &Task) -> Vec<u8> {
    match version {
        ProtocolVersion::V0_3 => success(frame, &v0_3::task_view(task)),
        ProtocolVersion::V1_0 => success(frame, &v1_0::task_view(task)),
    }
}

/// A page of tasks (v1.0 only).
pub(crate) fn list(frame: &Frame, result: &ListTasksResult) -> Vec<u8> {
    success(frame, &v1_0::list_tasks_result(result))
}

/// A push configuration (set/create, get).
pub(crate) fn push_config(
    version: ProtocolVersion,
    frame: &Frame,
    config: &a2a_lambda_core::model::TaskPushNotificationConfig,
) -> Vec<u8> {
    match version {
        ProtocolVersion::V0_3 => success(frame, &v0_3::task_push_config(config)),
        ProtocolVersion::V1_0 => success(frame, &v1_0::task_push_config(config)),
    }
}

/// A list of push configurations: a bare array in v0.3, a page in v1.0.
pub(crate) fn push_config_list(
    version: ProtocolVersion,
    frame: &Frame,
    list: &a2a_lambda_core::model::ListPushConfigsResult,
) -> Vec<u8> {
    match version {
        ProtocolVersion::V0_3 => success(frame, &v0_3::push_config_list(list)),
        ProtocolVersion::V1_0 => success(frame, &v1_0::push_config_list(list)),
    }
}
