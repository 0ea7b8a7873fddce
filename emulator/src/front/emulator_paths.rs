//! The emulator's own paths, `/_emulator/*`: readiness (`front/readiness.rs`), the webhook
//! sinks and, when it is on, the inspector; and with the inspector the OTLP receiver's
//! `/v1/traces` and `/v1/metrics` (`telemetry/`). They are the client's side, none of
//! AgentCore's paths, so they are answered before the platform: no journal entry, request
//! id, auth, session header, throttling or faults.

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::readiness::{self, READY_PATH};
use super::sessions::Sessions;
use super::step::{self, Answer, Next};
use super::webhooks::{self, Sinks};
use crate::inspector::{self, Journal};
use crate::telemetry::{self, Telemetry};

/// Answers `/_emulator/*`; everything else goes on to the platform.
#[derive(Clone)]
pub(crate) struct EmulatorPathsLayer {
    sessions: Arc<Sessions>,
    sinks: Arc<Sinks>,
    journal: Option<Journal>,
    telemetry: Option<Telemetry>,
}

impl EmulatorPathsLayer {
    /// Readiness over `sessions`, the webhook `sinks`, the inspector over `journal` when
    /// it is on, and the OTLP receiver and its API over `telemetry` when it is on.
    pub(crate) fn new(
        sessions: Arc<Sessions>,
        sinks: Arc<Sinks>,
        journal: Option<Journal>,
        telemetry: Option<Telemetry>,
    ) -> Self {
        Self {
            sessions,
            sinks,
            journal,
            telemetry,
        }
    }
}

impl<S> Layer<S> for EmulatorPathsLayer {
    type Service = EmulatorPaths<S>;

    fn layer(&self, inner: S) -> Self::Service {
        EmulatorPaths {
            paths: self.clone(),
            inner,
        }
    }
}

/// See [`EmulatorPathsLayer`].
#[derive(Clone)]
pub(crate) struct EmulatorPaths<S> {
    paths: EmulatorPathsLayer,
    inner: S,
}

impl<S: Next<axum::body::Body>> Service<Request> for EmulatorPaths<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let path = request.uri().path();
        if let Some(telemetry) = &self.paths.telemetry {
            if telemetry::is_otlp_path(path) {
                return Box::pin(telemetry::receive(telemetry.clone(), request).map(Ok));
            }
            if telemetry::is_api_path(path) {
                return step::now(telemetry::answer_api(telemetry, &request));
            }
        }
        if !webhooks::is_emulator_path(path) {
            return step::pass(&mut self.inner, request);
        }
        if path == READY_PATH {
            return step::now(readiness::ready(request.method(), &self.paths.sessions));
        }
        if let Some(journal) = &self.paths.journal
            && inspector::is_inspector_path(path)
        {
            return step::now(inspector::serve(journal, &request));
        }
        Box::pin(webhooks::serve(&self.paths.sinks, request).map(Ok))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::sessions::testing::sessions;
    use crate::front::step::testing::{echo_path, read};
    use axum::body::Body;
    use tower::ServiceExt as _;

    async fn get(paths: &EmulatorPathsLayer, uri: &str) -> (u16, String) {
        let request = Request::get(uri).body(Body::empty()).unwrap();
        let response = paths.layer(echo_path()).oneshot(request).await.unwrap();
        let (status, body) = read(response).await;
        (status.as_u16(), String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn the_emulators_paths_are_answered_here_and_the_rest_goes_on() {
        let on = EmulatorPathsLayer::new(
            Arc::new(sessions()),
            Arc::default(),
            Some(Journal::new(10, 100)),
            Some(Telemetry::new()),
        );
        assert_eq!(get(&on, "/ping").await, (200, "/ping".to_owned()));
        assert_eq!(
            get(&on, "/_emulator/ready").await,
            (
                200,
                r#"{"liveSessions":0,"maxSessions":100,"status":"ready"}"#.to_owned()
            )
        );
        assert_eq!(get(&on, "/_emulator/webhooks").await.1, r#"{"sinks":[]}"#);
        assert!(get(&on, "/_emulator/").await.1.contains("<html"));
        assert_eq!(
            get(&on, "/_emulator/api/traces").await,
            (
                200,
                r#"{"droppedTraces":0,"rejectedSpans":0,"traces":[]}"#.to_owned()
            )
        );
        // The receiver answers its paths; a GET is not an export.
        assert_eq!(get(&on, "/v1/traces").await.0, 405);
        // The inspector off: its paths are the sinks' (which know none of them), and the
        // receiver's go on to the platform.
        let off = EmulatorPathsLayer::new(Arc::new(sessions()), Arc::default(), None, None);
        assert_eq!(get(&off, "/_emulator/").await.0, 404);
        assert_eq!(get(&off, "/_emulator/api/traces").await.0, 404);
        assert_eq!(
            get(&off, "/v1/traces").await,
            (200, "/v1/traces".to_owned())
        );
    }
}
