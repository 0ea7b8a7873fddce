//! How a refused JSON-RPC request is answered: as a JSON-RPC error body, or — for a v0.3
//! stream that failed once its request was found valid — as an SSE stream whose one event
//! is that error.
//!
//! The official v0.3 servers open the stream of `message/stream` and `tasks/resubscribe`
//! before the request handler runs, so what the handler refuses (an unknown task, a task
//! already finished, a message its task cannot take) reaches the client as the stream's
//! one event, HTTP 200 (`a2a-sdk` 0.3's `JSONRPCHandler.on_message_send_stream` and
//! `on_resubscribe_to_task` yield it; `@a2a-js/sdk` 0.3 likewise); what the envelope
//! refuses (an unknown method, invalid params, a server that does not stream) is a plain
//! JSON error. v0.3 clients read both; v1.0 answers every refusal before the stream as
//! plain JSON (its §3.2.4), and the AgentCore error profile keeps its HTTP statuses, so
//! both stay as they are.

use a2a_core::error::{Error, ErrorProfile};
use a2a_core::version::{Operation, ProtocolVersion};
use futures_util::stream;

use super::respond::{self, Frame};
use super::{Engine, Reply, StreamItem};

/// A refusal, and whether it is sent as the one event of a stream.
pub(super) struct Failure {
    pub(super) error: Error,
    pub(super) in_stream: bool,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Self {
            error,
            in_stream: false,
        }
    }
}

/// Whether a refusal of `operation`, once its params are valid, is sent in its stream.
pub(super) fn in_stream(
    profile: ErrorProfile,
    version: ProtocolVersion,
    operation: Operation,
) -> bool {
    profile == ErrorProfile::Spec
        && version == ProtocolVersion::V0_3
        && matches!(operation, Operation::Stream | Operation::Subscribe)
}

impl Engine {
    /// An SSE stream of one event: the error, framed as `frame` frames it.
    pub(super) fn error_stream(&self, frame: &Frame, error: &Error) -> Reply {
        let (_, json) = respond::error_body(frame, error, self.profile);
        Reply::Stream(Box::pin(stream::iter([StreamItem {
            id: None,
            json,
            error: true,
        }])))
    }
}
