//! [`Platform`]: what the platform passed along with a request, read from its headers
//! under the names AWS Bedrock AgentCore Runtime sends them, for the agent's
//! [`RequestContext`](crate::agent::RequestContext).
//!
//! Behind AgentCore a container gets, besides the payload: the session id (the context's
//! `session_id`), `X-Amzn-Bedrock-AgentCore-Runtime-Request-Id`, `WorkloadAccessToken` when
//! the invocation names a user, `X-Amzn-Bedrock-AgentCore-Runtime-User-Id` (the
//! `runtimeUserId` of a call made for a user), and the caller's headers the runtime's
//! request header allowlist names. On Lambda (or anywhere else) the AgentCore fields stay
//! empty and [`Platform::headers`] holds the request's headers of the kinds an allowlist
//! could pass.
//!
//! Sources: AgentCore Developer Guide, "Pass custom headers to Amazon Bedrock AgentCore
//! Runtime", <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-header-allowlist.html>,
//! and "Get workload access token",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/get-workload-access-token.html>;
//! the header names as the AgentCore SDK's runtime reads them
//! (`bedrock_agentcore/runtime/models.py` in <https://github.com/aws/bedrock-agentcore-sdk-python>).

use a2a_lambda_core::agentcore::{REQUEST_ID_HEADER, USER_ID_HEADER};
use a2a_lambda_core::agentcore_headers::{
    OAUTH2_CALLBACK_URL_HEADER, WORKLOAD_ACCESS_TOKEN_HEADER, is_passable,
};
use axum::http::HeaderMap;

/// What the platform passed with one request. Empty (the default) where nothing was.
///
/// ```
/// use a2a_lambda_server::platform::Platform;
/// use axum::http::{HeaderMap, HeaderValue};
///
/// let mut headers = HeaderMap::new();
/// headers.insert("x-amzn-bedrock-agentcore-runtime-user-id", HeaderValue::from_static("alice"));
/// headers.insert("workloadaccesstoken", HeaderValue::from_static("opaque"));
/// headers.insert("x-tenant", HeaderValue::from_static("acme"));
/// let platform = Platform::from_headers(&headers).unwrap_or_default();
/// assert_eq!(platform.user_id.as_deref(), Some("alice"));
/// assert_eq!(platform.workload_access_token.as_ref().map(|t| t.secret()), Some("opaque"));
/// assert_eq!(platform.headers.get("X-Tenant"), Some("acme"));
/// // The token's value never shows in a log line.
/// assert!(!format!("{platform:?}").contains("opaque"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Platform {
    /// `X-Amzn-Bedrock-AgentCore-Runtime-Request-Id`: AgentCore's id of this invocation
    /// (the host logs it as the request's id).
    pub request_id: Option<String>,
    /// `WorkloadAccessToken`: the token for AgentCore Identity's outbound credential
    /// providers, passed for an invocation that names a user.
    pub workload_access_token: Option<WorkloadAccessToken>,
    /// `X-Amzn-Bedrock-AgentCore-Runtime-User-Id`: the user a caller invoked for. Removed
    /// (so absent here) when the host does not trust AgentCore's identity
    /// (`A2A_IDENTITY=none`).
    pub user_id: Option<String>,
    /// The caller's headers that reached the host and that a request header allowlist
    /// can pass: neither AWS's own (`x-amz-*`, `x-amzn-*` but the custom prefix) nor a
    /// restricted one (`Accept`, `Content-Type`, `Host`, …).
    pub headers: PassedHeaders,
}

impl Platform {
    /// What `headers` carry; `None` when they carry nothing of it (no allocation then).
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        let mut platform: Option<Self> = None;
        for (name, value) in headers {
            let Ok(text) = value.to_str() else {
                continue;
            };
            let lower = name.as_str();
            let this = platform.get_or_insert_with(Self::default);
            match lower {
                REQUEST_ID_HEADER => this.request_id = Some(text.to_owned()),
                USER_ID_HEADER => this.user_id = Some(text.to_owned()),
                WORKLOAD_ACCESS_TOKEN_HEADER => {
                    this.workload_access_token = Some(WorkloadAccessToken(text.to_owned()));
                }
                // The host's own request id, and the platform's callback URL.
                "x-request-id" | OAUTH2_CALLBACK_URL_HEADER => {}
                _ if is_passable(lower) => this.headers.0.push((lower.to_owned(), text.to_owned())),
                _ => {}
            }
        }
        platform.filter(|platform| *platform != Self::default())
    }
}

/// An opaque token; its `Debug` shows no part of it, so a logged context leaks nothing.
#[derive(Clone, PartialEq, Eq)]
pub struct WorkloadAccessToken(String);

impl WorkloadAccessToken {
    /// The token, to send to AgentCore Identity. Never log it.
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for WorkloadAccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WorkloadAccessToken(redacted)")
    }
}

/// Request headers by lower-case name, in the order received. `Debug` shows the names
/// only: a header can be a credential (`Authorization`, `X-API-Key`).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PassedHeaders(Vec<(String, String)>);

impl PassedHeaders {
    /// The first value of `name` (any case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Every (lower-case name, value), in the order received.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// True when no header passed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for PassedHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn nothing_of_the_platforms_is_none() {
        let mut headers = HeaderMap::new();
        assert_eq!(Platform::from_headers(&headers), None);
        for (name, value) in [
            ("content-type", "application/json"),
            ("host", "h"),
            ("x-request-id", "r"),
            ("x-amzn-trace-id", "t"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        assert_eq!(Platform::from_headers(&headers), None);
    }

    #[test]
    fn the_platforms_headers_under_their_names() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            (REQUEST_ID_HEADER, "req-1"),
            (USER_ID_HEADER, "alice"),
            (WORKLOAD_ACCESS_TOKEN_HEADER, "token-1"),
            ("a2a-version", "1.0"),
            ("x-amzn-bedrock-agentcore-runtime-custom-tenant", "acme"),
            ("accept", "application/json"),
        ] {
            headers.insert(name, HeaderValue::from_static(value));
        }
        let platform = Platform::from_headers(&headers).unwrap();
        assert_eq!(platform.request_id.as_deref(), Some("req-1"));
        assert_eq!(platform.user_id.as_deref(), Some("alice"));
        assert_eq!(
            platform
                .workload_access_token
                .as_ref()
                .map(WorkloadAccessToken::secret),
            Some("token-1")
        );
        let passed: Vec<_> = platform.headers.iter().collect();
        assert_eq!(
            passed,
            [
                ("a2a-version", "1.0"),
                ("x-amzn-bedrock-agentcore-runtime-custom-tenant", "acme")
            ]
        );
        let shown = format!("{platform:?}");
        assert!(
            !shown.contains("token-1") && !shown.contains("acme"),
            "{shown}"
        );
        assert!(shown.contains("WorkloadAccessToken(redacted)"), "{shown}");
    }
}
