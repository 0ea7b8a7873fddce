//! The trace context on InvokeAgentRuntime's answer: AWS's model maps the response headers
//! `X-Amzn-Trace-Id`, `traceparent`, `tracestate` and `baggage` into the output's
//! `traceId`, `traceParent`, `traceState` and `baggage`
//! ([InvokeAgentRuntime](https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html),
//! Response Syntax). The emulator returns the caller's own values there (the container's,
//! when it set them), on the AWS invocation path only: the container paths are the
//! container's answers as they are.

use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::routes::{Route, route_of};
use super::step::{self, Answer, Next};

/// The trace headers InvokeAgentRuntime's answer carries.
static TRACE_HEADERS: [HeaderName; 4] = [
    HeaderName::from_static("x-amzn-trace-id"),
    HeaderName::from_static("traceparent"),
    HeaderName::from_static("tracestate"),
    HeaderName::from_static("baggage"),
];

/// Returns the caller's trace context on the invocation path's answers.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct TraceEchoLayer;

impl<S> Layer<S> for TraceEchoLayer {
    type Service = TraceEcho<S>;

    fn layer(&self, inner: S) -> Self::Service {
        TraceEcho { inner }
    }
}

/// See [`TraceEchoLayer`].
#[derive(Debug, Clone)]
pub(super) struct TraceEcho<S> {
    inner: S,
}

impl<B, S: Next<B>> Service<Request<B>> for TraceEcho<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let invocation = matches!(route_of(&request), Some(Route::Invoke { runtime: Some(_) }));
        if !invocation {
            return step::pass(&mut self.inner, request);
        }
        let sent: Vec<(HeaderName, HeaderValue)> = TRACE_HEADERS
            .iter()
            .filter_map(|name| Some((name.clone(), request.headers().get(name)?.clone())))
            .collect();
        if sent.is_empty() {
            return step::pass(&mut self.inner, request);
        }
        Box::pin(self.inner.call(request).map(move |answered| {
            answered.map(|mut response| {
                let headers = response.headers_mut();
                for (name, value) in sent {
                    headers.entry(name).or_insert(value);
                }
                response
            })
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::step::testing::echo_path;
    use axum::body::Body;
    use tower::ServiceExt as _;

    const INVOCATIONS: &str = "/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Ftest_agent-AbCdEf1234/invocations/";

    async fn answer(path: &str, headers: &[(&str, &str)]) -> axum::http::HeaderMap {
        let mut request = Request::post(path);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let service = RouteLayer::new(None).layer(TraceEchoLayer.layer(echo_path()));
        let response = service
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        response.headers().clone()
    }

    #[tokio::test]
    async fn the_invocation_path_returns_the_callers_trace_context() {
        let sent = [
            (
                "X-Amzn-Trace-Id",
                "Root=1-67891233-abcdef012345678912345678",
            ),
            (
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
            ("tracestate", "vendor=1"),
            ("baggage", "userId=alice"),
        ];
        let headers = answer(INVOCATIONS, &sent).await;
        for (name, value) in sent {
            assert_eq!(headers[name], value, "{name}");
        }
        // Nothing sent, nothing returned; the container paths are left as they are.
        assert!(answer(INVOCATIONS, &[]).await.get("traceparent").is_none());
        assert!(answer("/", &sent).await.get("traceparent").is_none());
    }
}
