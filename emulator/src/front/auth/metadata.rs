//! The OAuth protected resource metadata (RFC 9728) an OAuth runtime serves, and the URL
//! its 401s point at: `…/runtimes/{ARN}/invocations/.well-known/oauth-protected-resource?qualifier=…`
//! (the A2A protocol contract's "OAuth authentication responses",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>;
//! RFC 9728, <https://datatracker.ietf.org/doc/html/rfc9728>).
//! On the container's own paths the document is at `/.well-known/oauth-protected-resource`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::jwt::Verifier;

/// The metadata's path under a resource.
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// Where a request's resource is: the invocation path's encoded ARN, or the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resource<'a> {
    /// `/runtimes/{encoded}/invocations`.
    Runtime(&'a str),
    /// The container's paths.
    Container,
}

/// The resource a request path is under.
fn resource_of(path: &str) -> Resource<'_> {
    path.strip_prefix("/runtimes/")
        .and_then(|rest| rest.split_once('/'))
        .map_or(Resource::Container, |(encoded, _)| {
            Resource::Runtime(encoded)
        })
}

/// The resource whose metadata a path asks for, if it does.
pub(super) fn resource_path(path: &str) -> Option<Resource<'_>> {
    if path == WELL_KNOWN {
        return Some(Resource::Container);
    }
    let rest = path.strip_prefix("/runtimes/")?;
    let (encoded, tail) = rest.split_once('/')?;
    (tail == "invocations/.well-known/oauth-protected-resource")
        .then_some(Resource::Runtime(encoded))
}

fn qualifier(query: Option<&str>) -> &str {
    query
        .into_iter()
        .flat_map(|query| query.split('&'))
        .find_map(|pair| pair.strip_prefix("qualifier="))
        .unwrap_or("DEFAULT")
}

/// The metadata URL for a request to `path`.
pub(super) fn url_for(base: &str, path: &str, query: Option<&str>) -> String {
    match resource_of(path) {
        Resource::Runtime(encoded) => format!(
            "{base}/runtimes/{encoded}/invocations{WELL_KNOWN}?qualifier={}",
            qualifier(query)
        ),
        Resource::Container => format!("{base}{WELL_KNOWN}"),
    }
}

/// The RFC 9728 document: `resource`, `authorization_servers` (the issuer, when known),
/// `scopes_supported` (the allowed scopes, when set), `bearer_methods_supported`.
pub(super) async fn document(
    verifier: &Verifier,
    base: &str,
    resource: Resource<'_>,
    query: Option<&str>,
) -> Response {
    let resource = match resource {
        Resource::Runtime(encoded) => {
            format!(
                "{base}/runtimes/{encoded}/invocations?qualifier={}",
                qualifier(query)
            )
        }
        Resource::Container => format!("{base}/"),
    };
    let mut document = serde_json::json!({
        "resource": resource,
        "bearer_methods_supported": ["header"],
    });
    if let Some(issuer) = verifier.issuer().await {
        document["authorization_servers"] = serde_json::json!([issuer]);
    }
    if !verifier.scopes().is_empty() {
        document["scopes_supported"] = serde_json::json!(verifier.scopes());
    }
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        document.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_follows_the_request() {
        let base = "http://127.0.0.1:9000";
        assert_eq!(
            url_for(
                base,
                "/runtimes/arn%3Ax/invocations",
                Some("qualifier=prod")
            ),
            "http://127.0.0.1:9000/runtimes/arn%3Ax/invocations/.well-known/oauth-protected-resource?qualifier=prod"
        );
        assert_eq!(
            url_for(base, "/", None),
            "http://127.0.0.1:9000/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            resource_path("/.well-known/oauth-protected-resource"),
            Some(Resource::Container)
        );
        assert_eq!(
            resource_path("/runtimes/a/invocations/.well-known/oauth-protected-resource"),
            Some(Resource::Runtime("a"))
        );
        assert_eq!(resource_path("/runtimes/a/invocations"), None);
    }
}
