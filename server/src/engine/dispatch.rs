//! The one dispatch table: a request's (version, operation) to the operation that serves
//! it ([`super::ops`]), for both bindings; and the two rules of the JSON-RPC envelope:
//! requests without an id, and refusals sent inside the SSE stream.
//!
//! **Future size.** Every request's future is as large as the largest future of any arm of
//! [`operate`]'s match. The rarer operations whose futures are large (stream, cancel, the
//! push configurations) are boxed there, so that they do not size the send's; the figures
//! are in `BENCHMARKS.md`.
//!
//! **Requests without an `id`.** JSON-RPC 2.0 calls a request without an `id` member a
//! notification, which a server must not answer. A2A defines no notifications (every A2A
//! method has a result its caller needs: a task's id, its state), and the official A2A
//! servers answer such requests: the Python `a2a-sdk` 0.3 refuses them (its request models
//! require the id), the JS `@a2a-js/sdk` 0.3 answers with `"id": null`. Here an id-less
//! request is answered like any other, with `"id": null`:
//!
//! - a request with a problem gets that problem's error (-32700, -32600, -32601 for an
//!   unknown method, -32602 for bad params, -32004 for a method the agent does not serve);
//! - a valid one is refused with -32600 and does **not** run: work started for a caller
//!   that cannot match the answer to its request (and, had it meant a notification, does
//!   not wait for one) is work nobody follows. Sending an id runs it.
//!
//! **Refusals inside the stream.** A refused JSON-RPC request is answered as a JSON-RPC
//! error body, or — for a v0.3 stream that failed once its request was found valid — as an
//! SSE stream whose one event is that error. The official v0.3 servers open the stream of
//! `message/stream` and `tasks/resubscribe` before the request handler runs, so what the
//! handler refuses (an unknown task, a task already finished, a message its task cannot
//! take) reaches the client as the stream's one event, HTTP 200 (`a2a-sdk` 0.3's
//! `JSONRPCHandler.on_message_send_stream` and `on_resubscribe_to_task` yield it;
//! `@a2a-js/sdk` 0.3 likewise); what the envelope refuses (an unknown method, invalid
//! params, a server that does not stream) is a plain JSON error. v0.3 clients read both;
//! v1.0 answers every refusal before the stream as plain JSON (its §3.2.4), and the
//! AgentCore error profile keeps its HTTP statuses, so both stay as they are.

use futures_util::stream;

use super::ops::{self, cancel, card, get, list, push_config, send, subscribe};
use super::request::Request;
use super::respond::{self, Frame};
use super::{CallContext, Engine, Reply, StreamItem};
use a2a_lambda_core::error::{Error, ErrorProfile};
use a2a_lambda_core::jsonrpc;
use a2a_lambda_core::version::{self, Operation, ProtocolVersion};

/// Serves one request in the version and operation it names: the match every request of
/// both bindings goes through.
pub(super) async fn operate(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    match req.operation {
        Operation::Send => send::run(engine, req)?.await,
        // Boxed (see the module's header), as cancel and the push configurations below.
        Operation::Stream => Box::pin(ops::stream::run(engine, req)).await,
        Operation::GetTask => get::run(engine, req).await,
        Operation::ListTasks => list::run(engine, req).await,
        Operation::CancelTask => Box::pin(cancel::run(engine, req)).await,
        Operation::Subscribe => subscribe::run(engine, req).await,
        Operation::GetExtendedCard => Err(card::refusal(req.method)),
        Operation::SetPushConfig
        | Operation::GetPushConfig
        | Operation::ListPushConfigs
        | Operation::DeletePushConfig => Box::pin(push_config::run(engine, req)).await,
        _ => Err(ops::not_served(req.method)),
    }
}

/// Serves one JSON-RPC request: the version it asks for, the method it names, the rule
/// for requests without an id, then [`operate`].
pub(super) async fn json_rpc(
    engine: &Engine,
    request: &jsonrpc::Request<'_>,
    frame: &Frame,
    call: &CallContext,
) -> Result<Reply, Failure> {
    let requested = version::negotiate(call.version_header.as_deref(), call.query.as_deref())?;
    let (version, operation) = version::resolve_method(&request.method, requested)?;
    let req = Request {
        version,
        operation,
        method: &request.method,
        params: request.params,
        frame,
        call,
    };
    if request.id.is_none() {
        precheck(engine, &req)?;
        return Err(notification_refusal(&request.method).into());
    }
    let in_stream = in_stream(engine.profile, version, operation);
    if in_stream {
        // The envelope's refusals come before the stream opens.
        precheck(engine, &req)?;
    }
    operate(engine, req)
        .await
        .map_err(|error| Failure { error, in_stream })
}

/// The checks an operation would make before any work, without doing the work: the error
/// a request of it would get, or `Ok` when it would run.
fn precheck(engine: &Engine, req: &Request<'_>) -> Result<(), Error> {
    match req.operation {
        Operation::Send => send::parse(req).map(drop),
        Operation::Stream => {
            ops::require_streaming(engine, req.method)?;
            send::parse(req).map(drop)
        }
        Operation::GetTask => get::parse(req).map(drop),
        Operation::ListTasks => list::parse(req).map(drop),
        Operation::CancelTask => ops::parse_task_id(req).map(drop),
        Operation::Subscribe => {
            ops::require_streaming(engine, req.method)?;
            ops::parse_task_id(req).map(drop)
        }
        Operation::SetPushConfig
        | Operation::GetPushConfig
        | Operation::ListPushConfigs
        | Operation::DeletePushConfig => {
            push_config::require_push(engine, req.method)?;
            push_config::check_params(req)
        }
        Operation::GetExtendedCard => Err(card::refusal(req.method)),
        _ => Err(ops::not_served(req.method)),
    }
}

/// The refusal of a valid request sent without an id.
fn notification_refusal(method: &str) -> Error {
    Error::invalid_request(format!(
        "{method}: the request has no \"id\"; A2A defines no notifications, so the request \
         was not run: send it with an id to get its result"
    ))
}

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
fn in_stream(profile: ErrorProfile, version: ProtocolVersion, operation: Operation) -> bool {
    profile == ErrorProfile::Spec
        && version == ProtocolVersion::V0_3
        && matches!(operation, Operation::Stream | Operation::Subscribe)
}

/// An SSE stream of one event: the error, framed as `frame` frames it.
pub(super) fn error_stream(profile: ErrorProfile, frame: &Frame, error: &Error) -> Reply {
    let (_, json) = respond::error_body(frame, error, profile);
    Reply::Stream(Box::pin(stream::iter([StreamItem {
        id: None,
        json,
        error: true,
    }])))
}
