//! Whether the platform serves what a request names: a path it has (else 404 -32051), the
//! runtime the emulator is pinned to (`--runtime-arn`), the endpoint (`?qualifier=`,
//! DEFAULT when absent). Checked after the session header, as AWS does: a bad session id
//! is a 400 before an unknown path is a 404, and the 404 carries the session header.
//!
//! A request that passes is rewritten for the container: its URI becomes the container's
//! path (`/` with the client's query for JSON-RPC, the card's path, `/ping`), whatever path
//! (or absolute form) the client used.

use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_lambda_core::card::CARD_PATH;
use a2a_lambda_core::error::Refusal;
use a2a_lambda_core::jsonrpc::Id;
use axum::body::Body;
use axum::extract::Request;
use axum::http::Uri;
use tower::{Layer, Service};

use super::errors::platform_error;
use super::routes::{Route, Routed};
use super::runtime::{DEFAULT_QUALIFIER, query_param};
use super::step::{self, Answer, Next};

/// Refuses what the platform does not serve (404).
#[derive(Debug, Clone)]
pub(super) struct EndpointLayer {
    endpoint: Arc<Endpoint>,
}

#[derive(Debug)]
struct Endpoint {
    /// The one runtime served, when pinned.
    runtime_arn: Option<String>,
    /// The endpoint served.
    qualifier: String,
}

impl EndpointLayer {
    /// Serving runtime `runtime_arn` (any, when `None`) at endpoint `qualifier`.
    pub(super) fn new(runtime_arn: Option<String>, qualifier: String) -> Self {
        let endpoint = Endpoint {
            runtime_arn,
            qualifier,
        };
        Self {
            endpoint: Arc::new(endpoint),
        }
    }
}

impl<S> Layer<S> for EndpointLayer {
    type Service = EndpointService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        EndpointService {
            endpoint: Arc::clone(&self.endpoint),
            inner,
        }
    }
}

/// See [`EndpointLayer`].
#[derive(Debug, Clone)]
pub(super) struct EndpointService<S> {
    endpoint: Arc<Endpoint>,
    inner: S,
}

impl<S: Next<Body>> Service<Request> for EndpointService<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let routed = request.extensions().get::<Routed>();
        let target = match routed {
            Some(Routed(Ok(route))) => self.endpoint.check(route, request.uri()),
            Some(Routed(Err(detail))) => Err((Refusal::UnknownRoute, detail.clone())),
            None => Err((Refusal::Internal, "the request was not routed".to_owned())),
        };
        match target {
            Ok(target) => {
                *request.uri_mut() = target;
                step::pass(&mut self.inner, request)
            }
            Err((refusal, detail)) => step::now(platform_error(refusal, Id::Null, &detail)),
        }
    }
}

impl Endpoint {
    /// The container's URI for `route`, when the platform serves it.
    fn check(&self, route: &Route, uri: &Uri) -> Result<Uri, (Refusal, String)> {
        if let Some(runtime) = route.runtime() {
            if let Some(pinned) = &self.runtime_arn
                && !runtime.is(pinned)
            {
                let detail = format!("runtime {runtime} does not exist here (serving {pinned})");
                return Err((Refusal::UnknownRoute, detail));
            }
            let qualifier = query_param(uri.query(), "qualifier");
            let qualifier = qualifier.as_deref().unwrap_or(DEFAULT_QUALIFIER);
            if qualifier != self.qualifier {
                let detail = format!("no endpoint {qualifier:?} (serving {:?})", self.qualifier);
                return Err((Refusal::UnknownRoute, detail));
            }
        }
        match route {
            Route::Invoke { .. } => {
                container_target(uri).map_err(|detail| (Refusal::RuntimeUnavailable, detail))
            }
            Route::Card { .. } => Ok(Uri::from_static(CARD_PATH)),
            Route::Ping => Ok(Uri::from_static("/ping")),
            // Answered before this step; passed on as it is.
            Route::StopSession { .. } => Ok(uri.clone()),
        }
    }
}

/// The URI the container sees: `/` with the client's query (`?A2A-Version=1.0` included),
/// whatever path (or absolute form) the client used.
fn container_target(uri: &Uri) -> Result<Uri, String> {
    match (uri.path(), uri.path_and_query()) {
        ("/", Some(path_and_query)) => Ok(Uri::from(path_and_query.clone())),
        _ => match uri.query() {
            None => Ok(Uri::from_static("/")),
            Some(query) => format!("/?{query}")
                .parse()
                .map_err(|_| format!("bad path /?{query}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::step::testing::{echo_path, post, read};
    use tower::ServiceExt as _;

    fn target(uri: &str) -> String {
        let uri: Uri = uri.parse().unwrap();
        container_target(&uri).unwrap().to_string()
    }

    #[test]
    fn the_container_sees_the_root_with_the_clients_query() {
        assert_eq!(target("/"), "/");
        assert_eq!(target("/?A2A-Version=1.0"), "/?A2A-Version=1.0");
        assert_eq!(target("/agents/echo/"), "/");
        assert_eq!(target("/agents/echo?A2A-Version=1.0"), "/?A2A-Version=1.0");
        // An absolute-form request keeps neither scheme nor authority.
        assert_eq!(target("http://example.com/?a=1"), "/?a=1");
        assert_eq!(
            target("http://example.com/runtimes/x/invocations?a=1"),
            "/?a=1"
        );
    }

    const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/echo-abcdefghij";

    async fn answer(uri: &str) -> (u16, String) {
        let endpoint = EndpointLayer::new(Some(ARN.to_owned()), "DEFAULT".to_owned());
        let stack = RouteLayer::new(None).layer(endpoint.layer(echo_path()));
        let (status, body) = read(stack.oneshot(post(uri, "{}")).await.unwrap()).await;
        (status.as_u16(), String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn unknown_paths_runtimes_and_endpoints_are_404_and_the_rest_goes_to_the_container() {
        let ours = crate::front::percent_encode(ARN);
        let invoke = format!("/runtimes/{ours}/invocations?A2A-Version=1.0");
        assert_eq!(answer(&invoke).await, (200, "/?A2A-Version=1.0".to_owned()));
        assert_eq!(answer("/nowhere").await.0, 404);
        let other = crate::front::percent_encode(&ARN.replace("echo", "other"));
        assert_eq!(
            answer(&format!("/runtimes/{other}/invocations")).await.0,
            404
        );
        let beta = format!("/runtimes/{ours}/invocations?qualifier=beta");
        assert_eq!(answer(&beta).await.0, 404);
    }
}
