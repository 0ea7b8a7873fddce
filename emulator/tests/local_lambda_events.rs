#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! What the function receives from the local Lambda: events with every field of AWS's own
//! (the fixtures recorded from Function URLs and API Gateway), built from the request;
//! and the environment Lambda gives a runtime.

mod local_lambda_support;

use std::collections::BTreeSet;

use a2a_lambda_emulator::lambda::{EventShape, LocalLambda};
use local_lambda_support::*;
use serde_json::Value;

const FUNCTION_URL: &str =
    include_str!("../../functions/lambda/tests/fixtures/function_url_send_v0_3.json");
const HTTP_API: &str =
    include_str!("../../functions/lambda/tests/fixtures/apigw_v2_stage_get_card.json");
const REST_API: &str =
    include_str!("../../functions/lambda/tests/fixtures/apigw_v1_prod_send.json");

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .map(|object| object.keys().cloned().collect())
        .unwrap_or_default()
}

/// Every key of AWS's `fixture` at `path` is in `event` there too.
fn assert_has_fields(event: &Value, fixture: &Value, path: &[&str]) {
    let at = |value: &Value| {
        path.iter()
            .fold(value.clone(), |value, key| value[key].clone())
    };
    let missing: Vec<String> = keys(&at(fixture))
        .difference(&keys(&at(event)))
        .cloned()
        .collect();
    assert!(missing.is_empty(), "{path:?} lacks {missing:?}: {event:#}");
}

/// The event a shell function received for a POST of `body` to `path` on a front of
/// `shape`.
async fn received(shape: EventShape, path: &str, body: &str) -> Value {
    let scratch = Scratch::new("event");
    let file = scratch.path("event.json");
    let handle = format!(
        "printf '%s' \"$event\" > '{}'; {RESPOND_OK}",
        file.display()
    );
    let lambda = start(
        LocalLambda::new(shell_function(&scratch.0, "", &handle))
            .port(0)
            .event(shape),
    )
    .await;
    let answer = reqwest::Client::new()
        .post(format!("{}{path}", lambda.base_url()))
        .header("content-type", "application/json")
        .header("cookie", "a=1; b=2")
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    lambda.shutdown().await.unwrap();
    serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap()
}

#[tokio::test]
async fn a_function_url_event_has_every_field_of_aws_s_and_carries_the_request() {
    let fixture: Value = serde_json::from_str(FUNCTION_URL).unwrap();
    let event = received(EventShape::FunctionUrl, "/a/b?x=1&x=2", r#"{"hello":1}"#).await;
    for path in [&[][..], &["requestContext"], &["requestContext", "http"]] {
        assert_has_fields(&event, &fixture, path);
    }
    assert_eq!(event["version"], "2.0");
    assert_eq!(event["rawPath"], "/a/b");
    assert_eq!(event["rawQueryString"], "x=1&x=2");
    assert_eq!(event["queryStringParameters"]["x"], "1,2");
    assert_eq!(event["cookies"], serde_json::json!(["a=1", "b=2"]));
    assert_eq!(event["body"], r#"{"hello":1}"#);
    assert_eq!(event["requestContext"]["http"]["method"], "POST");
    assert_eq!(event["requestContext"]["accountId"], "anonymous");
    assert_eq!(event["headers"]["content-type"], "application/json");
}

#[tokio::test]
async fn api_gateway_events_have_every_field_of_aws_s() {
    let fixture: Value = serde_json::from_str(HTTP_API).unwrap();
    let event = received(EventShape::ApigwV2, "/x", "{}").await;
    for path in [&[][..], &["requestContext"], &["requestContext", "http"]] {
        let mut fixture = fixture.clone();
        // A `$default` route has no path parameters or stage variables to name.
        if path.is_empty() {
            let object = fixture.as_object_mut().unwrap();
            object.remove("pathParameters");
            object.remove("stageVariables");
        }
        assert_has_fields(&event, &fixture, path);
    }
    assert_eq!(event["routeKey"], "$default");
    assert_eq!(event["requestContext"]["accountId"], "123456789012");

    let fixture: Value = serde_json::from_str(REST_API).unwrap();
    let event = received(EventShape::ApigwV1, "/tasks/1?a=1&a=2", "{}").await;
    for path in [
        &[][..],
        &["requestContext"],
        &["requestContext", "identity"],
    ] {
        assert_has_fields(&event, &fixture, path);
    }
    assert_eq!(event["httpMethod"], "POST");
    assert_eq!(event["path"], "/tasks/1");
    assert_eq!(event["resource"], "/{proxy+}");
    assert_eq!(event["pathParameters"]["proxy"], "tasks/1");
    assert_eq!(
        event["multiValueQueryStringParameters"]["a"],
        serde_json::json!(["1", "2"])
    );
    assert_eq!(
        event["multiValueHeaders"]["cookie"],
        serde_json::json!(["a=1; b=2"])
    );
}

#[tokio::test]
async fn the_function_gets_lambda_s_reserved_variables_and_its_own_only() {
    let scratch = Scratch::new("env");
    let file = scratch.path("env");
    let handle = format!("env > '{}'; {RESPOND_OK}", file.display());
    let binary = shell_function(&scratch.0, "", &handle);
    let lambda = start(
        LocalLambda::new(&binary)
            .port(0)
            .function_name("my-fn")
            .memory_mb(512)
            .region("eu-west-1")
            .max_concurrency(4)
            .env("A2A_AGENT", "echo"),
    )
    .await;
    let answer = reqwest::get(lambda.base_url()).await.unwrap();
    assert_eq!(answer.status(), 200);
    lambda.shutdown().await.unwrap();
    let env: std::collections::HashMap<String, String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    for (name, value) in [
        ("AWS_LAMBDA_FUNCTION_NAME", "my-fn"),
        ("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512"),
        ("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST"),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand"),
        ("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/my-fn"),
        ("AWS_LAMBDA_MAX_CONCURRENCY", "4"),
        ("AWS_REGION", "eu-west-1"),
        ("AWS_DEFAULT_REGION", "eu-west-1"),
        ("_HANDLER", "bootstrap"),
        ("LAMBDA_TASK_ROOT", &scratch.0.display().to_string()),
        ("TZ", ":UTC"),
        ("A2A_AGENT", "echo"),
    ] {
        assert_eq!(
            env.get(name).map(String::as_str),
            Some(value),
            "{name}: {env:#?}"
        );
    }
    let api = &env["AWS_LAMBDA_RUNTIME_API"];
    assert!(api.starts_with("127.0.0.1:"), "{api}");
    assert!(env["AWS_LAMBDA_LOG_STREAM_NAME"].starts_with("$LATEST/"));
    // The emulator's own environment is not the function's.
    for name in ["HOME", "CARGO", "RUST_LOG"] {
        assert!(!env.contains_key(name), "{name} leaked: {env:#?}");
    }
}
