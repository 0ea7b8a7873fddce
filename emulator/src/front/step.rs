//! What every step of the front's stack (`stack`) shares: the service a step wraps, the
//! answer it gives, and the readings of a request several steps make.

use std::convert::Infallible;

use a2a_lambda_core::jsonrpc::{self, Id};
use axum::http::{Request, header};
use axum::response::Response;
use futures_util::future::BoxFuture;
use tower::Service;

/// A step's answer: boxed, one allocation a step and a request (this is a development
/// tool; a step reads as one `async` block).
pub(crate) type Answer<E = Infallible> = BoxFuture<'static, Result<Response, E>>;

/// The service a step wraps: it takes requests with bodies of type `B` and answers each
/// (its error is `Infallible` above the container call: every failure is an answer). The
/// front is always ready, so a step calls it without waiting for `poll_ready`, as hyper's
/// connection does.
pub(crate) trait Next<B>:
    Service<Request<B>, Response = Response, Error: Send + 'static, Future: Send + 'static>
    + Clone
    + Send
    + 'static
{
}

impl<S, B> Next<B> for S where
    S: Service<Request<B>, Response = Response, Error: Send + 'static, Future: Send + 'static>
        + Clone
        + Send
        + 'static
{
}

/// An answer ready now.
pub(crate) fn now<E: Send + 'static>(response: Response) -> Answer<E> {
    Box::pin(std::future::ready(Ok(response)))
}

/// `response` from the inner service, kept as it is.
pub(crate) fn pass<B, S: Next<B>>(inner: &mut S, request: Request<B>) -> Answer<S::Error> {
    Box::pin(inner.call(request))
}

/// The inner service, taken to be called later (after an await): the clone stays behind.
pub(crate) fn take<S: Clone>(inner: &mut S) -> S {
    let clone = inner.clone();
    std::mem::replace(inner, clone)
}

/// The JSON-RPC id of a payload, or null when it cannot be read: what a platform refusal
/// echoes.
pub(crate) fn request_id_of(body: &[u8]) -> Id {
    match jsonrpc::parse_request(body) {
        Ok(request) => request.response_id(),
        Err(rejection) => rejection.id,
    }
}

/// Whether an answer is an SSE stream.
pub(crate) fn is_event_stream(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"))
}

#[cfg(test)]
pub(crate) mod testing {
    //! A tiny inner service for the steps' tests.

    use super::*;
    use axum::body::{Body, Bytes};
    use axum::http::StatusCode;

    /// Answers 200 with the path it was asked for as its body, and the request's
    /// extensions as the answer's.
    pub(crate) fn echo_path<B: Send + 'static>() -> impl Fine<B> {
        tower::service_fn(|request: Request<B>| async move {
            let (parts, _) = request.into_parts();
            let mut response = Response::new(Body::from(parts.uri.to_string()));
            *response.extensions_mut() = parts.extensions;
            Ok::<_, Infallible>(response)
        })
    }

    /// A step's inner service in a test: it never fails.
    pub(crate) trait Fine<B>: Next<B> + Service<Request<B>, Error = Infallible> {}

    impl<B, S: Next<B> + Service<Request<B>, Error = Infallible>> Fine<B> for S {}

    /// A request to `uri` with `body`.
    pub(crate) fn post(uri: &str, body: &'static str) -> Request<Body> {
        Request::post(uri).body(Body::from(body)).unwrap()
    }

    /// A response's status and body.
    pub(crate) async fn read(response: Response) -> (StatusCode, Bytes) {
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, body)
    }

    #[test]
    fn ids_are_read_or_null() {
        let id = request_id_of(br#"{"jsonrpc":"2.0","id":7,"method":"x"}"#);
        assert_eq!(serde_json::to_string(&id).unwrap(), "7");
        assert_eq!(request_id_of(b""), Id::Null);
    }
}
