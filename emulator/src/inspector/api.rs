//! The inspector's JSON API under `/_emulator/api/`:
//!
//! - `GET /_emulator/api/invocations[?session=ID][&method=M][&status=N][&code=N][&since=SEQ][&limit=N]`:
//!   `{"invocations": […], "dropped": n, "next": seq}`, oldest first (`limit`: the newest N).
//! - `GET /_emulator/api/invocations/{seq}`: one invocation (404 when not kept).
//! - `GET /_emulator/api/sessions`: `{"sessions": […]}`; `…/sessions/{id}` one.
//! - `GET /_emulator/api/tasks`: `{"tasks": […]}`; `…/tasks/{id}` one.
//! - `GET /_emulator/api/events`: an SSE feed, one event per change: `invocation`,
//!   `session` or `task`, its data the record as the routes above show it.
//! - `DELETE /_emulator/api/journal`: forgets what is kept (204).

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;

use super::journal::{Change, InvocationFilter, Journal};
use crate::front::runtime::query_param;

/// Where the API is.
pub const API_PATH: &str = "/_emulator/api";
/// How often the feed sends a comment to keep an idle connection open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A JSON answer.
fn reply(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

/// A JSON error, `{"error": message}`.
pub(super) fn refuse(status: StatusCode, message: &str) -> Response {
    reply(status, &json!({ "error": message }))
}

/// Answers `request` on a path under [`API_PATH`] (`rest` is what follows it).
pub(super) fn answer(journal: &Journal, request: &Request, rest: &str) -> Response {
    let method = request.method();
    let query = request.uri().query();
    let rest = rest.trim_end_matches('/');
    if rest == "/journal" {
        return if method == Method::DELETE {
            journal.clear();
            StatusCode::NO_CONTENT.into_response()
        } else {
            wrong_method(method, "DELETE")
        };
    }
    if method != Method::GET {
        return wrong_method(method, "GET");
    }
    match rest
        .split_once('/')
        .map(|(_, path)| path.split_once('/').unwrap_or((path, "")))
    {
        Some(("invocations", "")) => invocations(journal, query),
        Some(("invocations", seq)) => match seq
            .parse::<u64>()
            .ok()
            .and_then(|seq| journal.invocation(seq))
        {
            Some(record) => reply(StatusCode::OK, &record.to_json()),
            None => refuse(
                StatusCode::NOT_FOUND,
                &format!("no invocation {seq} is kept"),
            ),
        },
        Some(("sessions", "")) => {
            let sessions: Vec<Value> = journal.sessions().iter().map(|s| s.to_json()).collect();
            reply(StatusCode::OK, &json!({ "sessions": sessions }))
        }
        Some(("sessions", id)) => match journal.session(id) {
            Some(record) => reply(StatusCode::OK, &record.to_json()),
            None => refuse(StatusCode::NOT_FOUND, &format!("no session {id} is kept")),
        },
        Some(("tasks", "")) => {
            let tasks: Vec<Value> = journal.tasks().iter().map(|t| t.to_json()).collect();
            reply(StatusCode::OK, &json!({ "tasks": tasks }))
        }
        Some(("tasks", id)) => match journal.task(id) {
            Some(record) => reply(StatusCode::OK, &record.to_json()),
            None => refuse(StatusCode::NOT_FOUND, &format!("no task {id} is kept")),
        },
        Some(("events", "")) => events(journal),
        _ => refuse(
            StatusCode::NOT_FOUND,
            &format!(
                "no inspector route {API_PATH}{rest}; try {API_PATH}/invocations, /sessions, /tasks or /events"
            ),
        ),
    }
}

/// 405, with the methods the path takes.
fn wrong_method(method: &Method, allow: &'static str) -> Response {
    let mut response = refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("{method} is not served here; use {allow}"),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// A whole-number query parameter, or why it is not one.
fn number<T: std::str::FromStr>(query: Option<&str>, name: &str) -> Result<Option<T>, String> {
    match query_param(query, name) {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}={text} is not a number")),
    }
}

/// `GET /_emulator/api/invocations`.
fn invocations(journal: &Journal, query: Option<&str>) -> Response {
    let filter = (|| {
        Ok::<_, String>(InvocationFilter {
            session: query_param(query, "session"),
            method: query_param(query, "method"),
            status: number(query, "status")?,
            code: number(query, "code")?,
            since: number(query, "since")?,
        })
    })();
    let (filter, limit) = match (filter, number::<usize>(query, "limit")) {
        (Ok(filter), Ok(limit)) => (filter, limit),
        (Err(why), _) | (_, Err(why)) => return refuse(StatusCode::BAD_REQUEST, &why),
    };
    let found = journal.invocations(&filter);
    let skip = limit.map_or(0, |limit| found.len().saturating_sub(limit));
    let next = found.last().map(|record| record.seq);
    let shown: Vec<Value> = found
        .iter()
        .skip(skip)
        .map(|record| record.to_json())
        .collect();
    reply(
        StatusCode::OK,
        &json!({ "invocations": shown, "dropped": journal.dropped(), "next": next }),
    )
}

/// `GET /_emulator/api/events`: the live feed.
fn events(journal: &Journal) -> Response {
    let changes = BroadcastStream::new(journal.subscribe()).filter_map(|change| async move {
        let (name, data) = match change {
            Ok(Change::Invocation(record)) => ("invocation", record.to_json()),
            Ok(Change::Session(record)) => ("session", record.to_json()),
            Ok(Change::Task(record)) => ("task", record.to_json()),
            // A listener that fell behind is told, and reloads.
            Err(BroadcastStreamRecvError::Lagged(missed)) => {
                ("lagged", json!({ "missed": missed }))
            }
        };
        Some(Bytes::from(format!("event: {name}\ndata: {data}\n\n")))
    });
    let opened = futures_util::stream::once(async { Bytes::from_static(b": inspector feed\n\n") });
    let keep_alive = futures_util::stream::unfold((), |()| async {
        tokio::time::sleep(KEEP_ALIVE).await;
        Some((Bytes::from_static(b": keep-alive\n\n"), ()))
    });
    let merged =
        futures_util::stream::select(opened.chain(changes), keep_alive).map(Ok::<_, Infallible>);
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        Body::from_stream(merged),
    )
        .into_response()
}
