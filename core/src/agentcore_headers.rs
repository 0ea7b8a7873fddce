//! Which request headers AWS Bedrock AgentCore Runtime passes to a container: the rules of
//! a runtime's request header allowlist, and the headers the platform itself sends.
//!
//! A caller's header reaches the container only when the runtime's allowlist
//! (`requestHeaderConfiguration.requestHeaderAllowlist`) names it, and a name can be
//! allowlisted only when it is a valid HTTP token of letters, digits, `-` and `_`, does not
//! start with `x-amz-` (SigV4's), does not start with `x-amzn-` unless it starts with
//! [`CUSTOM_HEADER_PREFIX`], is not [restricted](is_restricted_header), and is
//! `Authorization` only on a runtime with a `customJWTAuthorizer`. At most
//! [`MAX_ALLOWLISTED_HEADERS`] names, compared case-insensitively, without duplicates; a
//! value passes when it is at most [`MAX_HEADER_VALUE_BYTES`].
//!
//! Source: AgentCore Developer Guide, "Pass custom headers to Amazon Bedrock AgentCore
//! Runtime", <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-header-allowlist.html>
//! (the rules and the restricted headers' table). The platform's own headers, by the names
//! the AgentCore SDK's runtime reads them (`bedrock_agentcore/runtime/models.py` in
//! <https://github.com/aws/bedrock-agentcore-sdk-python>): the session id, the request id,
//! `WorkloadAccessToken`, `OAuth2CallbackUrl`.

/// The prefix of the `x-amzn-*` names a caller may allowlist (lower case).
pub const CUSTOM_HEADER_PREFIX: &str = "x-amzn-bedrock-agentcore-runtime-custom-";

/// The workload access token the platform passes an invocation made with inbound identity
/// (a JWT, or a user id): an opaque token for AgentCore Identity's outbound credential
/// providers. Sent as `WorkloadAccessToken`; HTTP names are case-insensitive.
///
/// Source: AgentCore Developer Guide, "Get workload access token",
/// <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/get-workload-access-token.html>
/// ("Runtime automatically delivers workload access tokens to agent execution instances as
/// payload headers"); the name from the AgentCore SDK's `ACCESS_TOKEN_HEADER`.
pub const WORKLOAD_ACCESS_TOKEN_HEADER: &str = "workloadaccesstoken";

/// The OAuth2 callback URL the platform may pass (the AgentCore SDK's
/// `OAUTH2_CALLBACK_URL_HEADER`, `OAuth2CallbackUrl`).
pub const OAUTH2_CALLBACK_URL_HEADER: &str = "oauth2callbackurl";

/// Most names one runtime's allowlist may hold.
pub const MAX_ALLOWLISTED_HEADERS: usize = 20;

/// Longest value of an allowlisted header AgentCore passes (4 KB).
pub const MAX_HEADER_VALUE_BYTES: usize = 4 * 1024;

/// Longest allowlisted name (the `RequestHeaderConfiguration` API's length constraint).
///
/// Source: <https://docs.aws.amazon.com/bedrock-agentcore-control/latest/APIReference/API_RequestHeaderConfiguration.html>.
pub const MAX_HEADER_NAME_LENGTH: usize = 256;

/// True for a header the allowlist page lists as restricted (never passed, cannot be
/// allowlisted). `lower` is the name in lower case, as `http::HeaderName` keeps it.
pub fn is_restricted_header(lower: &str) -> bool {
    matches!(
        lower,
        // Authentication and authorization (`Authorization` has a rule of its own).
        "proxy-authorization" | "www-authenticate"
        // Content negotiation.
        | "accept" | "accept-charset" | "accept-encoding" | "accept-language"
        | "content-type" | "content-length" | "content-encoding" | "content-language"
        | "content-location" | "content-range"
        // Caching.
        | "cache-control" | "etag" | "expires" | "if-match" | "if-modified-since"
        | "if-none-match" | "if-range" | "if-unmodified-since" | "last-modified" | "pragma"
        | "vary"
        // Connection management.
        | "connection" | "keep-alive" | "proxy-connection" | "upgrade"
        // Request context.
        | "host" | "user-agent" | "referer" | "from"
        // Range and transfer.
        | "range" | "accept-ranges" | "transfer-encoding" | "te" | "trailer"
        // Server information.
        | "server" | "date" | "location" | "retry-after"
        // Cookies.
        | "set-cookie" | "cookie"
        // Security policies.
        | "content-security-policy" | "content-security-policy-report-only"
        | "strict-transport-security" | "x-content-type-options" | "x-frame-options"
        | "x-xss-protection" | "referrer-policy" | "permissions-policy"
        | "cross-origin-embedder-policy" | "cross-origin-opener-policy"
        | "cross-origin-resource-policy"
        // CORS.
        | "access-control-allow-origin" | "access-control-allow-methods"
        | "access-control-allow-headers" | "access-control-allow-credentials"
        | "access-control-expose-headers" | "access-control-max-age"
        | "access-control-request-method" | "access-control-request-headers" | "origin"
        // Client hints.
        | "accept-ch" | "accept-ch-lifetime" | "dpr" | "width" | "viewport-width"
        | "downlink" | "ect" | "rtt" | "save-data"
        // Experimental and deprecated.
        | "clear-site-data" | "feature-policy" | "expect-ct" | "public-key-pins"
        | "public-key-pins-report-only"
        // Proxies, client addresses and rewritten URLs.
        | "via" | "forwarded" | "x-forwarded-for" | "x-forwarded-host" | "x-forwarded-proto"
        | "x-real-ip" | "x-requested-with" | "x-csrf-token" | "true-client-ip"
        | "x-client-ip" | "x-cluster-client-ip" | "x-originating-ip" | "x-source-ip"
        | "x-original-url" | "x-original-host" | "x-rewrite-url"
        // CDNs.
        | "cf-ray" | "cf-connecting-ip" | "x-amz-cf-id" | "x-cache" | "x-served-by"
        // Server push and WebSocket.
        | "link" | "sec-websocket-key" | "sec-websocket-accept" | "sec-websocket-version"
        | "sec-websocket-protocol" | "sec-websocket-extensions"
    ) || lower.starts_with(':')
}

/// True for a name in the namespaces AWS keeps for itself: `x-amz-*` (SigV4) and
/// `x-amzn-*` except [`CUSTOM_HEADER_PREFIX`]. `lower` is in lower case.
pub fn is_reserved_by_aws(lower: &str) -> bool {
    lower.starts_with("x-amz-")
        || (lower.starts_with("x-amzn-") && !lower.starts_with(CUSTOM_HEADER_PREFIX))
}

/// True when a caller's header of this (lower-case) name could have reached the container
/// through some runtime's allowlist: neither restricted nor AWS's. A container reads its
/// custom headers with this (`Authorization` aside, which needs a JWT authorizer).
pub fn is_passable(lower: &str) -> bool {
    !is_restricted_header(lower) && !is_reserved_by_aws(lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restricted_and_reserved_names() {
        for name in [
            "accept",
            "content-type",
            "host",
            "cookie",
            "x-forwarded-for",
            ":path",
        ] {
            assert!(is_restricted_header(name), "{name}");
            assert!(!is_passable(name), "{name}");
        }
        for name in [
            "x-amz-date",
            "x-amzn-trace-id",
            "x-amzn-bedrock-agentcore-runtime-user-id",
        ] {
            assert!(is_reserved_by_aws(name), "{name}");
        }
        for name in [
            "a2a-version",
            "last-event-id",
            "x-api-key",
            "x-amzn-bedrock-agentcore-runtime-custom-tenant",
        ] {
            assert!(is_passable(name), "{name}");
        }
    }
}
