//! The function's responses in the shape `lambda_http`'s concurrent runtime takes.
//!
//! `lambda_http`'s adapters name the response (buffered) or its body (streamed) in their
//! type, and `run_concurrent` moves the adapter to each worker task, so that type must be
//! `Sync`; an axum response body is `Send` only. [`Answer`] and [`AnswerBody`] carry it in
//! a [`SyncWrapper`], which is `Sync` because nothing can reach the body through a shared
//! reference: the body is only ever polled through `&mut`.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use http::Response;
use http_body::Frame;
use lambda_http::IntoResponse;
use sync_wrapper::SyncWrapper;

/// What `lambda_http`'s [`IntoResponse`] makes.
type ResponseFuture = Pin<Box<dyn Future<Output = Response<lambda_http::Body>> + Send>>;

/// A buffered response of the function's router.
pub struct Answer(SyncWrapper<Response<Body>>);

impl Answer {
    /// Wraps the router's response.
    pub fn new(response: Response<Body>) -> Self {
        Self(SyncWrapper::new(response))
    }
}

impl IntoResponse for Answer {
    fn into_response(self) -> ResponseFuture {
        self.0.into_inner().into_response()
    }
}

/// The body of a streamed response of the function's router.
pub struct AnswerBody(SyncWrapper<Body>);

impl AnswerBody {
    /// The router's response, its body wrapped.
    pub fn response(response: Response<Body>) -> Response<Self> {
        response.map(|body| Self(SyncWrapper::new(body)))
    }
}

impl http_body::Body for AnswerBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(self.get_mut().0.get_mut()).poll_frame(cx)
    }
}
