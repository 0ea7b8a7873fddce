//! The events the front hands the function, built from each HTTP request (never canned):
//! a Function URL's and an HTTP API's (payload format 2.0: "Invoking Lambda function
//! URLs", <https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html#urls-payloads>),
//! a REST API's proxy event (payload format 1.0: "Lambda proxy integrations in API
//! Gateway",
//! <https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#api-gateway-simple-proxy-for-lambda-input-format>).

use std::net::IpAddr;
use std::time::SystemTime;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use base64::Engine as _;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::macros::format_description;

use super::config::EventShape;

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
                "cognitoIdentityPoolId": null,
                "accountId": null,
                "cognitoIdentityId": null,
                "caller": null,
                "sourceIp": request.source_ip.to_string(),
                "principalOrgId": null,
                "accessKey": null,
                "cognitoAuthenticationType": null,
                "cognitoAuthenticationProvider": null,
                "userArn": null,
                "userAgent": user_agent(request),
                "user": null,
            },
            "domainName": host,
            "apiId": prefix,
        },
        "body": body,
        "isBase64Encoded": base64,
    })
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
}
