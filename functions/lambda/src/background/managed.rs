//! Background work on Lambda Managed Instances: many invocations at once in one
//! environment that is never frozen, each task bounded by its own invocation's deadline.
//!
//! **What Lambda does there.** With `AWS_LAMBDA_MAX_CONCURRENCY` set
//! ([`Config::max_concurrency`](crate::Config::max_concurrency)), Lambda sends one
//! execution environment up to that many invocations at once, one to each runtime worker
//! asking for its next one; the environment "remains continuously active, processing
//! invocations as they arrive without freezing between invocations"; each invocation has
//! its own timeout, and a timed-out one is reported failed while "your code continues
//! running" and the others go on. Sources: AWS Lambda Developer Guide, "Understanding the
//! Lambda Managed Instances execution environment"
//! (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html>:
//! continuous operation, parallel processing, independent timeouts) and "Rust support for
//! Lambda Managed Instances"
//! (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-rust.html>: one
//! Tokio worker per concurrent invocation, `lambda_runtime`'s `run_concurrent`).
//!
//! Extensions get no `INVOKE` event there: the environment has no per-invocation phase to
//! hold, and an internal extension may subscribe to no event at all (AWS's runtime
//! interface emulator for Managed Instances refuses it "No events allowed for internal
//! extensions": `internal/lambda-managed-instances/rapi/handler/agentregister.go` in
//! <https://github.com/aws/aws-lambda-runtime-interface-emulator>; observability
//! extensions register for `SHUTDOWN` only there, honeycomb-lambda-extension PR 170).
//!
//! **What the function does.** A non-blocking send's agent simply goes on after the
//! answer, and so do push deliveries: nothing holds the environment, so no invocation
//! waits for another's background work. The extension still registers (with no events)
//! because a registered extension is what makes Lambda send `SIGTERM`, rather than
//! `SIGKILL` alone, at shutdown (the emulator's `rapid/shutdown.go`: the runtime is
//! `SIGKILL`ed at once when no extension is registered); [`super::shutdown`] then settles
//! every task still at work, whichever invocation started it.
//!
//! Each agent run is bounded by the deadline of the invocation that started it, as on
//! Lambda's default model: [`DEADLINE_MARGIN`](super::extension::DEADLINE_MARGIN) before
//! it, the agent is stopped and its task failed with [`OUT_OF_TIME`] (a blocking send's
//! answer then shows the failed task before Lambda reports the invocation timed out).
//! [`DeadlineLayer`] makes the deadline known while the runtime serves the invocation,
//! [`Deadlined`] reads it when the engine starts the agent.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_lambda_server::agent::{
    Agent, AgentError, EventSink, IntoAgent, RequestContext, SharedAgent, StatusNote,
};
use a2a_lambda_server::card::AgentCard;
use lambda_http::lambda_runtime::{Error, LambdaInvocation};
use tokio::sync::watch;
use tokio::time::{Instant, timeout_at};
use tower::{Layer, Service};

use super::extension::{DEADLINE_MARGIN, OUT_OF_TIME, deadline_instant};

tokio::task_local! {
    /// The deadline of the invocation the runtime is serving in this task.
    static INVOCATION_DEADLINE: Instant;
}

/// The runtime layer that makes each invocation's deadline known to [`Deadlined`] while
/// the runtime serves it (its handler, the engine's start of an agent included), and
/// counts the invocations in flight.
#[derive(Debug, Clone, Default)]
pub struct DeadlineLayer {
    in_flight: Arc<watch::Sender<usize>>,
}

impl DeadlineLayer {
    /// Waits until no invocation is in flight (its response posted, or failed).
    pub fn served(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut in_flight = self.in_flight.subscribe();
        async move {
            // The sender lives in the layer, which the runtime keeps: the wait ends only
            // once none is in flight.
            let _ = in_flight.wait_for(|count| *count == 0).await;
        }
    }
}

impl<S> Layer<S> for DeadlineLayer {
    type Service = WithDeadline<S>;

    fn layer(&self, inner: S) -> Self::Service {
        WithDeadline {
            inner,
            in_flight: Arc::clone(&self.in_flight),
        }
    }
}

/// The runtime's service, serving each invocation within its deadline's scope.
#[derive(Debug, Clone)]
pub struct WithDeadline<S> {
    inner: S,
    in_flight: Arc<watch::Sender<usize>>,
}

/// One invocation in flight, until dropped.
struct InFlight(Arc<watch::Sender<usize>>);

impl InFlight {
    fn new(count: &Arc<watch::Sender<usize>>) -> Self {
        count.send_modify(|count| *count += 1);
        Self(Arc::clone(count))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.send_modify(|count| *count = count.saturating_sub(1));
    }
}

impl<S> Service<LambdaInvocation> for WithDeadline<S>
where
    S: Service<LambdaInvocation, Response = (), Error = Error>,
    S::Future: Send + 'static,
{
    type Response = ();
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, invocation: LambdaInvocation) -> Self::Future {
        let deadline = deadline_instant(invocation.context.deadline);
        let in_flight = InFlight::new(&self.in_flight);
        let served = INVOCATION_DEADLINE.scope(deadline, self.inner.call(invocation));
        Box::pin(async move {
            let outcome = served.await;
            drop(in_flight);
            outcome
        })
    }
}

/// The deadline of the invocation being served, when one is.
fn current_deadline() -> Option<Instant> {
    INVOCATION_DEADLINE.try_with(|deadline| *deadline).ok()
}

/// An agent whose every run ends [`DEADLINE_MARGIN`] before the deadline of the
/// invocation that started it: the agent is stopped there (its future dropped) and the
/// task failed with [`OUT_OF_TIME`]. A run started outside an invocation (a test calling
/// the engine) has no deadline.
pub struct Deadlined(SharedAgent);

impl Deadlined {
    /// Bounds `agent`'s runs.
    pub fn new(agent: impl IntoAgent) -> Self {
        Self(agent.into_agent())
    }
}

impl Agent for Deadlined {
    fn card(&self) -> AgentCard {
        self.0.card()
    }

    fn execute(
        &self,
        context: RequestContext,
        events: EventSink,
    ) -> impl Future<Output = Result<(), AgentError>> + Send {
        // Read now, while the engine starts the run within the invocation (its first step
        // runs in the invocation's task); the run may go on in a task of its own.
        let deadline = current_deadline();
        let agent = self.0.clone();
        async move {
            let Some(deadline) = deadline else {
                return agent.execute(context, events).await;
            };
            let give_up = deadline
                .checked_sub(DEADLINE_MARGIN)
                .unwrap_or_else(Instant::now);
            let request_id = context.request_id.clone();
            let task_id = context.task_id.clone();
            let run = agent.execute(context, events.clone());
            match timeout_at(give_up, run).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::warn!(
                        request_id,
                        task_id,
                        "the invocation's time ran out before its task finished: the agent \
                         was stopped and the task failed"
                    );
                    events.fail(StatusNote::text(OUT_OF_TIME)).await?;
                    Ok(())
                }
            }
        }
    }
}
