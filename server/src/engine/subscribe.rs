//! Streams of a task's events: a subscription (from this engine's runner, or from the
//! store's log when the task may run elsewhere; resumed after a `Last-Event-ID`), and the
//! SSE reply every stream is sent as.

use std::sync::Arc;

use a2a_core::error::{Error, Refusal};
use a2a_core::model::{StreamEvent, StreamKind, Task, TaskState};
use a2a_core::version::ProtocolVersion;
use futures_util::stream::{self, StreamExt as _};

use super::cursor::{Cursor, Sequenced};
use super::follow::{self, LogFollower, Source};
use super::respond::Frame;
use super::{CallContext, Engine, Reply, StreamItem, internal, respond};

impl Engine {
    /// A subscription: the task as it stands, then its updates until it ends. With a
    /// `Last-Event-ID` of this task, the events after that one instead (the task as it
    /// stands when the log does not reach back that far), so a cut stream resumes
    /// without a gap or a repeat — also once the task has ended.
    ///
    /// The updates come from this engine's runner when the task runs here, or when no
    /// other process writes the store; otherwise from the task's log in the store
    /// ([`LogFollower`]), wherever the task runs.
    pub(super) async fn subscribe(
        &self,
        version: ProtocolVersion,
        id: &Frame,
        task_id: &str,
        call: &CallContext,
    ) -> Result<Reply, Error> {
        let owner = &call.owner;
        // Unknown tasks (another owner's among them) are refused before anything follows
        // them.
        let stored = self.load_stored(task_id, owner).await?;
        let resume = call
            .last_event_id
            .as_deref()
            .and_then(|text| Cursor::parse(text, task_id));
        let local = !self.deps.store.is_shared() || self.deps.registry.get(task_id).is_some();
        // Follow the task's channel first, then read where it stands: an update in between
        // is told once (its place is after the snapshot's), never not at all.
        let updates = local.then(|| self.deps.registry.follow(task_id));
        let (task, now) = match self.deps.registry.get(task_id) {
            Some(live) => {
                let state = live.state.lock().await;
                (Arc::clone(&state.task), Cursor::after(state.version))
            }
            // A task at rest (waiting for input, say) is read again now that it is
            // followed: one that ended since the first read would leave the stream waiting.
            None if !stored.task.status.state.is_terminal() => {
                let fresh = self.load_stored(task_id, owner).await?;
                (fresh.task, Cursor::after(fresh.version))
            }
            None => (stored.task, Cursor::after(stored.version)),
        };
        let terminal = task.status.state.is_terminal();
        let mut first = Vec::new();
        let mut from = now;
        match resume {
            Some(resume) => {
                let replay = self
                    .deps
                    .store
                    .since(task_id, follow::read_after(resume))
                    .await
                    .map_err(|error| internal(&error))?
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
                self.deps.clone(),
                task_id,
                owner.clone(),
                from.max(now),
            )),
        };
        Ok(self.event_stream(version, id.clone(), first, source, StreamKind::Subscription))
    }

    /// `first`, then every update from `source` past them until one ends a stream of
    /// `kind`; each event with its SSE id.
    pub(super) fn event_stream(
        &self,
        version: ProtocolVersion,
        id: Frame,
        first: Vec<Sequenced>,
        source: Source,
        kind: StreamKind,
    ) -> Reply {
        let profile = self.profile;
        let task_id: Arc<str> = first
            .first()
            .map_or_else(|| Arc::from(""), |event| Arc::from(task_of(&event.event)));
        let ended = first.iter().any(|event| event.event.ends(kind));
        let told = first.iter().filter_map(|event| event.at).max();
        let opening: Vec<StreamItem> = first
            .iter()
            .map(|event| item(version, &id, &task_id, event))
            .collect();
        let state = (!ended).then_some(Follow {
            source,
            id,
            told,
            task_id,
        });
        let rest = stream::unfold(state, move |state| async move {
            let mut follow = state?;
            loop {
                let update = follow.source.next().await?;
                match &*update {
                    Ok(event) => {
                        // Told already (before the snapshot was read, or in the replay).
                        if event.at.is_some() && event.at <= follow.told {
                            continue;
                        }
                        if event.at.is_some() {
                            follow.told = event.at;
                        }
                        let body = item(version, &follow.id, &follow.task_id, event);
                        let next = (!event.event.ends(kind)).then_some(follow);
                        return Some((body, next));
                    }
                    Err(error) => {
                        let json = respond::error_body(&follow.id, error, profile).1;
                        let item = StreamItem {
                            id: None,
                            json,
                            error: true,
                        };
                        return Some((item, None));
                    }
                }
            }
        });
        Reply::Stream(Box::pin(stream::iter(opening).chain(rest)))
    }
}

/// What a stream follows after its first events.
struct Follow {
    source: Source,
    id: Frame,
    /// The place of the last event told.
    told: Option<Cursor>,
    task_id: Arc<str>,
}

/// One event as the stream sends it: its JSON-RPC response and SSE id.
fn item(version: ProtocolVersion, id: &Frame, task_id: &str, event: &Sequenced) -> StreamItem {
    StreamItem {
        id: event.at.map(|at| at.sse_id(task_id)),
        json: respond::stream_event(version, id, &event.event),
        error: false,
    }
}

/// The task as its snapshot event at `at`.
fn snapshot(task: &Task, at: Cursor) -> Sequenced {
    Sequenced {
        event: StreamEvent::Task(task.clone()),
        at: Some(at),
    }
}

/// The id of the task an event is about.
fn task_of(event: &StreamEvent) -> &str {
    match event {
        StreamEvent::Task(task) => &task.id,
        StreamEvent::StatusUpdate(update) => &update.task_id,
        StreamEvent::ArtifactUpdate(update) => &update.task_id,
        StreamEvent::Message(message) => message.task_id.as_deref().unwrap_or_default(),
    }
}
