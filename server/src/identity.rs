//! Who calls an AgentCore container: the [`Owner`] its tasks belong to, read from what
//! AgentCore Runtime passes.
//!
//! - With an inbound JWT authorizer, AgentCore checks the bearer token's signature, issuer,
//!   audience and expiry before it invokes the container, and passes `Authorization` on
//!   when the runtime's request header allowlist names it. The container reads the claims
//!   (`iss`, `sub`, else `client_id` or `azp`) without checking the signature again.
//! - With IAM (SigV4) auth, a caller holding `InvokeAgentRuntimeForUser` names the user it
//!   acts for (`runtimeUserId`); AgentCore passes it as [`USER_ID_HEADER`].
//! - Neither: the caller is anonymous.
//!
//! A caller cannot forge either: AgentCore drops every header outside the allowlist, and no
//! `x-amzn-*` header but `X-Amzn-Bedrock-AgentCore-Runtime-Custom-*` can be allowlisted.
//! Served anywhere else, the container would trust whoever reaches it: there, set
//! `A2A_IDENTITY=none` ([`Identity::None`]), and every caller is anonymous (the user id
//! header is removed before anything reads it).
//!
//! Sources: AgentCore Developer Guide, "Authenticate and authorize with Inbound Auth and
//! Outbound Auth" (inbound JWT authorizer), "Pass custom headers to AgentCore Runtime"
//! (allowlist rules); the `InvokeAgentRuntime` API and AWS CLI references (the user id
//! header and its `InvokeAgentRuntimeForUser` permission).

use axum::http::{HeaderMap, Request, header};
use base64::Engine as _;

pub use a2a_lambda_core::agentcore::USER_ID_HEADER;

use crate::owner::Owner;

/// Where a container takes its callers' identity from (`A2A_IDENTITY`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Identity {
    /// What AgentCore passes: the JWT it checked, else the user it names (`agentcore`, the
    /// default: the container host is made for AgentCore).
    #[default]
    AgentCore,
    /// Nobody vouches for the caller: everyone is anonymous (`none`).
    None,
}

impl std::str::FromStr for Identity {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        match text {
            "agentcore" => Ok(Self::AgentCore),
            "none" => Ok(Self::None),
            _ => Err(()),
        }
    }
}

impl Identity {
    /// Puts the caller's [`Owner`] in the request's extensions, where the router reads it
    /// (none for an anonymous caller: the router's default), and removes the user id header
    /// when it is not trusted.
    pub fn identify<B>(self, mut request: Request<B>) -> Request<B> {
        let owner = match self {
            Self::AgentCore => agentcore_owner(request.headers()),
            Self::None => {
                request.headers_mut().remove(USER_ID_HEADER);
                Owner::anonymous()
            }
        };
        // The router reads a missing owner as anonymous: no extension to allocate then.
        if !owner.is_anonymous() {
            request.extensions_mut().insert(owner);
        }
        request
    }
}

/// The owner AgentCore's headers name: the bearer token's subject, else the runtime user,
/// else anonymous.
pub fn agentcore_owner(headers: &HeaderMap) -> Owner {
    let from_token = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(bearer_claims)
        .map(|claims| Owner::from_claims(&claims))
        .filter(|owner| !owner.is_anonymous());
    if let Some(owner) = from_token {
        return owner;
    }
    headers
        .get(USER_ID_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::trim)
        .map_or_else(Owner::anonymous, Owner::agentcore_user)
}

/// The claims of a `Bearer` JWT (its payload, not checked: the platform did).
fn bearer_claims(value: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let (scheme, token) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let mut segments = token.trim().split('.');
    let (_header, payload, _signature) = (segments.next()?, segments.next()?, segments.next()?);
    if segments.next().is_some() {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes) {
        Ok(serde_json::Value::Object(claims)) => Some(claims),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn token(claims: &str) -> String {
        let encode = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
        format!(
            "Bearer {}.{}.{}",
            encode(r#"{"alg":"RS256"}"#),
            encode(claims),
            encode("signature")
        )
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                *name,
                HeaderValue::from_str(value).unwrap_or_else(|_| unreachable!()),
            );
        }
        headers
    }

    #[test]
    fn the_token_names_the_owner_first() {
        let both = headers(&[
            (
                "authorization",
                &token(r#"{"iss":"https://idp","sub":"alice"}"#),
            ),
            (USER_ID_HEADER, "bob"),
        ]);
        assert_eq!(agentcore_owner(&both).key(), Some("jwt:https://idp|alice"));
        let user = headers(&[(USER_ID_HEADER, "bob")]);
        assert_eq!(agentcore_owner(&user).key(), Some("agentcore-user:bob"));
        assert!(agentcore_owner(&HeaderMap::new()).is_anonymous());
    }

    #[test]
    fn what_is_not_a_jwt_names_nobody() {
        for value in [
            "Basic YWxhZGRpbjpvcGVuc2VzYW1l".to_owned(),
            "Bearer not-a-jwt".to_owned(),
            "Bearer a.!!!.c".to_owned(),
            "Bearer a.b.c.d".to_owned(),
            token("[1, 2]"),
            token(r#"{"iss":"https://idp"}"#),
        ] {
            let given = headers(&[("authorization", &value)]);
            assert!(agentcore_owner(&given).is_anonymous(), "{value}");
        }
    }

    #[test]
    fn untrusted_identity_is_removed() {
        let mut request = Request::new(());
        request
            .headers_mut()
            .insert(USER_ID_HEADER, HeaderValue::from_static("bob"));
        let request = Identity::None.identify(request);
        assert!(request.headers().get(USER_ID_HEADER).is_none());
        // Anonymous: nothing in the extensions, which the router reads as anonymous.
        assert_eq!(request.extensions().get::<Owner>(), None);
        let mut request = Request::new(());
        request
            .headers_mut()
            .insert(USER_ID_HEADER, HeaderValue::from_static("bob"));
        let request = Identity::AgentCore.identify(request);
        assert_eq!(
            request.extensions().get::<Owner>(),
            Some(&Owner::agentcore_user("bob"))
        );
    }
}
