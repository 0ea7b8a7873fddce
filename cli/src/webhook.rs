//! `a2a webhook listen`: a local receiver for push notifications, printing each delivery
//! as it arrives. The agent POSTs each update to the config's `url`: in A2A 1.0 a
//! `StreamResponse` with `Authorization: {scheme} {credentials}` (specification v1.0
//! §4.3.3), in 0.3 the task, its example carrying the config's `token` in
//! `X-A2A-Notification-Token` (specification v0.3.0 §9.5), which a2a-sdk sends.

mod delivery;

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_client::Error;
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq as _;
use time::OffsetDateTime;
use time::macros::format_description;
use tokio::sync::{mpsc, oneshot};

use crate::exit;
use delivery::Delivery;

/// The largest delivery body taken (1 MiB, as the emulator's sinks).
const MAX_BODY_BYTES: usize = 1 << 20;
/// The header the config's token comes in (A2A specification v0.3.0 §9.5).
const TOKEN_HEADER: &str = "x-a2a-notification-token";
/// How long in-flight answers may take once the listener stops.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// What `a2a webhook listen` was asked to do.
pub struct Listen {
    /// The address to bind.
    pub host: String,
    /// The port (0: any free one, printed).
    pub port: u16,
    /// The token deliveries must carry, when set.
    pub token: Option<String>,
    /// Exit after this many deliveries.
    pub count: Option<u64>,
    /// One JSON document a line instead of a line for people.
    pub json: bool,
}

/// What each request handler shares.
struct Shared {
    token: Option<String>,
    deliveries: mpsc::Sender<Delivery>,
}

/// Listens until `--count` deliveries arrived or Ctrl-C (exit 0 either way).
///
/// # Errors
/// [`Error::Config`] when the address cannot be bound.
pub async fn listen(options: Listen) -> Result<u8, Error> {
    let Listen {
        host,
        port,
        token,
        count,
        json,
    } = options;
    let listener = tokio::net::TcpListener::bind((host.as_str(), port))
        .await
        .map_err(|error| Error::Config(format!("cannot listen on {host}:{port}: {error}")))?;
    let address = listener
        .local_addr()
        .map_err(|error| Error::Config(format!("cannot listen on {host}:{port}: {error}")))?;
    eprintln!("listening on http://{address}/ (POST to any path; Ctrl-C stops)");
    let (sender, mut received) = mpsc::channel(64);
    let shared = Arc::new(Shared {
        token,
        deliveries: sender,
    });
    let app = Router::new().fallback(receive).with_state(shared);
    let (stop, stopped) = oneshot::channel::<()>();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        let _ = stopped.await;
    });
    let server = tokio::spawn(server.into_future());
    let mut seen = 0_u64;
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            delivery = received.recv() => {
                let Some(delivery) = delivery else { break };
                if !print(&delivery, json) {
                    break;
                }
                seen += 1;
                if count == Some(seen) {
                    break;
                }
            }
            _ = &mut interrupted => {
                // What was answered 200 already is printed before exiting.
                while let Ok(delivery) = received.try_recv() {
                    if !print(&delivery, json) {
                        break;
                    }
                }
                break;
            }
        }
    }
    let _ = stop.send(());
    let _ = tokio::time::timeout(STOP_GRACE, server).await;
    Ok(exit::OK)
}

/// Prints one delivery on stdout; false when nobody reads it any more.
fn print(delivery: &Delivery, json: bool) -> bool {
    let printed = if json {
        delivery.json().to_string()
    } else {
        delivery.line()
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{printed}")
        .and_then(|()| out.flush())
        .is_ok()
}

/// Any request: a POST with the right token (when one is asked for) is a delivery (200).
async fn receive(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    if parts.method != Method::POST {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(axum::http::header::ALLOW, "POST")],
            "POST a push notification here\n",
        )
            .into_response();
    }
    if let Some(expected) = &shared.token {
        let sent = parts
            .headers
            .get(TOKEN_HEADER)
            .map(|value| value.as_bytes())
            .unwrap_or_default();
        if !bool::from(sent.ct_eq(expected.as_bytes())) {
            let why = if parts.headers.contains_key(TOKEN_HEADER) {
                "a wrong"
            } else {
                "no"
            };
            eprintln!("refused a delivery to {path}: {why} X-A2A-Notification-Token (401)");
            return StatusCode::UNAUTHORIZED.into_response();
        }
    }
    let Ok(body) = axum::body::to_bytes(Body::new(body), MAX_BODY_BYTES).await else {
        eprintln!("refused a delivery to {path}: its body is over {MAX_BODY_BYTES} bytes (413)");
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let text =
        |value: &axum::http::HeaderValue| String::from_utf8_lossy(value.as_bytes()).into_owned();
    let delivery = Delivery {
        received_at: now(),
        path,
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), text(value)))
            .collect(),
        body: body.to_vec(),
    };
    match shared.deliveries.send(delivery).await {
        Ok(()) => StatusCode::OK.into_response(),
        // Past --count: the listener is stopping.
        Err(_) => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

/// Now in RFC 3339, UTC, with milliseconds.
fn now() -> String {
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    OffsetDateTime::now_utc()
        .format(&format)
        .unwrap_or_default()
}
