//! Background work on Lambda: a non-blocking send's agent finishes its task.
//!
//! A non-blocking send (`returnImmediately: true` in v1.0, `blocking: false` in v0.3)
//! answers at once and leaves the agent running. Lambda freezes the execution environment
//! as soon as the runtime and every extension have asked for their next event, so that
//! work would stall until some later invocation thaws the instance, if one ever does (AWS
//! Lambda Developer Guide, "Lambda execution environment lifecycle" and "Lambda
//! Extensions API").
//!
//! The function therefore runs an internal extension next to the runtime, in the same
//! process ([`Extension`]): registered with the Extensions API at init (header
//! `Lambda-Extension-Name`; the answer's `Lambda-Extension-Identifier` goes with each
//! `/event/next`), it is told of each invocation and asks for its next event only when
//!
//! 1. the runtime has finished that invocation ([`TrackLayer`]: the response posted,
//!    all of it when streamed), and then
//! 2. no task runs and no push notification is on its way
//!    ([`Engine::idle`](a2a_lambda_server::host::engine::Engine::idle)),
//!
//! or, at the latest, [`DEADLINE_MARGIN`] before the invocation's deadline: the tasks
//! still at work are then failed with [`OUT_OF_TIME`] as their status message, written to
//! the store before the deadline, and their agents told to stop.
//!
//! **Shutdown.** When Lambda shuts the environment down, it sends the process `SIGTERM`
//! (the extension's registration is what makes it do so) and kills it 500 ms later: the
//! tasks still at work are failed in the store with [`SHUT_DOWN`] as their status
//! message, and their push notifications sent, within that time ([`shutdown`]).
//!
//! **Cost.** Lambda bills an invocation until the runtime and every extension have asked
//! for their next event, so the billed duration includes the background work, and the
//! instance takes no other invocation meanwhile (a concurrent request goes to another
//! instance, which may be a cold start). A non-blocking send is billed about as long as
//! a blocking one; its client just does not wait.
//!
//! **Fallback.** Where the extension cannot register (not on Lambda, an emulator without
//! the Extensions API), one warning is logged at init and non-blocking sends are served
//! as blocking ones ([`EngineConfig::background_work`] false): slower to answer, but no
//! work is silently lost.
//!
//! **Lambda Managed Instances.** Where one environment serves many invocations at once
//! and is never frozen, none of the above holds anything: see [`managed`].
//!
//! [`EngineConfig::background_work`]: a2a_lambda_server::host::engine::EngineConfig::background_work

mod extension;
mod invocations;
pub(crate) mod managed;
mod shareable;
pub(crate) mod shutdown;

pub use extension::OUT_OF_TIME;
pub(crate) use extension::{Background, Extension};
#[cfg(test)]
use extension::{DEADLINE_MARGIN, Held, NEXT_EVENT_SLACK};
#[cfg(test)]
use invocations::Invocations;
pub(crate) use invocations::TrackLayer;
pub(crate) use managed::{DeadlineLayer, Deadlined};
pub use shutdown::SHUT_DOWN;
#[cfg(test)]
use shutdown::Settled;
pub(crate) use shutdown::Signal;

use std::num::NonZeroU32;

use lambda_http::lambda_runtime::{Runtime, layers::TracingLayer};
use tower::util::MapResponse;

use shareable::{Answer, AnswerBody};

use crate::{App, Error};

/// Serves the runtime's invocations with `app` (streamed or buffered), each one recorded
/// in `background` when finished, alongside the extension when it registered, until the
/// runtime stops or `signal` comes.
///
/// With `concurrency` (Lambda Managed Instances, [`managed`]), that many invocations at
/// once, each served within its deadline's scope ([`DeadlineLayer`]) and none recorded:
/// the extension holds no invocation there.
///
/// The extension's end does not stop the runtime: it is logged as an error (non-blocking
/// sends may stall from then on) and the runtime goes on. On the shutdown signal, the
/// tasks still at work are settled ([`Background::shut_down`]) and this returns `Ok`,
/// within Lambda's [`shutdown::SHUTDOWN_BUDGET`].
///
/// # Errors
/// The runtime failed.
pub async fn serve(
    app: App,
    streaming: bool,
    concurrency: Option<NonZeroU32>,
    background: &Background,
    extension: Option<Extension>,
    signal: Option<Signal>,
) -> Result<(), Error> {
    let track = TrackLayer::new(background.invocations());
    let deadlines = DeadlineLayer::default();
    let served = deadlines.served();
    // What lambda_http::run and run_with_streaming_response do (their `_concurrent`
    // variants on Managed Instances), with the tracking or deadline layer inside the
    // runtime's tracing span. `run_concurrent` starts as many workers as
    // AWS_LAMBDA_MAX_CONCURRENCY says, each asking for its own next invocation.
    let runtime = async move {
        if concurrency.is_some() {
            if streaming {
                let app = MapResponse::new(app, AnswerBody::response as fn(_) -> _);
                Runtime::new(lambda_http::StreamAdapter::from(app))
                    .layer(deadlines)
                    .layer(TracingLayer::new())
                    .run_concurrent()
                    .await
            } else {
                let app = MapResponse::new(app, Answer::new as fn(_) -> _);
                Runtime::new(lambda_http::Adapter::from(app))
                    .layer(deadlines)
                    .layer(TracingLayer::new())
                    .run_concurrent()
                    .await
            }
        } else if streaming {
            Runtime::new(lambda_http::StreamAdapter::from(app))
                .layer(track)
                .layer(TracingLayer::new())
                .run()
                .await
        } else {
            Runtime::new(lambda_http::Adapter::from(app))
                .layer(track)
                .layer(TracingLayer::new())
                .run()
                .await
        }
    };
    let extension_runs = extension.is_some();
    let extension = async move {
        match extension {
            Some(extension) => extension.run().await,
            None => std::future::pending().await,
        }
    };
    let shutdown = async move {
        match signal {
            Some(mut signal) => signal.received().await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(runtime, extension, shutdown);
    let mut extension_runs = extension_runs;
    loop {
        tokio::select! {
            result = &mut runtime => return result,
            signaled = &mut shutdown => {
                background.shut_down(signaled).await;
                if concurrency.is_some() {
                    // Invocations still in flight (a blocking send whose task was just
                    // failed) post their answers, within the shutdown's time.
                    let _ = tokio::time::timeout_at(signaled + shutdown::DRAIN_WITHIN, served)
                        .await;
                }
                // What the shutdown's spans add, in what is left of Lambda's 500 ms.
                #[cfg(feature = "otel")]
                let _ = tokio::time::timeout_at(
                    signaled + shutdown::SHUTDOWN_BUDGET,
                    a2a_lambda_server::host::telemetry::flush(),
                )
                .await;
                return Ok(());
            }
            error = &mut extension, if extension_runs => {
                extension_runs = false;
                if concurrency.is_some() {
                    tracing::error!(
                        %error,
                        "the background-work extension stopped (background work goes on: \
                         Managed Instances never freeze the environment)"
                    );
                } else {
                    tracing::error!(
                        %error,
                        "the background-work extension stopped: the agents of non-blocking \
                         sends may be frozen with the environment from now on"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
