//! Following a task: the updates of a stream or a subscription, from this engine's own
//! runner ([`Follower`]) or, for a task that may run on another instance, from the store's
//! event log ([`LogFollower`]), each with its place in the task's history.
//!
//! - [`cursor`]: that place, and the SSE ids made of it;
//! - [`topic`]: each follower's queue of a task's updates;
//! - [`registry`]: the tasks running here, and the topic of every task someone follows;
//! - `stream`: the SSE reply of a stream, its first events then a source's updates.

pub(crate) mod cursor;
pub(crate) mod registry;
mod stream;
pub(crate) mod topic;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::error::{Error, Refusal};
use a2a_lambda_core::model::{StreamEvent, Task, TaskState, TaskStatusUpdateEvent};

use super::lease;
use super::runner::{RunnerDeps, Update};
use crate::owner::Owner;
use crate::tasks::{Logged, Since};
use cursor::{Cursor, Sequenced};
pub(crate) use stream::event_stream;
use topic::Follower;

/// How long a log follower waits before its first read.
pub(crate) const FIRST_READ: Duration = Duration::from_millis(100);
/// How long it waits after a read that found news: at most four reads a second while
/// events flow.
pub(crate) const ACTIVE_READ: Duration = Duration::from_millis(250);
/// The longest wait between reads, reached by doubling while nothing changes.
pub(crate) const QUIET_READ: Duration = Duration::from_secs(1);
/// Failed reads in a row after which the stream ends with an error.
const READ_FAILURES: u32 = 5;
/// Reads without news after which the follower checks the lease of the task's runner (one
/// more read): a task whose instance died is failed then, and the stream ends.
const LEASE_CHECK_AFTER: u32 = 5;

/// Where a stream's updates come from.
pub(crate) enum Source {
    /// This engine runs the task (or would, the store being its own): its runner's
    /// updates.
    Local(Follower),
    /// Another instance may run it: its log in the store.
    Log(LogFollower),
    /// Nothing more will come (the stream is a replay of a finished task).
    Done,
}

impl Source {
    pub(crate) async fn next(&mut self) -> Option<Arc<Update>> {
        match self {
            Self::Local(follower) => follower.next().await,
            Self::Log(follower) => follower.next().await.map(Arc::new),
            Self::Done => None,
        }
    }
}

/// Reads a task's event log until the task ends: the first read after [`FIRST_READ`], then
/// after [`ACTIVE_READ`] while events come, backing off to [`QUIET_READ`] while none do.
/// Each read is one [`TaskStore::since`](crate::tasks::TaskStore::since) call; after
/// [`LEASE_CHECK_AFTER`] reads without news, the lease of the task's runner is checked.
pub(crate) struct LogFollower {
    deps: RunnerDeps,
    task_id: String,
    owner: Owner,
    quiet: u32,
    /// What has been queued so far.
    cursor: Cursor,
    pending: VecDeque<Sequenced>,
    wait: Duration,
    failures: u32,
    over: bool,
}

impl LogFollower {
    /// Follows `task_id` from `cursor` on.
    pub(crate) fn new(deps: RunnerDeps, task_id: &str, owner: Owner, cursor: Cursor) -> Self {
        Self {
            deps,
            task_id: task_id.to_owned(),
            owner,
            quiet: 0,
            cursor,
            pending: VecDeque::new(),
            wait: FIRST_READ,
            failures: 0,
            over: false,
        }
    }

    async fn next(&mut self) -> Option<Update> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(Ok(event));
            }
            if self.over {
                return None;
            }
            tokio::time::sleep(self.wait).await;
            if self.quiet >= LEASE_CHECK_AFTER {
                self.quiet = 0;
                // Fails the task if its runner's lease expired; the next read tells it.
                if let Err(error) = lease::load(&self.deps, &self.task_id, &self.owner).await {
                    tracing::warn!(task_id = self.task_id, %error, "checking a followed task's lease failed");
                }
            }
            match self
                .deps
                .store
                .since(&self.task_id, read_after(self.cursor))
                .await
            {
                Ok(Some(since)) => {
                    self.failures = 0;
                    self.take(since);
                    if self.pending.is_empty() {
                        self.quiet += 1;
                        self.wait = (self.wait * 2).clamp(ACTIVE_READ, QUIET_READ);
                    } else {
                        self.quiet = 0;
                        self.wait = ACTIVE_READ;
                    }
                }
                // The task expired meanwhile: nothing more will come.
                Ok(None) => return None,
                Err(error) => {
                    self.failures += 1;
                    tracing::warn!(task_id = self.task_id, %error, failures = self.failures,
                        "reading a followed task's log failed");
                    if self.failures >= READ_FAILURES {
                        self.over = true;
                        return Some(Err(Error::new(
                            Refusal::Internal,
                            "the task store is unavailable; resubscribe later",
                        )));
                    }
                    self.wait = QUIET_READ;
                }
            }
        }
    }

    /// Queues what a read found past the cursor, and moves the cursor to the version
    /// read (the log holds every event of the writes it returned).
    fn take(&mut self, since: Since) {
        let Since { stored, logged } = since;
        match logged {
            Some(writes) => self.pending.extend(past(writes, self.cursor)),
            // The log cannot tell what happened since: the task as it stands says it all.
            None if stored.version > self.cursor.version => {
                self.pending.push_back(Sequenced {
                    event: StreamEvent::Task(Task::clone(&stored.task)),
                    at: Some(Cursor::after(stored.version)),
                });
            }
            None => {}
        }
        self.cursor = self.cursor.max(Cursor::after(stored.version));
        if stored.task.status.state.is_terminal() {
            self.over = true;
            let told = self
                .pending
                .back()
                .and_then(|last| last.event.state())
                .is_some_and(TaskState::is_terminal);
            if !told {
                // The log lacks the end (a writer that keeps none ended the task), or it
                // was told before the cursor: told again from the task itself, so that the
                // stream ends as a stream does.
                self.pending
                    .push_back(final_status(&stored.task, stored.version));
            }
        }
    }
}

/// The version to read a task's log after, for events past `cursor`: the one before when
/// the cursor stands inside a version's events.
pub(crate) fn read_after(cursor: Cursor) -> u64 {
    if cursor.seen == u32::MAX {
        cursor.version
    } else {
        cursor.version.saturating_sub(1)
    }
}

/// A task's status as the update that ends a stream, placed after `version`.
pub(crate) fn final_status(task: &Task, version: u64) -> Sequenced {
    Sequenced {
        event: final_update(task),
        at: Some(Cursor::after(version)),
    }
}

/// A task's status as the update that ends a stream.
pub(crate) fn final_update(task: &Task) -> StreamEvent {
    StreamEvent::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
        is_final: true,
        metadata: None,
    })
}

/// The events of `writes` past `cursor`, in order, each with its place.
pub(crate) fn past(writes: Vec<Logged>, cursor: Cursor) -> Vec<Sequenced> {
    let mut events = Vec::new();
    for write in writes {
        for (index, event) in write.events.into_iter().enumerate() {
            let at = Cursor::at(write.version, index + 1);
            if at > cursor {
                events.push(Sequenced {
                    event,
                    at: Some(at),
                });
            }
        }
    }
    events
}
