//! How the function's answer becomes an HTTP response, in each front's format:
//!
//! - Function URL and API Gateway HTTP API (payload format 2.0): "Invoking Lambda function
//!   URLs", <https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html#urls-payloads>,
//!   and "Create AWS Lambda proxy integrations for HTTP APIs",
//!   <https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html>.
//!   A response that is JSON but has no `statusCode` is sent as a 200 with that JSON as
//!   its body (both pages: "Lambda infers the response format").
//! - API Gateway REST API (payload format 1.0): "Lambda proxy integrations in API Gateway",
//!   <https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html>.
//!   A response without `statusCode` is malformed: 502.
//! - A streamed response (`application/vnd.awslambda.http-integration-response`): a JSON
//!   prelude (`statusCode`, `headers`, `cookies`), eight NUL bytes, then the body
//!   ("Writing response streaming-enabled Lambda functions",
//!   <https://docs.aws.amazon.com/lambda/latest/dg/config-rs-write-functions.html>, and
//!   the Rust runtime's `lambda_http::run_with_streaming_response`).

use axum::body::Bytes;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use base64::Engine as _;
use serde_json::{Map, Value};

use super::config::EventShape;

/// The content type of a streamed HTTP integration response (prelude, separator, body).
pub(crate) const HTTP_INTEGRATION_RESPONSE: &str =
    "application/vnd.awslambda.http-integration-response";

/// What separates a streamed response's prelude from its body.
pub(crate) const PRELUDE_SEPARATOR: [u8; 8] = [0; 8];

/// An HTTP answer of the front: status, headers, whole body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpAnswer {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Bytes,
}

impl HttpAnswer {
    /// A JSON or text answer of the front itself.
    pub fn plain(status: StatusCode, content_type: &'static str, body: impl Into<Bytes>) -> Self {
        Self {
            status,
            headers: vec![(
                axum::http::header::CONTENT_TYPE,
                HeaderValue::from_static(content_type),
            )],
            body: body.into(),
        }
    }
}

/// The head of an HTTP answer (a streamed response's prelude).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HttpHead {
    pub status: StatusCode,
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

/// Why a function's answer cannot be an HTTP response.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Malformed(pub String);

fn header_pair(name: &str, value: &str) -> Option<(HeaderName, HeaderValue)> {
    Some((
        HeaderName::from_bytes(name.as_bytes()).ok()?,
        HeaderValue::from_str(value).ok()?,
    ))
}

fn json_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The head of a response object: `statusCode`, `headers` (and `multiValueHeaders`),
/// `cookies` as `Set-Cookie`.
fn head_of(object: &Map<String, Value>) -> Result<HttpHead, Malformed> {
    let status = object
        .get("statusCode")
        .and_then(|status| {
            status
                .as_u64()
                .or_else(|| status.as_str().and_then(|text| text.parse().ok()))
        })
        .and_then(|status| u16::try_from(status).ok())
        .and_then(|status| StatusCode::from_u16(status).ok())
        .ok_or_else(|| Malformed("the response's statusCode is not an HTTP status".into()))?;
    let mut headers = Vec::new();
    if let Some(Value::Object(map)) = object.get("headers") {
        for (name, value) in map {
            headers.extend(header_pair(name, &json_text(value)));
        }
    }
    if let Some(Value::Object(map)) = object.get("multiValueHeaders") {
        for (name, values) in map {
            if headers
                .iter()
                .any(|(existing, _)| existing.as_str().eq_ignore_ascii_case(name))
            {
                continue;
            }
            for value in values.as_array().into_iter().flatten() {
                headers.extend(header_pair(name, &json_text(value)));
            }
        }
    }
    for cookie in object
        .get("cookies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        headers.extend(header_pair("set-cookie", &json_text(cookie)));
    }
    Ok(HttpHead { status, headers })
}

/// A buffered response of the function as the front's HTTP answer.
///
/// # Errors
/// [`Malformed`] when the front would not accept it (API Gateway's 502).
pub(crate) fn answer(shape: EventShape, payload: &[u8]) -> Result<HttpAnswer, Malformed> {
    let value: Value = serde_json::from_slice(payload)
        .map_err(|error| Malformed(format!("the response is not JSON: {error}")))?;
    let object = match (&value, shape) {
        (Value::Object(object), _) if object.contains_key("statusCode") => object,
        (_, EventShape::ApigwV1) => {
            return Err(Malformed("the response has no statusCode".into()));
        }
        // Payload 2.0 infers a response without statusCode: 200, JSON, the value itself.
        (other, _) => {
            return Ok(HttpAnswer::plain(
                StatusCode::OK,
                "application/json",
                other.to_string(),
            ));
        }
    };
    let head = head_of(object)?;
    let body = match object.get("body") {
        None | Some(Value::Null) => Bytes::new(),
        Some(body) => {
            let text = json_text(body);
            if object.get("isBase64Encoded").and_then(Value::as_bool) == Some(true) {
                Bytes::from(
                    base64::engine::general_purpose::STANDARD
                        .decode(text.as_bytes())
                        .map_err(|error| {
                            Malformed(format!("the body is not valid base64: {error}"))
                        })?,
                )
            } else {
                Bytes::from(text)
            }
        }
    };
    Ok(HttpAnswer {
        status: head.status,
        headers: head.headers,
        body,
    })
}

/// The prelude of a streamed HTTP integration response.
///
/// # Errors
/// [`Malformed`] when it is not a JSON object with a `statusCode`.
pub(crate) fn prelude(bytes: &[u8]) -> Result<HttpHead, Malformed> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => head_of(&object),
        _ => Err(Malformed(
            "the streamed response's prelude is not JSON".into(),
        )),
    }
}

/// What the caller gets when the function failed (an invoke or init error, a timeout, a
/// malformed answer), per front:
///
/// - Function URL: 502 `Internal Server Error` (its answer to a function error; the
///   function's own status codes pass: aws-lambda-developer-guide issue 430 and
///   "Invoking Lambda function URLs").
/// - API Gateway REST API: 502 `{"message": "Internal server error"}` ("Handling Lambda
///   errors with an API Gateway API",
///   <https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html>).
/// - API Gateway HTTP API: 500 `{"message":"Internal Server Error"}` ("Troubleshooting
///   issues with HTTP API Lambda integrations",
///   <https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-troubleshooting-lambda.html>).
pub(crate) fn function_error(shape: EventShape) -> HttpAnswer {
    match shape {
        EventShape::FunctionUrl => HttpAnswer::plain(
            StatusCode::BAD_GATEWAY,
            "application/json",
            "Internal Server Error",
        ),
        EventShape::ApigwV2 => HttpAnswer::plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            "application/json",
            r#"{"message":"Internal Server Error"}"#,
        ),
        EventShape::ApigwV1 => HttpAnswer::plain(
            StatusCode::BAD_GATEWAY,
            "application/json",
            r#"{"message": "Internal server error"}"#,
        ),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn responses_become_http_answers_per_format() {
        let answer = answer(
            EventShape::FunctionUrl,
            br#"{"statusCode":201,"headers":{"x-a":"1"},"cookies":["c=1"],"body":"aGk=","isBase64Encoded":true}"#,
        )
        .unwrap();
        assert_eq!(answer.status, StatusCode::CREATED);
        assert_eq!(answer.body, Bytes::from_static(b"hi"));
        assert!(
            answer
                .headers
                .iter()
                .any(|(name, value)| name == "set-cookie" && value == "c=1")
        );
        let inferred = super::answer(EventShape::ApigwV2, br#"{"hello":1}"#).unwrap();
        assert_eq!(inferred.status, StatusCode::OK);
        assert_eq!(inferred.body, Bytes::from_static(br#"{"hello":1}"#));
        let refused = super::answer(EventShape::ApigwV1, br#"{"hello":1}"#).unwrap_err();
        assert_eq!(refused.to_string(), "the response has no statusCode");
        let multi = super::answer(
            EventShape::ApigwV1,
            br#"{"statusCode":"200","multiValueHeaders":{"x-b":["1","2"]},"body":"ok"}"#,
        )
        .unwrap();
        assert_eq!(multi.headers.len(), 2);
    }
}
