//! The payload limit: an invocation's payload (a JSON-RPC `POST`) is read whole, up to
//! `--max-body-bytes` (AgentCore's is 100 MB), else 400 -32052. Nothing else the platform
//! serves has a payload for the container: the card and `/ping` are `GET`s, and a JSON-RPC
//! path called with another method reaches the container without a body (it answers 405).
//!
//! From here on a request's body is the payload as bytes. The payload is opaque to the
//! platform, as InvokeAgentRuntime's is: a body that is not JSON reaches the container,
//! which answers -32700 as the A2A spec says; its id is read only when the platform
//! refuses it.

use std::task::{Context, Poll};

use a2a_lambda_core::error::Refusal;
use a2a_lambda_core::jsonrpc::Id;
use axum::body::Bytes;
use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::errors::platform_error;
use super::routes::{Route, route_of};
use super::step::{self, Answer, Next};
use crate::inspector::notes::{self, Payload};

/// Reads the invocation's payload, up to a limit.
#[derive(Debug, Clone, Copy)]
pub(super) struct BodyLimitLayer {
    limit: usize,
}

impl BodyLimitLayer {
    /// Payloads of at most `limit` bytes.
    pub(super) fn new(limit: usize) -> Self {
        Self { limit }
    }
}

impl<S> Layer<S> for BodyLimitLayer {
    type Service = BodyLimit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        BodyLimit {
            limit: self.limit,
            inner,
        }
    }
}

/// See [`BodyLimitLayer`].
#[derive(Debug, Clone)]
pub(super) struct BodyLimit<S> {
    limit: usize,
    inner: S,
}

/// Whether a request is an invocation with a payload (JSON-RPC `POST`).
pub(super) fn is_invocation<B>(request: &Request<B>) -> bool {
    request.method() == Method::POST && matches!(route_of(request), Some(Route::Invoke { .. }))
}

impl<S: Next<Bytes>> Service<Request> for BodyLimit<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let invocation = is_invocation(&request);
        let (parts, body) = request.into_parts();
        if !invocation {
            return step::pass(&mut self.inner, Request::from_parts(parts, Bytes::new()));
        }
        let limit = self.limit;
        let mut inner = step::take(&mut self.inner);
        Box::pin(async move {
            let Ok(payload) = axum::body::to_bytes(body, limit).await else {
                let detail =
                    format!("the payload is larger than {limit} bytes (or could not be read)");
                return Ok(platform_error(
                    Refusal::PlatformValidation,
                    Id::Null,
                    &detail,
                ));
            };
            let request = Request::from_parts(parts, payload);
            if !notes::recording(&request) {
                return inner.call(request).await;
            }
            let payload = Payload(request.body().clone());
            inner
                .call(request)
                .map(|answered| {
                    answered.map(|mut response| {
                        response.extensions_mut().insert(payload);
                        response
                    })
                })
                .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::step::testing::{post, read};
    use axum::body::Body;
    use tower::ServiceExt as _;

    async fn served(request: Request) -> (u16, Bytes) {
        let inner = tower::service_fn(|request: Request<Bytes>| async move {
            Ok::<_, std::convert::Infallible>(Response::new(Body::from(request.into_body())))
        });
        let stack = RouteLayer::new(None).layer(BodyLimitLayer::new(8).layer(inner));
        let (status, body) = read(stack.oneshot(request).await.unwrap()).await;
        (status.as_u16(), body)
    }

    #[tokio::test]
    async fn an_invocations_payload_is_read_up_to_the_limit() {
        assert_eq!(served(post("/", "{}")).await, (200, Bytes::from("{}")));
        let (status, body) = served(post("/", "{\"id\":12345}")).await;
        assert_eq!(status, 400);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["code"], -32052);
        assert_eq!(body["id"], serde_json::Value::Null);
    }

    #[tokio::test]
    async fn other_requests_reach_the_container_without_a_body() {
        let ping = Request::get("/ping").body(Body::from("ignored")).unwrap();
        assert_eq!(served(ping).await, (200, Bytes::new()));
        let get = Request::get("/")
            .body(Body::from("a body over the limit"))
            .unwrap();
        assert_eq!(served(get).await, (200, Bytes::new()));
    }
}
