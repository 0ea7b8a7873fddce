//! The hosts' server spans, made through OpenTelemetry's API and current (as
//! OpenTelemetry's context) while their request is polled: the engine sets what it learns
//! on the current one ([`super::record_operation`] and the others), the agent's span
//! ([`super::agent`]) is its child, and a call the agent makes carries it.
//!
//! The agent's run is traced the same way ([`super::agent`]). Neither is a `tracing` span:
//! one would cost a registry entry, a span builder and a lookup per recorded field on top
//! of OpenTelemetry's own span (measured with `scripts/load.py`). The agent's own `tracing`
//! spans still nest in them: `tracing-opentelemetry` parents a span with no exported
//! `tracing` span around it on OpenTelemetry's current context, and the agent's events
//! outside any span of its own go on that context's span ([`super::export`]).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::{Request, Response};
use tower::{Layer, Service};

/// What a traced future's output says about its span when it ends (an HTTP answer's
/// status; nothing for the others).
pub(crate) trait Outcome {
    /// Sets what `self` says on the ending `span`.
    #[cfg(feature = "otel")]
    fn record(&self, _span: &opentelemetry::trace::SpanRef<'_>) {}
}

impl<B, E> Outcome for Result<Response<B>, E> {
    #[cfg(feature = "otel")]
    fn record(&self, span: &opentelemetry::trace::SpanRef<'_>) {
        if let Ok(response) = self {
            super::spans::record_status(span, response.status());
        }
    }
}

/// A gRPC call's answer: its status is in the reply's own terms, not recorded.
impl Outcome for crate::engine::Reply {}

/// An agent's run: its failure is recorded as it happens.
impl Outcome for () {}

/// A span's context while it is open: OpenTelemetry's context holding it (nothing
/// without the `otel` feature).
#[cfg(feature = "otel")]
pub(crate) type SpanContext = opentelemetry::Context;
/// A span's context while it is open (nothing without the `otel` feature).
#[cfg(not(feature = "otel"))]
pub(crate) type SpanContext = ();

pin_project_lite::pin_project! {
    /// A future with its span current while it is polled; the span ends with it (see
    /// [`in_span`]).
    #[must_use = "futures do nothing unless polled"]
    pub(crate) struct Traced<F> {
        #[pin]
        inner: F,
        context: Option<SpanContext>,
    }
}

impl<F> std::fmt::Debug for Traced<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced")
            .field("span", &self.context.is_some())
            .finish_non_exhaustive()
    }
}

/// `future`, with the span of `context` current (OpenTelemetry's current context) each
/// time it is polled, and ended when it finishes (or when it is dropped unfinished);
/// `future` alone when `context` is none (telemetry off).
pub(crate) fn in_span<F: Future>(future: F, context: Option<SpanContext>) -> Traced<F>
where
    F::Output: Outcome,
{
    Traced {
        inner: future,
        context,
    }
}

impl<F: Future> Future for Traced<F>
where
    F::Output: Outcome,
{
    type Output = F::Output;

    #[cfg(feature = "otel")]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        use opentelemetry::trace::TraceContextExt as _;
        let this = self.project();
        let Some(context) = this.context.as_ref() else {
            return this.inner.poll(cx);
        };
        let current = context.clone().attach();
        let poll = this.inner.poll(cx);
        drop(current);
        if let Poll::Ready(output) = &poll {
            let span = context.span();
            output.record(&span);
            span.end();
            *this.context = None;
        }
        poll
    }

    #[cfg(not(feature = "otel"))]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.project().inner.poll(cx)
    }
}

/// The layer that gives each HTTP request a host serves its server span
/// ([`super::spans::request`]), except `/ping`: the platform's health check, many a
/// minute, is not a request of the agent's.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ServerSpanLayer;

impl<S> Layer<S> for ServerSpanLayer {
    type Service = ServerSpan<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ServerSpan { inner }
    }
}

/// See [`ServerSpanLayer`].
#[derive(Debug, Clone)]
pub(crate) struct ServerSpan<S> {
    inner: S,
}

impl<S, B, R> Service<Request<B>> for ServerSpan<S>
where
    S: Service<Request<B>, Response = Response<R>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Traced<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        #[cfg(feature = "otel")]
        let context = if super::is_on() && request.uri().path() != "/ping" {
            super::spans::request(request.method(), request.uri().path(), request.headers())
        } else {
            None
        };
        #[cfg(not(feature = "otel"))]
        let context = None;
        in_span(self.inner.call(request), context)
    }
}

/// Answers `answer` inside the server span `span` ([`server_span`]): the span is the
/// current context while the answer is made (the spans made meanwhile are its children,
/// and [`inject`](super::inject) writes it into the calls sent), records the answer's
/// HTTP status, and ends with it. `answer` alone when `span` is none.
///
/// ```
/// use a2a_lambda_server::host::telemetry::{answer_in_span, server_span};
///
/// # async fn demo() {
/// let headers = axum::http::HeaderMap::new();
/// let span = server_span("AgentCore POST /invocations", &headers, Vec::new());
/// let answer = answer_in_span(
///     async { Ok::<_, std::convert::Infallible>(axum::http::Response::new(())) },
///     span,
/// )
/// .await;
/// assert!(answer.is_ok());
/// # }
/// ```
#[cfg(feature = "otel")]
pub fn answer_in_span<F, B, E>(
    answer: F,
    span: Option<opentelemetry::Context>,
) -> impl Future<Output = Result<Response<B>, E>>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    in_span(answer, span)
}

/// A server span named `name`, started now, continuing the trace `headers` carry, with
/// `attributes`: what a host (the emulator's AgentCore front) opens for each request it
/// serves, then answers in with [`answer_in_span`]. None while telemetry is off.
///
/// ```
/// use a2a_lambda_server::host::telemetry::server_span;
/// use opentelemetry::KeyValue;
///
/// let headers = axum::http::HeaderMap::new();
/// let span = server_span("AgentCore POST /invocations", &headers, vec![
///     KeyValue::new("cloud.platform", "aws_bedrock_agentcore"),
/// ]);
/// assert!(span.is_none()); // telemetry was not turned on
/// ```
#[cfg(feature = "otel")]
pub fn server_span(
    name: impl Into<std::borrow::Cow<'static, str>>,
    headers: &axum::http::HeaderMap,
    attributes: Vec<opentelemetry::KeyValue>,
) -> Option<opentelemetry::Context> {
    super::spans::start(
        name.into(),
        opentelemetry::trace::SpanKind::Server,
        headers,
        attributes,
    )
}
