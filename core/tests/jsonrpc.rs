//! The JSON-RPC envelope: one test per refusal, asserting the wire object and the echoed id.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_core::ErrorProfile;
use a2a_lambda_core::jsonrpc::{ErrorResponse, Id, MAX_DEPTH, parse_request};
use serde_json::{Value, json};

/// The exact error response (spec profile) for a body, with its HTTP status.
fn refusal(body: &str) -> (u16, Value) {
    let rejection = parse_request(body.as_bytes()).expect_err("body must be refused");
    let (status, response) = ErrorResponse::from_rejection(&rejection, ErrorProfile::Spec);
    (
        status.as_u16(),
        serde_json::to_value(response).expect("serializes"),
    )
}

/// Asserts code, full message and echoed id.
fn assert_refused(body: &str, code: i64, message: &str, id: Value) {
    let (status, response) = refusal(body);
    assert_eq!(
        status, 200,
        "spec profile answers every JSON-RPC error with 200"
    );
    assert_eq!(response["jsonrpc"], "2.0");
    assert_eq!(response["id"], id, "echoed id for {body}");
    assert_eq!(response["error"]["code"], code, "code for {body}");
    assert_eq!(response["error"]["message"], message, "message for {body}");
}

#[test]
fn not_json_is_parse_error_with_position() {
    assert_refused(
        r#"{"jsonrpc":"2.0","id":1,"method":"message/send""#,
        -32700,
        "Invalid JSON payload: EOF while parsing an object (line 1, column 47)",
        Value::Null,
    );
    assert_refused(
        "hello",
        -32700,
        "Invalid JSON payload: expected value (line 1, column 1)",
        Value::Null,
    );
    assert_refused(
        "",
        -32700,
        "Invalid JSON payload: EOF while parsing a value (line 1, column 0)",
        Value::Null,
    );
}

#[test]
fn invalid_utf8_is_parse_error() {
    let rejection = parse_request(b"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\"}").expect_err("refused");
    let (_, response) = ErrorResponse::from_rejection(&rejection, ErrorProfile::Spec);
    assert_eq!(response.error.code, -32700);
    assert_eq!(
        response.error.message,
        "Invalid JSON payload: body is not valid UTF-8"
    );
    assert_eq!(response.id, Id::Null);
}

#[test]
fn batch_is_refused_as_invalid_request() {
    assert_refused(
        r#"[{"jsonrpc":"2.0","id":1,"method":"message/send"}]"#,
        -32600,
        "Request payload validation error: batch requests are not supported; send one object",
        Value::Null,
    );
}

#[test]
fn non_object_json_is_invalid_request() {
    for body in ["42", "\"text\"", "null", "true"] {
        assert_refused(
            body,
            -32600,
            "Request payload validation error: the request must be a JSON object",
            Value::Null,
        );
    }
}

#[test]
fn wrong_jsonrpc_version_is_invalid_request_and_echoes_id() {
    assert_refused(
        r#"{"jsonrpc":"1.0","id":"abc","method":"message/send"}"#,
        -32600,
        "Request payload validation error: `jsonrpc` must be exactly \"2.0\"",
        json!("abc"),
    );
    assert_refused(
        r#"{"jsonrpc":2.0,"id":7,"method":"message/send"}"#,
        -32600,
        "Request payload validation error: `jsonrpc` must be exactly \"2.0\"",
        json!(7),
    );
}

#[test]
fn missing_jsonrpc_is_invalid_request() {
    assert_refused(
        r#"{"id":3,"method":"message/send"}"#,
        -32600,
        "Request payload validation error: `jsonrpc` is required and must be \"2.0\"",
        json!(3),
    );
}

#[test]
fn missing_method_is_invalid_request() {
    assert_refused(
        r#"{"jsonrpc":"2.0","id":"m1"}"#,
        -32600,
        "Request payload validation error: `method` is required",
        json!("m1"),
    );
}

#[test]
fn non_string_method_is_invalid_request() {
    assert_refused(
        r#"{"jsonrpc":"2.0","id":"m2","method":5}"#,
        -32600,
        "Request payload validation error: `method` must be a string",
        json!("m2"),
    );
}

#[test]
fn id_of_wrong_type_is_invalid_request_with_null_id() {
    for id in ["{}", "[1]", "true"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"message/send"}}"#);
        assert_refused(
            &body,
            -32600,
            "Request payload validation error: `id` must be a string, a number or null",
            Value::Null,
        );
    }
}

#[test]
fn scalar_params_are_invalid_request() {
    assert_refused(
        r#"{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":"task-1"}"#,
        -32600,
        "Request payload validation error: `params` must be an object",
        json!(9),
    );
}

#[test]
fn duplicate_member_is_invalid_request() {
    assert_refused(
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tasks/get"}"#,
        -32600,
        "Request payload validation error: duplicate field `id`",
        Value::Null,
    );
}

#[test]
fn nesting_beyond_the_limit_is_refused_without_overflow() {
    let deep = "[".repeat(100_000);
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{deep}"#);
    assert_refused(
        &body,
        -32600,
        &format!("Request payload validation error: the body nests deeper than {MAX_DEPTH} levels"),
        Value::Null,
    );
}

#[test]
fn a_body_too_deep_still_echoes_its_top_level_id() {
    let over = MAX_DEPTH + 1;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}1{}}}"#,
        "[".repeat(over),
        "]".repeat(over)
    );
    assert_refused(
        &body,
        -32600,
        &format!("Request payload validation error: the body nests deeper than {MAX_DEPTH} levels"),
        json!(1),
    );
    // Far deeper than serde_json reads: refused without overflow, the id then unknown.
    let deep = 100_000;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}1{}}}"#,
        "[".repeat(deep),
        "]".repeat(deep)
    );
    let rejection = parse_request(body.as_bytes()).expect_err("refused");
    assert_eq!(
        rejection.error.refusal(),
        a2a_lambda_core::error::Refusal::InvalidRequest
    );
}

#[test]
fn numeric_ids_are_echoed_as_written() {
    for id in [
        "7",
        "-0",
        "123456789012345678901234567890",
        "-1.3341831311393061e+163",
        "1.50",
        "2E3",
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#);
        let request = parse_request(body.as_bytes()).expect("valid");
        assert_eq!(serde_json::to_string(&request.response_id()).unwrap(), id);
        let rejection = parse_request(format!(r#"{{"jsonrpc":"1.0","id":{id}}}"#).as_bytes())
            .expect_err("refused");
        let (_, response) = ErrorResponse::from_rejection(&rejection, ErrorProfile::Spec);
        let text = serde_json::to_string(&response).unwrap();
        assert!(text.contains(&format!(r#""id":{id},"#)), "{text}");
    }
}

#[test]
fn nesting_at_the_limit_is_accepted() {
    // The envelope is level 1, params level 2: fill the rest with arrays inside params.
    let inner = MAX_DEPTH - 2;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"d":{}{}}}}}"#,
        "[".repeat(inner),
        "]".repeat(inner)
    );
    let request = parse_request(body.as_bytes()).expect("at the limit is accepted");
    assert_eq!(request.method, "message/send");
}

#[test]
fn brackets_inside_strings_do_not_count_as_nesting() {
    let text = "[{".repeat(200);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"t":"{text}\"[["}}}}"#
    );
    assert!(parse_request(body.as_bytes()).is_ok());
}

#[test]
fn many_shallow_brackets_are_not_nesting() {
    // More opening brackets than the limit allows levels, none deeper than 3.
    let items = vec!["{}"; MAX_DEPTH * 4].join(",");
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"items":[{items}]}}}}"#
    );
    assert!(parse_request(body.as_bytes()).is_ok());
    // And nesting past the limit among them is still found.
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"message/send","params":{{"items":[{items}],"d":{deep}}}}}"#
    );
    assert!(parse_request(body.as_bytes()).is_err());
}

#[test]
fn ids_are_echoed_exactly() {
    for (raw, expected) in [
        ("\"req-001\"", json!("req-001")),
        ("42", json!(42)),
        ("-7", json!(-7)),
        ("null", Value::Null),
    ] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"tasks/get"}}"#);
        let request = parse_request(body.as_bytes()).expect("valid");
        assert!(
            !request.is_notification(),
            "an explicit id (even null) is not a notification"
        );
        assert_eq!(
            serde_json::to_value(request.response_id()).expect("id"),
            expected
        );
    }
}

#[test]
fn request_without_id_is_what_json_rpc_calls_a_notification() {
    let request =
        parse_request(br#"{"jsonrpc":"2.0","method":"message/send","params":{}}"#).expect("valid");
    assert!(request.is_notification());
    assert_eq!(request.response_id(), Id::Null);
}

#[test]
fn params_are_borrowed_raw_and_null_params_are_absent() {
    let request = parse_request(
        br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t-1"},"extra":true}"#,
    )
    .expect("valid; unknown members ignored");
    assert_eq!(request.params.map(|raw| raw.get()), Some(r#"{"id":"t-1"}"#));
    let request = parse_request(br#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":null}"#)
        .expect("valid");
    assert!(request.params.is_none());
}

#[test]
fn agentcore_profile_sends_aws_body_with_real_status() {
    let rejection = parse_request(b"not json").expect_err("refused");
    let (status, response) = ErrorResponse::from_rejection(&rejection, ErrorProfile::AgentCore);
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::to_value(response).expect("serializes"),
        json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32052, "message": "Validation error - Invalid request data"}
        })
    );
}

#[test]
fn spec_errors_carry_error_info_data() {
    let (_, response) = refusal(r#"{"jsonrpc":"2.0","id":5}"#);
    assert_eq!(
        response["error"]["data"],
        json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "INVALID_REQUEST",
            "domain": "a2a-protocol.org",
            "metadata": {"detail": "`method` is required"}
        }])
    );
}
