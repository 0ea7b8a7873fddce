//! The SSE reply of every stream (a send's and a subscription's): its first events, then
//! each update from its source that it has not told yet, until one ends the stream.

use std::sync::Arc;

use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_core::model::{StreamEvent, StreamKind};
use a2a_lambda_core::version::ProtocolVersion;
use futures_util::stream::{self, StreamExt as _};

use super::Source;
use super::cursor::{Cursor, Sequenced};
use crate::engine::respond::{self, Frame};
use crate::engine::{Reply, StreamItem};

/// `first`, then every update from `source` past them until one ends a stream of
/// `kind`; each event with its SSE id.
pub(crate) fn event_stream(
    profile: ErrorProfile,
    version: ProtocolVersion,
    id: Frame,
    first: Vec<Sequenced>,
    source: Source,
    kind: StreamKind,
) -> Reply {
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

/// The id of the task an event is about.
fn task_of(event: &StreamEvent) -> &str {
    match event {
        StreamEvent::Task(task) => &task.id,
        StreamEvent::StatusUpdate(update) => &update.task_id,
        StreamEvent::ArtifactUpdate(update) => &update.task_id,
        StreamEvent::Message(message) => message.task_id.as_deref().unwrap_or_default(),
    }
}
