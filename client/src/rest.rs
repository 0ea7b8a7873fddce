//! The HTTP+JSON (REST) binding on the client's side: an operation's v1.0 request object
//! (the JSON-RPC `params` the client writes anyway) turned into a route, a query and a
//! body, and the answer read back as the same result or error the JSON-RPC binding gives.
//!
//! - **Route**: path and verb from `a2a_lambda_core::rest::routes` (A2A specification v1.0 §11.3,
//!   `a2a.proto`'s `google.api.http` annotations), under the interface URL without its
//!   trailing slash (as both official SDK clients join them). The task id (`id`, or
//!   `taskId` of a push configuration) and the configuration id go into the path.
//! - **Query** (GET and DELETE): every other scalar member of the request by its camelCase
//!   name (§11.5, e.g. `GET /tasks?contextId=c1&pageSize=5`); `tenant` is left out.
//! - **Body** (POST): the request object itself, as the proto's `body: "*"` says; a
//!   subscription, whose proto route is a bodiless GET, has none.
//! - **Answer**: a 2xx body is the result (no envelope; an empty one, as a 204 to a
//!   DELETE, reads as `{}`); any other status is read as a `google.rpc.Status` body
//!   (§11.6) by `a2a_lambda_core::rest::status::parse`, whose `ErrorInfo.reason` names the same
//!   code a JSON-RPC error would carry.
//! - **Headers**: `A2A-Version: 1.0` on every request (§3.6.2: a request without it is
//!   taken for 0.3), `Content-Type: application/json` on bodies, and
//!   `Accept: application/a2a+json, application/json` (§11.1: `application/a2a+json`,
//!   with `application/json` as the SDKs send it), `text/event-stream` for streams.

use a2a_lambda_core::rest::{query, routes, status};
use a2a_lambda_core::{Operation, ProtocolVersion};
use bytes::Bytes;
use serde_json::Value;
use serde_json::value::RawValue;
use url::Url;

use crate::error::{Error, RpcError};
use crate::rpc::{Call, Outcome, Transport, decode_error};

/// `Accept` of a unary HTTP+JSON request.
const ACCEPT_JSON: &str = "application/a2a+json, application/json";

/// Sends `operation` with its v1.0 request object `params` over HTTP+JSON to the
/// interface at `base`.
///
/// # Errors
/// As [`Transport::execute`]: a refusal as [`Error::Rpc`], an HTTP or transport error.
pub(crate) async fn exchange(
    transport: &Transport,
    base: &Url,
    operation: Operation,
    params: &Value,
    streaming: bool,
    last_event_id: Option<&str>,
) -> Result<Outcome, Error> {
    let (url, body) = request(base, operation, params);
    let call = Call {
        method: routes::method(operation),
        url: &url,
        body,
        version: Some(ProtocolVersion::V1_0),
        accept: if streaming {
            "text/event-stream"
        } else {
            ACCEPT_JSON
        },
        id: None,
        rest: true,
        streaming,
        last_event_id,
    };
    transport.execute(&call).await
}

/// The URL (route and query) and body of `operation`'s request.
fn request(base: &Url, operation: Operation, params: &Value) -> (Url, Option<Bytes>) {
    let member = |name: &str| params.get(name).and_then(Value::as_str).unwrap_or_default();
    let on_config = matches!(
        operation,
        Operation::SetPushConfig
            | Operation::GetPushConfig
            | Operation::ListPushConfigs
            | Operation::DeletePushConfig
    );
    // Push configuration requests name their task `taskId` and the configuration `id`.
    let (task_key, config_key) = if on_config {
        ("taskId", Some("id"))
    } else {
        ("id", None)
    };
    let config_id = config_key.map(member).filter(|id| !id.is_empty());
    let route = routes::path(operation, member(task_key), config_id);
    let method = routes::method(operation);
    let carries_body = method == reqwest::Method::POST && operation != Operation::Subscribe;
    let mut url = base.clone();
    url.set_path(&format!("{}{route}", base.path().trim_end_matches('/')));
    if !carries_body && operation != Operation::Subscribe {
        let in_path = [Some(task_key), config_key];
        let pairs: Vec<(String, String)> = params
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(name, _)| *name != "tenant" && !in_path.contains(&Some(name.as_str())))
            .filter_map(|(name, value)| Some((name.clone(), scalar(value)?)))
            .collect();
        let pairs: Vec<(&str, Option<&str>)> = pairs
            .iter()
            .map(|(name, value)| (name.as_str(), Some(value.as_str())))
            .collect();
        let ours = query::encode(&pairs);
        let joined = match (
            base.query().filter(|kept| !kept.is_empty()),
            ours.is_empty(),
        ) {
            (Some(kept), false) => Some(format!("{kept}&{ours}")),
            (Some(kept), true) => Some(kept.to_owned()),
            (None, false) => Some(ours),
            (None, true) => None,
        };
        url.set_query(joined.as_deref());
    }
    let body = carries_body.then(|| Bytes::from(params.to_string()));
    (url, body)
}

/// A query parameter's value: strings as they are, numbers and booleans as JSON writes
/// them; objects, arrays and nulls have no query form and are left out.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The result a 2xx HTTP+JSON answer is: its body, `{}` when it has none.
///
/// # Errors
/// An invalid answer when the body is not JSON.
pub(crate) fn result(url: &str, body: &[u8]) -> Result<Box<RawValue>, Error> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return RawValue::from_string("{}".to_owned())
            .map_err(|error| Error::invalid(url, error.to_string()));
    }
    serde_json::from_slice(body).map_err(|error| Error::invalid(url, format!("not JSON: {error}")))
}

/// The error a non-2xx HTTP+JSON answer is: the refusal its `google.rpc.Status` body
/// names; else a JSON-RPC error body (a platform in front may answer so); else an HTTP
/// error.
pub(crate) fn error(url: &str, status: u16, content_type: Option<&str>, body: &[u8]) -> Error {
    let code = reqwest::StatusCode::from_u16(status).unwrap_or(reqwest::StatusCode::BAD_GATEWAY);
    match status::parse(code, body) {
        Some(refusal) => Error::Rpc(RpcError::new(
            refusal.code,
            refusal.message,
            refusal.data,
            status,
        )),
        None => decode_error(url, status, content_type, body),
    }
}

/// Reads an SSE event of an HTTP+JSON stream: a bare `StreamResponse`, or, named
/// `event: error`, the `google.rpc.Status` of a refusal mid-stream (its `error.code` is
/// the HTTP status it stands for).
pub(crate) fn stream_event(
    url: &str,
    event: Option<&str>,
    data: &str,
) -> Result<Box<RawValue>, Error> {
    if event == Some("error") {
        let status = serde_json::from_str::<Value>(data)
            .ok()
            .and_then(|body| body.pointer("/error/code").and_then(Value::as_u64))
            .and_then(|code| u16::try_from(code).ok())
            .unwrap_or(500);
        return Err(error(
            url,
            status,
            Some("application/json"),
            data.as_bytes(),
        ));
    }
    serde_json::from_str(data).map_err(|error| Error::invalid(url, format!("event: {error}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn built(base: &str, operation: Operation, params: Value) -> (String, Option<String>) {
        let (url, body) = request(&Url::parse(base).unwrap(), operation, &params);
        (
            url.to_string(),
            body.map(|body| String::from_utf8(body.to_vec()).unwrap()),
        )
    }

    #[test]
    fn each_operation_goes_to_its_route_with_its_query_or_body() {
        let base = "http://h/a2a/v1/";
        let cases = [
            (
                Operation::Send,
                json!({"message": {"messageId": "m"}}),
                "http://h/a2a/v1/message:send",
                Some(r#"{"message":{"messageId":"m"}}"#),
            ),
            (
                Operation::GetTask,
                json!({"id": "t/1", "historyLength": 2}),
                "http://h/a2a/v1/tasks/t%2F1?historyLength=2",
                None,
            ),
            (
                Operation::ListTasks,
                json!({"tenant": "x", "contextId": "c 1", "pageSize": 5, "includeArtifacts": true, "metadata": {}}),
                "http://h/a2a/v1/tasks?contextId=c%201&includeArtifacts=true&pageSize=5",
                None,
            ),
            (
                Operation::CancelTask,
                json!({"id": "t1"}),
                "http://h/a2a/v1/tasks/t1:cancel",
                Some(r#"{"id":"t1"}"#),
            ),
            (
                Operation::Subscribe,
                json!({"id": "t1"}),
                "http://h/a2a/v1/tasks/t1:subscribe",
                None,
            ),
            (
                Operation::SetPushConfig,
                json!({"taskId": "t1", "url": "https://w"}),
                "http://h/a2a/v1/tasks/t1/pushNotificationConfigs",
                Some(r#"{"taskId":"t1","url":"https://w"}"#),
            ),
            (
                Operation::GetPushConfig,
                json!({"taskId": "t1", "id": "p1"}),
                "http://h/a2a/v1/tasks/t1/pushNotificationConfigs/p1",
                None,
            ),
            (
                Operation::ListPushConfigs,
                json!({"taskId": "t1", "pageToken": "n"}),
                "http://h/a2a/v1/tasks/t1/pushNotificationConfigs?pageToken=n",
                None,
            ),
            (
                Operation::DeletePushConfig,
                json!({"taskId": "t1", "id": "p1"}),
                "http://h/a2a/v1/tasks/t1/pushNotificationConfigs/p1",
                None,
            ),
        ];
        for (operation, params, url, body) in cases {
            assert_eq!(
                built(base, operation, params),
                (url.to_owned(), body.map(str::to_owned)),
                "{operation:?}"
            );
        }
    }

    #[test]
    fn the_base_query_is_kept() {
        assert_eq!(
            built(
                "http://h/x?qualifier=prod",
                Operation::GetTask,
                json!({"id": "t", "historyLength": 0})
            )
            .0,
            "http://h/x/tasks/t?qualifier=prod&historyLength=0"
        );
        assert_eq!(
            built("http://h?qualifier=prod", Operation::Send, json!({})).0,
            "http://h/message:send?qualifier=prod"
        );
    }

    #[test]
    fn a_status_body_reads_as_the_code_its_reason_names() {
        let body = br#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"Task cannot be canceled",
            "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_CANCELABLE","domain":"a2a-protocol.org"}]}}"#;
        let Error::Rpc(rpc) = error("u", 400, Some("application/json"), body) else {
            panic!("not an Rpc error")
        };
        assert_eq!(
            (rpc.code_number(), rpc.message.as_str(), rpc.http_status),
            (-32002, "Task cannot be canceled", 400)
        );
        let Error::Http { status, .. } = error("u", 404, Some("text/html"), b"Cannot GET /x")
        else {
            panic!("not an Http error")
        };
        assert_eq!(status, 404);
    }

    #[test]
    fn an_error_event_is_the_refusal_it_carries() {
        let data = r#"{"error":{"code":404,"status":"NOT_FOUND","message":"Task not found","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        let Err(Error::Rpc(rpc)) = stream_event("u", Some("error"), data) else {
            panic!("not an Rpc error")
        };
        assert_eq!((rpc.code_number(), rpc.http_status), (-32001, 404));
        let event = stream_event("u", None, r#"{"task":{"id":"t"}}"#).unwrap();
        assert_eq!(event.get(), r#"{"task":{"id":"t"}}"#);
    }
}
