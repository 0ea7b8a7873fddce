//! Which of the platform's paths a request is for: the container's own paths (JSON-RPC,
//! card, ping) and AWS's paths under `/runtimes/{ARN or id}/` (invocations, the card under
//! them, StopRuntimeSession).

use axum::http::{Method, Uri};

use super::CARD_PATH;
use super::runtime::Runtime;

/// Where a request goes.
pub(super) enum Route {
    /// JSON-RPC; `runtime` set on the AWS invocation path.
    Invoke { runtime: Option<Runtime> },
    /// The card; `runtime` set on the AWS invocation path.
    Card { runtime: Option<Runtime> },
    /// Health.
    Ping,
    /// `POST /runtimes/{runtime}/stopruntimesession`.
    StopSession { runtime: Runtime },
}

pub(super) fn route(method: &Method, uri: &Uri, interface: Option<&str>) -> Result<Route, String> {
    let path = uri.path();
    let known = match path {
        "/" => Some((Method::POST, Route::Invoke { runtime: None })),
        "/ping" => Some((Method::GET, Route::Ping)),
        CARD_PATH => Some((Method::GET, Route::Card { runtime: None })),
        _ if Some(path.trim_end_matches('/')) == interface => {
            Some((Method::POST, Route::Invoke { runtime: None }))
        }
        _ => None,
    };
    let (expected, route) = match known {
        Some(found) => found,
        None => {
            let rest = path
                .strip_prefix("/runtimes/")
                .ok_or_else(|| format!("no route {method} {path}"))?;
            let (segment, tail) = rest
                .split_once('/')
                .ok_or_else(|| format!("no route {method} {path}"))?;
            let runtime = Runtime::parse(segment, uri.query())?;
            match tail {
                "invocations" | "invocations/" => (
                    Method::POST,
                    Route::Invoke {
                        runtime: Some(runtime),
                    },
                ),
                "invocations/.well-known/agent-card.json" => (
                    Method::GET,
                    Route::Card {
                        runtime: Some(runtime),
                    },
                ),
                "stopruntimesession" => (Method::POST, Route::StopSession { runtime }),
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

impl Route {
    /// The runtime an AWS path names.
    pub(super) fn runtime(&self) -> Option<&Runtime> {
        match self {
            Self::Invoke { runtime } | Self::Card { runtime } => runtime.as_ref(),
            Self::StopSession { runtime } => Some(runtime),
            Self::Ping => None,
        }
    }
}
