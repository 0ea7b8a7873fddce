//! Error codes, the two error tables, and the error type every layer returns.
//!
//! Three pieces, kept apart on purpose:
//!
//! - [`ErrorCode`]: every JSON-RPC, A2A and AgentCore code we know by name, with an open
//!   [`ErrorCode::Other`] for codes we don't (a client must still read them).
//! - [`Refusal`]: *why* we refuse a request, independent of how it is reported.
//! - [`ErrorProfile`]: a table that turns a refusal into a wire row — code, name, HTTP status
//!   and message. [`SPEC_TABLE`] is the A2A specification's (HTTP 200 for every JSON-RPC
//!   error); [`AGENTCORE_TABLE`] is what AWS Bedrock AgentCore Runtime sends in front of a
//!   container (real non-2xx statuses).

mod code;
mod refusal;

pub use code::ErrorCode;
pub(crate) use code::NAMED_CODES;
pub use refusal::{
    AGENTCORE_TABLE, ErrorProfile, ErrorRow, Refusal, SPEC_TABLE, UnknownErrorProfile,
};

use http::StatusCode;
use serde_json::{Value, json};

/// The `domain` of the `google.rpc.ErrorInfo` attached to A2A errors.
pub const ERROR_INFO_DOMAIN: &str = "a2a-protocol.org";

/// The `@type` of a `google.rpc.ErrorInfo` in ProtoJSON.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// A refusal with the detail that makes it specific (which field, which task, which version).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{refusal:?}{}", .detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
pub struct Error {
    refusal: Refusal,
    detail: Option<String>,
    metadata: Vec<(&'static str, String)>,
}

impl Error {
    /// A refusal with a detail the caller may see.
    pub fn new(refusal: Refusal, detail: impl Into<String>) -> Self {
        Self {
            refusal,
            detail: Some(detail.into()),
            metadata: Vec::new(),
        }
    }

    /// A refusal with nothing more to say (also used to hide internal details).
    pub fn bare(refusal: Refusal) -> Self {
        Self {
            refusal,
            detail: None,
            metadata: Vec::new(),
        }
    }

    /// Adds a caller-visible fact (for example `taskId`) to the error's `ErrorInfo`.
    #[must_use]
    pub fn with_metadata(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.metadata.push((key, value.into()));
        self
    }

    /// Why the request was refused.
    pub fn refusal(&self) -> Refusal {
        self.refusal
    }

    /// The caller-visible detail, if any.
    pub fn detail(&self) -> Option<&str> {
        self.detail.as_deref()
    }

    /// The caller-visible facts added with [`Error::with_metadata`].
    pub fn metadata(&self) -> &[(&'static str, String)] {
        &self.metadata
    }

    /// Shorthand for an invalid-params refusal naming the offending field.
    pub fn invalid_params(detail: impl Into<String>) -> Self {
        Self::new(Refusal::InvalidParams, detail)
    }

    /// Shorthand for an invalid-request refusal.
    pub fn invalid_request(detail: impl Into<String>) -> Self {
        Self::new(Refusal::InvalidRequest, detail)
    }

    /// The JSON-RPC error object and HTTP status under a profile.
    ///
    /// Spec profile (A2A refusals): the message is the table's message followed by the
    /// detail (`"Invalid parameters: params.message.parts[1]: …"`), and `data` is the array
    /// the v1.0 specification asks for, holding one `google.rpc.ErrorInfo` whose `reason` is
    /// the error name in upper snake case (`TASK_NOT_FOUND`) and whose `metadata` carries
    /// the detail and any facts added with [`Error::with_metadata`].
    ///
    /// AgentCore profile and platform refusals: exactly the body AWS documents, code and
    /// message with no `data`; the detail is for the server's log.
    pub fn to_wire(&self, profile: ErrorProfile) -> (StatusCode, ErrorObject) {
        let row = profile.row(self.refusal);
        if profile == ErrorProfile::AgentCore || self.refusal.is_platform() {
            return (
                row.http_status,
                ErrorObject {
                    code: row.code.code(),
                    message: row.message.to_owned(),
                    data: None,
                },
            );
        }
        let message = match &self.detail {
            Some(detail) => format!("{}: {detail}", row.message),
            None => row.message.to_owned(),
        };
        let mut metadata = serde_json::Map::new();
        if let Some(detail) = &self.detail {
            metadata.insert("detail".to_owned(), Value::String(detail.clone()));
        }
        for (key, value) in &self.metadata {
            metadata.insert((*key).to_owned(), Value::String(value.clone()));
        }
        let info = json!([{
            "@type": ERROR_INFO_TYPE,
            "reason": reason(row.name),
            "domain": ERROR_INFO_DOMAIN,
            "metadata": metadata,
        }]);
        (
            row.http_status,
            ErrorObject {
                code: row.code.code(),
                message,
                data: Some(info),
            },
        )
    }
}

/// `TaskNotFoundError` → `TASK_NOT_FOUND`, `JSONParseError` → `JSON_PARSE`.
pub(crate) fn reason(name: &str) -> String {
    let stem = name.strip_suffix("Error").unwrap_or(name);
    let mut out = String::with_capacity(stem.len() + 8);
    let chars: Vec<char> = stem.chars().collect();
    for (index, &current) in chars.iter().enumerate() {
        let previous = index.checked_sub(1).and_then(|at| chars.get(at));
        let next = chars.get(index + 1);
        let starts_word = current.is_ascii_uppercase()
            && index > 0
            && (previous.is_some_and(char::is_ascii_lowercase)
                || next.is_some_and(char::is_ascii_lowercase));
        if starts_word {
            out.push('_');
        }
        out.push(current.to_ascii_uppercase());
    }
    out
}

/// The `error` member of a JSON-RPC response.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ErrorObject {
    /// The numeric code.
    pub code: i64,
    /// A short description.
    pub message: String,
    /// Further information, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// The named code.
    pub fn error_code(&self) -> ErrorCode {
        ErrorCode::from_code(self.code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_upper_snake_without_error() {
        assert_eq!(reason("TaskNotFoundError"), "TASK_NOT_FOUND");
        assert_eq!(reason("JSONParseError"), "JSON_PARSE");
        assert_eq!(reason("InvalidParamsError"), "INVALID_PARAMS");
        assert_eq!(reason("InternalError"), "INTERNAL");
        assert_eq!(
            reason("PushNotificationNotSupportedError"),
            "PUSH_NOTIFICATION_NOT_SUPPORTED"
        );
    }
}
