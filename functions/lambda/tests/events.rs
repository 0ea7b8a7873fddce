//! The function's service fed real event shapes: each JSON fixture (Lambda Function URL,
//! API Gateway HTTP API v2, API Gateway REST v1 with and without a stage, ALB, and the
//! local Function URL events of `cargo lambda watch`) becomes a
//! request through `lambda_http::request::from_str`, exactly as the runtime builds it, and
//! the app answers it with `oneshot`. Responses are asserted whole: status, content type,
//! JSON body.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;

use a2a_lambda::Config;
use a2a_test_support::lambda::{
    FUNCTION_URL_HOST, echo_card, echo_send_v0_3, echo_send_v1_0, is_uuid, redact, rpc_error,
    unauthorized_body, unknown_method_error, with_api_key_scheme,
};
use a2a_test_support::sse;
use axum::http::{HeaderMap, StatusCode, header};
use http_body_util::BodyExt as _;
use lambda_http::RequestExt as _;
use lambda_http::request::RequestContext;
use serde_json::{Value, json};
use tower::{Service as _, ServiceExt as _};

const FURL_CARD: &str = include_str!("fixtures/function_url_get_card.json");
const FURL_SEND_V0_3: &str = include_str!("fixtures/function_url_send_v0_3.json");
const FURL_SEND_V1_0: &str = include_str!("fixtures/function_url_send_v1_0.json");
const FURL_CREATE_PUSH_V1_0: &str =
    include_str!("fixtures/function_url_create_push_config_v1_0.json");
const FURL_SEND_BASE64: &str = include_str!("fixtures/function_url_send_base64.json");
const FURL_UNKNOWN_METHOD: &str = include_str!("fixtures/function_url_unknown_method.json");
const FURL_STREAM: &str = include_str!("fixtures/function_url_stream_v0_3.json");
const FURL_STREAM_SLOW: &str = include_str!("fixtures/function_url_stream_slow.json");
const HTTP_API_SEND_QUERY_VERSION: &str = include_str!("fixtures/apigw_v2_send_query_version.json");
const HTTP_API_STAGE_CARD: &str = include_str!("fixtures/apigw_v2_stage_get_card.json");
const REST_PROD_SEND: &str = include_str!("fixtures/apigw_v1_prod_send.json");
const REST_PROD_SEND_PREFIXED: &str =
    include_str!("fixtures/apigw_v1_prod_send_prefixed_path.json");
const REST_PROD_CARD: &str = include_str!("fixtures/apigw_v1_prod_get_card.json");
const REST_NO_STAGE_SEND: &str = include_str!("fixtures/apigw_v1_no_stage_send.json");
const ALB_SEND_BASE64: &str = include_str!("fixtures/alb_send_base64.json");
const ALB_CARD: &str = include_str!("fixtures/alb_get_card.json");
/// Captured from `cargo lambda watch -A 127.0.0.1 -P 9001` (cargo-lambda 1.9.2) for
/// `GET /lambda-url/a2a-agent/.well-known/agent-card.json` and `POST /lambda-url/a2a-agent/`
/// (request ids replaced).
const WATCH_CARD: &str = include_str!("fixtures/cargo_lambda_watch_get_card.json");
const WATCH_SEND_V1_0: &str = include_str!("fixtures/cargo_lambda_watch_send_v1_0.json");

const REST_HOST: &str = "k9l8m7n6o5.execute-api.us-east-1.amazonaws.com";
const HTTP_API_HOST: &str = "r2d2c3po4e.execute-api.eu-west-1.amazonaws.com";
const ALB_HOST: &str = "a2a-alb-1234567890.us-east-1.elb.amazonaws.com";
const API_KEY: &str = "s3cret-key-0123456789";
const WATCH_HOST: &str = "127.0.0.1:9001";
const WATCH_URL: &str = "http://127.0.0.1:9001/lambda-url/a2a-agent/";

/// The echo agent's card as the function serves it by default: push notifications on.
fn pushing_card(url: &str, streaming: bool) -> Value {
    let mut card = echo_card(url, streaming);
    card["capabilities"]["pushNotifications"] = json!(true);
    card
}

fn config(vars: &[(&str, &str)]) -> Config {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    Config::from_lookup(|name| vars.get(name).cloned()).expect("valid configuration")
}

/// Which event shape `lambda_http` recognised.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    RestV1,
    HttpV2,
    Alb,
}

fn shape(request: &lambda_http::Request) -> Shape {
    match request.request_context_ref().expect("a request context") {
        RequestContext::ApiGatewayV1(_) => Shape::RestV1,
        RequestContext::ApiGatewayV2(_) => Shape::HttpV2,
        RequestContext::Alb(_) => Shape::Alb,
        other => panic!("unexpected event shape {other:?}"),
    }
}

/// The fixture with `edit` applied to its JSON.
fn edited(fixture: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut event: Value = serde_json::from_str(fixture).expect("fixture is JSON");
    edit(&mut event);
    event.to_string()
}

/// The fixture with one more request header (in `multiValueHeaders` too when the shape
/// has them).
fn with_header(fixture: &str, name: &str, value: &str) -> String {
    edited(fixture, |event| {
        event["headers"][name] = json!(value);
        if event.get("multiValueHeaders").is_some() {
            event["multiValueHeaders"][name] = json!([value]);
        }
    })
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn content_type(&self) -> Option<&str> {
        self.headers
            .get(header::CONTENT_TYPE)
            .map(|value| value.to_str().unwrap())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }

    /// A JSON answer: the status, `application/json`, and the body.
    fn expect_json(&self, status: u16) -> Value {
        assert_eq!(self.status.as_u16(), status, "{}", self.body);
        assert_eq!(
            self.content_type(),
            Some("application/json"),
            "{}",
            self.body
        );
        self.json()
    }
}

/// The request `lambda_http` builds from the event JSON.
fn request(event: &str) -> lambda_http::Request {
    lambda_http::request::from_str(event).expect("the event deserializes")
}

async fn call(config: &Config, event: &str) -> Answer {
    let (app, _) = a2a_lambda::Lambda::new(a2a_lambda_server::agents::EchoAgent)
        .config(config.clone())
        .into_app()
        .expect("app");
    let response = app.oneshot(request(event)).await.expect("the app answers");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8(bytes.to_vec()).expect("UTF-8 body"),
    }
}

async fn card(config: &Config, event: &str) -> Value {
    let answer = call(config, event).await;
    let card = answer.expect_json(200);
    assert_eq!(
        answer.headers.get(header::CACHE_CONTROL).unwrap(),
        "public, max-age=300"
    );
    assert!(answer.headers.contains_key(header::ETAG));
    card
}

#[test]
fn each_fixture_deserializes_as_its_event_shape() {
    let furl = format!("https://{FUNCTION_URL_HOST}");
    let cases = [
        (
            FURL_CARD,
            Shape::HttpV2,
            "GET",
            format!("{furl}/.well-known/agent-card.json"),
        ),
        (FURL_SEND_V0_3, Shape::HttpV2, "POST", format!("{furl}/")),
        (FURL_SEND_V1_0, Shape::HttpV2, "POST", format!("{furl}/")),
        (FURL_SEND_BASE64, Shape::HttpV2, "POST", format!("{furl}/")),
        (
            FURL_UNKNOWN_METHOD,
            Shape::HttpV2,
            "POST",
            format!("{furl}/"),
        ),
        (FURL_STREAM, Shape::HttpV2, "POST", format!("{furl}/")),
        (FURL_STREAM_SLOW, Shape::HttpV2, "POST", format!("{furl}/")),
        (
            HTTP_API_SEND_QUERY_VERSION,
            Shape::HttpV2,
            "POST",
            format!("https://{HTTP_API_HOST}/?A2A-Version=1.0"),
        ),
        (
            HTTP_API_STAGE_CARD,
            Shape::HttpV2,
            "GET",
            format!("https://{HTTP_API_HOST}/dev/.well-known/agent-card.json"),
        ),
        // REST v1 with a named stage: lambda_http puts the stage in front of the path.
        (
            REST_PROD_SEND,
            Shape::RestV1,
            "POST",
            format!("https://{REST_HOST}/prod/"),
        ),
        (
            REST_PROD_SEND_PREFIXED,
            Shape::RestV1,
            "POST",
            format!("https://{REST_HOST}/prod/"),
        ),
        (
            REST_PROD_CARD,
            Shape::RestV1,
            "GET",
            format!("https://{REST_HOST}/prod/.well-known/agent-card.json"),
        ),
        (
            REST_NO_STAGE_SEND,
            Shape::RestV1,
            "POST",
            format!("https://{REST_HOST}/"),
        ),
        (
            ALB_SEND_BASE64,
            Shape::Alb,
            "POST",
            format!("https://{ALB_HOST}/"),
        ),
        (
            ALB_CARD,
            Shape::Alb,
            "GET",
            format!("http://{ALB_HOST}/.well-known/agent-card.json"),
        ),
        // cargo lambda watch: the `/lambda-url/a2a-agent` prefix is not in the event's
        // path, and without `X-Forwarded-Proto` lambda_http assumes https.
        (
            WATCH_CARD,
            Shape::HttpV2,
            "GET",
            format!("https://{WATCH_HOST}/.well-known/agent-card.json"),
        ),
        (
            WATCH_SEND_V1_0,
            Shape::HttpV2,
            "POST",
            format!("https://{WATCH_HOST}/"),
        ),
    ];
    for (fixture, expected_shape, method, uri) in cases {
        let request = request(fixture);
        assert_eq!(shape(&request), expected_shape, "{uri}");
        assert_eq!(request.method(), method, "{uri}");
        assert_eq!(request.uri().to_string(), uri);
    }
}

// ---- Lambda Function URL (HTTP API v2 shape, stage `$default`) ----

#[tokio::test]
async fn function_url_get_card_advertises_the_function_url() {
    let card = card(&config(&[]), FURL_CARD).await;
    assert_eq!(
        card,
        pushing_card(&format!("https://{FUNCTION_URL_HOST}/"), false)
    );
}

#[tokio::test]
async fn function_url_message_send_v0_3_completes_with_the_echo() {
    let answer = call(&config(&[]), FURL_SEND_V0_3).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v0_3(json!(1), &body, "furl-send-1", "hello from a function url")
    );
    let request_id = answer
        .headers
        .get("x-request-id")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(is_uuid(request_id), "{request_id}");
}

#[tokio::test]
async fn function_url_send_message_v1_0_with_the_version_header() {
    let answer = call(&config(&[]), FURL_SEND_V1_0).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(json!("v1-send"), &body, "furl-send-2", "hello v1")
    );
}

#[tokio::test]
async fn function_url_base64_body_is_decoded() {
    let answer = call(&config(&[]), FURL_SEND_BASE64).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v0_3(json!("b64"), &body, "furl-base64-1", "encoded hello")
    );
}

#[tokio::test]
async fn function_url_unknown_method_is_method_not_found() {
    let answer = call(&config(&[]), FURL_UNKNOWN_METHOD).await;
    assert_eq!(answer.expect_json(200), unknown_method_error());
}

#[tokio::test]
async fn function_url_ping_is_healthy() {
    let event = edited(FURL_CARD, |event| {
        event["rawPath"] = json!("/ping");
        event["requestContext"]["http"]["path"] = json!("/ping");
    });
    let answer = call(&config(&[]), &event).await;
    assert_healthy(&answer.expect_json(200));
}

/// `{"status":"Healthy","time_of_last_update":<unix seconds>}`.
fn assert_healthy(ping: &Value) {
    assert_eq!(ping["status"], "Healthy", "{ping}");
    let since = ping["time_of_last_update"].as_u64().expect("Unix seconds");
    assert!(since > 1_700_000_000, "{ping}");
    assert_eq!(ping.as_object().unwrap().len(), 2, "{ping}");
}

#[tokio::test]
async fn body_over_the_limit_is_an_invalid_request() {
    let answer = call(&config(&[("A2A_MAX_BODY_BYTES", "64")]), FURL_SEND_V0_3).await;
    assert_eq!(
        answer.expect_json(200),
        rpc_error(
            Value::Null,
            -32600,
            "Request payload validation error",
            "INVALID_REQUEST",
            "the body is larger than 64 bytes"
        )
    );
}

// ---- API Gateway HTTP API (v2) ----

#[tokio::test]
async fn http_api_v2_send_with_the_version_in_the_query() {
    let answer = call(&config(&[]), HTTP_API_SEND_QUERY_VERSION).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(json!(42), &body, "httpapi-1", "via http api")
    );
}

#[tokio::test]
async fn http_api_v2_named_stage_card_url_keeps_the_stage() {
    let card = card(&config(&[]), HTTP_API_STAGE_CARD).await;
    assert_eq!(
        card,
        pushing_card(&format!("https://{HTTP_API_HOST}/dev/"), false)
    );
}

/// A named HTTP API stage puts the stage in `rawPath`; a POST to the stage root without
/// the trailing slash (`https://{host}/dev`) arrives as `rawPath: "/dev"`, which
/// `lambda_http` turns into `/dev/dev` (it only recognises `/dev/…` as prefixed). The
/// function must still answer JSON-RPC there, as it does for `/dev/`.
#[tokio::test]
async fn http_api_v2_named_stage_post_to_the_stage_root() {
    for raw_path in ["/dev/", "/dev"] {
        let event = edited(HTTP_API_SEND_QUERY_VERSION, |event| {
            event["rawPath"] = json!(raw_path);
            event["requestContext"]["http"]["path"] = json!(raw_path);
            event["requestContext"]["stage"] = json!("dev");
        });
        let answer = call(&config(&[]), &event).await;
        let body = answer.expect_json(200);
        assert_eq!(
            redact(&body),
            echo_send_v1_0(json!(42), &body, "httpapi-1", "via http api"),
            "rawPath {raw_path}"
        );
    }
}

// ---- API Gateway REST (v1) ----

#[tokio::test]
async fn rest_v1_prod_stage_post_routes_to_the_agent() {
    let answer = call(&config(&[]), REST_PROD_SEND).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(
            json!("rest-1"),
            &body,
            "rest-send-1",
            "through the prod stage"
        )
    );
}

#[tokio::test]
async fn rest_v1_prod_stage_already_in_the_event_path_routes_too() {
    let answer = call(&config(&[]), REST_PROD_SEND_PREFIXED).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(json!("rest-2"), &body, "rest-send-2", "already prefixed")
    );
}

#[tokio::test]
async fn rest_v1_prod_stage_card_url_includes_the_stage() {
    let card = card(&config(&[]), REST_PROD_CARD).await;
    assert_eq!(
        card,
        pushing_card(&format!("https://{REST_HOST}/prod/"), false)
    );
}

#[tokio::test]
async fn rest_v1_without_a_stage_routes_and_the_card_has_no_prefix() {
    let answer = call(&config(&[]), REST_NO_STAGE_SEND).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(json!("rest-3"), &body, "rest-send-3", "no stage at all")
    );
    let no_stage_card = edited(REST_PROD_CARD, |event| {
        let context = event["requestContext"].as_object_mut().unwrap();
        context.remove("stage");
        context.insert("path".into(), json!("/.well-known/agent-card.json"));
    });
    let card = card(&config(&[]), &no_stage_card).await;
    assert_eq!(card, pushing_card(&format!("https://{REST_HOST}/"), false));
}

#[tokio::test]
async fn rest_v1_prod_stage_version_from_the_query_string() {
    let event = edited(REST_PROD_SEND, |event| {
        let headers = event["headers"].as_object_mut().unwrap();
        headers.remove("A2A-Version");
        let headers = event["multiValueHeaders"].as_object_mut().unwrap();
        headers.remove("A2A-Version");
        event["queryStringParameters"] = json!({"A2A-Version": "1.0"});
        event["multiValueQueryStringParameters"] = json!({"A2A-Version": ["1.0"]});
    });
    let answer = call(&config(&[]), &event).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(
            json!("rest-1"),
            &body,
            "rest-send-1",
            "through the prod stage"
        )
    );
}

/// A REST API test invocation (the console's "Test" button, or an event without
/// headers) has no `Host` header; `lambda_http` then takes the host from
/// `requestContext.domainName`, and so should the card URL — not `https://localhost/`.
#[tokio::test]
async fn rest_v1_card_url_without_a_host_header_uses_the_domain_name() {
    let event = edited(REST_PROD_CARD, |event| {
        event["headers"] = json!({"Accept": "application/json"});
        event["multiValueHeaders"] = json!({"Accept": ["application/json"]});
    });
    let request = request(&event);
    assert_eq!(
        request.uri().to_string(),
        format!("https://{REST_HOST}/prod/.well-known/agent-card.json"),
        "lambda_http knows the host"
    );
    let card = card(&config(&[]), &event).await;
    assert_eq!(card["url"], format!("https://{REST_HOST}/prod/"));
}

// ---- ALB ----

#[tokio::test]
async fn alb_base64_body_is_decoded() {
    let answer = call(&config(&[]), ALB_SEND_BASE64).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v0_3(json!("alb-1"), &body, "alb-send-1", "hello from an alb")
    );
}

#[tokio::test]
async fn alb_card_url_follows_the_forwarded_protocol() {
    let card = card(&config(&[]), ALB_CARD).await;
    assert_eq!(card, pushing_card(&format!("http://{ALB_HOST}/"), false));
}

// ---- Forwarded headers ----

#[tokio::test]
async fn function_url_card_without_a_forwarded_protocol_is_https() {
    let event = edited(FURL_CARD, |event| {
        event["headers"]
            .as_object_mut()
            .unwrap()
            .remove("x-forwarded-proto");
    });
    let card = card(&config(&[]), &event).await;
    assert_eq!(card["url"], format!("https://{FUNCTION_URL_HOST}/"));
}

#[tokio::test]
async fn card_url_follows_the_forwarded_protocol_but_not_a_forwarded_host() {
    // Any client can send X-Forwarded-Host, and the card is publicly cacheable: the card
    // keeps the host the request was routed on.
    let event = with_header(FURL_CARD, "x-forwarded-host", "evil.example");
    let event = with_header(&event, "x-forwarded-proto", "http");
    let card = card(&config(&[]), &event).await;
    assert_eq!(
        card,
        pushing_card(&format!("http://{FUNCTION_URL_HOST}/"), false)
    );
    // Behind a stage the stage stays.
    let event = with_header(REST_PROD_CARD, "X-Forwarded-Proto", "http");
    let card = self::card(&config(&[]), &event).await;
    assert_eq!(card["url"], format!("http://{REST_HOST}/prod/"));
}

// ---- cargo lambda watch (local HTTP API v2 events, plain HTTP) ----

#[tokio::test]
async fn cargo_lambda_watch_card_advertises_the_local_lambda_url() {
    let card = card(&config(&[]), WATCH_CARD).await;
    assert_eq!(card["supportedInterfaces"][0]["url"], WATCH_URL);
    assert_eq!(card["url"], WATCH_URL);
    assert_eq!(card, pushing_card(WATCH_URL, false));
}

#[tokio::test]
async fn cargo_lambda_watch_send_on_the_prefixed_path_completes_with_the_echo() {
    let answer = call(&config(&[]), WATCH_SEND_V1_0).await;
    let body = answer.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v1_0(json!("watch-send"), &body, "watch-send-1", "hello watch")
    );
}

/// The default function (`_`, what `cargo lambda watch` invokes for a path outside
/// `/lambda-url/{function}/`) is served at the root.
#[tokio::test]
async fn cargo_lambda_watch_default_function_is_served_at_the_root() {
    let event = edited(WATCH_CARD, |event| {
        event["requestContext"]["domainPrefix"] = json!("_");
    });
    let card = card(&config(&[]), &event).await;
    assert_eq!(card, pushing_card(&format!("http://{WATCH_HOST}/"), false));
}

/// A TLS proxy in front of `cargo lambda watch` says so with `X-Forwarded-Proto`.
#[tokio::test]
async fn cargo_lambda_watch_behind_a_tls_proxy_is_https() {
    let event = with_header(WATCH_CARD, "x-forwarded-proto", "https");
    let card = card(&config(&[]), &event).await;
    assert_eq!(
        card["url"],
        format!("https://{WATCH_HOST}/lambda-url/a2a-agent/")
    );
}

#[tokio::test]
async fn cargo_lambda_watch_public_url_wins() {
    let url = "https://agents.example.com/a2a/";
    let config = config(&[("A2A_PUBLIC_URL", url)]);
    assert_eq!(card(&config, WATCH_CARD).await, pushing_card(url, false));
}

/// AWS's own HTTP API v2 events never say `localhost`: a Function URL event whose
/// `domainPrefix` happens to be a function's name keeps https and no prefix.
#[tokio::test]
async fn function_url_is_not_taken_for_cargo_lambda_watch() {
    let event = edited(FURL_CARD, |event| {
        event["requestContext"]["domainPrefix"] = json!("a2a-agent");
    });
    let card = card(&config(&[]), &event).await;
    assert_eq!(card["url"], format!("https://{FUNCTION_URL_HOST}/"));
}

// ---- Configuration: public URL, streaming, auth ----

#[tokio::test]
async fn public_url_wins_over_the_request_host_and_stage() {
    let url = "https://agents.example.com/a2a/";
    let config = config(&[("A2A_PUBLIC_URL", url)]);
    for fixture in [FURL_CARD, REST_PROD_CARD, HTTP_API_STAGE_CARD, ALB_CARD] {
        assert_eq!(card(&config, fixture).await, pushing_card(url, false));
    }
    // JSON-RPC is still answered where the requests arrive.
    let body = call(&config, FURL_SEND_V0_3).await.expect_json(200);
    assert_eq!(body["result"]["status"]["state"], "completed", "{body}");
}

#[tokio::test]
async fn buffered_card_does_not_stream_and_stream_methods_are_unsupported() {
    let config = config(&[("A2A_STREAMING", "false")]);
    let card = card(&config, FURL_CARD).await;
    assert_eq!(card["capabilities"]["streaming"], false);
    let answer = call(&config, FURL_STREAM).await;
    assert_eq!(
        answer.expect_json(200),
        rpc_error(
            json!("stream-1"),
            -32004,
            "This operation is not supported",
            "UNSUPPORTED_OPERATION",
            "message/stream: this agent does not stream (capabilities.streaming is false)"
        )
    );
}

#[tokio::test]
async fn streaming_card_streams_and_message_stream_answers_sse() {
    let config = config(&[("A2A_STREAMING", "true")]);
    let card = card(&config, FURL_CARD).await;
    assert_eq!(
        card,
        pushing_card(&format!("https://{FUNCTION_URL_HOST}/"), true)
    );
    let answer = call(&config, FURL_STREAM).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), Some("text/event-stream"));
    let events: Vec<Value> = sse::json(&answer.body);
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| event["result"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"],
        "{}",
        answer.body
    );
    assert_eq!(events[3]["result"]["status"]["state"], "completed");
    assert_eq!(events[3]["result"]["final"], true);
}

#[tokio::test]
async fn api_key_missing_or_wrong_is_401_with_the_json_body() {
    let config = config(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", API_KEY)]);
    let wrong_length = with_header(FURL_SEND_V0_3, "x-api-key", "nope");
    let same_length = with_header(FURL_SEND_V0_3, "x-api-key", "s3cret-key-0123456780");
    let rest_wrong = with_header(REST_PROD_SEND, "X-API-Key", "nope");
    for event in [
        FURL_SEND_V0_3,
        &wrong_length,
        &same_length,
        REST_PROD_SEND,
        &rest_wrong,
    ] {
        let answer = call(&config, event).await;
        assert_eq!(answer.expect_json(401), unauthorized_body());
        assert_eq!(
            answer.headers.get(header::WWW_AUTHENTICATE).unwrap(),
            "ApiKey header=\"X-API-Key\""
        );
    }
}

#[tokio::test]
async fn api_key_right_key_is_answered() {
    let config = config(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", API_KEY)]);
    let event = with_header(FURL_SEND_V0_3, "x-api-key", API_KEY);
    let body = call(&config, &event).await.expect_json(200);
    assert_eq!(
        redact(&body),
        echo_send_v0_3(json!(1), &body, "furl-send-1", "hello from a function url")
    );
    // REST v1 with a stage, the header as API Gateway passes it on.
    let event = with_header(REST_PROD_SEND, "X-API-Key", API_KEY);
    let body = call(&config, &event).await.expect_json(200);
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn api_key_card_and_ping_stay_public_and_the_card_publishes_the_scheme() {
    let config = config(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", API_KEY)]);
    let card = card(&config, FURL_CARD).await;
    assert_eq!(
        card,
        with_api_key_scheme(pushing_card(
            &format!("https://{FUNCTION_URL_HOST}/"),
            false
        ))
    );
    // Behind the REST stage too (the stage is removed before the public-path check).
    let card = self::card(&config, REST_PROD_CARD).await;
    assert_eq!(card["url"], format!("https://{REST_HOST}/prod/"));
    let ping = edited(FURL_CARD, |event| event["rawPath"] = json!("/ping"));
    assert_healthy(&call(&config, &ping).await.expect_json(200));
}

/// Every answer carries `x-request-id` — the router's contract ("returned on every
/// response") — including the API-key refusal, which is logged and correlated like any
/// other request.
#[tokio::test]
async fn api_key_refusal_carries_the_request_id() {
    let config = config(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", API_KEY)]);
    let event = with_header(FURL_SEND_V0_3, "x-request-id", "client-chosen-id");
    let answer = call(&config, &event).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        answer
            .headers
            .get("x-request-id")
            .map(|value| value.to_str().unwrap()),
        Some("client-chosen-id")
    );
}

// ---- Push notifications ----

/// The JSON body of `app`'s HTTP 200 `application/json` answer to `event`.
async fn json_answer(app: &mut a2a_lambda::App, event: &str) -> Value {
    let response = app
        .ready()
        .await
        .expect("ready")
        .call(request(event))
        .await
        .expect("the app answers");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers().get(header::CONTENT_TYPE).unwrap(),
        "application/json"
    );
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

/// `event` carrying another JSON-RPC body (the envelope, headers and context kept).
fn with_body(event: &str, body: &Value) -> String {
    let mut event: Value = serde_json::from_str(event).unwrap();
    event["body"] = Value::String(body.to_string());
    event.to_string()
}

#[tokio::test]
async fn function_url_create_push_config_is_stored_and_listed() {
    let (mut app, _) = a2a_lambda::Lambda::new(a2a_lambda_server::agents::EchoAgent)
        .config(config(&[]))
        .into_app()
        .expect("app");
    let sent = json_answer(&mut app, FURL_SEND_V1_0).await;
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let create = FURL_CREATE_PUSH_V1_0.replace("TASK-ID", &task_id);
    let config = json!({
        "taskId": task_id,
        "id": "hook-1",
        "url": "https://93.184.215.14/a2a?agent=echo",
        "token": "tok-1",
        "authentication": {"scheme": "Bearer", "credentials": "secret-1"},
    });
    assert_eq!(
        json_answer(&mut app, &create).await,
        json!({"jsonrpc": "2.0", "id": "v1-push", "result": config})
    );
    let list = with_body(
        FURL_CREATE_PUSH_V1_0,
        &json!({"jsonrpc": "2.0", "id": "v1-list", "method": "ListTaskPushNotificationConfigs",
                "params": {"taskId": task_id}}),
    );
    assert_eq!(
        json_answer(&mut app, &list).await,
        json!({"jsonrpc": "2.0", "id": "v1-list",
               "result": {"configs": [config], "nextPageToken": ""}})
    );
    // A task nobody made has no configurations to make.
    let unknown = json_answer(&mut app, FURL_CREATE_PUSH_V1_0).await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
}

#[tokio::test]
async fn push_notifications_off_answer_unsupported_and_the_card_says_so() {
    let config = config(&[("A2A_PUSH_NOTIFICATIONS", "off")]);
    assert_eq!(
        card(&config, FURL_CARD).await,
        echo_card(&format!("https://{FUNCTION_URL_HOST}/"), false)
    );
    let answer = call(&config, FURL_CREATE_PUSH_V1_0).await.expect_json(200);
    assert_eq!(
        answer,
        rpc_error(
            json!("v1-push"),
            -32003,
            "Push Notification is not supported",
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
            "CreateTaskPushNotificationConfig: this agent does not send push notifications \
             (capabilities.pushNotifications is false)"
        )
    );
}

#[tokio::test]
async fn function_url_v0_3_set_push_config_names_it_for_the_task() {
    let (mut app, _) = a2a_lambda::Lambda::new(a2a_lambda_server::agents::EchoAgent)
        .config(config(&[]))
        .into_app()
        .expect("app");
    let sent = json_answer(&mut app, FURL_SEND_V0_3).await;
    let task_id = sent["result"]["id"].as_str().unwrap().to_owned();
    let set = with_body(
        FURL_SEND_V0_3,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/pushNotificationConfig/set",
                "params": {"taskId": task_id, "pushNotificationConfig": {
                    "url": "https://93.184.215.14/v03", "token": "t-03"}}}),
    );
    let stored = json!({"taskId": task_id, "pushNotificationConfig": {
        "id": task_id, "url": "https://93.184.215.14/v03", "token": "t-03"}});
    assert_eq!(
        json_answer(&mut app, &set).await,
        json!({"jsonrpc": "2.0", "id": 5, "result": stored})
    );
    let get = with_body(
        FURL_SEND_V0_3,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/pushNotificationConfig/get",
                "params": {"id": task_id}}),
    );
    assert_eq!(
        json_answer(&mut app, &get).await,
        json!({"jsonrpc": "2.0", "id": 6, "result": stored})
    );
}

#[tokio::test]
async fn a_push_store_of_your_own_holds_the_configurations() {
    use a2a_lambda_server::push::{InMemoryPushConfigs, PushConfigStore};
    let store = std::sync::Arc::new(InMemoryPushConfigs::new());
    let (mut app, _) = a2a_lambda::Lambda::new(a2a_lambda_server::agents::EchoAgent)
        .config(config(&[]))
        .push_store(store.clone())
        .into_app()
        .expect("app");
    let sent = json_answer(&mut app, FURL_SEND_V1_0).await;
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();
    let create = FURL_CREATE_PUSH_V1_0.replace("TASK-ID", &task_id);
    assert_eq!(
        json_answer(&mut app, &create).await["result"]["id"],
        "hook-1"
    );
    let held = store.configs(&task_id).await.unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].config.url, "https://93.184.215.14/a2a?agent=echo");
    assert_eq!(
        held[0].version,
        a2a_lambda_core::version::ProtocolVersion::V1_0
    );
}
