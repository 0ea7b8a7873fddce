//! Injected faults (`--fault`): the platform refusals and breaks a client must survive,
//! drawn per invocation from a seeded generator (`--seed`). In order: the added latency,
//! then maybe a fault answered in the container's place (throttle, conflict, runtime
//! error, internal, access denied, session lost), else the container's answer, its SSE
//! stream maybe cut after a few events (`stream_cut`). Only invocations get faults.

use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_lambda_core::error::Refusal;
use axum::body::Bytes;
use axum::http::Request;
use axum::response::Response;
use tower::{Layer, Service};

use super::body_limit::is_invocation;
use super::errors::platform_error;
use super::limits::{Fault, FaultInjector};
use super::request_id::PLATFORM_REQUEST_ID;
use super::session_header::session_of;
use super::sessions::Sessions;
use super::step::{self, Answer, Next, request_id_of};
use crate::inspector::notes::{self, Injected};

/// Injects faults into invocations.
#[derive(Clone)]
pub(super) struct FaultsLayer {
    faults: Arc<FaultInjector>,
    /// Ended by the `session-lost` fault.
    sessions: Arc<Sessions>,
}

impl FaultsLayer {
    /// Faults drawn by `faults`; `sessions` for the `session-lost` fault.
    pub(super) fn new(faults: FaultInjector, sessions: Arc<Sessions>) -> Self {
        Self {
            faults: Arc::new(faults),
            sessions,
        }
    }
}

impl<S> Layer<S> for FaultsLayer {
    type Service = Faults<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Faults {
            layer: self.clone(),
            inner,
        }
    }
}

/// See [`FaultsLayer`].
#[derive(Clone)]
pub(super) struct Faults<S> {
    layer: FaultsLayer,
    inner: S,
}

impl<S: Next<Bytes>> Service<Request<Bytes>> for Faults<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Bytes>) -> Self::Future {
        if !is_invocation(&request) {
            return step::pass(&mut self.inner, request);
        }
        let FaultsLayer { faults, sessions } = self.layer.clone();
        let mut inner = step::take(&mut self.inner);
        let noting = notes::recording(&request);
        Box::pin(async move {
            let mut injected = Injected {
                latency: faults.latency(),
                ..Injected::default()
            };
            if !injected.latency.is_zero() {
                tokio::time::sleep(injected.latency).await;
            }
            let mut response = match faults.draw() {
                Some(fault) => {
                    injected.fault = Some(fault);
                    refused(fault, &request, &sessions)
                }
                None => {
                    let cut = faults.stream_cut();
                    let response = inner.call(request).await?;
                    match cut {
                        Some(events) => {
                            injected.stream_cut = Some(events);
                            super::stream_cut::cut_after(response, events)
                        }
                        None => response,
                    }
                }
            };
            if noting {
                response.extensions_mut().insert(injected);
            }
            Ok(response)
        })
    }
}

/// AgentCore's answer for an injected `fault`, in the container's place.
fn refused(fault: Fault, request: &Request<Bytes>, sessions: &Sessions) -> Response {
    if fault == Fault::AccessDenied {
        return super::auth::unsigned(request.headers().get(&PLATFORM_REQUEST_ID));
    }
    let refusal = match fault {
        Fault::Throttle => Refusal::Throttled,
        Fault::Conflict => Refusal::SessionBusy,
        Fault::RuntimeError => Refusal::RuntimeUnavailable,
        Fault::Internal | Fault::AccessDenied => Refusal::Internal,
        Fault::SessionLost => {
            // AgentCore answers RuntimeClientError when a container dies under an
            // invocation; the session is over, its tasks with it.
            if let Some(session) = session_of(request) {
                let _ = sessions.stop(session.name.as_str(), "injected fault SessionLost");
            }
            Refusal::RuntimeUnavailable
        }
    };
    let detail = format!("injected fault {fault:?}");
    platform_error(refusal, request_id_of(request.body()), &detail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::limits::FaultSpec;
    use crate::front::routes::RouteLayer;
    use crate::front::step::testing::echo_path;
    use crate::inspector::notes::Recording;
    use tower::ServiceExt as _;

    fn stack(spec: &str) -> impl Service<Request<Bytes>, Response = Response> + Clone {
        let spec: FaultSpec = spec.parse().unwrap();
        let faults = FaultsLayer::new(
            FaultInjector::new(spec, 7),
            Arc::new(crate::front::sessions::testing::sessions()),
        );
        RouteLayer::new(None).layer(faults.layer(echo_path()))
    }

    fn send() -> Request<Bytes> {
        let mut request = Request::post("/").body(Bytes::from(r#"{"id":3}"#)).unwrap();
        request.extensions_mut().insert(Recording);
        request
    }

    #[tokio::test]
    async fn a_fault_answers_in_the_containers_place_and_is_noted() {
        let response = stack("throttle=1,latency=1ms")
            .oneshot(send())
            .await
            .ok()
            .unwrap();
        assert_eq!(response.status(), 429);
        let injected = response.extensions().get::<Injected>().unwrap();
        assert_eq!(injected.describe().unwrap(), "latency 1ms, Throttle");
        let response = stack("access-denied=1").oneshot(send()).await.ok().unwrap();
        assert_eq!(response.status(), 403);
    }

    #[tokio::test]
    async fn without_a_fault_the_container_answers_and_pings_get_none() {
        let response = stack("internal=0").oneshot(send()).await.ok().unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            response.extensions().get::<Injected>(),
            Some(&Injected::default())
        );
        let ping = Request::get("/ping").body(Bytes::new()).unwrap();
        let response = stack("internal=1").oneshot(ping).await.ok().unwrap();
        assert_eq!(response.status(), 200);
    }
}
