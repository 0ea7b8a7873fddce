//! The telemetry's JSON API, beside the inspector's under `/_emulator/api/`:
//!
//! - `GET /_emulator/api/traces[?session=ID][&limit=N]`: `{"traces": […], "droppedTraces": n,
//!   "rejectedSpans": n}`, the oldest first (`limit`: the newest N), each a summary: its id,
//!   root span's name, start, duration, span count, session id and services.
//! - `GET /_emulator/api/traces/{traceId}`: one trace with its spans (404 when not kept).
//! - `GET /_emulator/api/metrics`: `{"metrics": […], "droppedSeries": n, "rejectedPoints": n}`.
//! - `DELETE /_emulator/api/traces`: forgets the traces and metrics kept (204).

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::Telemetry;
use crate::front::runtime::query_param;

/// Where the traces are listed.
pub const TRACES_API_PATH: &str = "/_emulator/api/traces";
/// Where the metrics are listed.
pub const METRICS_API_PATH: &str = "/_emulator/api/metrics";

/// Whether `path` is this API's.
pub(crate) fn is_api_path(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path == TRACES_API_PATH
        || path == METRICS_API_PATH
        || path
            .strip_prefix(TRACES_API_PATH)
            .is_some_and(|rest| rest.starts_with('/'))
}

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

fn refuse(status: StatusCode, message: &str) -> Response {
    reply(status, &json!({ "error": message }))
}

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

/// Answers `request` on one of this API's paths (see [`is_api_path`]).
pub(crate) fn answer(telemetry: &Telemetry, request: &Request) -> Response {
    let method = request.method();
    let path = request.uri().path().trim_end_matches('/');
    if path == METRICS_API_PATH {
        if method != Method::GET {
            return wrong_method(method, "GET");
        }
        let metrics: Vec<Value> = telemetry.metrics().iter().map(|m| m.to_json()).collect();
        return reply(
            StatusCode::OK,
            &json!({
                "metrics": metrics,
                "droppedSeries": telemetry.dropped_series(),
                "rejectedPoints": telemetry.rejected_points(),
            }),
        );
    }
    match path.strip_prefix(TRACES_API_PATH).unwrap_or("") {
        "" if method == Method::DELETE => {
            telemetry.clear();
            StatusCode::NO_CONTENT.into_response()
        }
        "" if method == Method::GET => list(telemetry, request.uri().query()),
        "" => wrong_method(method, "GET, DELETE"),
        _ if method != Method::GET => wrong_method(method, "GET"),
        rest => {
            let id = rest.trim_start_matches('/');
            match telemetry.trace(id) {
                Some(trace) => reply(StatusCode::OK, &trace.to_json()),
                None => refuse(StatusCode::NOT_FOUND, &format!("no trace {id} is kept")),
            }
        }
    }
}

/// `GET /_emulator/api/traces`.
fn list(telemetry: &Telemetry, query: Option<&str>) -> Response {
    let limit = match query_param(query, "limit") {
        None => None,
        Some(text) => match text.parse::<usize>() {
            Ok(limit) => Some(limit),
            Err(_) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    &format!("limit={text} is not a number"),
                );
            }
        },
    };
    let session = query_param(query, "session");
    let found: Vec<Value> = telemetry
        .traces()
        .iter()
        .filter(|trace| {
            session
                .as_ref()
                .is_none_or(|id| trace.session_id.as_ref() == Some(id))
        })
        .map(|trace| trace.to_json())
        .collect();
    let skip = limit.map_or(0, |limit| found.len().saturating_sub(limit));
    reply(
        StatusCode::OK,
        &json!({
            "traces": &found[skip..],
            "droppedTraces": telemetry.dropped_traces(),
            "rejectedSpans": telemetry.rejected_spans(),
        }),
    )
}
