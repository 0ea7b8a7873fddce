//! What the journal keeps in place of a secret: header values, query parameters and JSON
//! fields that carry credentials are masked before anything is stored, so neither the API
//! nor the page can show them.
//!
//! Masked headers: `Authorization` and `Proxy-Authorization` (the scheme kept: `Bearer ****`,
//! `AWS4-HMAC-SHA256 ****`, so a reader still sees which auth was used), `Cookie`,
//! `Set-Cookie`, the workload access token AgentCore passes the container
//! (`WorkloadAccessToken`, AgentCore Developer Guide, "Get workload access token",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/get-workload-access-token.html>),
//! `X-A2A-Notification-Token` (A2A v0.3 §9.5), SigV4's session token `X-Amz-Security-Token`,
//! and any header whose name says it holds a key, token, secret or password (`X-Api-Key`, …).
//!
//! Masked query parameters: SigV4's presigned `X-Amz-Signature`, `X-Amz-Credential` and
//! `X-Amz-Security-Token`. SigV4 carries its credential scope and signature either in the
//! `Authorization` header or in those query parameters, and a temporary credential's token
//! in `X-Amz-Security-Token` (IAM User Guide, "Authentication methods",
//! <https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-authentication-methods.html>;
//! the common parameters of AWS APIs, e.g.
//! <https://docs.aws.amazon.com/compute-optimizer/latest/APIReference/CommonParameters.html>).
//!
//! Masked JSON fields (in bodies, even truncated ones): `token` and `credentials`, where a
//! push notification config carries its secrets (A2A v1.0 `PushNotificationConfig.token`,
//! `AuthenticationInfo.credentials`, specification/a2a.proto).

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue};

/// What is stored in place of a secret.
pub const MASK: &str = "****";

/// Whether header `name` (lowercase, as `HeaderName` keeps it) carries a secret.
fn secret_header(name: &str) -> bool {
    matches!(
        name,
        "authorization"
            | "proxy-authorization"
            | "cookie"
            | "set-cookie"
            | "x-amz-security-token"
            | "x-a2a-notification-token"
    ) || name == a2a_lambda_core::agentcore_headers::WORKLOAD_ACCESS_TOKEN_HEADER
        || [
            "token",
            "api-key",
            "apikey",
            "secret",
            "password",
            "credential",
        ]
        .iter()
        .any(|word| name.contains(word))
}

/// `value` as the journal keeps header `name` (any case): a secret masked (an
/// authorization header keeps its scheme), anything else as it came.
pub fn header_value(name: &str, value: &str) -> String {
    if !secret_header(&name.to_ascii_lowercase()) {
        return value.to_owned();
    }
    let authorization = name.eq_ignore_ascii_case("authorization")
        || name.eq_ignore_ascii_case("proxy-authorization");
    match value.split_once(' ') {
        Some((scheme, _)) if authorization => format!("{scheme} {MASK}"),
        _ => MASK.to_owned(),
    }
}

/// `headers` as the journal keeps them: a copy with every secret's value masked.
///
/// The values are copied, not shared: a request's values are slices of the connection's
/// read buffer, and a journal holding them kept that buffer alive, so the server
/// allocated a new one for each request and the journal freed it when it forgot the
/// request (measured with `perf`: the largest part of the recorder's cost, and most of
/// the front's memory with the inspector on).
pub fn headers(headers: &HeaderMap) -> HeaderMap {
    let mut kept = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let copy = if secret_header(name.as_str()) {
            let text = String::from_utf8_lossy(value.as_bytes());
            HeaderValue::from_str(&header_value(name.as_str(), &text))
        } else {
            HeaderValue::from_bytes(value.as_bytes())
        };
        let mut copy = copy.unwrap_or(HeaderValue::from_static(MASK));
        copy.set_sensitive(value.is_sensitive());
        kept.append(name.clone(), copy);
    }
    kept
}

/// A body as the journal keeps it: its secret fields masked (see [`body`]), copied only
/// when it has some.
pub fn body_bytes(kept: Bytes) -> Bytes {
    // The searchers are built once: two bodies of every request recorded are scanned.
    static FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 2]> =
        std::sync::LazyLock::new(|| SECRET_FIELDS.map(memchr::memmem::Finder::new));
    let has_secret = FINDERS.iter().any(|finder| finder.find(&kept).is_some());
    if has_secret {
        Bytes::from(body(&String::from_utf8_lossy(&kept)))
    } else {
        kept
    }
}

/// A path and query as the journal keeps it: SigV4's presigned-URL secrets masked.
pub fn path_and_query(path: &str, query: Option<&str>) -> String {
    let Some(query) = query else {
        return path.to_owned();
    };
    let masked: Vec<String> = query
        .split('&')
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            let secret = [
                "x-amz-signature",
                "x-amz-credential",
                "x-amz-security-token",
            ]
            .iter()
            .any(|secret| name.eq_ignore_ascii_case(secret));
            if secret {
                format!("{name}={MASK}")
            } else {
                pair.to_owned()
            }
        })
        .collect();
    format!("{path}?{}", masked.join("&"))
}

/// The JSON fields whose string values are masked in bodies.
const SECRET_FIELDS: [&str; 2] = ["\"token\"", "\"credentials\""];

/// `text` (JSON, possibly cut short) with the string value of every `token` and
/// `credentials` field masked. A textual pass, so that a truncated body is masked too.
pub fn body(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = SECRET_FIELDS
            .iter()
            .filter_map(|field| rest.find(field).map(|at| (at, field.len())))
            .min();
        let Some((at, length)) = next else {
            out.push_str(rest);
            return out;
        };
        let after_key = at + length;
        out.push_str(&rest[..after_key]);
        rest = &rest[after_key..];
        // `: "value"`: keep the colon and the quotes, mask what is between them.
        let trimmed = rest.trim_start();
        let Some(value) = trimmed.strip_prefix(':') else {
            continue;
        };
        let value = value.trim_start();
        let Some(inner) = value.strip_prefix('"') else {
            continue;
        };
        let end = closing_quote(inner);
        out.push_str(&rest[..rest.len() - inner.len()]);
        out.push_str(MASK);
        rest = &inner[end..];
    }
}

/// Where the JSON string starting at `inner` (after its opening quote) ends: the index of
/// its closing quote, or the end of a cut-short text.
fn closing_quote(inner: &str) -> usize {
    let mut escaped = false;
    for (index, byte) in inner.bytes().enumerate() {
        match byte {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return index,
            _ => {}
        }
    }
    inner.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_headers_are_masked_and_the_scheme_kept() {
        assert_eq!(
            header_value("Authorization", "Bearer abc.def"),
            "Bearer ****"
        );
        assert_eq!(
            header_value(
                "authorization",
                "AWS4-HMAC-SHA256 Credential=AKIA/20261201/us-east-1/bedrock-agentcore/aws4_request, Signature=ab12"
            ),
            "AWS4-HMAC-SHA256 ****"
        );
        assert_eq!(header_value("authorization", "opaque"), "****");
        assert_eq!(header_value("Cookie", "a=b; c=d"), "****");
        assert_eq!(header_value("X-A2A-Notification-Token", "t"), "****");
        assert_eq!(header_value("WorkloadAccessToken", "w"), "****");
        assert_eq!(header_value("x-api-key", "k"), "****");
        assert_eq!(header_value("X-Amz-Security-Token", "s"), "****");
        assert_eq!(
            header_value("content-type", "application/json"),
            "application/json"
        );
        assert_eq!(header_value("a2a-version", "1.0"), "1.0");
    }

    #[test]
    fn presigned_query_secrets_are_masked() {
        assert_eq!(
            path_and_query(
                "/runtimes/x/invocations",
                Some("qualifier=DEFAULT&X-Amz-Signature=ff&X-Amz-Credential=AKIA%2F1")
            ),
            "/runtimes/x/invocations?qualifier=DEFAULT&X-Amz-Signature=****&X-Amz-Credential=****"
        );
        assert_eq!(path_and_query("/", None), "/");
    }

    #[test]
    fn body_tokens_are_masked_even_when_cut_short() {
        assert_eq!(
            body(r#"{"url":"http://h","token":"s3cr\"et","authentication":{"credentials" : "c"}}"#),
            r#"{"url":"http://h","token":"****","authentication":{"credentials" : "****"}}"#
        );
        assert_eq!(body(r#"{"token":"abcd"#), r#"{"token":"****"#);
        // A field that is not a string, or a key named in a value, is left alone.
        assert_eq!(
            body(r#"{"token":null,"a":"\"token\""}"#),
            r#"{"token":null,"a":"\"token\""}"#
        );
        assert_eq!(body("plain text"), "plain text");
    }
}
