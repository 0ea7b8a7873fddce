//! [`Running`]: a started emulator — its URLs, and how it stops.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::EmulatorError;
use crate::emulator::AGENT_STOP_GRACE;
use crate::front::process::Processes;

/// A started emulator. Dropping it stops the server (without waiting); call
/// [`shutdown`](Running::shutdown) to wait for in-flight requests.
#[derive(Debug)]
pub struct Running {
    pub(crate) address: SocketAddr,
    pub(crate) url: String,
    pub(crate) public_url: String,
    pub(crate) stop: watch::Sender<bool>,
    pub(crate) task: Option<JoinHandle<std::io::Result<()>>>,
    /// The agent command's processes, when there is one.
    pub(crate) processes: Option<Arc<Processes>>,
}

impl Running {
    /// The emulator's base URL, `http://127.0.0.1:PORT` (no trailing slash): the
    /// container's paths (`/`, the card, `/ping`) and AWS's invocation paths
    /// (`/runtimes/{ARN}/invocations`) hang off it.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The bound address.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The URL the container's card advertises (ends in `/`).
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The invocation URL AWS gives a runtime ARN: `{url}/runtimes/{encoded ARN}/invocations`.
    pub fn invocation_url(&self, runtime_arn: &str) -> String {
        format!(
            "{}/runtimes/{}/invocations",
            self.url,
            crate::front::percent_encode(runtime_arn)
        )
    }

    /// Stops accepting, lets in-flight requests finish (within the shutdown grace), then
    /// stops the agent command's processes and waits until they are gone.
    ///
    /// # Errors
    /// [`EmulatorError::Serve`] when the server had failed.
    pub async fn shutdown(mut self) -> Result<(), EmulatorError> {
        let _ = self.stop.send(true);
        let served = match self.task.take() {
            Some(task) => match task.await {
                Ok(result) => result.map_err(EmulatorError::Serve),
                Err(join) => Err(EmulatorError::Serve(std::io::Error::other(join))),
            },
            None => Ok(()),
        };
        if let Some(processes) = self.processes.take() {
            // Past SIGKILL's grace only a process that cannot be reaped is left.
            processes
                .stop_all_and_wait(AGENT_STOP_GRACE + Duration::from_secs(5))
                .await;
        }
        served
    }
}

impl Drop for Running {
    /// Stops the server and the agent processes without waiting: each process group gets
    /// SIGTERM at once (even when the runtime is going away with the emulator, as at the
    /// end of a test), and SIGKILL after the grace while the runtime lives.
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(processes) = &self.processes {
            processes.terminate_now();
        }
    }
}
