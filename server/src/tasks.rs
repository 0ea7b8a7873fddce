//! Task storage and the task lifecycle rules.
//!
//! [`TaskStore`] is where tasks live between requests (in memory here; other stores, such
//! as DynamoDB on Lambda, implement the same trait). [`apply`] is the one place that turns
//! an agent's event into a task change, so every host follows the same rules.

use std::sync::Arc;

use crate::agent::AgentEvent;
use crate::owner::Owner;
use a2a_lambda_core::model::{
    Artifact, ListTasksParams, ListTasksResult, StreamEvent, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};

/// Default and largest page of `ListTasks` (the v1.0 specification's numbers).
pub const DEFAULT_PAGE_SIZE: u32 = 50;
/// Largest page of `ListTasks`.
pub const MAX_PAGE_SIZE: u32 = 100;

/// A store failed. The detail is logged; the caller sees -32603.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The page token was not issued by this store.
    #[error("page token {0:?} is not valid")]
    BadPageToken(String),
    /// The task changed since it was read (another writer, perhaps another instance, got
    /// there first): read it again and retry.
    #[error("task {0} changed since it was read")]
    Conflict(String),
    /// The backing service failed.
    #[error("task store failed: {0}")]
    Backend(String),
}

/// A task as stored, with the version a conditional write must name and its owner.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    /// The task.
    pub task: Task,
    /// Its version: every write makes a new one.
    pub version: u64,
    /// Who the task belongs to.
    pub owner: Owner,
}

/// A task as stored, shared rather than copied: what [`TaskStore::get_shared`] answers.
#[derive(Debug, Clone, PartialEq)]
pub struct SharedStored {
    /// The task.
    pub task: Arc<Task>,
    /// Its version: every write makes a new one.
    pub version: u64,
    /// Who the task belongs to.
    pub owner: Owner,
}

impl From<Stored> for SharedStored {
    fn from(stored: Stored) -> Self {
        Self {
            task: Arc::new(stored.task),
            version: stored.version,
            owner: stored.owner,
        }
    }
}

/// The events one write applied to a task, as the task's event log keeps them: what a
/// follower on another instance, or a client resuming a cut stream, reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Logged {
    /// The task's version that write made.
    pub version: u64,
    /// The write's status and artifact updates, in order.
    pub events: Vec<StreamEvent>,
}

/// A task as stored, and what its event log holds after a given version.
#[derive(Debug, Clone, PartialEq)]
pub struct Since {
    /// The task now.
    pub stored: SharedStored,
    /// The logged writes after the version asked for, oldest first; `None` when the log
    /// cannot tell (it does not reach back that far, or the store keeps none).
    pub logged: Option<Vec<Logged>>,
}

/// Where tasks live between requests.
///
/// Writes are conditional, so two writers (two Lambda instances, a runner and a cancel)
/// never lose an update: [`TaskStore::put`] names the version it read, and a store that
/// holds another answers [`StoreError::Conflict`].
///
/// Every task is kept with its [`Owner`]. The store answers a get whatever the owner (the
/// engine checks it, and answers another owner's task as not found); a list holds only
/// the given owner's tasks.
///
/// A store shared by several processes gives the tasks at work a [`Lease`], so that the
/// task of a process that died is failed rather than left working forever: it answers
/// [`TaskStore::lease_terms`] and keeps the lease [`TaskStore::put_logged`] and
/// [`TaskStore::renew_lease`] write. The defaults are those of a store without leases.
#[async_trait::async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// The task with this id, its version and its owner, if any.
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError>;
    /// Writes `task`, owned by `owner`, if the stored version is `expected` (`None`: the
    /// task must not exist yet). Returns the new version.
    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError>;
    /// One page of `owner`'s tasks matching the filters, newest status first.
    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError>;

    /// [`TaskStore::get`], shared: a store that keeps tasks in memory answers without
    /// copying the task. The default copies what `get` answers.
    async fn get_shared(&self, id: &str) -> Result<Option<SharedStored>, StoreError> {
        Ok(self.get(id).await?.map(SharedStored::from))
    }

    /// [`TaskStore::put`], shared: a store that keeps tasks in memory keeps this one
    /// without copying it. The default writes with `put`.
    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.put(task, owner, expected).await
    }

    /// How long the lease of a running task lasts in this store ([`lease`]). `None`, the
    /// default: this store's tasks die with the process that runs them, and carry no lease.
    fn lease_terms(&self) -> Option<LeaseTerms> {
        None
    }

    /// A runner's write: [`TaskStore::put_shared`], keeping `events` (what this write
    /// applied, in order) in the task's event log in the same atomic write, and with the
    /// `lease` of a task at work (`None`: the task carries none from now on). The default
    /// keeps no log and no lease.
    async fn put_logged(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
        events: &[StreamEvent],
        lease: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        let _ = (events, lease);
        self.put_shared(task, owner, expected).await
    }

    /// Renews the lease of the task `id` if its stored version is `expected`, leaving the
    /// task as it is; returns the new version (a renewal is a write: a writer that read the
    /// task before it must read it again, and so never fails a task whose runner just
    /// renewed). The default, for a store without leases, changes nothing.
    async fn renew_lease(&self, id: &str, expected: u64, lease: &Lease) -> Result<u64, StoreError> {
        let _ = (id, lease);
        Ok(expected)
    }

    /// [`TaskStore::get_shared`] with the task's lease, if it carries one. The default
    /// answers no lease.
    async fn get_leased(&self, id: &str) -> Result<Option<Leased>, StoreError> {
        Ok(self.get_shared(id).await?.map(|stored| Leased {
            stored,
            lease: None,
        }))
    }

    /// The task with this id and the writes its log holds after `version`. The default
    /// reads the task and knows no log.
    async fn since(&self, id: &str, version: u64) -> Result<Option<Since>, StoreError> {
        let _ = version;
        Ok(self.get_shared(id).await?.map(|stored| Since {
            stored,
            logged: None,
        }))
    }

    /// Whether other processes write this store's tasks too (a table every instance of a
    /// function shares): a task may then run elsewhere, and following it means reading
    /// its log here. `false` unless a store says so.
    fn is_shared(&self) -> bool {
        false
    }
}

/// A stored task with its lease: what [`TaskStore::get_leased`] answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Leased {
    /// The task, its version and its owner.
    pub stored: SharedStored,
    /// The lease of its runner, when it carries one.
    pub lease: Option<Lease>,
}

mod budget;
pub mod lease;
mod memory;
pub mod page_token;
mod size;

pub use budget::TaskBudget;
pub use lease::{Lease, LeaseTerms};
pub use memory::{
    DEFAULT_IN_MEMORY_BYTES, DEFAULT_IN_MEMORY_CAPACITY, IN_MEMORY_LOG_WRITES, InMemoryTaskStore,
};
pub use size::estimated_bytes;

fn parse_time(value: &str) -> Option<time::OffsetDateTime> {
    time::OffsetDateTime::parse(value, &time::format_description::well_known::Rfc3339).ok()
}

/// The current time as an RFC 3339 timestamp with milliseconds (`2026-01-02T03:04:05.678Z`).
pub fn now_rfc3339() -> String {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339_millis(since_epoch.as_secs(), since_epoch.subsec_millis())
}

/// The UTC time `seconds` (plus `millis`) after the Unix epoch, as [`now_rfc3339`] writes
/// it; empty past the year 9999 (RFC 3339 has four-digit years only).
///
/// Written by hand: this runs for every status change, and the `time` crate's calendar
/// and formatter cost several times more.
pub fn rfc3339_millis(seconds: u64, millis: u32) -> String {
    let (year, month, day) = civil_date(seconds / 86_400);
    if year > 9999 {
        return String::new();
    }
    let of_day = seconds % 86_400;
    let mut text = *b"0000-00-00T00:00:00.000Z";
    write_digits(&mut text[0..4], year);
    write_digits(&mut text[5..7], month);
    write_digits(&mut text[8..10], day);
    write_digits(&mut text[11..13], of_day / 3600);
    write_digits(&mut text[14..16], of_day / 60 % 60);
    write_digits(&mut text[17..19], of_day % 60);
    write_digits(&mut text[20..23], u64::from(millis.min(999)));
    // Only ASCII digits and separators were written.
    std::str::from_utf8(&text).unwrap_or_default().to_owned()
}

/// Year, month (1-12) and day (1-31) of the proleptic Gregorian calendar, `days` after
/// 1970-01-01 (the days-from-civil inverse by eras of 400 years).
fn civil_date(days: u64) -> (u64, u64, u64) {
    // Days since 0000-03-01, so that a leap day ends its year.
    let days = days + 719_468;
    let era = days / 146_097;
    let day_of_era = days % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = era * 400 + year_of_era + u64::from(month <= 2);
    (year, month, day)
}

/// Writes the last `slot.len()` decimal digits of `value` into `slot`, zero-padded.
fn write_digits(slot: &mut [u8], mut value: u64) {
    for byte in slot.iter_mut().rev() {
        // `value % 10` is below 10, so the cast keeps it.
        *byte = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// A copy of a task as a client asked to see it: the last `history_length` messages
/// (`None`: all, `0`: none) and artifacts only when asked for.
pub fn view(task: &Task, history_length: Option<u32>, include_artifacts: bool) -> Task {
    let mut copy = task.clone();
    trim_history(&mut copy, history_length);
    if !include_artifacts {
        copy.artifacts.clear();
    }
    copy
}

/// Keeps the last `history_length` messages (`None`: all).
pub fn trim_history(task: &mut Task, history_length: Option<u32>) {
    if let Some(keep) = history_length {
        let keep = keep as usize;
        if task.history.len() > keep {
            task.history.drain(..task.history.len() - keep);
        }
    }
}

/// What applying an event to a task produced, to be broadcast to subscribers.
#[derive(Debug, Clone, PartialEq)]
pub enum Applied {
    /// A status change.
    Status(TaskStatusUpdateEvent),
    /// An artifact change.
    Artifact(TaskArtifactUpdateEvent),
}

/// Why an agent's event cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LifecycleError {
    /// A direct message after the task exists.
    #[error("the agent sent a direct message after the task started")]
    MessageAfterTask,
    /// Any event after a terminal state.
    #[error("the agent sent an event after the task reached the terminal state {0:?}")]
    AfterTerminal(TaskState),
    /// An append to an artifact that does not exist.
    #[error("the agent appended to unknown artifact {0:?}")]
    UnknownArtifact(String),
}

/// Applies an agent event to a task, following the lifecycle rules: nothing changes a
/// terminal task, appends extend an existing artifact, agent status messages join the
/// history.
///
/// # Errors
/// [`LifecycleError`] when the event breaks a rule; the task is unchanged.
pub fn apply(task: &mut Task, event: AgentEvent) -> Result<Applied, LifecycleError> {
    let (artifact, event_metadata) = match &event {
        AgentEvent::Artifact {
            artifact,
            append,
            last_chunk,
        } => (Some((artifact.clone(), *append, *last_chunk)), None),
        AgentEvent::Status { task_metadata, .. } => (None, task_metadata.clone()),
        AgentEvent::Message(_) => (None, None),
    };
    apply_quietly(task, event)?;
    Ok(match artifact {
        Some((artifact, append, last_chunk)) => Applied::Artifact(TaskArtifactUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            artifact,
            append,
            last_chunk,
            metadata: None,
        }),
        None => Applied::Status(TaskStatusUpdateEvent {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            is_final: task.status.state.ends_stream(),
            metadata: event_metadata,
        }),
    })
}

/// [`apply`] without making the update event: for a change nobody follows.
///
/// # Errors
/// [`LifecycleError`] when the event breaks a rule; the task is unchanged.
pub fn apply_quietly(task: &mut Task, event: AgentEvent) -> Result<(), LifecycleError> {
    if task.status.state.is_terminal() {
        return Err(LifecycleError::AfterTerminal(task.status.state));
    }
    match event {
        AgentEvent::Message(_) => Err(LifecycleError::MessageAfterTask),
        AgentEvent::Status {
            state,
            message,
            task_metadata,
        } => {
            if let Some(message) = &message {
                task.history.push(message.clone());
            }
            if let Some(added) = task_metadata {
                task.metadata.get_or_insert_default().extend(added);
            }
            task.status = TaskStatus {
                state,
                message,
                timestamp: Some(now_rfc3339()),
            };
            Ok(())
        }
        AgentEvent::Artifact {
            artifact, append, ..
        } => merge_artifact(&mut task.artifacts, artifact, append),
    }
}

fn merge_artifact(
    artifacts: &mut Vec<Artifact>,
    artifact: Artifact,
    append: bool,
) -> Result<(), LifecycleError> {
    let existing = artifacts
        .iter_mut()
        .find(|known| known.artifact_id == artifact.artifact_id);
    match (existing, append) {
        (Some(known), true) => known.parts.extend(artifact.parts),
        (None, true) => return Err(LifecycleError::UnknownArtifact(artifact.artifact_id)),
        (Some(known), false) => *known = artifact,
        (None, false) => artifacts.push(artifact),
    }
    Ok(())
}
