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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use a2a_lambda_server::serve::Container;
    use axum::body::Body;
    use serde_json::Value;

    use super::*;
    use crate::agent::ItkAgent;

    async fn answer(app: &Router, method: &str, path: &str, body: &str) -> (u16, Value) {
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .header("a2a-version", "1.0")
            .body(Body::from(body.to_owned()))
            .unwrap();
        let response = app.clone().oneshot(request).await.unwrap();
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    #[tokio::test]
    async fn the_routes_are_at_the_root_and_under_the_kits_paths_slash_or_not() {
        let app = Container::new(ItkAgent)
            .map_router(kit_paths)
            .into_router("http://127.0.0.1:10102/")
            .unwrap();
        for path in [
            "/.well-known/agent-card.json",
            "/jsonrpc/.well-known/agent-card.json",
            "/rest/.well-known/agent-card.json/",
        ] {
            let (status, card) = answer(&app, "GET", path, "").await;
            assert_eq!(status, 200, "{path}");
            assert_eq!(
                card["supportedInterfaces"][0]["url"],
                "http://127.0.0.1:10102/"
            );
        }
        // A message without an instruction: the agent fails the task, saying so.
        let send = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"m-1","parts":[{"text":"hi"}]}}}"#;
        for path in ["/", "/jsonrpc", "/jsonrpc/"] {
            let (status, answer) = answer(&app, "POST", path, send).await;
            assert_eq!(status, 200, "{path}");
            assert_eq!(
                answer["result"]["task"]["status"]["state"], "TASK_STATE_FAILED",
                "{path}: {answer}"
            );
        }
        let rest = r#"{"message":{"role":"ROLE_USER","messageId":"m-2","parts":[{"text":"hi"}]}}"#;
        for path in ["/message:send", "/rest/message:send"] {
            let (status, answer) = answer(&app, "POST", path, rest).await;
            assert_eq!(status, 200, "{path}");
            assert_eq!(
                answer["task"]["status"]["message"]["parts"][0]["text"],
                "No valid instruction found in request",
                "{path}: {answer}"
            );
        }
        let (status, _) = answer(&app, "GET", "/elsewhere/.well-known/agent-card.json", "").await;
        assert_eq!(status, 404);
    }

    #[test]
    fn only_a_trailing_slash_goes_and_the_query_stays() {
        let path = |uri: &str| {
            let request = Request::builder().uri(uri).body(Body::empty()).unwrap();
            without_trailing_slash(request).uri().to_string()
        };
        assert_eq!(path("/jsonrpc/"), "/jsonrpc");
        assert_eq!(path("/jsonrpc//"), "/jsonrpc");
        assert_eq!(path("/"), "/");
        assert_eq!(
            path("/rest/tasks/t-1?historyLength=2"),
            "/rest/tasks/t-1?historyLength=2"
        );
        assert_eq!(path("/rest/tasks/?x=1"), "/rest/tasks?x=1");
    }
}
