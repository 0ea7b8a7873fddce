//! The events the front hands the function (built from the HTTP request, never canned),
//! and how the function's answer becomes an HTTP response, in each front's format.
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

use std::net::IpAddr;
use std::time::SystemTime;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use base64::Engine as _;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::macros::format_description;

use super::config::EventShape;

/// The content type of a streamed HTTP integration response (prelude, separator, body).
pub(crate) const HTTP_INTEGRATION_RESPONSE: &str =
    "application/vnd.awslambda.http-integration-response";

/// What separates a streamed response's prelude from its body.
pub(crate) const PRELUDE_SEPARATOR: [u8; 8] = [0; 8];

/// An HTTP request, as the front received it.
#[derive(Debug, Clone)]
pub(crate) struct HttpRequest {
    pub method: String,
    /// The path, percent-encoded as sent.
    pub path: String,
    /// The query string, without `?` (empty without one).
    pub query: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub source_ip: IpAddr,
}

/// What builds the event: the shape, the stage, the request id the front gave it.
pub(crate) struct EventContext<'a> {
    pub shape: EventShape,
    pub stage: &'a str,
    pub request_id: &'a str,
    pub account: &'a str,
}

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

/// The event for `request`.
pub(crate) fn event(request: &HttpRequest, context: &EventContext<'_>) -> Value {
    match context.shape {
        EventShape::FunctionUrl | EventShape::ApigwV2 => v2_event(request, context),
        EventShape::ApigwV1 => v1_event(request, context),
    }
}

/// `05/Dec/2026:10:15:21 +0000`, the time format of both payload versions.
fn request_time(at: SystemTime) -> String {
    let at = OffsetDateTime::from(at);
    at.format(format_description!(
        "[day]/[month repr:short]/[year]:[hour]:[minute]:[second] +0000"
    ))
    .unwrap_or_default()
}

fn epoch_millis(at: SystemTime) -> u64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map(|since| u64::try_from(since.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Whether a body of this content type travels as text (else base64), as Function URLs
/// and API Gateway decide: text types, JSON, XML, JavaScript, forms.
fn is_text(headers: &HeaderMap, body: &[u8]) -> bool {
    let content_type = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let textual = content_type.is_empty()
        || content_type.starts_with("text/")
        || ["json", "xml", "javascript", "x-www-form-urlencoded", "yaml"]
            .iter()
            .any(|kind| content_type.contains(kind));
    textual && std::str::from_utf8(body).is_ok()
}

/// The body and whether it is base64-encoded.
fn body_of(request: &HttpRequest) -> (Option<String>, bool) {
    if request.body.is_empty() {
        return (None, false);
    }
    if is_text(&request.headers, &request.body) {
        (
            Some(String::from_utf8_lossy(&request.body).into_owned()),
            false,
        )
    } else {
        (
            Some(base64::engine::general_purpose::STANDARD.encode(&request.body)),
            true,
        )
    }
}

/// The header names in lower case, the values of a repeated header joined with `,`
/// (payload format 2.0).
fn joined_headers(headers: &HeaderMap, skip_cookie: bool) -> Map<String, Value> {
    let mut joined: Map<String, Value> = Map::new();
    for (name, value) in headers {
        if skip_cookie && name == axum::http::header::COOKIE {
            continue;
        }
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match joined.get_mut(name.as_str()) {
            Some(Value::String(existing)) => {
                existing.push(',');
                existing.push_str(&value);
            }
            _ => {
                joined.insert(name.as_str().to_owned(), Value::String(value));
            }
        }
    }
    joined
}

/// The query's parameters, decoded, in order.
fn query_pairs(query: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.as_bytes())
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

fn host(request: &HttpRequest) -> String {
    request
        .headers
        .get(axum::http::header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or("localhost")
        .to_owned()
}

fn user_agent(request: &HttpRequest) -> String {
    request
        .headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|agent| agent.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// The headers a Function URL and API Gateway add: where the call came from.
fn forwarded(request: &HttpRequest) -> HeaderMap {
    let mut headers = request.headers.clone();
    let port = host(request)
        .rsplit_once(':')
        .map_or("80".to_owned(), |(_, port)| port.to_owned());
    let insert = |headers: &mut HeaderMap, name: &'static str, value: String| {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    };
    insert(
        &mut headers,
        "x-forwarded-for",
        request.source_ip.to_string(),
    );
    insert(&mut headers, "x-forwarded-port", port);
    insert(&mut headers, "x-forwarded-proto", "http".to_owned());
    headers
}

/// Payload format 2.0: a Function URL's event, or an HTTP API's.
fn v2_event(request: &HttpRequest, context: &EventContext<'_>) -> Value {
    let now = SystemTime::now();
    let host = host(request);
    let headers = forwarded(request);
    let cookies: Vec<Value> = request
        .headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .map(str::trim)
        .filter(|cookie| !cookie.is_empty())
        .map(|cookie| Value::String(cookie.to_owned()))
        .collect();
    let mut parameters: Map<String, Value> = Map::new();
    for (name, value) in query_pairs(&request.query) {
        match parameters.get_mut(&name) {
            Some(Value::String(existing)) => {
                existing.push(',');
                existing.push_str(&value);
            }
            _ => {
                parameters.insert(name, Value::String(value));
            }
        }
    }
    let function_url = context.shape == EventShape::FunctionUrl;
    let prefix = host
        .split(['.', ':'])
        .next()
        .unwrap_or("localhost")
        .to_owned();
    let (body, base64) = body_of(request);
    let mut event = json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": request.path,
        "rawQueryString": request.query,
        "headers": joined_headers(&headers, true),
        "requestContext": {
            "accountId": if function_url { "anonymous" } else { context.account },
            "apiId": prefix,
            "domainName": host,
            "domainPrefix": prefix,
            "http": {
                "method": request.method,
                "path": request.path,
                "protocol": "HTTP/1.1",
                "sourceIp": request.source_ip.to_string(),
                "userAgent": user_agent(request),
            },
            "requestId": context.request_id,
            "routeKey": "$default",
            "stage": context.stage,
            "time": request_time(now),
            "timeEpoch": epoch_millis(now),
        },
        "isBase64Encoded": base64,
    });
    if !cookies.is_empty() {
        event["cookies"] = Value::Array(cookies);
    }
    if !parameters.is_empty() {
        event["queryStringParameters"] = Value::Object(parameters);
    }
    if let Some(body) = body {
        event["body"] = Value::String(body);
    }
    event
}

/// Payload format 1.0: a REST API's proxy event on a `/{proxy+}` resource.
fn v1_event(request: &HttpRequest, context: &EventContext<'_>) -> Value {
    let now = SystemTime::now();
    let host = host(request);
    let headers = forwarded(request);
    let mut single: Map<String, Value> = Map::new();
    let mut multi: Map<String, Value> = Map::new();
    for (name, value) in &headers {
        let value = Value::String(String::from_utf8_lossy(value.as_bytes()).into_owned());
        single.insert(name.as_str().to_owned(), value.clone());
        if let Value::Array(values) = multi
            .entry(name.as_str().to_owned())
            .or_insert_with(|| Value::Array(Vec::new()))
        {
            values.push(value);
        }
    }
    let pairs = query_pairs(&request.query);
    let (query, multi_query) = if pairs.is_empty() {
        (Value::Null, Value::Null)
    } else {
        let mut query = Map::new();
        let mut multi_query: Map<String, Value> = Map::new();
        for (name, value) in pairs {
            query.insert(name.clone(), Value::String(value.clone()));
            if let Value::Array(values) = multi_query
                .entry(name)
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                values.push(Value::String(value));
            }
        }
        (Value::Object(query), Value::Object(multi_query))
    };
    let proxy = request.path.trim_start_matches('/');
    let prefix = host
        .split(['.', ':'])
        .next()
        .unwrap_or("localhost")
        .to_owned();
    let stage_path = if context.stage == "$default" {
        request.path.clone()
    } else {
        format!("/{}{}", context.stage, request.path)
    };
    let (body, base64) = body_of(request);
    json!({
        "resource": "/{proxy+}",
        "path": request.path,
        "httpMethod": request.method,
        "headers": single,
        "multiValueHeaders": multi,
        "queryStringParameters": query,
        "multiValueQueryStringParameters": multi_query,
        "pathParameters": if proxy.is_empty() { Value::Null } else { json!({"proxy": proxy}) },
        "stageVariables": Value::Null,
        "requestContext": {
            "resourceId": "local",
            "resourcePath": "/{proxy+}",
            "httpMethod": request.method,
            "extendedRequestId": context.request_id,
            "requestTime": request_time(now),
            "path": stage_path,
            "accountId": context.account,
            "protocol": "HTTP/1.1",
            "stage": context.stage,
            "domainPrefix": prefix,
            "requestTimeEpoch": epoch_millis(now),
            "requestId": context.request_id,
            "identity": {
                "sourceIp": request.source_ip.to_string(),
                "userAgent": user_agent(request),
            },
            "domainName": host,
            "apiId": prefix,
        },
        "body": body,
        "isBase64Encoded": base64,
    })
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

    fn request(method: &str, path: &str, query: &str, body: &str) -> HttpRequest {
        let mut headers = HeaderMap::new();
        headers.insert("host", HeaderValue::from_static("127.0.0.1:9000"));
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.append("cookie", HeaderValue::from_static("a=1; b=2"));
        headers.insert("user-agent", HeaderValue::from_static("test/1"));
        HttpRequest {
            method: method.to_owned(),
            path: path.to_owned(),
            query: query.to_owned(),
            headers,
            body: Bytes::from(body.to_owned()),
            source_ip: "127.0.0.1".parse().unwrap(),
        }
    }

    fn context(shape: EventShape) -> EventContext<'static> {
        EventContext {
            shape,
            stage: "$default",
            request_id: "req-1",
            account: "123456789012",
        }
    }

    #[test]
    fn a_function_url_event_carries_the_request() {
        let event = event(
            &request("POST", "/a/b", "x=1&x=2&y=%20z", "{}"),
            &context(EventShape::FunctionUrl),
        );
        assert_eq!(event["version"], "2.0");
        assert_eq!(event["rawPath"], "/a/b");
        assert_eq!(event["rawQueryString"], "x=1&x=2&y=%20z");
        assert_eq!(
            event["queryStringParameters"],
            json!({"x": "1,2", "y": " z"})
        );
        assert_eq!(event["cookies"], json!(["a=1", "b=2"]));
        assert!(event["headers"].get("cookie").is_none());
        assert_eq!(event["headers"]["x-forwarded-proto"], "http");
        assert_eq!(event["headers"]["x-forwarded-port"], "9000");
        assert_eq!(event["requestContext"]["http"]["method"], "POST");
        assert_eq!(event["requestContext"]["accountId"], "anonymous");
        assert_eq!(event["requestContext"]["requestId"], "req-1");
        assert_eq!(event["body"], "{}");
        assert_eq!(event["isBase64Encoded"], false);
    }

    #[test]
    fn a_rest_api_event_has_multi_value_fields_and_the_stage_in_its_context_path() {
        let mut context = context(EventShape::ApigwV1);
        context.stage = "prod";
        let event = event(&request("GET", "/tasks/1", "a=1&a=2", ""), &context);
        assert_eq!(event["httpMethod"], "GET");
        assert_eq!(event["path"], "/tasks/1");
        assert_eq!(event["requestContext"]["path"], "/prod/tasks/1");
        assert_eq!(event["pathParameters"], json!({"proxy": "tasks/1"}));
        assert_eq!(event["queryStringParameters"], json!({"a": "2"}));
        assert_eq!(
            event["multiValueQueryStringParameters"],
            json!({"a": ["1", "2"]})
        );
        assert_eq!(event["multiValueHeaders"]["cookie"], json!(["a=1; b=2"]));
        assert_eq!(event["body"], Value::Null);
    }

    #[test]
    fn a_binary_body_travels_base64() {
        let mut request = request("POST", "/", "", "");
        request.headers.insert(
            "content-type",
            HeaderValue::from_static("application/octet-stream"),
        );
        request.body = Bytes::from_static(&[0xff, 0x00]);
        let event = event(&request, &context(EventShape::FunctionUrl));
        assert_eq!(event["body"], "/wA=");
        assert_eq!(event["isBase64Encoded"], true);
    }

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
