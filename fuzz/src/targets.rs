//! The services an input is sent to, built once and called in-process (`oneshot`): the
//! container's router with both bindings, the router as AgentCore's container (JSON-RPC
//! only, on its public URL's path too), and the emulator's AgentCore front.

use std::convert::Infallible;
use std::time::Duration;

use a2a_lambda_core::card::Bindings;
use a2a_lambda_emulator::{Emulator, FrontService};
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::serve::Container;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::BodyExt as _;
use tower::ServiceExt as _;

use crate::generate::INTERFACE_PATH;
use crate::input::{Input, Target};

/// Why the services could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The container's router.
    #[error("container: {0}")]
    Container(#[from] a2a_lambda_server::serve::ServeError),
    /// The emulator's front.
    #[error("emulator: {0}")]
    Emulator(#[from] a2a_lambda_emulator::EmulatorError),
}

/// What came back.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The HTTP status.
    pub status: StatusCode,
    /// The headers.
    pub headers: HeaderMap,
    /// The whole body.
    pub body: Vec<u8>,
}

/// What calling a target gave.
#[derive(Debug)]
pub enum Outcome {
    /// An answer, read to its end.
    Answered(Answer),
    /// No answer (or no end of its body) within the bound.
    TimedOut,
    /// The body failed while it was read.
    BodyFailed(String),
    /// The input is not a request hyper would pass on (an invalid method, path or
    /// header): its HTTP parser answers 400 itself, so the service is not called.
    Unsendable,
}

/// The three services.
#[derive(Clone)]
pub struct Targets {
    container: Router,
    container_jsonrpc: Router,
    front: FrontService,
}

impl std::fmt::Debug for Targets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Targets").finish_non_exhaustive()
    }
}

impl Targets {
    /// Builds them around the echo agent, each with its own in-memory store. Must be
    /// called inside a Tokio runtime. The front does not throttle (a fuzzer would see
    /// nothing but 429s), and idle sessions end after 5 s.
    ///
    /// # Errors
    /// [`BuildError`] when one cannot be built.
    pub fn new() -> Result<Self, BuildError> {
        let container = Container::new(EchoAgent).into_router("http://127.0.0.1:9000/")?;
        let container_jsonrpc = Container::new(EchoAgent)
            .bindings(Bindings::default())
            .into_router(&format!("https://example.com{INTERFACE_PATH}/"))?;
        // Idle sessions end after a few seconds, so those the fuzzer starts come and go.
        let front = Emulator::new(EchoAgent)
            .rate_limit(0)
            .idle_timeout(Duration::from_secs(5))
            .into_service(([127, 0, 0, 1], 9000).into())?;
        Ok(Self {
            container,
            container_jsonrpc,
            front,
        })
    }

    /// Sends `input` and reads the whole answer, within `bound`.
    pub async fn call(&self, input: &Input, bound: Duration) -> Outcome {
        let Some(request) = request(input) else {
            return Outcome::Unsendable;
        };
        let call = async {
            let response = match input.target {
                Target::Container => infallible(self.container.clone().oneshot(request).await),
                Target::ContainerJsonRpc => {
                    infallible(self.container_jsonrpc.clone().oneshot(request).await)
                }
                Target::Front => infallible(self.front.clone().oneshot(request).await),
            };
            let (parts, body) = response.into_parts();
            match body.collect().await {
                Ok(body) => Outcome::Answered(Answer {
                    status: parts.status,
                    headers: parts.headers,
                    body: body.to_bytes().to_vec(),
                }),
                Err(error) => Outcome::BodyFailed(error.to_string()),
            }
        };
        tokio::time::timeout(bound, call)
            .await
            .unwrap_or(Outcome::TimedOut)
    }
}

fn infallible<T>(result: Result<T, Infallible>) -> T {
    match result {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

/// The request hyper would hand the service, or `None` when its parser would refuse the
/// bytes first.
fn request(input: &Input) -> Option<Request<Body>> {
    let method = Method::from_bytes(input.method.as_bytes()).ok()?;
    let mut request = Request::builder()
        .method(method)
        .uri(input.path.as_str())
        .body(Body::from(input.body.clone()))
        .ok()?;
    let headers = request.headers_mut();
    for (name, value) in &input.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
        let value = HeaderValue::from_bytes(value).ok()?;
        headers.append(name, value);
    }
    if !input.body.is_empty() {
        headers.insert(
            axum::http::header::CONTENT_LENGTH,
            HeaderValue::from(input.body.len()),
        );
    }
    Some(request)
}
