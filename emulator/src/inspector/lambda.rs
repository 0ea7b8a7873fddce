//! A local Lambda's invocations and execution environments in the journal: each call to
//! its front is an invocation (route `lambda`, its [`LambdaInvocation`] notes), and each
//! execution environment is a session whose events say when it started, was busy, idle,
//! frozen (`SIGSTOP`) and thawed, and why it stopped (a timeout's reset, the shutdown).

use std::time::{Duration, Instant, SystemTime};

use axum::body::Bytes;
use axum::http::HeaderMap;

use super::journal::Journal;
use super::records::{InvocationRecord, LambdaInvocation, RouteKind, SessionState};
use super::{mask, notes, reading};

/// The request a local Lambda's front received, as the journal needs it.
pub(crate) struct LambdaCall<'a> {
    pub environment: Option<&'a str>,
    pub http_method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub headers: &'a HeaderMap,
    pub body: &'a Bytes,
}

/// Opens the journal entry of a call; its sequence number.
pub(crate) fn open(journal: &Journal, call: &LambdaCall<'_>) -> u64 {
    let (method, task_id) = reading::request(call.body);
    let version = call
        .headers
        .get(a2a_lambda_core::version::VERSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("0.3")
        .to_owned();
    let query = (!call.query.is_empty()).then_some(call.query);
    journal.open(InvocationRecord {
        seq: 0,
        at: SystemTime::now(),
        session: call.environment.map(str::to_owned),
        route: RouteKind::Lambda,
        path: mask::path_and_query(call.path, query),
        http_method: call.http_method.to_owned(),
        version: method.is_some().then_some(version),
        method,
        status: 0,
        code: None,
        head_latency: Duration::ZERO,
        latency: None,
        fault: None,
        request_headers: mask::headers(call.headers),
        container_headers: None,
        response_headers: HeaderMap::new(),
        request_bytes: call.body.len() as u64,
        request_body: Some(notes::kept(call.body, journal.body_bytes())),
        response_body: Bytes::new(),
        response_bytes: 0,
        task_id,
        stream: false,
        done: false,
        lambda: Some(LambdaInvocation::default()),
    })
}

/// The answer's head went out.
pub(crate) fn head(
    journal: &Journal,
    seq: u64,
    arrived: Instant,
    status: u16,
    headers: &HeaderMap,
    stream: bool,
) {
    journal.update(seq, |record| {
        record.status = status;
        record.head_latency = arrived.elapsed();
        record.response_headers = mask::headers(headers);
        record.stream = stream;
    });
}

/// The answer ended: its first bytes and size.
pub(crate) fn done(journal: &Journal, seq: u64, arrived: Instant, first: &[u8], bytes: u64) {
    let (code, _) = reading::answer(first);
    let kept = notes::kept(first, journal.body_bytes());
    journal.update(seq, |record| {
        record.latency = Some(arrived.elapsed());
        record.response_body = kept;
        record.response_bytes = bytes;
        record.code = code;
        record.done = true;
    });
}

/// Changes the Lambda notes of invocation `seq`.
pub(crate) fn note(journal: &Journal, seq: u64, change: impl FnOnce(&mut LambdaInvocation)) {
    journal.update(seq, |record| {
        change(record.lambda.get_or_insert_with(Default::default))
    });
}

/// Execution environment `id` entered `state`; `why` it changed.
pub(crate) fn environment(journal: &Journal, id: &str, state: SessionState, why: Option<&str>) {
    journal.session_event(id, state, why);
}

/// Invocation `seq` ran in execution environment `id`.
pub(crate) fn in_environment(journal: &Journal, seq: u64, id: &str) {
    journal.assign_session(seq, id);
}
