//! `tasks/resubscribe` / `SubscribeToTask`: a subscription to a task, as an SSE stream of
//! the task as it stands, then its updates until it ends. With a `Last-Event-ID` of this
//! task, the events after that one instead (the task as it stands when the log does not
//! reach back that far), so a cut stream resumes without a gap or a repeat — also once
//! the task has ended.
//!
//! The updates come from this engine's runner when the task runs here, or when no other
//! process writes the store; otherwise from the task's log in the store
//! ([`LogFollower`]), wherever the task runs.

use std::sync::Arc;

use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{StreamEvent, StreamKind, Task, TaskState};

use crate::engine::follow::cursor::{Cursor, Sequenced};
use crate::engine::follow::{self, LogFollower, Source, event_stream};
use crate::engine::request::Request;
use crate::engine::{Engine, Reply};

pub(in crate::engine) async fn run(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    super::require_streaming(engine, req.method)?;
    let params = super::parse_task_id(&req)?;
    let task_id = params.id.as_str();
    let owner = &req.call.owner;
    // Unknown tasks (another owner's among them) are refused before anything follows
    // them.
    let stored = super::load_stored(engine, task_id, owner).await?;
    let resume = req
        .call
        .last_event_id
        .as_deref()
        .and_then(|text| Cursor::parse(text, task_id));
    let local = !engine.deps.store.is_shared() || engine.deps.registry.get(task_id).is_some();
    // Follow the task's channel first, then read where it stands: an update in between
    // is told once (its place is after the snapshot's), never not at all.
    let updates = local.then(|| engine.deps.registry.follow(task_id));
    let (task, now) = match engine.deps.registry.get(task_id) {
        Some(live) => {
            let state = live.state.lock().await;
            (Arc::clone(&state.task), Cursor::after(state.version))
        }
        // A task at rest (waiting for input, say) is read again now that it is
        // followed: one that ended since the first read would leave the stream waiting.
        None if !stored.task.status.state.is_terminal() => {
            let fresh = super::load_stored(engine, task_id, owner).await?;
            (fresh.task, Cursor::after(fresh.version))
        }
        None => (stored.task, Cursor::after(stored.version)),
    };
    let terminal = task.status.state.is_terminal();
    let mut first = Vec::new();
    let mut from = now;
    match resume {
        Some(resume) => {
            let replay = engine
                .deps
                .store
                .since(task_id, follow::read_after(resume))
                .await
                .map_err(|error| super::internal(&error))?
                .filter(|since| since.stored.owner == *owner)
                .and_then(|since| since.logged);
            match replay {
                Some(writes) => {
                    // Whether the log has the task's end (a writer that keeps none, an
                    // older one, may have ended it).
                    let logged_end = writes
                        .iter()
                        .flat_map(|write| &write.events)
                        .any(|event| event.state().is_some_and(TaskState::is_terminal));
                    first = follow::past(writes, resume);
                    from = first
                        .iter()
                        .filter_map(|event| event.at)
                        .max()
                        .unwrap_or(resume);
                    if terminal && !logged_end && resume < now {
                        first.push(follow::final_status(&task, now.version));
                    }
                }
                None => first.push(snapshot(&task, now)),
            }
        }
        None if terminal => {
            return Err(Error::new(
                Refusal::UnsupportedOperation,
                format!(
                    "task {task_id} is {}; there is nothing left to subscribe to",
                    task.status.state.v0_3_name()
                ),
            )
            .with_metadata("taskId", task_id));
        }
        None => first.push(snapshot(&task, now)),
    }
    let source = match updates {
        _ if terminal => Source::Done,
        Some(updates) => Source::Local(updates),
        None => Source::Log(LogFollower::new(
            engine.deps.clone(),
            task_id,
            owner.clone(),
            from.max(now),
        )),
    };
    Ok(event_stream(
        engine.profile,
        req.version,
        req.frame.clone(),
        first,
        source,
        StreamKind::Subscription,
    ))
}

/// The task as its snapshot event at `at`.
fn snapshot(task: &Task, at: Cursor) -> Sequenced {
    Sequenced {
        event: StreamEvent::Task(task.clone()),
        at: Some(at),
    }
}
