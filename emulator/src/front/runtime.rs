//! Which runtime an AWS path names, and the query parameters AWS reads beside it.
//!
//! `InvokeAgentRuntime` takes "either the AgentCore Runtime ARN or the agent ID with an
//! account ID": `/runtimes/{url-encoded ARN}/invocations` or
//! `/runtimes/{agentRuntimeId}/invocations?accountId={12 digits}`, the id needing no
//! encoding (<https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html>).
//! Every data-plane action takes `?qualifier=` (the endpoint; `DEFAULT` when absent).

use super::arn;

/// The endpoint AWS uses when a path has no `?qualifier=`.
pub const DEFAULT_QUALIFIER: &str = "DEFAULT";

/// The runtime of an AWS path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Runtime {
    /// Named by its ARN (URL-encoded in the path).
    Arn(String),
    /// Named by its id, with the account in `?accountId=`.
    Id {
        /// `{name}-{10 alphanumerics}`.
        id: String,
        /// The 12-digit account.
        account: String,
    },
}

impl Runtime {
    /// The runtime a path segment and query name, or why they name none.
    pub(super) fn parse(segment: &str, query: Option<&str>) -> Result<Self, String> {
        let decoded = a2a_lambda_core::percent::decode_component(segment)
            .ok_or_else(|| format!("{segment:?} is not URL-encoded"))?;
        if arn::is_runtime_arn(&decoded) {
            return Ok(Self::Arn(decoded));
        }
        if !arn::is_runtime_id(&decoded) {
            return Err(format!(
                "{segment:?} is neither a URL-encoded AgentCore runtime ARN nor a runtime id"
            ));
        }
        let account = query_param(query, "accountId")
            .ok_or_else(|| format!("runtime id {decoded:?} without ?accountId="))?;
        if account.len() != 12 || !account.bytes().all(|byte| byte.is_ascii_digit()) {
            return Err(format!("accountId {account:?} is not 12 digits"));
        }
        Ok(Self::Id {
            id: decoded,
            account,
        })
    }

    /// True when this is the runtime `pinned` (an ARN) names.
    pub(super) fn is(&self, pinned: &str) -> bool {
        match self {
            Self::Arn(arn) => arn == pinned,
            Self::Id { id, account } => {
                let parts: Vec<&str> = pinned.splitn(6, ':').collect();
                matches!(parts.as_slice(), [_, _, _, _, pinned_account, resource]
                    if pinned_account == account
                        && resource.strip_prefix("runtime/") == Some(id.as_str()))
            }
        }
    }

    /// The runtime's invocation URL under `base`, in the form the client used (with the
    /// trailing slash).
    pub(super) fn invocation_url(&self, base: &str) -> String {
        match self {
            Self::Arn(arn) => format!(
                "{base}/runtimes/{}/invocations/",
                a2a_lambda_core::percent::encode_component(arn)
            ),
            Self::Id { id, account } => {
                format!("{base}/runtimes/{id}/invocations/?accountId={account}")
            }
        }
    }
}

impl std::fmt::Display for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Arn(arn) => f.write_str(arn),
            Self::Id { id, account } => write!(f, "{id} (account {account})"),
        }
    }
}

/// The value of the query parameter `name`, percent-decoded; the first if repeated.
pub(crate) fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(key, _)| *key == name)
        .and_then(|(_, value)| a2a_lambda_core::percent::decode_component(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str =
        "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/my_agent-AbCdEf1234";

    #[test]
    fn an_arn_or_an_id_with_its_account() {
        let encoded = a2a_lambda_core::percent::encode_component(ARN);
        assert_eq!(
            Runtime::parse(&encoded, None),
            Ok(Runtime::Arn(ARN.to_owned()))
        );
        let by_id = Runtime::parse("my_agent-AbCdEf1234", Some("accountId=123456789012"));
        assert_eq!(
            by_id,
            Ok(Runtime::Id {
                id: "my_agent-AbCdEf1234".to_owned(),
                account: "123456789012".to_owned()
            })
        );
        assert!(by_id.unwrap().is(ARN));
        let other = Runtime::parse(
            "my_agent-AbCdEf1234",
            Some("qualifier=DEFAULT&accountId=210987654321"),
        )
        .unwrap();
        assert!(!other.is(ARN));
        assert_eq!(
            Runtime::parse("my_agent-AbCdEf1234", None).unwrap_err(),
            "runtime id \"my_agent-AbCdEf1234\" without ?accountId="
        );
        assert_eq!(
            Runtime::parse("my_agent-AbCdEf1234", Some("accountId=12")).unwrap_err(),
            "accountId \"12\" is not 12 digits"
        );
        assert!(Runtime::parse("nope", Some("accountId=123456789012")).is_err());
    }

    #[test]
    fn query_parameters_are_found_and_decoded() {
        assert_eq!(
            query_param(Some("a=1&qualifier=prod%2D1"), "qualifier").as_deref(),
            Some("prod-1")
        );
        assert_eq!(
            query_param(Some("qualifier"), "qualifier").as_deref(),
            Some("")
        );
        assert_eq!(query_param(Some("a=1"), "qualifier"), None);
        assert_eq!(query_param(None, "qualifier"), None);
    }
}
