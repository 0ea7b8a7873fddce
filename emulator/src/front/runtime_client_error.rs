//! RuntimeClientError: a container that cannot answer (nothing listens, the connection
//! broke before an answer, no answer within `--request-timeout`) is AgentCore's 424
//! -32055, echoing the payload's id. Below this step a container's failure is the
//! service's error ([`RuntimeFailure`]); above it every failure is an answer.

use std::convert::Infallible;
use std::task::{Context, Poll};

use a2a_lambda_core::error::Refusal;
use axum::body::Bytes;
use axum::http::Request;
use axum::response::Response;
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::container::RuntimeFailure;
use super::errors::platform_error;
use super::step::{Answer, Next, request_id_of};

/// Answers a container's failure as AgentCore does.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RuntimeClientErrorLayer;

impl<S> Layer<S> for RuntimeClientErrorLayer {
    type Service = RuntimeClientError<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RuntimeClientError { inner }
    }
}

/// See [`RuntimeClientErrorLayer`].
#[derive(Debug, Clone)]
pub(super) struct RuntimeClientError<S> {
    inner: S,
}

impl<S> Service<Request<Bytes>> for RuntimeClientError<S>
where
    S: Next<Bytes> + Service<Request<Bytes>, Error = RuntimeFailure>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Answer;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // A container call is always ready: its failures come with its answer.
        self.inner.poll_ready(cx).map(|_| Ok(()))
    }

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        // Shared, not copied; its id is read only for a failure.
        let payload = request.body().clone();
        Box::pin(self.inner.call(request).map(move |answered| {
            Ok(answered.unwrap_or_else(|failure| {
                let id = request_id_of(&payload);
                platform_error(Refusal::RuntimeUnavailable, id, &failure.to_string())
            }))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::step::testing::read;
    use axum::body::Body;
    use std::time::Duration;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn a_failure_is_424_with_the_payloads_id_and_an_answer_passes() {
        let failing = tower::service_fn(|request: Request<Bytes>| async move {
            match request.uri().path() {
                "/fail" => Err(RuntimeFailure::TimedOut(Duration::from_secs(1))),
                _ => Ok(Response::new(Body::from("answered"))),
            }
        });
        let step = RuntimeClientErrorLayer.layer(failing);
        let send = |uri| Request::post(uri).body(Bytes::from(r#"{"id":9}"#)).unwrap();
        let (status, body) = read(step.clone().oneshot(send("/fail")).await.unwrap()).await;
        assert_eq!(status, 424);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (body["id"].as_i64(), body["error"]["code"].as_i64()),
            (Some(9), Some(-32055))
        );
        let (status, body) = read(step.oneshot(send("/")).await.unwrap()).await;
        assert_eq!((status.as_u16(), &body[..]), (200, &b"answered"[..]));
    }
}
