//! [`RequestHeaderAllowlist`]: the runtime's request header allowlist, checked once at
//! startup against AgentCore's rules, so that a list CreateAgentRuntime would refuse is
//! refused here too, with the rule it breaks.
//!
//! Source: AgentCore Developer Guide, "Pass custom headers to Amazon Bedrock AgentCore
//! Runtime", <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-header-allowlist.html>;
//! the rules themselves are in [`a2a_lambda_core::agentcore_headers`].

use a2a_lambda_core::agentcore_headers::{
    CUSTOM_HEADER_PREFIX, MAX_ALLOWLISTED_HEADERS, MAX_HEADER_NAME_LENGTH, is_restricted_header,
};
use axum::http::HeaderName;

/// What our AgentCore deployment allowlists (`infra/agentcore/request-headers.json`), and
/// so the emulator's default: the A2A version and extensions a v1.0 client sends, and
/// `Last-Event-ID`, which our servers resume a subscription with (not restricted, so AWS
/// lets it through once allowlisted).
pub const DEFAULT_REQUEST_HEADER_ALLOWLIST: [&str; 3] =
    ["A2A-Version", "A2A-Extensions", "Last-Event-ID"];

/// Why an allowlist cannot be a runtime's: each names the header and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AllowlistError {
    /// The name is empty or not an HTTP token of letters, digits, `-` and `_`.
    #[error(
        "`{0}`: a header name is letters, digits, hyphens and underscores (at most 256 characters)"
    )]
    InvalidName(String),
    /// `x-amz-*`.
    #[error("`{0}`: headers starting with x-amz- are reserved for SigV4 signing")]
    SigV4(String),
    /// `x-amzn-*` other than the custom prefix.
    #[error(
        "`{0}`: headers starting with x-amzn- are reserved for AWS, except \
         X-Amzn-Bedrock-AgentCore-Runtime-Custom-*"
    )]
    AwsReserved(String),
    /// On the page's table of restricted headers.
    #[error("`{0}`: a restricted header, which AgentCore never passes to the container")]
    Restricted(String),
    /// `Authorization` on a runtime without a JWT authorizer.
    #[error("`{0}`: Authorization can be allowlisted only on a runtime with a customJWTAuthorizer")]
    AuthorizationWithoutJwt(String),
    /// The same name twice, compared case-insensitively.
    #[error("`{0}`: listed twice (header names are case-insensitive)")]
    Duplicate(String),
    /// More than 20 names.
    #[error("{0} headers: a runtime allowlists at most 20")]
    TooMany(usize),
}

/// A runtime's request header allowlist, valid by AgentCore's rules: the caller's headers
/// the platform passes to the container. Built once; the names are kept parsed (lower
/// case) for the request path.
///
/// ```
/// use a2a_lambda_emulator::RequestHeaderAllowlist;
///
/// let allowlist = RequestHeaderAllowlist::new(["A2A-Version", "X-Tenant"], false).unwrap();
/// assert_eq!(allowlist.names().len(), 2);
/// let refused = RequestHeaderAllowlist::new(["X-Amz-Date"], false).unwrap_err();
/// assert_eq!(
///     refused.to_string(),
///     "`X-Amz-Date`: headers starting with x-amz- are reserved for SigV4 signing"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHeaderAllowlist {
    names: Vec<HeaderName>,
}

impl Default for RequestHeaderAllowlist {
    /// [`DEFAULT_REQUEST_HEADER_ALLOWLIST`].
    fn default() -> Self {
        let names = DEFAULT_REQUEST_HEADER_ALLOWLIST
            .iter()
            .filter_map(|name| HeaderName::try_from(*name).ok())
            .collect();
        Self { names }
    }
}

impl RequestHeaderAllowlist {
    /// Checks `names` as CreateAgentRuntime does. `jwt_authorizer`: the runtime has a
    /// `customJWTAuthorizer` (the only case `Authorization` may be listed).
    ///
    /// # Errors
    /// [`AllowlistError`] for the first name that breaks a rule, or a list over 20.
    pub fn new<I>(names: I, jwt_authorizer: bool) -> Result<Self, AllowlistError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut checked: Vec<HeaderName> = Vec::new();
        for name in names {
            let given = name.as_ref().trim();
            let parsed = check_name(given, jwt_authorizer)?;
            if checked.contains(&parsed) {
                return Err(AllowlistError::Duplicate(given.to_owned()));
            }
            checked.push(parsed);
        }
        if checked.len() > MAX_ALLOWLISTED_HEADERS {
            return Err(AllowlistError::TooMany(checked.len()));
        }
        Ok(Self { names: checked })
    }

    /// A comma-separated list (`A2A-Version,X-Tenant`), as the flag takes it; an empty or
    /// blank text allowlists nothing.
    ///
    /// # Errors
    /// As [`RequestHeaderAllowlist::new`].
    pub fn parse(list: &str, jwt_authorizer: bool) -> Result<Self, AllowlistError> {
        if list.trim().is_empty() {
            return Ok(Self { names: Vec::new() });
        }
        Self::new(list.split(','), jwt_authorizer)
    }

    /// The allowlisted names, lower case, in the order given.
    pub fn names(&self) -> &[HeaderName] {
        &self.names
    }

    /// True when the caller's header `name` is allowlisted.
    pub fn allows(&self, name: &HeaderName) -> bool {
        self.names.contains(name)
    }
}

/// One name against the rules, parsed.
fn check_name(given: &str, jwt_authorizer: bool) -> Result<HeaderName, AllowlistError> {
    let token = !given.is_empty()
        && given.len() <= MAX_HEADER_NAME_LENGTH
        && given
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_');
    let parsed = token
        .then(|| HeaderName::try_from(given).ok())
        .flatten()
        .ok_or_else(|| AllowlistError::InvalidName(given.to_owned()))?;
    let lower = parsed.as_str();
    if lower.starts_with("x-amz-") {
        return Err(AllowlistError::SigV4(given.to_owned()));
    }
    if lower.starts_with("x-amzn-") && !lower.starts_with(CUSTOM_HEADER_PREFIX) {
        return Err(AllowlistError::AwsReserved(given.to_owned()));
    }
    if is_restricted_header(lower) {
        return Err(AllowlistError::Restricted(given.to_owned()));
    }
    if lower == "authorization" && !jwt_authorizer {
        return Err(AllowlistError::AuthorizationWithoutJwt(given.to_owned()));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(names: &[&str]) -> String {
        RequestHeaderAllowlist::new(names, false)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn the_default_is_valid() {
        let checked = RequestHeaderAllowlist::new(DEFAULT_REQUEST_HEADER_ALLOWLIST, false)
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(checked, RequestHeaderAllowlist::default());
        let names: Vec<&str> = checked.names().iter().map(HeaderName::as_str).collect();
        assert_eq!(names, ["a2a-version", "a2a-extensions", "last-event-id"]);
    }

    #[test]
    fn each_rule_names_the_header() {
        assert_eq!(
            refused(&["X-Amz-Date"]),
            "`X-Amz-Date`: headers starting with x-amz- are reserved for SigV4 signing"
        );
        assert_eq!(
            refused(&["X-Amzn-Trace-Id"]),
            "`X-Amzn-Trace-Id`: headers starting with x-amzn- are reserved for AWS, except \
             X-Amzn-Bedrock-AgentCore-Runtime-Custom-*"
        );
        assert_eq!(
            refused(&["Accept"]),
            "`Accept`: a restricted header, which AgentCore never passes to the container"
        );
        assert_eq!(
            refused(&["x-forwarded-for"]),
            "`x-forwarded-for`: a restricted header, which AgentCore never passes to the container"
        );
        assert_eq!(
            refused(&["Authorization"]),
            "`Authorization`: Authorization can be allowlisted only on a runtime with a \
             customJWTAuthorizer"
        );
        assert_eq!(
            refused(&["X-Tenant", "x-tenant"]),
            "`x-tenant`: listed twice (header names are case-insensitive)"
        );
        for bad in ["", "X Tenant", "X-Tenant:", "Ünicode", "a.b"] {
            assert_eq!(
                refused(&[bad]),
                format!(
                    "`{bad}`: a header name is letters, digits, hyphens and underscores \
                     (at most 256 characters)"
                )
            );
        }
        assert!(refused(&[&"x".repeat(257)]).ends_with("(at most 256 characters)"));
        let many: Vec<String> = (0..21).map(|i| format!("X-H{i}")).collect();
        assert_eq!(
            RequestHeaderAllowlist::new(&many, false)
                .unwrap_err()
                .to_string(),
            "21 headers: a runtime allowlists at most 20"
        );
        assert!(RequestHeaderAllowlist::new(&many[..20], false).is_ok());
    }

    #[test]
    fn what_a_runtime_may_list() {
        let jwt = RequestHeaderAllowlist::new(["Authorization"], true).unwrap();
        assert!(jwt.allows(&axum::http::header::AUTHORIZATION));
        let custom = RequestHeaderAllowlist::new(
            [
                "X-Amzn-Bedrock-AgentCore-Runtime-Custom-Tenant",
                "X_Under_Score",
            ],
            false,
        )
        .unwrap();
        assert!(custom.allows(&HeaderName::from_static(
            "x-amzn-bedrock-agentcore-runtime-custom-tenant"
        )));
        assert!(!custom.allows(&HeaderName::from_static("a2a-version")));
        assert_eq!(
            RequestHeaderAllowlist::parse("", false).unwrap().names(),
            &[] as &[HeaderName]
        );
        assert_eq!(
            RequestHeaderAllowlist::parse(" A2A-Version , X-Tenant ", false)
                .unwrap()
                .names()
                .len(),
            2
        );
    }
}
