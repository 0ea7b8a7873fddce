//! [`Journal`]: the bounded memory of what passed the front — the newest invocations in a
//! ring, the newest sessions and tasks — and the live feed of every change.
//!
//! One mutex guards it, held only to push or copy records (never across an await); the
//! feed is a broadcast channel whose events are built only while someone listens.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::sync::broadcast;

use super::records::{
    InvocationRecord, SessionEvent, SessionRecord, SessionState, TaskEvent, TaskRecord, TaskStep,
};

/// Session events kept per session (the oldest dropped first).
pub const SESSION_EVENTS: usize = 32;
/// Timeline entries kept per task (the oldest dropped first).
pub const TASK_EVENTS: usize = 64;
/// Feed events a slow listener may fall behind by before it misses some.
const FEED_CAPACITY: usize = 1024;

/// One change, as the live feed (`/_emulator/api/events`) sends it.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    /// An invocation arrived or ended.
    Invocation(Arc<InvocationRecord>),
    /// A session changed state.
    Session(Arc<SessionRecord>),
    /// A task moved.
    Task(Arc<TaskRecord>),
}

/// Which invocations [`Journal::invocations`] returns; every set field must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InvocationFilter {
    /// Only this session's.
    pub session: Option<String>,
    /// Only this JSON-RPC method's.
    pub method: Option<String>,
    /// Only those answered with this HTTP status.
    pub status: Option<u16>,
    /// Only those answered with this JSON-RPC error code.
    pub code: Option<i64>,
    /// Only those after this sequence number.
    pub since: Option<u64>,
}

impl InvocationFilter {
    /// Every invocation.
    pub fn all() -> Self {
        Self::default()
    }

    /// Only session `id`'s.
    #[must_use]
    pub fn session(mut self, id: impl Into<String>) -> Self {
        self.session = Some(id.into());
        self
    }

    /// Only JSON-RPC method `method`'s.
    #[must_use]
    pub fn method(mut self, method: impl Into<String>) -> Self {
        self.method = Some(method.into());
        self
    }

    /// Only those answered with HTTP `status`.
    #[must_use]
    pub fn status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Only those answered with JSON-RPC error `code`.
    #[must_use]
    pub fn code(mut self, code: i64) -> Self {
        self.code = Some(code);
        self
    }

    /// Only those after sequence number `seq`.
    #[must_use]
    pub fn since(mut self, seq: u64) -> Self {
        self.since = Some(seq);
        self
    }

    fn matches(&self, record: &InvocationRecord) -> bool {
        self.session
            .as_ref()
            .is_none_or(|id| record.session.as_ref() == Some(id))
            && self
                .method
                .as_ref()
                .is_none_or(|method| record.method.as_ref() == Some(method))
            && self.status.is_none_or(|status| record.status == status)
            && self.code.is_none_or(|code| record.code == Some(code))
            && self.since.is_none_or(|since| record.seq > since)
    }
}

/// The emulator's journal of invocations, sessions and tasks (the inspector's memory),
/// secrets masked. A cheap handle: clones share it. From a test, read it through
/// [`Running::journal`](crate::Running::journal).
#[derive(Debug, Clone)]
pub struct Journal {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    feed: broadcast::Sender<Change>,
    /// Invocations, sessions and tasks kept, each.
    capacity: usize,
    /// Bytes of each body kept.
    body_bytes: usize,
}

#[derive(Debug, Default)]
struct State {
    /// The newest invocations, by sequence number: `invocations[i].seq == first + i`.
    invocations: VecDeque<InvocationRecord>,
    /// The sequence number of `invocations[0]`.
    first: u64,
    /// The next sequence number.
    next: u64,
    sessions: HashMap<String, SessionRecord>,
    session_order: VecDeque<String>,
    tasks: HashMap<String, TaskRecord>,
    task_order: VecDeque<String>,
}

impl Journal {
    /// A journal keeping `capacity` invocations (and as many sessions and tasks), and the
    /// first `body_bytes` of each body.
    pub(crate) fn new(capacity: usize, body_bytes: usize) -> Self {
        let (feed, _) = broadcast::channel(FEED_CAPACITY);
        Self {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    first: 1,
                    next: 1,
                    ..State::default()
                }),
                feed,
                capacity: capacity.max(1),
                body_bytes,
            }),
        }
    }

    /// How many invocations (and sessions, and tasks) it keeps.
    pub fn capacity(&self) -> usize {
        self.shared.capacity
    }

    /// How many bytes of each body it keeps.
    pub fn body_bytes(&self) -> usize {
        self.shared.body_bytes
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends `change` to the feed's listeners, made only when there are some.
    fn publish(&self, change: impl FnOnce() -> Change) {
        if self.shared.feed.receiver_count() > 0 {
            let _ = self.shared.feed.send(change());
        }
    }

    /// Listens to the feed.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.shared.feed.subscribe()
    }

    /// The invocations kept that match `filter`, oldest first.
    pub fn invocations(&self, filter: &InvocationFilter) -> Vec<InvocationRecord> {
        let state = self.lock();
        state
            .invocations
            .iter()
            .filter(|record| filter.matches(record))
            .cloned()
            .collect()
    }

    /// Invocation `seq`, while it is kept.
    pub fn invocation(&self, seq: u64) -> Option<InvocationRecord> {
        let state = self.lock();
        let index = usize::try_from(seq.checked_sub(state.first)?).ok()?;
        state.invocations.get(index).cloned()
    }

    /// How many invocations have been dropped to keep the bound.
    pub fn dropped(&self) -> u64 {
        self.lock().first - 1
    }

    /// The sessions kept, oldest first.
    pub fn sessions(&self) -> Vec<SessionRecord> {
        let state = self.lock();
        state
            .session_order
            .iter()
            .filter_map(|id| state.sessions.get(id).cloned())
            .collect()
    }

    /// Session `id`, while it is kept.
    pub fn session(&self, id: &str) -> Option<SessionRecord> {
        self.lock().sessions.get(id).cloned()
    }

    /// The tasks kept, oldest first.
    pub fn tasks(&self) -> Vec<TaskRecord> {
        let state = self.lock();
        state
            .task_order
            .iter()
            .filter_map(|id| state.tasks.get(id).cloned())
            .collect()
    }

    /// Task `id`, while it is kept.
    pub fn task(&self, id: &str) -> Option<TaskRecord> {
        self.lock().tasks.get(id).cloned()
    }

    /// Forgets everything kept (sequence numbers go on).
    pub fn clear(&self) {
        let mut state = self.lock();
        state.invocations.clear();
        state.first = state.next;
        state.sessions.clear();
        state.session_order.clear();
        state.tasks.clear();
        state.task_order.clear();
    }

    /// Waits up to `timeout` until at least `count` kept invocations match `filter` and
    /// have ended, and returns those that match then — fewer when the time ran out.
    ///
    /// ```
    /// # use a2a_lambda_emulator::{Emulator, InvocationFilter};
    /// # use a2a_lambda_server::agents::EchoAgent;
    /// # use std::time::Duration;
    /// # async fn example() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = Emulator::new(EchoAgent).start().await?;
    /// reqwest::Client::new()
    ///     .post(emulator.url())
    ///     .body(r#"{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t"}}"#)
    ///     .send()
    ///     .await?;
    /// let journal = emulator.journal().expect("the inspector is on by default");
    /// let seen = journal
    ///     .wait_for(&InvocationFilter::all().method("tasks/get"), 1, Duration::from_secs(5))
    ///     .await;
    /// assert_eq!(seen[0].code, Some(-32001));
    /// # Ok(())
    /// # }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
    /// ```
    pub async fn wait_for(
        &self,
        filter: &InvocationFilter,
        count: usize,
        timeout: Duration,
    ) -> Vec<InvocationRecord> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut feed = self.subscribe();
        loop {
            let found = self.invocations(filter);
            if found.iter().filter(|record| record.done).count() >= count {
                return found;
            }
            let wait = tokio::time::timeout_at(deadline, feed.recv()).await;
            if wait.is_err() {
                return self.invocations(filter);
            }
        }
    }

    /// Keeps a new invocation; returns its sequence number.
    pub(crate) fn open(&self, mut record: InvocationRecord) -> u64 {
        let (seq, published) = {
            let mut state = self.lock();
            let seq = state.next;
            state.next += 1;
            record.seq = seq;
            if let Some(session) = record
                .session
                .as_ref()
                .and_then(|id| state.sessions.get_mut(id))
            {
                session.invocations += 1;
            }
            // Copied for the feed only while someone listens.
            let published = (self.shared.feed.receiver_count() > 0).then(|| record.clone());
            state.invocations.push_back(record);
            let forgotten = if state.invocations.len() > self.shared.capacity {
                state.first += 1;
                state.invocations.pop_front()
            } else {
                None
            };
            // The oldest record is freed after the lock is let go.
            drop(state);
            drop(forgotten);
            (seq, published)
        };
        if let Some(record) = published {
            self.publish(|| Change::Invocation(Arc::new(record)));
        }
        seq
    }

    /// Updates invocation `seq`, while it is kept.
    pub(crate) fn update(&self, seq: u64, change: impl FnOnce(&mut InvocationRecord)) {
        let updated = {
            let mut state = self.lock();
            let Some(index) = seq
                .checked_sub(state.first)
                .and_then(|index| usize::try_from(index).ok())
            else {
                return;
            };
            let Some(record) = state.invocations.get_mut(index) else {
                return;
            };
            change(record);
            (self.shared.feed.receiver_count() > 0).then(|| record.clone())
        };
        if let Some(record) = updated {
            self.publish(|| Change::Invocation(Arc::new(record)));
        }
    }

    /// Invocation `seq` belongs to session `id` (known only once it was handed out: a
    /// local Lambda's environment), counted among its invocations.
    pub(crate) fn assign_session(&self, seq: u64, id: &str) {
        {
            let mut state = self.lock();
            if let Some(session) = state.sessions.get_mut(id) {
                session.invocations += 1;
            }
        }
        self.update(seq, |record| record.session = Some(id.to_owned()));
    }

    /// Notes that session `id` entered `state` (`why` it stopped).
    pub(crate) fn session_event(&self, id: &str, state: SessionState, why: Option<&str>) {
        let now = SystemTime::now();
        let event = SessionEvent {
            at: now,
            state,
            why: why.map(str::to_owned),
        };
        let record = {
            let mut journal = self.lock();
            let journal = &mut *journal;
            let record = match journal.sessions.get_mut(id) {
                // A session id used again after its session stopped is a new session.
                Some(record)
                    if !(state == SessionState::Starting
                        && record.state == SessionState::Stopped) =>
                {
                    record
                }
                _ => {
                    if journal.sessions.remove(id).is_some() {
                        journal.session_order.retain(|kept| kept != id);
                    }
                    bound(
                        &mut journal.sessions,
                        &mut journal.session_order,
                        self.shared.capacity,
                    );
                    journal.session_order.push_back(id.to_owned());
                    journal
                        .sessions
                        .entry(id.to_owned())
                        .or_insert(SessionRecord {
                            id: id.to_owned(),
                            state,
                            started_at: now,
                            why: None,
                            invocations: 0,
                            events: Vec::new(),
                        })
                }
            };
            record.state = state;
            if state == SessionState::Stopped {
                record.why = event.why.clone();
            }
            if record.events.len() >= SESSION_EVENTS {
                record.events.remove(0);
            }
            record.events.push(event);
            (self.shared.feed.receiver_count() > 0).then(|| record.clone())
        };
        if let Some(record) = record {
            self.publish(|| Change::Session(Arc::new(record)));
        }
    }

    /// Notes what an answer in `session` (of invocation `seq`) showed of task `id`.
    pub(crate) fn task_seen(&self, seen: TaskSeen, session: Option<&str>, invocation: u64) {
        let now = SystemTime::now();
        let record = {
            let mut journal = self.lock();
            let journal = &mut *journal;
            if !journal.tasks.contains_key(&seen.id) {
                bound(
                    &mut journal.tasks,
                    &mut journal.task_order,
                    self.shared.capacity,
                );
                journal.task_order.push_back(seen.id.clone());
            }
            let record = journal
                .tasks
                .entry(seen.id.clone())
                .or_insert_with(|| TaskRecord {
                    id: seen.id.clone(),
                    session: session.map(str::to_owned),
                    context_id: None,
                    state: None,
                    timeline: Vec::new(),
                });
            if record.context_id.is_none() {
                record.context_id = seen.context_id;
            }
            let mut steps = Vec::new();
            if let Some(state) = seen.state
                && record.state.as_ref() != Some(&state)
            {
                record.state = Some(state.clone());
                steps.push(TaskStep::State(state));
            }
            steps.extend(seen.artifacts.into_iter().map(TaskStep::Artifact));
            if steps.is_empty() {
                return;
            }
            for step in steps {
                if record.timeline.len() >= TASK_EVENTS {
                    record.timeline.remove(0);
                }
                record.timeline.push(TaskEvent {
                    at: now,
                    step,
                    invocation,
                });
            }
            (self.shared.feed.receiver_count() > 0).then(|| record.clone())
        };
        if let Some(record) = record {
            self.publish(|| Change::Task(Arc::new(record)));
        }
    }
}

/// What one answer showed of a task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TaskSeen {
    pub(crate) id: String,
    pub(crate) context_id: Option<String>,
    pub(crate) state: Option<String>,
    pub(crate) artifacts: Vec<String>,
}

/// Makes room for one more entry: forgets the oldest past `capacity - 1`.
fn bound<T>(map: &mut HashMap<String, T>, order: &mut VecDeque<String>, capacity: usize) {
    while order.len() >= capacity {
        match order.pop_front() {
            Some(oldest) => {
                map.remove(&oldest);
            }
            None => break,
        }
    }
}
