//! `message/send` / `SendMessage`: a message starts a task (or continues one, or gets a
//! direct reply), and the caller gets the task as it asked to see it: when it ends or is
//! interrupted, or at once (`returnImmediately`, v0.3 `blocking: false`).
//!
//! The send is the hot path: its future is built by hand, each step taking apart what it
//! needs before its future is made, so that every value is held once (the figures are in
//! `BENCHMARKS.md`).

use std::sync::Arc;

use futures_util::TryFutureExt as _;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{Message, Role, SendMessageParams, SendResult, Task};
use a2a_lambda_core::wire::{v0_3, v1_0};

use super::push_config::attach_push;
use crate::agent::RequestContext;
use crate::engine::request::{Request, ok};
use crate::engine::runner::{self, LiveTask, Settled, StartOutcome};
use crate::engine::{CallContext, Engine, Reply, media, respond};
use crate::owner::Owner;
use crate::tasks::SharedStored;

pub(in crate::engine) fn parse(req: &Request<'_>) -> Result<SendMessageParams, Error> {
    req.parse(v0_3::parse_send_params, v1_0::parse_send_params)
}

/// A blocking or non-blocking send: the task as the client asked to see it.
///
/// The params are read and taken apart before the future is made, so that it holds only
/// what it waits with (an `async fn` would hold the parameters twice over).
pub(in crate::engine) fn run<'a>(
    engine: &'a Engine,
    req: Request<'a>,
) -> Result<impl Future<Output = Result<Reply, Error>> + Send + 'a, Error> {
    let params = parse(&req)?;
    let Request {
        version,
        frame,
        call,
        ..
    } = req;
    let configuration = params.configuration.unwrap_or_default();
    let return_immediately = configuration.return_immediately && engine.background_work;
    let history_length = configuration.history_length;
    let push = configuration.push_notification_config;
    // Chained rather than awaited inside one block, which would keep the preparation's
    // future twice (captured, and moved to be awaited).
    Ok(prepare(engine, params.message, call)
        .and_then(move |prepared| attach_push(engine, version, push, prepared))
        .and_then(move |(context, previous)| {
            let started = runner::start(engine.deps.clone(), context, previous, return_immediately);
            async move {
                // Taken apart before waiting again, so the start's outcome is not kept.
                let (live, initial, settled) = match started.await {
                    StartOutcome::Failed(error) => return Err(error),
                    StartOutcome::Message(message) => {
                        let result = SendResult::Message(message);
                        return Ok(ok(respond::send_result(version, frame, &result)));
                    }
                    StartOutcome::Task {
                        live,
                        initial,
                        settled,
                        ..
                    } => (live, initial, settled),
                };
                let task = if return_immediately {
                    initial
                } else {
                    wait_for_rest(&live, settled).await?
                };
                let task = super::trimmed(&task, history_length);
                Ok(ok(respond::send_task(version, frame, &task)))
            }
        }))
}

/// Checks the message and prepares the start (or continuation) of its task: what the
/// agent will be told, and the stored task it continues.
///
/// The checks that need no waiting run before the future is made.
pub(super) fn prepare<'a>(
    engine: &'a Engine,
    message: Message,
    call: &'a CallContext,
) -> impl Future<Output = Result<(RequestContext, Option<SharedStored>), Error>> + Send + 'a {
    let checked = check_message(engine, &message);
    async move {
        checked?;
        let previous = match &message.task_id {
            None => None,
            // Boxed: only continuations wait here, and a new task's future stays small.
            Some(task_id) => {
                Some(Box::pin(continuable(engine, task_id, &message, &call.owner)).await?)
            }
        };
        let task_id = previous
            .as_ref()
            .map_or_else(a2a_lambda_core::model::new_id, |stored| {
                stored.task.id.clone()
            });
        let context_id = previous
            .as_ref()
            .map(|stored| stored.task.context_id.clone())
            .or_else(|| message.context_id.clone())
            .unwrap_or_else(a2a_lambda_core::model::new_id);
        let context = RequestContext {
            message,
            task_id,
            context_id,
            previous: previous.as_ref().map(|stored| Arc::clone(&stored.task)),
            session_id: call.session_id.clone(),
            request_id: call.request_id.clone(),
            owner: call.owner.clone(),
            cancellation: CancellationToken::new(),
            platform: call.platform.as_deref().cloned().unwrap_or_default(),
        };
        Ok((context, previous))
    }
}

/// A client's message must have the user role and parts the agent accepts.
fn check_message(engine: &Engine, message: &Message) -> Result<(), Error> {
    if message.role != Role::User {
        return Err(Error::invalid_params(
            "params.message.role: a client's message must have the user role",
        ));
    }
    media::check(&engine.card, message)
}

/// The task a follow-up message continues, if the rules allow it.
///
/// A task whose agent is still running but that already reached an interrupted state
/// (the agent asked for input and is returning) is continued from its live state.
async fn continuable(
    engine: &Engine,
    task_id: &str,
    message: &Message,
    owner: &Owner,
) -> Result<SharedStored, Error> {
    let stored = match engine.deps.registry.get(task_id) {
        Some(live) => {
            let stored = live.state.lock().await.clone();
            if stored.owner != *owner {
                return Err(super::task_not_found(task_id));
            }
            if !stored.task.status.state.ends_stream() {
                return Err(Error::new(
                    Refusal::UnsupportedOperation,
                    format!("task {task_id} is still working; wait for it to finish or cancel it"),
                )
                .with_metadata("taskId", task_id));
            }
            stored
        }
        None => super::load_stored(engine, task_id, owner).await?,
    };
    let task = &stored.task;
    if let Some(context_id) = &message.context_id
        && *context_id != task.context_id
    {
        return Err(Error::invalid_params(format!(
            "params.message.contextId: {context_id:?} does not match the context \
             {:?} of task {task_id}",
            task.context_id
        )));
    }
    if task.status.state.is_terminal() {
        return Err(Error::new(
            Refusal::UnsupportedOperation,
            format!(
                "task {task_id} is {} and takes no more messages; start a new task",
                task.status.state.v0_3_name()
            ),
        )
        .with_metadata("taskId", task_id));
    }
    Ok(stored)
}

/// Waits until the task ends or is interrupted; an agent failure is -32603.
async fn wait_for_rest(
    live: &LiveTask,
    mut settled: watch::Receiver<Settled>,
) -> Result<Arc<Task>, Error> {
    let outcome = settled
        .wait_for(|settled| *settled != Settled::Running)
        .await
        .map(|settled| settled.clone());
    match outcome {
        Ok(Settled::Failed(error)) => Err(error),
        // Ended, or the runner is gone (it settles before it goes): the task as it is.
        _ => Ok(Arc::clone(&live.state.lock().await.task)),
    }
}
