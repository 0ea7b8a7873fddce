//! `tasks/cancel` / `CancelTask`: through the task's runner when it runs here (its agent
//! is told to stop), else by a conditional write of the task at rest
//! ([`at_rest::end`], which its followers are told of).

use std::sync::Arc;

use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{Task, TaskState, TaskStatus};

use crate::agent::AgentEvent;
use crate::engine::request::Request;
use crate::engine::runner::{self, LiveTask, RunnerDeps};
use crate::engine::{Engine, Reply, at_rest, respond};
use crate::tasks::{self, SharedStored, StoreError};

/// How often a cancel is tried again when another writer changed the task meanwhile.
const RETRIES: usize = 3;

pub(in crate::engine) async fn run(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    let params = super::parse_task_id(&req)?;
    let task = cancel(engine, &params.id, &req).await?;
    Ok(req.json(respond::task(req.version, req.frame, &task)))
}

/// Cancels a task: through its runner when it runs here, else by a conditional write
/// (retried when another writer, perhaps another instance, changed it meanwhile).
async fn cancel(engine: &Engine, task_id: &str, req: &Request<'_>) -> Result<Arc<Task>, Error> {
    let call = req.call;
    for _ in 0..RETRIES {
        // Looked up on every try: the writer that won may be a runner started here.
        if let Some(live) = engine.deps.registry.get(task_id) {
            if live.state.lock().await.owner != call.owner {
                return Err(super::task_not_found(task_id));
            }
            return cancel_live(&engine.deps, &live, &call.request_id).await;
        }
        let SharedStored {
            task,
            version,
            owner,
        } = super::load_stored(engine, task_id, &call.owner).await?;
        if task.status.state.is_terminal() {
            return Err(not_cancelable(&task));
        }
        let mut task = Task::clone(&task);
        task.status = TaskStatus {
            state: TaskState::Canceled,
            message: None,
            timestamp: Some(tasks::now_rfc3339()),
        };
        let task = Arc::new(task);
        match at_rest::end(&engine.deps, &task, &owner, version).await {
            Ok(_) => return Ok(task),
            Err(StoreError::Conflict(_)) => {}
            Err(error) => return Err(super::internal(&error)),
        }
    }
    Err(Error::new(
        Refusal::Internal,
        format!("task {task_id} kept changing; cancel it again"),
    ))
}

/// Cancels a live task: fires its token and moves it to canceled.
///
/// # Errors
/// -32002 when it already reached a terminal state.
async fn cancel_live(
    deps: &RunnerDeps,
    live: &LiveTask,
    request_id: &str,
) -> Result<Arc<Task>, Error> {
    {
        let stored = live.state.lock().await;
        if stored.task.status.state.is_terminal() {
            return Err(not_cancelable(&stored.task));
        }
    }
    live.cancel.cancel();
    runner::deliver(
        deps,
        live,
        vec![AgentEvent::status(TaskState::Canceled, None)],
        request_id,
    )
    .await;
    let task = Arc::clone(&live.state.lock().await.task);
    if task.status.state == TaskState::Canceled {
        Ok(task)
    } else {
        Err(not_cancelable(&task))
    }
}

/// -32002 for a task in a terminal state.
fn not_cancelable(task: &Task) -> Error {
    Error::new(
        Refusal::TaskNotCancelable,
        format!(
            "task {} is already {}",
            task.id,
            task.status.state.v0_3_name()
        ),
    )
    .with_metadata("taskId", task.id.clone())
}
