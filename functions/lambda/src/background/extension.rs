//! The internal extension: registered with the Extensions API at init, it is told of
//! every invocation (`INVOKE`) and asks for its next event only once the invocation's
//! background work is done (agents, and push notifications on their way), or its time is
//! nearly up.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_lambda_server::host::engine::Engine;
use lambda_extension::{LambdaEvent, NextEvent, RegisteredExtension};
use tokio::time::{Instant, timeout_at};
use tower::Service;

use super::invocations::Invocations;

/// The name the extension registers under (`Lambda-Extension-Name`).
pub const EXTENSION_NAME: &str = "a2a-background";

/// The status message of a task failed because its invocation's time ran out.
pub const OUT_OF_TIME: &str =
    "The agent's Lambda invocation ran out of time before the task finished.";

/// How long before the invocation's deadline the extension stops waiting for the agents
/// and fails their tasks. Failing a task is one store write (a DynamoDB `PutItem` takes
/// some milliseconds in its region, a throttled one retried after 50–100 ms), and the
/// extension's call for its next event must reach the Runtime API before the deadline:
/// an invocation past its deadline is timed out by Lambda, which resets the environment
/// (the next invocation is a cold start, and whatever was not written is lost). One
/// second covers the write with retries; a store slower than that is cut off at
/// [`NEXT_EVENT_SLACK`] before the deadline, and the task keeps the state it last saved.
pub const DEADLINE_MARGIN: Duration = Duration::from_secs(1);

/// What is left of the time for the extension's call for its next event.
pub const NEXT_EVENT_SLACK: Duration = Duration::from_millis(100);

/// How long the registration may take before the function goes on without the
/// extension (the Extensions API answers at once where it exists).
pub const REGISTER_TIMEOUT: Duration = Duration::from_secs(2);

/// Why the extension is not there, or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtensionError {
    /// The Extensions API refused the registration, or is not there.
    #[error("the Lambda Extensions API did not register the extension: {0}")]
    Register(String),
    /// The Extensions API did not answer the registration in time.
    #[error("the Lambda Extensions API did not answer the registration within {0:?}")]
    RegisterTimeout(Duration),
    /// The extension's event loop ended.
    #[error("the extension stopped asking for events: {0}")]
    Stopped(String),
}

/// How the extension's wait for one invocation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// The runtime finished the invocation and no task runs.
    Settled,
    /// The deadline came first: this many tasks were failed.
    OutOfTime {
        /// The tasks failed (those still submitted or working).
        failed: usize,
    },
}

/// What the extension waits on: the invocations the runtime finished, and the engine
/// (set once built, after the registration decided how it serves non-blocking sends).
#[derive(Default)]
pub struct Background {
    invocations: Arc<Invocations>,
    engine: OnceLock<Arc<Engine>>,
}

impl std::fmt::Debug for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Background")
            .field("invocations", &self.invocations)
            .field("engine_set", &self.engine.get().is_some())
            .finish()
    }
}

impl Background {
    /// The invocations the runtime finished (for its [`TrackLayer`](super::TrackLayer)).
    pub fn invocations(&self) -> Arc<Invocations> {
        Arc::clone(&self.invocations)
    }

    /// The engine whose tasks the extension waits for; the first one set stays.
    pub fn set_engine(&self, engine: Arc<Engine>) {
        let _ = self.engine.set(engine);
    }

    /// The engine, once set.
    pub(super) fn engine(&self) -> Option<&Arc<Engine>> {
        self.engine.get()
    }

    /// Holds the invocation `request_id` until the runtime has finished it and no task
    /// runs, or until [`DEADLINE_MARGIN`] before `deadline`: then the tasks still at work
    /// are failed with [`OUT_OF_TIME`], written to the store, and their agents told to
    /// stop (given until [`NEXT_EVENT_SLACK`] before the deadline to return).
    ///
    /// A blocking send whose agent outlives the invocation's time is failed the same way,
    /// a second before Lambda would stop it, and its answer shows the failed task.
    pub async fn hold(&self, request_id: &str, deadline: Instant) -> Held {
        let started = Instant::now();
        let engine = self.engine.get();
        let settled = async {
            self.invocations.finished(request_id).await;
            if let Some(engine) = engine {
                engine.idle().await;
            }
        };
        let give_up = deadline.checked_sub(DEADLINE_MARGIN).unwrap_or(started);
        // The invocation's spans (its background work's among them) are exported before
        // the environment can be frozen, within the invocation's time.
        #[cfg(feature = "otel")]
        let settled = async {
            settled.await;
            a2a_lambda_server::host::telemetry::flush().await;
        };
        if timeout_at(give_up, settled).await.is_ok() {
            tracing::debug!(
                request_id,
                held_ms = started.elapsed().as_secs_f64() * 1000.0,
                "invocation settled"
            );
            return Held::Settled;
        }
        let Some(engine) = engine else {
            return Held::OutOfTime { failed: 0 };
        };
        let last = deadline.checked_sub(NEXT_EVENT_SLACK).unwrap_or(give_up);
        let failed = match timeout_at(last, engine.fail_running(request_id, OUT_OF_TIME)).await {
            Ok(failed) => failed,
            Err(_) => {
                tracing::error!(
                    request_id,
                    "the invocation's time ran out while its tasks were being failed: \
                     the store did not answer in time, and they keep their last saved state"
                );
                0
            }
        };
        // Told to stop, the agents return at once: let their runners end before the
        // environment is frozen, within what is left.
        let stopped = timeout_at(last, engine.idle()).await.is_ok();
        // Notifications still on their way are frozen with the environment: they go on if
        // it is thawed, else the next request touching the task delivers it (see
        // a2a_lambda_server::push).
        let undelivered = engine
            .push()
            .map_or(0, a2a_lambda_server::push::Push::pending);
        #[cfg(feature = "otel")]
        let _ = timeout_at(last, a2a_lambda_server::host::telemetry::flush()).await;
        tracing::warn!(
            request_id,
            failed,
            stopped,
            undelivered,
            held_ms = started.elapsed().as_secs_f64() * 1000.0,
            "the invocation's time ran out before its tasks finished or their push \
             notifications were delivered"
        );
        Held::OutOfTime { failed }
    }
}

/// The instant of an invocation's deadline, given in Unix milliseconds.
pub fn deadline_instant(deadline_ms: u64) -> Instant {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        });
    Instant::now() + Duration::from_millis(deadline_ms.saturating_sub(now_ms))
}

/// The extension's handling of its events: each `INVOKE` is held (see
/// [`Background::hold`]) before the extension asks for the next one. It never fails:
/// an error here would make the extension report itself failed to Lambda, which resets
/// the environment.
///
/// On Managed Instances (`managed`) no event is held: the extension registered for none,
/// and holding an invocation there would wait for a record the runtime never makes.
#[derive(Debug, Clone)]
pub struct Processor {
    background: Arc<Background>,
    managed: bool,
}

impl Service<LambdaEvent> for Processor {
    type Response = ();
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<(), Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, event: LambdaEvent) -> Self::Future {
        let background = Arc::clone(&self.background);
        let managed = self.managed;
        Box::pin(async move {
            if let (NextEvent::Invoke(invoke), false) = (event.next, managed) {
                let deadline = deadline_instant(invoke.deadline_ms);
                background.hold(&invoke.request_id, deadline).await;
            }
            Ok(())
        })
    }
}

/// The extension, registered.
pub struct Extension(RegisteredExtension<Processor>);

impl std::fmt::Debug for Extension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extension")
            .field("extension_id", &self.0.extension_id)
            .finish_non_exhaustive()
    }
}

impl Extension {
    /// Registers the extension for `INVOKE` events (internal extensions get no
    /// `SHUTDOWN`: the runtime's `SIGTERM` stands for it, see [`super::shutdown`]), within
    /// [`REGISTER_TIMEOUT`]. Call it during init, before the runtime asks for its first
    /// invocation: Lambda takes registrations only then.
    ///
    /// On Lambda Managed Instances (`managed`), for no event at all: an internal extension
    /// may subscribe to none there, and it registers only so that `SIGTERM` comes at
    /// shutdown (see [`super::managed`]).
    ///
    /// # Errors
    /// No Extensions API (not on Lambda, or an emulator without it), or it refused.
    pub async fn register(
        background: &Arc<Background>,
        managed: bool,
    ) -> Result<Self, ExtensionError> {
        let events: &'static [&'static str] = if managed { &[] } else { &["INVOKE"] };
        let registering = lambda_extension::Extension::new()
            .with_extension_name(EXTENSION_NAME)
            .with_events(events)
            .with_events_processor(Processor {
                background: Arc::clone(background),
                managed,
            })
            .register();
        match tokio::time::timeout(REGISTER_TIMEOUT, registering).await {
            Ok(Ok(registered)) => Ok(Self(registered)),
            Ok(Err(error)) => Err(ExtensionError::Register(error.to_string())),
            Err(_) => Err(ExtensionError::RegisterTimeout(REGISTER_TIMEOUT)),
        }
    }

    /// Serves the extension's events until its loop ends; why it ended.
    pub async fn run(self) -> ExtensionError {
        match self.0.run().await {
            Ok(()) => ExtensionError::Stopped("its event stream ended".to_owned()),
            Err(error) => ExtensionError::Stopped(error.to_string()),
        }
    }
}
