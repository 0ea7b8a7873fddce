//! Which of the platform's paths a request is for: the container's own paths (JSON-RPC,
//! card, ping) and AWS's paths under `/runtimes/{ARN or id}/` (invocations, the card under
//! them, StopRuntimeSession).
//!
//! The route step ([`RouteLayer`]) only reads the path: it puts what it found ([`Routed`])
//! in the request's extensions. A path that is none of these is refused later (404), once
//! the session header has been checked, as AWS does.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{Method, Request, Uri};
use tower::{Layer, Service};

use super::CARD_PATH;
use super::runtime::Runtime;
use super::step::{self, Answer, Next};

/// What the route step found: the route, or why there is none.
#[derive(Debug, Clone)]
pub(super) struct Routed(pub(super) Result<Route, String>);

/// The route of a request the route step has read, when it has one.
pub(super) fn route_of<B>(request: &Request<B>) -> Option<&Route> {
    request.extensions().get::<Routed>()?.0.as_ref().ok()
}

/// Reads each request's route.
#[derive(Debug, Clone)]
pub(super) struct RouteLayer {
    /// The path of the container's public URL when not `/` (JSON-RPC is served there too).
    interface: Option<Arc<str>>,
}

impl RouteLayer {
    /// Routing JSON-RPC on `/` and on `interface`, when set.
    pub(super) fn new(interface: Option<&str>) -> Self {
        Self {
            interface: interface.map(Arc::from),
        }
    }
}

impl<S> Layer<S> for RouteLayer {
    type Service = RouteService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RouteService {
            interface: self.interface.clone(),
            inner,
        }
    }
}

/// See [`RouteLayer`].
#[derive(Debug, Clone)]
pub(super) struct RouteService<S> {
    interface: Option<Arc<str>>,
    inner: S,
}

impl<B, S: Next<B>> Service<Request<B>> for RouteService<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let routed = route(request.method(), request.uri(), self.interface.as_deref());
        request.extensions_mut().insert(Routed(routed));
        step::pass(&mut self.inner, request)
    }
}

/// Where a request goes.
#[derive(Debug, Clone)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use tower::ServiceExt as _;

    async fn routed(method: Method, uri: &str) -> Result<Route, String> {
        let inner = tower::service_fn(|request: Request<Body>| async move {
            let routed = request.extensions().get::<Routed>().cloned().unwrap();
            let mut response = axum::response::Response::new(Body::empty());
            response.extensions_mut().insert(routed);
            Ok::<_, std::convert::Infallible>(response)
        });
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::empty())
            .unwrap();
        let layer = RouteLayer::new(Some("/agents/echo"));
        let response = layer.layer(inner).oneshot(request).await.unwrap();
        response.extensions().get::<Routed>().cloned().unwrap().0
    }

    #[tokio::test]
    async fn the_step_reads_the_route_and_refuses_nothing() {
        assert!(matches!(
            routed(Method::POST, "/").await,
            Ok(Route::Invoke { runtime: None })
        ));
        assert!(matches!(
            routed(Method::POST, "/agents/echo/").await,
            Ok(Route::Invoke { runtime: None })
        ));
        assert!(matches!(
            routed(Method::GET, "/ping").await,
            Ok(Route::Ping)
        ));
        assert_eq!(
            routed(Method::POST, "/ping").await.unwrap_err(),
            "POST /ping is not served; use GET"
        );
        assert_eq!(
            routed(Method::GET, "/nowhere").await.unwrap_err(),
            "no route GET /nowhere"
        );
        let arn =
            "arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fecho-abcdefghij";
        assert!(matches!(
            routed(Method::POST, &format!("/runtimes/{arn}/stopruntimesession")).await,
            Ok(Route::StopSession { .. })
        ));
        assert!(matches!(
            routed(
                Method::GET,
                &format!("/runtimes/{arn}/invocations/.well-known/agent-card.json")
            )
            .await,
            Ok(Route::Card { runtime: Some(_) })
        ));
    }
}
