//! The bottom of the stack: the call to the session's container, with the request as the
//! steps above left it (the container's path, the headers AgentCore passes, the payload),
//! within `--request-timeout`. Its answer comes back unchanged; a container that cannot
//! answer is the service's error, answered as 424 above (`runtime_client_error`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::Request;
use axum::response::Response;
use tower::Service;

use super::container::RuntimeFailure;
use super::session_entry::Entered;

/// Calls the container of the session a request entered.
#[derive(Debug, Clone, Copy)]
pub(super) struct ContainerCall {
    timeout: Duration,
}

impl ContainerCall {
    /// Calls that may take `timeout`.
    pub(super) fn new(timeout: Duration) -> Self {
        Self { timeout }
    }
}

impl Service<Request<Bytes>> for ContainerCall {
    type Response = Response;
    type Error = RuntimeFailure;
    type Future = Pin<Box<dyn Future<Output = Result<Response, RuntimeFailure>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
        let (mut parts, body) = request.into_parts();
        // The container continues the front's span, as behind AgentCore.
        #[cfg(feature = "otel")]
        a2a_lambda_server::host::telemetry::inject(&mut parts.headers);
        let Some(entered) = parts.extensions.get::<Entered>() else {
            let failure = RuntimeFailure::Unreachable("no session was entered".to_owned());
            return Box::pin(std::future::ready(Err(failure)));
        };
        let call = entered.session.container.call(
            parts.method,
            parts.uri,
            parts.headers,
            body,
            self.timeout,
        );
        Box::pin(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::sessions::testing::sessions;
    use std::sync::Arc;
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn the_sessions_container_answers() {
        let sessions = sessions();
        let (session, mark, _) = sessions.enter("s").unwrap();
        let mut request = Request::get("/ping").body(Bytes::new()).unwrap();
        request.extensions_mut().insert(Entered {
            session,
            mark: Some(Arc::new(mark)),
        });
        let call = ContainerCall::new(Duration::from_secs(5));
        let response = call.oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200);
        let unentered = Request::get("/ping").body(Bytes::new()).unwrap();
        assert!(call.oneshot(unentered).await.is_err());
    }
}
