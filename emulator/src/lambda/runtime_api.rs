//! The Runtime API and the Extensions API of one execution environment, at the address
//! the function gets in `AWS_LAMBDA_RUNTIME_API`.
//!
//! - Runtime API 2018-06-01 ("Using the Lambda runtime API for custom runtimes",
//!   <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html>):
//!   `GET /runtime/invocation/next` (the event, with `Lambda-Runtime-Aws-Request-Id`,
//!   `Lambda-Runtime-Deadline-Ms`, `Lambda-Runtime-Invoked-Function-Arn`,
//!   `Lambda-Runtime-Trace-Id`), `POST /runtime/invocation/{id}/response` (202; streamed
//!   with `Lambda-Runtime-Function-Response-Mode: streaming`, a chunked body and the
//!   `Lambda-Runtime-Function-Error-Type`/`-Body` trailers for an error mid-stream:
//!   "Response streaming", same page), `POST /runtime/invocation/{id}/error`,
//!   `POST /runtime/init/error`. A buffered response over 6 MB is refused (413,
//!   `Function.ResponseSizeTooLarge`: "Lambda quotas",
//!   <https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html>).
//! - Extensions API 2020-01-01 ("Using the Lambda Extensions API to create extensions",
//!   <https://docs.aws.amazon.com/lambda/latest/dg/runtimes-extensions-api.html>):
//!   `POST /extension/register` (`Lambda-Extension-Name`; answers
//!   `Lambda-Extension-Identifier`), `GET /extension/event/next`,
//!   `POST /extension/init/error`, `POST /extension/exit/error`.

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::instance::{FunctionError, Instance, Reply, trace_id};

/// The largest buffered response: 6 MB.
pub(crate) const MAX_RESPONSE_BYTES: usize = 6 * 1024 * 1024;

/// What a handler serves: the environment, and whether its callers are external
/// extensions (their own address, the same APIs).
#[derive(Clone)]
pub(crate) struct Api {
    instance: Arc<Instance>,
    external: bool,
}

impl std::ops::Deref for Api {
    type Target = Instance;

    fn deref(&self) -> &Instance {
        &self.instance
    }
}

/// Serves the APIs of `instance` on `listener` (for external extensions when
/// `external`), until aborted.
pub(crate) fn serve(
    instance: Arc<Instance>,
    listener: tokio::net::TcpListener,
    external: bool,
) -> JoinHandle<()> {
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next))
        .route(
            "/2018-06-01/runtime/invocation/{id}/response",
            post(response),
        )
        .route(
            "/2018-06-01/runtime/invocation/{id}/error",
            post(invocation_error),
        )
        .route("/2018-06-01/runtime/init/error", post(init_error))
        .route("/2020-01-01/extension/register", post(register))
        .route("/2020-01-01/extension/event/next", get(event_next))
        .route(
            "/2020-01-01/extension/init/error",
            post(extension_init_error),
        )
        .route(
            "/2020-01-01/extension/exit/error",
            post(extension_exit_error),
        )
        .with_state(Api { instance, external });
    tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, app).await {
            tracing::warn!(%error, "the Runtime API stopped");
        }
    })
}

/// An error answer of the APIs: `{"errorMessage", "errorType"}`.
fn refusal(status: StatusCode, error_type: &str, message: &str) -> Response {
    (
        status,
        axum::Json(json!({"errorMessage": message, "errorType": error_type})),
    )
        .into_response()
}

fn accepted() -> Response {
    (StatusCode::ACCEPTED, axum::Json(json!({"status": "OK"}))).into_response()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// The error a runtime or extension reported: its body's `errorType` and `errorMessage`,
/// else the error-type header and the body as text.
fn reported_error(headers: &HeaderMap, header_name: &str, body: &[u8]) -> FunctionError {
    let from_header = header(headers, header_name).unwrap_or("Unhandled");
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => FunctionError::new(
            object
                .get("errorType")
                .and_then(Value::as_str)
                .unwrap_or(from_header),
            object
                .get("errorMessage")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        ),
        _ => FunctionError::new(from_header, String::from_utf8_lossy(body)),
    }
}

async fn next(State(instance): State<Api>) -> Response {
    let handed = instance.next_invocation().await;
    let config = &instance.config;
    let mut response = Response::new(Body::from(handed.event));
    let headers = response.headers_mut();
    let pairs = [
        ("content-type", "application/json".to_owned()),
        ("lambda-runtime-aws-request-id", handed.request_id),
        ("lambda-runtime-deadline-ms", handed.deadline_ms.to_string()),
        ("lambda-runtime-invoked-function-arn", config.arn()),
        ("lambda-runtime-trace-id", trace_id()),
    ];
    for (name, value) in pairs {
        if let Ok(value) = value.parse() {
            headers.insert(name, value);
        }
    }
    response
}

async fn response(
    State(instance): State<Api>,
    Path(request_id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let streaming = header(&headers, "lambda-runtime-function-response-mode")
        .is_some_and(|mode| mode.eq_ignore_ascii_case("streaming"));
    if streaming {
        return stream_response(&instance, &request_id, &headers, body).await;
    }
    let body = match axum::body::to_bytes(body, MAX_RESPONSE_BYTES).await {
        Ok(body) => body,
        Err(_) => {
            let message = format!(
                "Response payload size exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."
            );
            let error = FunctionError::new("Function.ResponseSizeTooLarge", message.clone());
            let _ = instance.respond(&request_id, Reply::Failed(error));
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Function.ResponseSizeTooLarge",
                &message,
            );
        }
    };
    match instance.respond(&request_id, Reply::Buffered(body)) {
        Ok(()) => accepted(),
        Err(kind) => refusal(
            StatusCode::BAD_REQUEST,
            kind,
            "no such invocation in flight",
        ),
    }
}

/// A streamed response: each frame passed on as it arrives; the trailers' error ends it.
async fn stream_response(
    instance: &Instance,
    request_id: &str,
    headers: &HeaderMap,
    mut body: Body,
) -> Response {
    let content_type = header(headers, "content-type").map(str::to_owned);
    let chunks = match instance.start_stream(request_id, content_type) {
        Ok(chunks) => chunks,
        Err(kind) => {
            return refusal(
                StatusCode::BAD_REQUEST,
                kind,
                "no such invocation in flight",
            );
        }
    };
    let mut error = None;
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(cut) => {
                error = Some(FunctionError::new(
                    "Runtime.TruncatedResponse",
                    format!("the response stream was cut: {cut}"),
                ));
                break;
            }
        };
        match frame.into_data() {
            Ok(data) => {
                // A caller gone away leaves the function streaming into nothing, as on
                // Lambda.
                let _ = chunks.send(Ok(data)).await;
            }
            Err(frame) => {
                if let Ok(trailers) = frame.into_trailers() {
                    error = trailer_error(&trailers);
                }
            }
        }
    }
    if let Some(error) = &error {
        let _ = chunks.send(Err(error.clone())).await;
    }
    drop(chunks);
    instance.end_stream(request_id, error);
    accepted()
}

/// The error a streamed response's trailers report (`Lambda-Runtime-Function-Error-Type`,
/// `Lambda-Runtime-Function-Error-Body`, base64).
fn trailer_error(trailers: &HeaderMap) -> Option<FunctionError> {
    let error_type = header(trailers, "lambda-runtime-function-error-type")?;
    let body = header(trailers, "lambda-runtime-function-error-body")
        .and_then(|body| base64::engine::general_purpose::STANDARD.decode(body).ok())
        .unwrap_or_default();
    Some(reported_error(
        trailers,
        "lambda-runtime-function-error-type",
        &body,
    ))
    .map(|error| {
        if error.error_type.is_empty() {
            FunctionError::new(error_type, error.message)
        } else {
            error
        }
    })
}

async fn invocation_error(
    State(instance): State<Api>,
    Path(request_id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let error = reported_error(&headers, "lambda-runtime-function-error-type", &body);
    match instance.respond(&request_id, Reply::Failed(error)) {
        Ok(()) => accepted(),
        Err(kind) => refusal(
            StatusCode::BAD_REQUEST,
            kind,
            "no such invocation in flight",
        ),
    }
}

async fn init_error(State(instance): State<Api>, headers: HeaderMap, body: Bytes) -> Response {
    instance.init_error(reported_error(
        &headers,
        "lambda-runtime-function-error-type",
        &body,
    ));
    accepted()
}

async fn register(State(instance): State<Api>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(name) = header(&headers, "lambda-extension-name").filter(|name| !name.is_empty())
    else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "InvalidRequest",
            "the Lambda-Extension-Name header is missing",
        );
    };
    let events: Vec<String> = serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|body| {
            body.get("events")?.as_array().map(|events| {
                events
                    .iter()
                    .filter_map(|event| event.as_str().map(str::to_owned))
                    .collect()
            })
        })
        .unwrap_or_default();
    match instance.register(name, &events, instance.external) {
        Ok(id) => {
            let config = &instance.config;
            let mut response = axum::Json(json!({
                "functionName": config.name,
                "functionVersion": "$LATEST",
                "handler": config.handler,
            }))
            .into_response();
            if let Ok(id) = id.parse() {
                response
                    .headers_mut()
                    .insert("lambda-extension-identifier", id);
            }
            response
        }
        Err(error) => refusal(StatusCode::FORBIDDEN, &error.error_type, &error.message),
    }
}

async fn event_next(State(instance): State<Api>, headers: HeaderMap) -> Response {
    let Some(id) = header(&headers, "lambda-extension-identifier") else {
        return refusal(
            StatusCode::FORBIDDEN,
            "Extension.MissingExtensionIdentifier",
            "the Lambda-Extension-Identifier header is missing",
        );
    };
    match instance.next_event(id).await {
        Some(event) => {
            let mut response = axum::Json(event).into_response();
            if let Ok(id) = uuid::Uuid::new_v4().to_string().parse() {
                response
                    .headers_mut()
                    .insert("lambda-extension-event-identifier", id);
            }
            response
        }
        None => refusal(
            StatusCode::FORBIDDEN,
            "Extension.InvalidExtensionIdentifier",
            "no extension registered with this identifier",
        ),
    }
}

async fn extension_error(instance: &Instance, headers: &HeaderMap, body: &[u8]) -> Response {
    let Some(id) = header(headers, "lambda-extension-identifier") else {
        return refusal(
            StatusCode::FORBIDDEN,
            "Extension.MissingExtensionIdentifier",
            "the Lambda-Extension-Identifier header is missing",
        );
    };
    let error = reported_error(headers, "lambda-extension-function-error-type", body);
    if instance.extension_error(id, error) {
        accepted()
    } else {
        refusal(
            StatusCode::FORBIDDEN,
            "Extension.InvalidExtensionIdentifier",
            "no extension registered with this identifier",
        )
    }
}

async fn extension_init_error(
    State(instance): State<Api>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    extension_error(&instance, &headers, &body).await
}

async fn extension_exit_error(
    State(instance): State<Api>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    extension_error(&instance, &headers, &body).await
}
