//! The emulator's webhook sinks, under `/_emulator/webhooks/`: somewhere a client
//! developer can point a push notification config and see what the agent sent (A2A
//! specification v1.0 §4.3.3: each update is an HTTP POST to the config's `url`).
//!
//! `/_emulator/` is none of AgentCore's paths (its data plane serves `/runtimes/{arn}/…`,
//! the container `/`, `/ping` and the card): these routes are the client's side, so they
//! are answered before the platform front — no session header, inbound auth, request id,
//! throttling or faults.
//!
//! - `POST /_emulator/webhooks/{name}`: keeps the delivery (body up to [`MAX_BODY_BYTES`],
//!   else 413; the newest [`store::MAX_DELIVERIES`] a sink, at most [`MAX_SINKS`] sinks);
//!   answers `200 {"received": n}`, n the deliveries the sink holds now.
//! - `GET /_emulator/webhooks/{name}[?since=N][&wait=SECONDS]`: what arrived, oldest first,
//!   secrets masked; `since` skips the first N, `wait` (at most [`MAX_WAIT`]) long-polls for
//!   one past them.
//! - `DELETE /_emulator/webhooks/{name}`: forgets the sink (204).
//! - `GET /_emulator/webhooks`: every sink's name and count.

mod delivery;
mod store;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

pub use delivery::WebhookDelivery;
pub(crate) use delivery::rfc3339_millis;
pub use store::{MAX_SINKS, Sinks};

use futures_util::future::BoxFuture;

/// The prefix of the emulator's own paths.
pub const PREFIX: &str = "/_emulator/";
/// Where the sinks are.
pub const SINKS_PATH: &str = "/_emulator/webhooks";
/// The largest delivery body a sink takes (1 MiB).
pub const MAX_BODY_BYTES: usize = 1 << 20;
/// The longest `?wait=` a long poll may ask for.
pub const MAX_WAIT: Duration = Duration::from_secs(30);
/// The longest sink name.
const MAX_NAME: usize = 64;

/// Whether `path` is one of the emulator's own (served by [`serve`], not the front).
pub fn is_emulator_path(path: &str) -> bool {
    path.starts_with(PREFIX) || path == "/_emulator"
}

/// Answers a request on one of the emulator's own paths.
pub fn serve(sinks: &Arc<Sinks>, request: Request) -> BoxFuture<'static, Response> {
    let sinks = Arc::clone(sinks);
    Box::pin(async move { answer(&sinks, request).await })
}

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

/// A JSON error: `{"error": message}`.
fn refuse(status: StatusCode, message: &str) -> Response {
    reply(status, &json!({ "error": message }))
}

/// 405, with the methods the path takes.
fn wrong_method(method: &Method, path: &str, allow: &'static str) -> Response {
    let mut response = refuse(
        StatusCode::METHOD_NOT_ALLOWED,
        &format!("{method} is not served on {path}; use {allow}"),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// Whether `name` is a sink name: 1 to 64 of `A-Z a-z 0-9 . _ -`.
fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-'))
}

async fn answer(sinks: &Sinks, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let Some(rest) = path.strip_prefix(SINKS_PATH) else {
        return refuse(
            StatusCode::NOT_FOUND,
            &format!("no emulator route {path}; the webhook sinks are under {SINKS_PATH}/"),
        );
    };
    let name = match rest {
        "" | "/" => {
            return if request.method() == Method::GET {
                list(sinks)
            } else {
                wrong_method(request.method(), &path, "GET")
            };
        }
        _ => match rest.strip_prefix('/') {
            Some(name) => name,
            None => {
                return refuse(StatusCode::NOT_FOUND, &format!("no emulator route {path}"));
            }
        },
    };
    if !valid_name(name) {
        return refuse(
            StatusCode::BAD_REQUEST,
            "a sink name is 1 to 64 characters of A-Z a-z 0-9 . _ -",
        );
    }
    match *request.method() {
        Method::POST => receive(sinks, name, request).await,
        Method::GET => read(sinks, name, request.uri().query()).await,
        Method::DELETE => {
            sinks.clear(name);
            StatusCode::NO_CONTENT.into_response()
        }
        _ => wrong_method(request.method(), &path, "GET, POST, DELETE"),
    }
}

/// `GET /_emulator/webhooks`: `{"sinks": [{"name", "count", "dropped"}…]}`, by name.
fn list(sinks: &Sinks) -> Response {
    let listed: Vec<Value> = sinks
        .list()
        .into_iter()
        .map(|(name, count, dropped)| json!({"name": name, "count": count, "dropped": dropped}))
        .collect();
    reply(StatusCode::OK, &json!({ "sinks": listed }))
}

/// `POST`: keeps the delivery.
async fn receive(sinks: &Sinks, name: &str, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        return refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("a delivery body is at most {MAX_BODY_BYTES} bytes (or it was cut short)"),
        );
    };
    let text = |value: &HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned();
    let delivery = WebhookDelivery {
        received_at: SystemTime::now(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), text(value)))
            .collect(),
        content_type: parts.headers.get(header::CONTENT_TYPE).map(text),
        body: body.to_vec(),
    };
    // The headers are not logged: they carry the caller's secrets.
    tracing::debug!(sink = name, bytes = body.len(), "webhook delivery");
    match sinks.record(name, delivery) {
        Ok(held) => reply(StatusCode::OK, &json!({ "received": held })),
        Err(store::TooManySinks) => refuse(
            StatusCode::INSUFFICIENT_STORAGE,
            &format!("the emulator keeps at most {MAX_SINKS} sinks; DELETE one first"),
        ),
    }
}

/// `GET`: `{"name", "dropped", "next", "deliveries": […]}`.
async fn read(sinks: &Sinks, name: &str, query: Option<&str>) -> Response {
    let since = match super::runtime::query_param(query, "since") {
        None => 0,
        Some(since) => match since.parse::<u64>() {
            Ok(since) => since,
            Err(_) => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    "since is a count of deliveries (a whole number, 0 or more)",
                );
            }
        },
    };
    let wait = match super::runtime::query_param(query, "wait") {
        None => None,
        Some(wait) => match wait.parse::<f64>() {
            Ok(seconds) if (0.0..=MAX_WAIT.as_secs_f64()).contains(&seconds) => {
                Some(Duration::from_secs_f64(seconds))
            }
            _ => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    &format!(
                        "wait is a number of seconds from 0 to {}",
                        MAX_WAIT.as_secs()
                    ),
                );
            }
        },
    };
    let page = match wait {
        Some(wait) => sinks.wait(name, since, wait).await,
        None => sinks.read(name, since),
    };
    let deliveries: Vec<Value> = page.deliveries.iter().map(WebhookDelivery::shown).collect();
    reply(
        StatusCode::OK,
        &json!({
            "name": name,
            "dropped": page.dropped,
            "next": page.next,
            "deliveries": deliveries,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_and_plain() {
        assert!(valid_name("a"));
        assert!(valid_name("My.sink_1-2"));
        assert!(valid_name(&"x".repeat(64)));
        assert!(!valid_name(""));
        assert!(!valid_name(&"x".repeat(65)));
        assert!(!valid_name("a/b"));
        assert!(!valid_name("a%20b"));
        assert!(!valid_name("é"));
    }

    #[test]
    fn the_emulator_paths_are_its_prefix_only() {
        assert!(is_emulator_path("/_emulator/webhooks/a"));
        assert!(is_emulator_path("/_emulator"));
        assert!(!is_emulator_path("/_emulatorx"));
        assert!(!is_emulator_path("/"));
        assert!(!is_emulator_path("/runtimes/x/invocations"));
    }
}
