//! Throttling: AgentCore's invocations a second per endpoint (25 by default, `--rate-limit`),
//! past which an invocation gets 429 -32053 echoing its payload's id. Only invocations
//! count: cards and pings are not throttled.

use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_lambda_core::error::Refusal;
use axum::body::Bytes;
use axum::http::Request;
use tower::{Layer, Service};

use super::body_limit::is_invocation;
use super::errors::platform_error;
use super::limits::RateLimiter;
use super::step::{self, Answer, Next, request_id_of};

/// Refuses invocations past the rate.
#[derive(Debug, Clone)]
pub(super) struct ThrottleLayer {
    limiter: Arc<RateLimiter>,
}

impl ThrottleLayer {
    /// Invocations limited by `limiter`.
    pub(super) fn new(limiter: RateLimiter) -> Self {
        Self {
            limiter: Arc::new(limiter),
        }
    }
}

impl<S> Layer<S> for ThrottleLayer {
    type Service = Throttle<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Throttle {
            limiter: Arc::clone(&self.limiter),
            inner,
        }
    }
}

/// See [`ThrottleLayer`].
#[derive(Debug, Clone)]
pub(super) struct Throttle<S> {
    limiter: Arc<RateLimiter>,
    inner: S,
}

impl<S: Next<Bytes>> Service<Request<Bytes>> for Throttle<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        if is_invocation(&request) && !self.limiter.try_acquire() {
            let id = request_id_of(request.body());
            return step::now(platform_error(Refusal::Throttled, id, "rate limit"));
        }
        step::pass(&mut self.inner, request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::step::testing::{echo_path, read};
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn invocations_past_the_rate_get_429_and_pings_pass() {
        let throttle = ThrottleLayer::new(RateLimiter::new(1).unwrap());
        let stack = RouteLayer::new(None).layer(throttle.layer(echo_path()));
        let send = || {
            Request::post("/")
                .body(Bytes::from(r#"{"jsonrpc":"2.0","id":"a","method":"x"}"#))
                .unwrap()
        };
        let first = stack.clone().oneshot(send()).await.unwrap();
        assert_eq!(first.status(), 200);
        let (status, body) = read(stack.clone().oneshot(send()).await.unwrap()).await;
        assert_eq!(status, 429);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (body["id"].as_str(), body["error"]["code"].as_i64()),
            (Some("a"), Some(-32053))
        );
        let ping = Request::get("/ping").body(Bytes::new()).unwrap();
        assert_eq!(stack.oneshot(ping).await.unwrap().status(), 200);
    }
}
