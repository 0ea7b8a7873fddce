//! A webhook receiver for the push delivery tests: an axum router on 127.0.0.1 that
//! answers from a script and records what arrived; a port that counts connections; quick
//! delivery settings.

#![allow(dead_code, clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_lambda_server::push::delivery::{DeliveryPolicy, Notification, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use bytes::Bytes;
use tokio::net::TcpListener;

/// How a receiver answers one request.
#[derive(Clone)]
pub enum Answer {
    Status(u16),
    RetryAfter(u16, &'static str),
    Redirect(String),
    /// Never answers (well, after a minute).
    Hang,
}

/// One request as it arrived.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub uri: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

struct Script {
    answers: Mutex<Vec<Answer>>,
    then: Answer,
    seen: Mutex<Vec<Seen>>,
}

/// A webhook receiver on 127.0.0.1 that answers `answers` in order, then `then`, and
/// records what arrived.
pub struct Receiver {
    pub port: u16,
    script: Arc<Script>,
}

impl Receiver {
    pub async fn start(answers: Vec<Answer>, then: Answer) -> Self {
        let script = Arc::new(Script {
            answers: Mutex::new(answers.into_iter().rev().collect()),
            then,
            seen: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .fallback(any(record))
            .with_state(Arc::clone(&script));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { port, script }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.script.seen.lock().unwrap().clone()
    }
}

async fn record(
    State(script): State<Arc<Script>>,
    uri: Uri,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    script.seen.lock().unwrap().push(Seen {
        method: method.to_string(),
        uri: uri.to_string(),
        headers,
        body,
    });
    let answer = script
        .answers
        .lock()
        .unwrap()
        .pop()
        .unwrap_or_else(|| script.then.clone());
    match answer {
        Answer::Status(code) => StatusCode::from_u16(code).unwrap().into_response(),
        Answer::RetryAfter(code, after) => (
            StatusCode::from_u16(code).unwrap(),
            [(header::RETRY_AFTER, after)],
        )
            .into_response(),
        Answer::Redirect(location) => (
            StatusCode::FOUND,
            [(header::LOCATION, HeaderValue::from_str(&location).unwrap())],
        )
            .into_response(),
        Answer::Hang => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            StatusCode::OK.into_response()
        }
    }
}

/// A port on 127.0.0.1 that counts the TCP connections it accepts (and drops them).
pub async fn counting_port() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&count);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (port, count)
}

/// Short timeouts and backoffs, so the tests are quick.
pub fn quick(attempts: u32) -> DeliveryPolicy {
    let mut policy = DeliveryPolicy::default();
    policy.timeout = Duration::from_millis(300);
    policy.attempts = attempts;
    policy.first_backoff = Duration::from_millis(5);
    policy.max_backoff = Duration::from_millis(40);
    policy
}

pub fn webhooks(targets: TargetPolicy, attempts: u32) -> Webhooks {
    Webhooks::new(targets, quick(attempts)).unwrap()
}

pub fn notification(url: String) -> Notification {
    Notification {
        url,
        token: None,
        authorization: None,
        content_type: "application/a2a+json",
        body: Bytes::from_static(br#"{"statusUpdate":{"taskId":"t-1"}}"#),
    }
}

pub fn header_text<'a>(seen: &'a Seen, name: &str) -> Option<&'a str> {
    seen.headers.get(name).map(|v| v.to_str().unwrap())
}
