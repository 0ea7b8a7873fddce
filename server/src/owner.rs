//! Who a task belongs to: the caller that created it, as the platform in front of the host
//! vouches for it.
//!
//! Every task is stored with its [`Owner`], and the engine answers a call about another
//! owner's task as it answers one about a task that does not exist (`-32001`): a caller
//! cannot read, list, cancel, continue or follow anyone else's task, nor learn that it
//! exists.
//!
//! An owner is only ever made from what the platform guarantees — the Lambda event's
//! request context (an IAM principal, an authorizer's claims), a header AgentCore sets and
//! a caller cannot send through it, the API key a host itself checked. A request without
//! such an identity is [`Owner::anonymous`]; anonymous callers share their tasks with each
//! other (the single-tenant case: a function with no authentication).
//!
//! Hosts put the owner in the request's extensions before the router runs; the router
//! reads it from there (anonymous when absent).
//!
//! ```
//! use a2a_lambda_server::owner::Owner;
//!
//! let role = Owner::iam("arn:aws:sts::123456789012:assumed-role/Caller/session-1");
//! assert_eq!(role.key(), Some("iam:arn:aws:sts::123456789012:assumed-role/Caller"));
//! assert_eq!(role, Owner::iam("arn:aws:sts::123456789012:assumed-role/Caller/session-2"));
//! assert!(Owner::anonymous().is_anonymous());
//! ```

use std::sync::Arc;

/// The identity a task is stored under. Cheap to clone.
///
/// The key of an identified owner names where it came from (`iam:`, `jwt:`, `api-key:`,
/// `agentcore-user:`, `authorizer:`), so identities from different sources never meet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Owner(Option<Arc<str>>);

impl Owner {
    /// No identity: the caller of an unauthenticated host.
    pub fn anonymous() -> Self {
        Self(None)
    }

    /// An owner with this exact key (as [`Owner::key`] gives it back, and a store keeps
    /// it); an empty key is anonymous.
    pub fn from_key(key: impl AsRef<str>) -> Self {
        let key = key.as_ref();
        if key.is_empty() {
            Self(None)
        } else {
            Self(Some(Arc::from(key)))
        }
    }

    /// An IAM principal (`requestContext.authorizer.iam.userArn` of a Function URL with
    /// `AWS_IAM` auth). An assumed-role session is owned by its role: the session name
    /// (`…:assumed-role/Role/session`) changes from one set of credentials to the next,
    /// and the tasks must outlive them.
    pub fn iam(arn: &str) -> Self {
        let role = arn
            .split_once(":assumed-role/")
            .and_then(|(account, rest)| {
                let role = rest.split('/').next().filter(|role| !role.is_empty())?;
                Some(format!("{account}:assumed-role/{role}"))
            });
        Self::tagged("iam", role.as_deref().unwrap_or(arn))
    }

    /// A JWT's subject, as an authorizer checked it: `sub`, or for a machine client without
    /// one, `client_id` (Cognito) or `azp` (OIDC); scoped by the issuer. Anonymous when the
    /// claims name no subject.
    pub fn jwt(issuer: Option<&str>, subject: Option<&str>) -> Self {
        match subject.filter(|subject| !subject.is_empty()) {
            Some(subject) => Self::tagged("jwt", &format!("{}|{subject}", issuer.unwrap_or(""))),
            None => Self::anonymous(),
        }
    }

    /// A JWT's owner from its claims (`iss` and `sub`, else `client_id` or `azp`).
    pub fn from_claims(claims: &serde_json::Map<String, serde_json::Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(serde_json::Value::as_str);
        let subject = text("sub")
            .filter(|sub| !sub.is_empty())
            .or_else(|| text("client_id"))
            .or_else(|| text("azp"));
        Self::jwt(text("iss"), subject)
    }

    /// The name of an API key the host checked itself.
    pub fn api_key(name: &str) -> Self {
        Self::tagged("api-key", name)
    }

    /// The user AgentCore names in `X-Amzn-Bedrock-AgentCore-Runtime-User-Id` (the
    /// `runtimeUserId` of `InvokeAgentRuntime`, which needs its own IAM permission).
    pub fn agentcore_user(user_id: &str) -> Self {
        Self::tagged("agentcore-user", user_id)
    }

    /// The principal an API Gateway Lambda authorizer returned (`principalId`).
    pub fn authorizer(principal_id: &str) -> Self {
        Self::tagged("authorizer", principal_id)
    }

    fn tagged(source: &str, id: &str) -> Self {
        if id.is_empty() {
            Self(None)
        } else {
            Self(Some(Arc::from(format!("{source}:{id}"))))
        }
    }

    /// The key a store keeps; `None` for anonymous.
    pub fn key(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// No identity.
    pub fn is_anonymous(&self) -> bool {
        self.0.is_none()
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key().unwrap_or("anonymous"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_never_meet() {
        assert_ne!(Owner::api_key("alice"), Owner::agentcore_user("alice"));
        assert_ne!(Owner::authorizer("alice"), Owner::jwt(None, Some("alice")));
        assert_eq!(Owner::api_key("alice").key(), Some("api-key:alice"));
        assert_eq!(Owner::jwt(None, Some("alice")).key(), Some("jwt:|alice"));
    }

    #[test]
    fn empty_identities_are_anonymous() {
        assert!(Owner::api_key("").is_anonymous());
        assert!(Owner::jwt(Some("https://issuer"), None).is_anonymous());
        assert!(Owner::jwt(Some("https://issuer"), Some("")).is_anonymous());
        assert!(Owner::from_key("").is_anonymous());
        assert_eq!(Owner::anonymous().to_string(), "anonymous");
    }

    #[test]
    fn users_and_roles_keep_their_arn() {
        let user = "arn:aws:iam::123456789012:user/alice";
        assert_eq!(
            Owner::iam(user).key(),
            Some("iam:arn:aws:iam::123456789012:user/alice")
        );
        // A role ARN with a path is not a session: kept whole.
        let role = "arn:aws:iam::123456789012:role/service/worker";
        assert_eq!(Owner::iam(role).key().map(|key| &key[4..]), Some(role));
        // A malformed session ARN is kept as it came.
        assert_eq!(
            Owner::iam("arn:aws:sts::1:assumed-role/").key(),
            Some("iam:arn:aws:sts::1:assumed-role/")
        );
    }

    #[test]
    fn claims_give_the_subject_or_the_client() {
        let claims = |value: serde_json::Value| value.as_object().cloned().unwrap_or_default();
        let user =
            claims(serde_json::json!({"iss": "https://idp", "sub": "u-1", "client_id": "c"}));
        assert_eq!(Owner::from_claims(&user).key(), Some("jwt:https://idp|u-1"));
        let machine = claims(serde_json::json!({"iss": "https://idp", "client_id": "c-9"}));
        assert_eq!(
            Owner::from_claims(&machine).key(),
            Some("jwt:https://idp|c-9")
        );
        let oidc = claims(serde_json::json!({"iss": "https://idp", "sub": "", "azp": "app"}));
        assert_eq!(Owner::from_claims(&oidc).key(), Some("jwt:https://idp|app"));
        assert!(Owner::from_claims(&claims(serde_json::json!({"iss": "x"}))).is_anonymous());
    }
}
