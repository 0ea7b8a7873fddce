//! The front as a service in this process, with no socket: what a fuzzer or a benchmark
//! calls request by request (`tower::ServiceExt::oneshot`), the same front
//! [`Emulator::start`] serves.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::Request;
use axum::response::Response;
use tower::util::BoxCloneSyncService;

use super::{Emulator, EmulatorError, Target};
use crate::front::process::Processes;

/// The front as a boxed, cloneable service: every request answered (errors are HTTP
/// responses), never a service error.
pub type FrontService = BoxCloneSyncService<Request, Response, Infallible>;

impl Emulator {
    /// The front this emulator would serve, as a service called in-process: no socket is
    /// bound, and `address` only names the base URL that invocation-path cards advertise
    /// (`http://{address}`). Must be called inside a Tokio runtime (the session reaper
    /// runs on it). Requests reach it as hyper would pass them: a path and query, headers
    /// and a body.
    ///
    /// ```
    /// use a2a_lambda_emulator::Emulator;
    /// use a2a_lambda_server::agents::EchoAgent;
    /// use axum::body::Body;
    /// use tower::ServiceExt as _;
    ///
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let front = Emulator::new(EchoAgent).into_service(([127, 0, 0, 1], 9000).into())?;
    /// let request = axum::http::Request::get("/ping").body(Body::empty())?;
    /// let response = front.oneshot(request).await?;
    /// assert_eq!(response.status(), 200);
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    ///
    /// # Errors
    /// A setting is invalid, or the agent's card is invalid.
    pub fn into_service(self, address: SocketAddr) -> Result<FrontService, EmulatorError> {
        let public_url = self.public_url.clone().unwrap_or_else(|| {
            format!(
                "http://{}/",
                a2a_lambda_server::host::graceful::reachable(address)
            )
        });
        let processes =
            matches!(self.target, Target::Command(_)).then(|| Arc::new(Processes::new()));
        let journal = self
            .journal_size
            .map(|size| crate::Journal::new(size, self.journal_body_bytes));
        let telemetry = journal.is_some().then(crate::telemetry::Telemetry::new);
        let service = self.front(
            address,
            &public_url,
            processes,
            Arc::default(),
            journal,
            telemetry,
        )?;
        Ok(BoxCloneSyncService::new(service))
    }
}
