//! [`Running`]: a started emulator — its URLs, and how it stops.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::EmulatorError;
use crate::emulator::AGENT_STOP_GRACE;
use crate::front::process::Processes;
use crate::front::webhooks::{SINKS_PATH, Sinks, WebhookDelivery};

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
    /// The webhook sinks (`/_emulator/webhooks/`).
    pub(crate) webhooks: Arc<Sinks>,
    /// The inspector's journal, when it is on.
    pub(crate) journal: Option<crate::Journal>,
    /// What the OTLP receiver keeps, when the inspector is on.
    pub(crate) telemetry: Option<crate::telemetry::Telemetry>,
    /// Its connections' counts.
    pub(crate) gauges: Arc<a2a_lambda_server::host::listen::Gauges>,
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

    /// The URL of webhook sink `name`, `{url}/_emulator/webhooks/{name}`: a push
    /// notification config's `url` for a test that wants to see what the agent sends.
    /// A sink name is 1 to 64 of `A-Z a-z 0-9 . _ -`; the sink answers 400 to any other.
    pub fn webhook_url(&self, name: &str) -> String {
        format!("{}{SINKS_PATH}/{name}", self.url)
    }

    /// What webhook sink `name` holds, oldest first, headers unmasked (the test owns its
    /// secrets; `GET` on the sink masks them). Empty for a sink that received nothing.
    pub fn webhook(&self, name: &str) -> Vec<WebhookDelivery> {
        self.webhooks.read(name, 0).deliveries
    }

    /// Waits up to `timeout` until webhook sink `name` holds at least `count` deliveries
    /// (push notifications arrive after the call that caused them returns), and returns
    /// what it holds then — fewer than `count` when the time ran out.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// let url = emulator.webhook_url("pushes");
    /// reqwest::Client::new().post(&url).body("{\"ok\":true}").send().await?;
    /// let arrived = emulator.wait_for_webhook("pushes", 1, std::time::Duration::from_secs(5)).await;
    /// assert_eq!(arrived[0].body, b"{\"ok\":true}");
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub async fn wait_for_webhook(
        &self,
        name: &str,
        count: usize,
        timeout: Duration,
    ) -> Vec<WebhookDelivery> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let held = self.webhooks.read(name, 0);
            let since = held.dropped + held.deliveries.len() as u64;
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if held.deliveries.len() >= count || left.is_zero() {
                return held.deliveries;
            }
            self.webhooks.wait(name, since, left).await;
        }
    }

    /// The inspector's journal of invocations, sessions and tasks (secrets masked), unless
    /// the inspector is off ([`Emulator::inspector`](crate::Emulator::inspector)): what a
    /// test reads to assert what its client sent; see [`Journal::wait_for`](crate::Journal::wait_for).
    pub fn journal(&self) -> Option<&crate::Journal> {
        self.journal.as_ref()
    }

    /// What the agents exported to the emulator's OTLP receiver (traces, metrics), unless
    /// the inspector is off: what a test reads to assert the spans its agent made.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # use std::time::Duration;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// let telemetry = emulator.telemetry().expect("the inspector is on by default");
    /// let trace = telemetry
    ///     .wait_for_trace("4bf92f3577b34da6a3ce929d0e0e4736", 2, Duration::from_millis(10))
    ///     .await;
    /// assert!(trace.is_none(), "nothing was exported");
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn telemetry(&self) -> Option<&crate::telemetry::Telemetry> {
        self.telemetry.as_ref()
    }

    /// The base URL an OTLP/HTTP exporter sends to (its `OTEL_EXPORTER_OTLP_ENDPOINT`:
    /// it posts to `{endpoint}/v1/traces` and `{endpoint}/v1/metrics`), unless the
    /// inspector is off. An `--agent-cmd` process is given it; an in-process agent's
    /// exporter is pointed at it by whoever sets the exporter up.
    ///
    /// ```
    /// # use a2a_lambda_emulator::Emulator;
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// assert_eq!(emulator.otlp_endpoint().as_deref(), Some(emulator.url()));
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub fn otlp_endpoint(&self) -> Option<String> {
        self.telemetry.as_ref().map(|_| self.url.clone())
    }

    /// Its connections now: open, streaming, refused over the cap.
    pub fn connections(&self) -> &a2a_lambda_server::host::listen::Gauges {
        &self.gauges
    }

    /// The inspector's page, `{url}/_emulator/`, unless the inspector is off.
    pub fn inspector_url(&self) -> Option<String> {
        self.journal
            .as_ref()
            .map(|_| format!("{}{}", self.url, crate::inspector::PAGE_PATH))
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
