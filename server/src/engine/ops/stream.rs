//! `message/stream` / `SendStreamingMessage`: a send whose reply is an SSE stream of the
//! task as it opened, then its updates until it ends or is interrupted (or the agent's
//! direct reply, alone).

use std::sync::Arc;

use a2a_lambda_core::error::Error;
use a2a_lambda_core::model::{StreamEvent, StreamKind};
use futures_util::stream;

use super::push_config::attach_push;
use super::send;
use crate::engine::follow::cursor::{Cursor, Sequenced};
use crate::engine::follow::{Source, event_stream};
use crate::engine::request::Request;
use crate::engine::runner::{self, StartOutcome};
use crate::engine::{Engine, Reply, StreamItem, respond};

pub(in crate::engine) async fn run(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    super::require_streaming(engine, req.method)?;
    let params = send::parse(&req)?;
    let Request {
        version,
        frame,
        call,
        ..
    } = req;
    let push = params
        .configuration
        .and_then(|configuration| configuration.push_notification_config);
    let prepared = send::prepare(engine, params.message, call).await?;
    let (context, previous) = attach_push(engine, version, push, prepared).await?;
    // Follow the task before it can change.
    let updates = engine.deps.registry.follow(&context.task_id);
    let started = runner::start(engine.deps.clone(), context, previous, true).await;
    match started {
        StartOutcome::Failed(error) => Err(error),
        StartOutcome::Message(message) => {
            let json = respond::stream_event(version, frame, &StreamEvent::Message(message));
            Ok(Reply::Stream(Box::pin(stream::iter([StreamItem {
                id: None,
                json,
                error: false,
            }]))))
        }
        StartOutcome::Task {
            initial, opened_at, ..
        } => {
            let opening = Sequenced {
                event: StreamEvent::Task(Arc::unwrap_or_clone(initial)),
                at: Some(Cursor::at(opened_at, 0)),
            };
            Ok(event_stream(
                engine.profile,
                version,
                frame.clone(),
                vec![opening],
                Source::Local(updates),
                StreamKind::Send,
            ))
        }
    }
}
