//! Which of the platform's paths a request is for: the container's own paths (JSON-RPC,
//! card, ping) and AWS's invocation paths under `/runtimes/{ARN}/`.

use axum::http::Method;

use super::CARD_PATH;
use super::arn;

/// Where a request goes.
pub(super) enum Route {
    /// JSON-RPC; `arn` set on the AWS invocation path.
    Invoke { arn: Option<String> },
    /// The card; `arn` set on the AWS invocation path.
    Card { arn: Option<String> },
    /// Health.
    Ping,
}

pub(super) fn route(method: &Method, path: &str, interface: Option<&str>) -> Result<Route, String> {
    let known = match path {
        "/" => Some((Method::POST, Route::Invoke { arn: None })),
        "/ping" => Some((Method::GET, Route::Ping)),
        CARD_PATH => Some((Method::GET, Route::Card { arn: None })),
        _ if Some(path.trim_end_matches('/')) == interface => {
            Some((Method::POST, Route::Invoke { arn: None }))
        }
        _ => None,
    };
    let (expected, route) = match known {
        Some(found) => found,
        None => {
            let rest = path
                .strip_prefix("/runtimes/")
                .ok_or_else(|| format!("no route {method} {path}"))?;
            let (encoded, tail) = rest
                .split_once('/')
                .ok_or_else(|| format!("no route {method} {path}"))?;
            let arn = a2a_core::percent::decode_component(encoded)
                .filter(|arn| arn::is_runtime_arn(arn))
                .ok_or_else(|| format!("{encoded:?} is not a URL-encoded AgentCore runtime ARN"))?;
            match tail {
                "invocations" | "invocations/" => (Method::POST, Route::Invoke { arn: Some(arn) }),
                "invocations/.well-known/agent-card.json" => {
                    (Method::GET, Route::Card { arn: Some(arn) })
                }
                _ => return Err(format!("no route {method} {path}")),
            }
        }
    };
    // The container answers a wrong method on its JSON-RPC path itself (405, Allow: POST).
    if *method == expected || matches!(route, Route::Invoke { .. }) {
        Ok(route)
    } else {
        Err(format!("{method} {path} is not served; use {expected}"))
    }
}
