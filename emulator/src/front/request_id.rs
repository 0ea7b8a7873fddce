//! The platform's request id: AgentCore gives each request an
//! `X-Amzn-Bedrock-AgentCore-Runtime-Request-Id`, passes it to the container (which logs it
//! as its own request id) and returns it on the response. A caller's own is replaced.
//! The same id is AWS's `x-amzn-RequestId` on every answer, as on any AWS API's: AWS's SDKs
//! read it into their outputs' and errors' `request_id()`.
//!
//! The step also opens the request's `invocation` span, so every later step logs under it,
//! and (telemetry on) the front's server span.

use std::task::{Context, Poll};

use a2a_lambda_core::agentcore::REQUEST_ID_HEADER;
use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use futures_util::FutureExt as _;
use tower::{Layer, Service};
use tracing::Instrument as _;

use super::aws_error::AWS_REQUEST_ID_HEADER;
use super::step::{Answer, Next};

/// The platform's request id header.
pub(crate) static PLATFORM_REQUEST_ID: HeaderName = HeaderName::from_static(REQUEST_ID_HEADER);
/// AWS's request id header.
static AWS_REQUEST_ID: HeaderName = HeaderName::from_static(AWS_REQUEST_ID_HEADER);

/// Gives each request the platform's request id.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PlatformRequestIdLayer;

impl<S> Layer<S> for PlatformRequestIdLayer {
    type Service = PlatformRequestId<S>;

    fn layer(&self, inner: S) -> Self::Service {
        PlatformRequestId { inner }
    }
}

/// See [`PlatformRequestIdLayer`].
#[derive(Debug, Clone)]
pub(crate) struct PlatformRequestId<S> {
    inner: S,
}

impl<S: Next<axum::body::Body>> Service<Request> for PlatformRequestId<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let request_id = a2a_lambda_core::model::new_id();
        let span = tracing::info_span!("invocation", request_id, path = request.uri().path());
        #[cfg(feature = "otel")]
        let traced = server_span(&request, &request_id);
        let request_id = HeaderValue::try_from(request_id).ok();
        if let Some(value) = &request_id {
            request
                .headers_mut()
                .insert(&PLATFORM_REQUEST_ID, value.clone());
        }
        // The steps that answer at once log in the span too.
        let answer = span.in_scope(|| self.inner.call(request)).instrument(span);
        #[cfg(feature = "otel")]
        let answer = a2a_lambda_server::host::telemetry::answer_in_span(answer, traced);
        Box::pin(answer.map(move |answered| {
            answered.map(|mut response| {
                if let Some(value) = request_id {
                    let headers = response.headers_mut();
                    headers.insert(AWS_REQUEST_ID.clone(), value.clone());
                    headers.insert(&PLATFORM_REQUEST_ID, value);
                }
                response
            })
        }))
    }
}

/// Whether `path` is one AgentCore serves for the agent (not `/ping`, `/v1/…` or the
/// emulator's `/_emulator/…`).
#[cfg(feature = "otel")]
fn is_invocation(path: &str) -> bool {
    path != "/ping" && !path.starts_with("/v1/") && !path.starts_with("/_emulator")
}

/// With telemetry on, the front's server span of one invocation (AgentCore's side of the
/// trace), continuing the caller's; the container's server span is its child. Beside it,
/// the `invocation` span every log line of the request carries.
#[cfg(feature = "otel")]
fn server_span(request: &Request, request_id: &str) -> Option<opentelemetry::Context> {
    use opentelemetry::KeyValue;
    // The emulator's own paths (its OTLP receiver among them: a span per export would
    // be exported in turn) and the health check are not invocations.
    if !a2a_lambda_server::host::telemetry::is_on() || !is_invocation(request.uri().path()) {
        return None;
    }
    let mut attributes = vec![
        KeyValue::new("request_id", request_id.to_owned()),
        KeyValue::new("http.request.method", request.method().as_str().to_owned()),
        KeyValue::new("url.path", request.uri().path().to_owned()),
        KeyValue::new("cloud.platform", "aws_bedrock_agentcore"),
    ];
    if let Some(session) = request
        .headers()
        .get(a2a_lambda_core::agentcore::SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
    {
        attributes.push(KeyValue::new("session.id", session.to_owned()));
    }
    a2a_lambda_server::host::telemetry::server_span(
        format!("AgentCore {} {}", request.method(), request.uri().path()),
        request.headers(),
        attributes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::step::testing::echo_path;
    use axum::body::Body;
    use axum::response::Response;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn the_container_and_the_caller_get_the_same_new_id() {
        let inner = tower::service_fn(|request: Request| async move {
            let sent = request.headers().get(&PLATFORM_REQUEST_ID).cloned();
            let mut response = Response::new(Body::empty());
            if let Some(sent) = sent {
                response.headers_mut().insert("x-container-saw", sent);
            }
            Ok::<_, std::convert::Infallible>(response)
        });
        let request = Request::get("/ping")
            .header(REQUEST_ID_HEADER, "the-callers-own")
            .body(Body::empty())
            .unwrap();
        let response = PlatformRequestIdLayer
            .layer(inner)
            .oneshot(request)
            .await
            .unwrap();
        let given = response.headers().get(&PLATFORM_REQUEST_ID).unwrap();
        assert_ne!(given, "the-callers-own");
        assert_eq!(response.headers().get(AWS_REQUEST_ID_HEADER), Some(given));
        assert_eq!(response.headers().get("x-container-saw"), Some(given));
        let other = PlatformRequestIdLayer
            .layer(echo_path())
            .oneshot(Request::get("/").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_ne!(other.headers().get(&PLATFORM_REQUEST_ID), Some(given));
    }
}
