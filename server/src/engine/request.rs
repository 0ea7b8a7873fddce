//! One request to one operation, as every operation receives it: which operation, in which
//! version, its params, how its reply is framed and what the host knows of the call.

use axum::http::StatusCode;
use serde_json::value::RawValue;

use super::respond::Frame;
use super::{CallContext, Reply};
use a2a_lambda_core::error::Error;
use a2a_lambda_core::version::{Operation, ProtocolVersion};

/// One request to one operation (both bindings make one: JSON-RPC from its envelope,
/// HTTP+JSON from its route).
#[derive(Clone, Copy)]
pub(super) struct Request<'a> {
    /// The version the request speaks.
    pub version: ProtocolVersion,
    pub operation: Operation,
    /// The method's name in `version` (refusals name it).
    pub method: &'a str,
    /// The JSON-RPC `params`, or the HTTP+JSON binding's equivalent request object.
    pub params: Option<&'a RawValue>,
    /// How the reply is framed.
    pub frame: &'a Frame,
    pub call: &'a CallContext,
}

impl<'a> Request<'a> {
    /// The params, read by the reader of the request's version.
    pub(super) fn parse<T>(
        &self,
        v0_3: impl FnOnce(Option<&'a RawValue>) -> Result<T, Error>,
        v1_0: impl FnOnce(Option<&'a RawValue>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        match self.version {
            ProtocolVersion::V0_3 => v0_3(self.params),
            ProtocolVersion::V1_0 => v1_0(self.params),
        }
    }

    /// A JSON reply of `body` (HTTP 200).
    pub(super) fn json(&self, body: Vec<u8>) -> Reply {
        ok(body)
    }
}

/// A JSON reply of `body` (HTTP 200), for a future that keeps no [`Request`].
pub(super) fn ok(body: Vec<u8>) -> Reply {
    Reply::Json {
        status: StatusCode::OK,
        body,
    }
}
