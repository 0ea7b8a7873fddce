//! Refusals of the caller's credentials, told apart from other errors: a 401 (the endpoint
//! wants a bearer token; AgentCore's OAuth runtimes name their metadata in
//! `WWW-Authenticate: Bearer resource_metadata="…"`) and AWS's 403 `AccessDeniedException`
//! (SigV4 credentials or permissions). A 401's JSON-RPC body (-32001) is not a task error.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};
use serde_json::Value;

use crate::error::Error;

/// What of a response's headers a refusal needs, read before the body is.
pub(crate) struct AuthHeaders {
    challenge: Option<String>,
    aws_error_type: Option<String>,
}

impl AuthHeaders {
    pub(crate) fn of(headers: &HeaderMap) -> Self {
        let text = |name| {
            headers
                .get(name)
                .and_then(|value: &reqwest::header::HeaderValue| value.to_str().ok())
                .map(str::to_owned)
        };
        Self {
            challenge: text(WWW_AUTHENTICATE.as_str()),
            aws_error_type: text("x-amzn-errortype"),
        }
    }
}

/// The `resource_metadata` URL of a `Bearer` challenge.
fn resource_metadata(challenge: &str) -> Option<String> {
    let (_, rest) = challenge.split_once("resource_metadata=\"")?;
    let (url, _) = rest.split_once('"')?;
    Some(url.to_owned())
}

/// The message of a JSON-RPC error body or of AWS's `{"message": …}`.
fn message_of(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    value
        .pointer("/error/message")
        .or_else(|| value.get("message"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The refusal a response is, if it is one.
pub(crate) fn auth_refusal(
    url: &str,
    status: u16,
    headers: &AuthHeaders,
    body: &[u8],
) -> Option<Error> {
    match status {
        401 => Some(Error::Unauthorized {
            url: url.to_owned(),
            message: message_of(body).unwrap_or_else(|| "Unauthorized".to_owned()),
            resource_metadata: headers.challenge.as_deref().and_then(resource_metadata),
        }),
        403 if headers
            .aws_error_type
            .as_deref()
            .is_some_and(|name| name.starts_with("AccessDenied")) =>
        {
            Some(Error::AccessDenied {
                url: url.to_owned(),
                message: message_of(body).unwrap_or_else(|| "Access denied".to_owned()),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_401_names_the_metadata_and_a_403_the_credentials() {
        let headers = AuthHeaders {
            challenge: Some("Bearer resource_metadata=\"https://x/.well-known/oauth-protected-resource?qualifier=DEFAULT\"".to_owned()),
            aws_error_type: None,
        };
        let body =
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Token has expired"}}"#;
        let error = auth_refusal("u", 401, &headers, body).unwrap();
        assert_eq!(
            error.to_string(),
            "unauthorized by u: Token has expired (OAuth metadata: \
             https://x/.well-known/oauth-protected-resource?qualifier=DEFAULT)"
        );
        assert!(error.hint().unwrap().contains("--bearer"));
        assert_eq!(error.http_status(), Some(401));
        let aws = AuthHeaders {
            challenge: None,
            aws_error_type: Some("AccessDeniedException".to_owned()),
        };
        let error = auth_refusal(
            "u",
            403,
            &aws,
            br#"{"message":"Missing Authentication Token"}"#,
        )
        .unwrap();
        assert_eq!(
            error.to_string(),
            "access denied by u: Missing Authentication Token"
        );
        assert!(error.hint().unwrap().contains("SigV4"));
        let plain = AuthHeaders {
            challenge: None,
            aws_error_type: None,
        };
        assert!(auth_refusal("u", 403, &plain, b"nope").is_none());
    }
}
