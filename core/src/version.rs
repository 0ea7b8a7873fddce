//! Version negotiation: which A2A version a request speaks, and which operation its method
//! names.
//!
//! A request's version is its `A2A-Version` header, or else its `?A2A-Version=` query
//! parameter. Missing or empty means 0.3. Only `Major.Minor` is compared (`1.0.1` is 1.0).
//! v0.3 method names are always served as v0.3; a v1.0 method name is served only when the
//! request asks for 1.0, and refused with -32009 otherwise.

use std::fmt;

use crate::error::{Error, Refusal};

/// The header (and query parameter) that carries the requested version.
pub const VERSION_HEADER: &str = "A2A-Version";

/// A protocol version this crate speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// A2A v0.3 (the default when a request names none).
    V0_3,
    /// A2A v1.0.
    V1_0,
}

impl ProtocolVersion {
    /// Every supported version, oldest first.
    pub const ALL: [Self; 2] = [Self::V0_3, Self::V1_0];

    /// `"0.3"` or `"1.0"`, as cards and headers write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_3 => "0.3",
            Self::V1_0 => "1.0",
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The version a request asks for, from its header value and its query string.
///
/// The header wins when present and non-empty; an empty header falls back to the query.
///
/// # Errors
/// -32009 when the value is not `Major.Minor[.patch]` or names a version we don't speak.
pub fn negotiate(header: Option<&str>, query: Option<&str>) -> Result<ProtocolVersion, Error> {
    let header = header.map(str::trim).filter(|value| !value.is_empty());
    let query = query
        .and_then(version_from_query)
        .filter(|value| !value.is_empty());
    match header.or(query.as_deref()) {
        None => Ok(ProtocolVersion::V0_3),
        Some(value) => parse_version(value),
    }
}

/// Parses a requested version, comparing `Major.Minor` only.
///
/// # Errors
/// -32009 naming the value and the supported versions.
pub fn parse_version(value: &str) -> Result<ProtocolVersion, Error> {
    let mut pieces = value.trim().split('.');
    let major = pieces.next().and_then(|piece| piece.parse::<u32>().ok());
    let minor = pieces.next().and_then(|piece| piece.parse::<u32>().ok());
    let patch_ok = pieces
        .next()
        .is_none_or(|piece| piece.parse::<u32>().is_ok());
    let extra = pieces.next().is_some();
    match (major, minor, patch_ok && !extra) {
        (Some(0), Some(3), true) => Ok(ProtocolVersion::V0_3),
        (Some(1), Some(0), true) => Ok(ProtocolVersion::V1_0),
        _ => Err(Error::new(
            Refusal::VersionNotSupported,
            format!("A2A-Version {value:?} is not supported; supported versions: 0.3, 1.0"),
        )),
    }
}

/// The `A2A-Version` value in a raw query string (`a=1&A2A-Version=1.0`), form-decoded
/// ([`crate::percent::decode_query`]).
pub fn version_from_query(query: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        name.eq_ignore_ascii_case(VERSION_HEADER)
            .then(|| crate::percent::decode_query(value))
    })
}

/// What a method does, independent of the version that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// Send a message and get a task or a message back.
    Send,
    /// Send a message and stream the answer (SSE).
    Stream,
    /// Get a task.
    GetTask,
    /// List tasks (v1.0 only).
    ListTasks,
    /// Cancel a task.
    CancelTask,
    /// Stream a running task's events again.
    Subscribe,
    /// Set (v0.3) or create (v1.0) a push-notification configuration.
    SetPushConfig,
    /// Get a push-notification configuration.
    GetPushConfig,
    /// List a task's push-notification configurations.
    ListPushConfigs,
    /// Delete a push-notification configuration.
    DeletePushConfig,
    /// Get the extended (authenticated) agent card.
    GetExtendedCard,
}

impl Operation {
    /// Operations whose answer is an SSE stream.
    pub fn is_streaming(self) -> bool {
        matches!(self, Self::Stream | Self::Subscribe)
    }

    /// Push-notification configuration operations.
    pub fn is_push_config(self) -> bool {
        matches!(
            self,
            Self::SetPushConfig
                | Self::GetPushConfig
                | Self::ListPushConfigs
                | Self::DeletePushConfig
        )
    }
}

/// Every method name with the version and operation it names.
pub const METHODS: [(&str, ProtocolVersion, Operation); 21] = [
    ("message/send", ProtocolVersion::V0_3, Operation::Send),
    ("message/stream", ProtocolVersion::V0_3, Operation::Stream),
    ("tasks/get", ProtocolVersion::V0_3, Operation::GetTask),
    ("tasks/cancel", ProtocolVersion::V0_3, Operation::CancelTask),
    (
        "tasks/resubscribe",
        ProtocolVersion::V0_3,
        Operation::Subscribe,
    ),
    (
        "tasks/pushNotificationConfig/set",
        ProtocolVersion::V0_3,
        Operation::SetPushConfig,
    ),
    (
        "tasks/pushNotificationConfig/get",
        ProtocolVersion::V0_3,
        Operation::GetPushConfig,
    ),
    (
        "tasks/pushNotificationConfig/list",
        ProtocolVersion::V0_3,
        Operation::ListPushConfigs,
    ),
    (
        "tasks/pushNotificationConfig/delete",
        ProtocolVersion::V0_3,
        Operation::DeletePushConfig,
    ),
    (
        "agent/getAuthenticatedExtendedCard",
        ProtocolVersion::V0_3,
        Operation::GetExtendedCard,
    ),
    ("SendMessage", ProtocolVersion::V1_0, Operation::Send),
    (
        "SendStreamingMessage",
        ProtocolVersion::V1_0,
        Operation::Stream,
    ),
    ("GetTask", ProtocolVersion::V1_0, Operation::GetTask),
    ("ListTasks", ProtocolVersion::V1_0, Operation::ListTasks),
    ("CancelTask", ProtocolVersion::V1_0, Operation::CancelTask),
    (
        "SubscribeToTask",
        ProtocolVersion::V1_0,
        Operation::Subscribe,
    ),
    (
        "CreateTaskPushNotificationConfig",
        ProtocolVersion::V1_0,
        Operation::SetPushConfig,
    ),
    (
        "GetTaskPushNotificationConfig",
        ProtocolVersion::V1_0,
        Operation::GetPushConfig,
    ),
    (
        "ListTaskPushNotificationConfigs",
        ProtocolVersion::V1_0,
        Operation::ListPushConfigs,
    ),
    (
        "DeleteTaskPushNotificationConfig",
        ProtocolVersion::V1_0,
        Operation::DeletePushConfig,
    ),
    (
        "GetExtendedAgentCard",
        ProtocolVersion::V1_0,
        Operation::GetExtendedCard,
    ),
];

/// The version and operation a method name resolves to, for a request that asked for
/// `requested`.
///
/// # Errors
/// -32601 for an unknown method; -32009 for a v1.0 method on a request that did not ask
/// for 1.0.
pub fn resolve_method(
    method: &str,
    requested: ProtocolVersion,
) -> Result<(ProtocolVersion, Operation), Error> {
    let Some(&(_, version, operation)) = METHODS.iter().find(|(name, _, _)| *name == method) else {
        return Err(Error::new(
            Refusal::MethodNotFound,
            format!("no method named {method:?}"),
        ));
    };
    if version == ProtocolVersion::V1_0 && requested != ProtocolVersion::V1_0 {
        return Err(Error::new(
            Refusal::VersionNotSupported,
            format!(
                "{method} is an A2A 1.0 method; send the header `A2A-Version: 1.0` \
                 (this request speaks {requested})"
            ),
        ));
    }
    Ok((version, operation))
}
