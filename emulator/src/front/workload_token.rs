//! The stand-in for the workload access token AgentCore passes the container as
//! `WorkloadAccessToken`.
//!
//! AgentCore Runtime gets a workload access token for each invocation made with an
//! identity for the user (it calls GetWorkloadAccessTokenForJWT with the caller's JWT, or
//! the user id variant with `runtimeUserId`) and passes it in the invocation's headers; an
//! invocation with neither carries none (the AgentCore SDK asks for the user id header when
//! it finds no token). The emulator has no AgentCore Identity behind it: its token is
//! random per invocation and opaque, good for checking that an agent reads it and never
//! for calling AWS. It is never logged.
//!
//! Sources: AgentCore Developer Guide, "Get workload access token",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/get-workload-access-token.html>;
//! the AgentCore SDK's `bedrock_agentcore/identity/auth.py` and `runtime/models.py`
//! (<https://github.com/aws/bedrock-agentcore-sdk-python>).

use a2a_lambda_core::agentcore::USER_ID_HEADER;
use a2a_lambda_core::agentcore_headers::WORKLOAD_ACCESS_TOKEN_HEADER;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

/// The header's name, parsed once.
pub(super) static WORKLOAD_ACCESS_TOKEN: HeaderName =
    HeaderName::from_static(WORKLOAD_ACCESS_TOKEN_HEADER);

/// What every stand-in token starts with, so that nobody mistakes one for AWS's.
pub(super) const STAND_IN_PREFIX: &str = "a2a-emulator-workload-token-";

/// A fresh token when the caller's headers name a user (a bearer JWT or the user id
/// header), as AgentCore's would be; read before the caller's headers are filtered.
pub(super) fn for_invocation(headers: &HeaderMap) -> Option<HeaderValue> {
    let named = headers.contains_key(USER_ID_HEADER)
        || headers
            .get(header::AUTHORIZATION)
            .is_some_and(|value| super::header_filter::bearer(&header::AUTHORIZATION, value));
    if !named {
        return None;
    }
    // Two v4 UUIDs: 244 random bits from the operating system's generator.
    let random = format!(
        "{STAND_IN_PREFIX}{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let mut value = HeaderValue::try_from(random).ok()?;
    value.set_sensitive(true);
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_only_for_a_named_user_and_new_each_time() {
        let mut headers = HeaderMap::new();
        assert!(for_invocation(&headers).is_none());
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("AWS4-HMAC-SHA256 Credential=x"),
        );
        assert!(for_invocation(&headers).is_none(), "SigV4 names no user");
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer a.b.c"),
        );
        let first = for_invocation(&headers).unwrap();
        let second = for_invocation(&headers).unwrap();
        assert_ne!(first, second);
        assert!(first.to_str().unwrap().starts_with(STAND_IN_PREFIX));
        assert_eq!(first.len(), STAND_IN_PREFIX.len() + 64);
        let mut user = HeaderMap::new();
        user.insert(USER_ID_HEADER, HeaderValue::from_static("alice"));
        assert!(for_invocation(&user).is_some());
    }
}
