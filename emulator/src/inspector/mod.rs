//! The inspector: the emulator's [`Journal`] of invocations, sessions and tasks, its JSON
//! API under `/_emulator/api/` and a live page at `/_emulator/`.
//!
//! `/_emulator/` is none of AgentCore's paths (its data plane serves `/runtimes/{arn}/…`,
//! an A2A container `POST /`, `/.well-known/agent-card.json` and `/ping`: AgentCore
//! Developer Guide, "A2A protocol contract",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>),
//! so these routes are answered before the platform front, as the webhook sinks are, and
//! are not themselves journaled. Turning the inspector off (`--inspector off`,
//! [`Emulator::inspector`](crate::Emulator::inspector)) removes the journal, the API and
//! the page, and the front records nothing at all; the webhook sinks stay (they are the
//! client's side of push notifications, not an inspector view).
//!
//! What the journal keeps is masked first (`mask`): no credential is stored.

mod api;
mod journal;
pub(crate) mod lambda;
mod mask;
pub(crate) mod notes;
mod page;
mod reading;
mod recorder;
mod records;
mod sessions;

use axum::extract::Request;
use axum::response::Response;

pub use api::API_PATH;
pub use journal::{InvocationFilter, Journal, SESSION_EVENTS, TASK_EVENTS};
pub use mask::MASK;
pub(crate) use recorder::RecordLayer;
pub use records::{
    InvocationRecord, LambdaInvocation, RouteKind, SessionEvent, SessionRecord, SessionState,
    TaskEvent, TaskRecord, TaskStep,
};
pub(crate) use sessions::SessionWatch;

/// Invocations (and sessions, and tasks) the journal keeps by default.
pub const DEFAULT_JOURNAL_SIZE: usize = 2000;
/// Bytes of each request and answer body the journal keeps by default.
pub const DEFAULT_JOURNAL_BODY_BYTES: usize = 4096;
/// The page's path.
pub const PAGE_PATH: &str = "/_emulator/";

/// Whether `path` is the inspector's (the page, its assets, the API).
pub(crate) fn is_inspector_path(path: &str) -> bool {
    path == "/_emulator"
        || path == PAGE_PATH
        || path.starts_with(page::ASSETS)
        || path == API_PATH
        || path.starts_with("/_emulator/api/")
}

/// Answers a request on one of the inspector's paths (see [`is_inspector_path`]).
pub(crate) fn serve(journal: &Journal, request: &Request) -> Response {
    let path = request.uri().path();
    match path.strip_prefix(API_PATH) {
        Some(rest) => api::answer(journal, request, rest),
        None => page::serve(request),
    }
}
