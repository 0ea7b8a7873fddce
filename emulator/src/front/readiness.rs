//! Readiness without a session: what tests and container orchestration ask to learn that
//! the emulator serves, answered before the platform steps (no session started, no quota
//! used, no credentials needed, nothing journaled).
//!
//! AWS exposes no health path to AgentCore's callers: a container's `/ping` is polled by
//! the platform itself ("HTTP protocol contract",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-http-protocol-contract.html>).
//! The emulator's own answers are therefore its own:
//!
//! - `GET /_emulator/ready`: 200 `{"status":"ready","liveSessions":N,"maxSessions":M}`
//!   while the emulator accepts calls;
//! - `GET /ping` without a session header while the default session is not live: the
//!   emulator's own `{"status":"Healthy","time_of_last_update":T}` (T: when it started),
//!   instead of starting the default session to ask its container. With the header, or
//!   once the default session lives, `/ping` is that session's container's.

use axum::body::Body;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use serde_json::json;

use super::sessions::Sessions;

/// The readiness path.
pub(crate) const READY_PATH: &str = "/_emulator/ready";

/// The answer to `method` on [`READY_PATH`].
pub(crate) fn ready(method: &Method, sessions: &Sessions) -> Response {
    if method != Method::GET && method != Method::HEAD {
        let mut refused = reply(
            StatusCode::METHOD_NOT_ALLOWED,
            &json!({"error": format!("{method} {READY_PATH} is not served; use GET")}),
        );
        refused
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return refused;
    }
    let (live, max) = sessions.live_and_max();
    reply(
        StatusCode::OK,
        &json!({"status": "ready", "liveSessions": live, "maxSessions": max}),
    )
}

/// The emulator's own `/ping` body, for a `/ping` that names no session while the default
/// session is not live.
pub(crate) fn own_ping(sessions: &Sessions) -> Response {
    reply(
        StatusCode::OK,
        &json!({"status": "Healthy", "time_of_last_update": sessions.started_unix()}),
    )
}

fn reply(status: StatusCode, body: &serde_json::Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::sessions::testing::sessions_of;
    use crate::front::step::testing::read;
    use std::time::Duration;

    #[tokio::test]
    async fn ready_counts_live_sessions_and_starts_none() {
        let sessions = sessions_of(Duration::ZERO, 3);
        let (status, body) = read(ready(&Method::GET, &sessions)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            body,
            br#"{"liveSessions":0,"maxSessions":3,"status":"ready"}"#.as_slice()
        );
        sessions
            .enter("s-00000000000000000000000000000001")
            .unwrap();
        let (_, body) = read(ready(&Method::GET, &sessions)).await;
        assert_eq!(
            body,
            br#"{"liveSessions":1,"maxSessions":3,"status":"ready"}"#.as_slice()
        );
        let refused = ready(&Method::POST, &sessions);
        assert_eq!(refused.headers()[header::ALLOW], "GET, HEAD");
        let (status, body) = read(refused).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(
            body,
            br#"{"error":"POST /_emulator/ready is not served; use GET"}"#.as_slice()
        );
    }

    #[tokio::test]
    async fn the_own_ping_is_healthy_since_the_start() {
        let sessions = sessions_of(Duration::ZERO, 3);
        let (status, body) = read(own_ping(&sessions)).await;
        assert_eq!(status, StatusCode::OK);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["status"], "Healthy");
        assert_eq!(body["time_of_last_update"], sessions.started_unix());
    }
}
