//! Where the agent's routes are: the A2A routes at the root (the card there, as the kit
//! reads it, naming the root for JSON-RPC and HTTP+JSON), and the same routes under
//! `/jsonrpc` and `/rest`, the paths the kit's runner posts to and its agents use, with or
//! without a trailing slash (the runner posts to `/jsonrpc/`).

use axum::Router;
use axum::extract::Request;
use axum::http::Uri;
use tower::ServiceExt as _;

/// `a2a`, the container's A2A routes, at the root and under `/jsonrpc` and `/rest`.
pub fn kit_paths(a2a: Router) -> Router {
    let paths = Router::new()
        .nest("/jsonrpc", a2a.clone())
        .nest("/rest", a2a.clone())
        .merge(a2a);
    // Routed after the trailing slash is gone (routing happens before a route's layers).
    Router::new().fallback_service(paths.map_request(without_trailing_slash))
}

/// `/jsonrpc/` → `/jsonrpc`; the root and every other path as they are.
fn without_trailing_slash(mut request: Request) -> Request {
    let path = request.uri().path();
    if path.len() > 1 && path.ends_with('/') {
        let trimmed = path.trim_end_matches('/');
        let trimmed = if trimmed.is_empty() { "/" } else { trimmed };
        let rewritten = match request.uri().query() {
            Some(query) => format!("{trimmed}?{query}"),
            None => trimmed.to_owned(),
        };
        if let Ok(uri) = rewritten.parse::<Uri>() {
            *request.uri_mut() = uri;
        }
    }
    request
}
