//! Refusals end to end against the real emulator: every one is HTTP 200 (405/404 for
//! wrong routes), a JSON-RPC error with a precise message, and echoes the request's id
//! (`null` when it could not be read, or the request has none: A2A defines no
//! notifications, and a valid request without an id is refused without running).
//!
//! These are the container's refusals, so the emulator runs with `--container-only`; the
//! AgentCore front's own refusals (for example 400/-32052 for a payload that is not JSON)
//! are tested in `front_*.rs`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::{
    Emulator, HeaderMap, Op, Value, Version, header, json, json_body, spec_error,
};

const INVALID_REQUEST: (i64, &str, &str) = (
    -32600,
    "Request payload validation error",
    "INVALID_REQUEST",
);
const INVALID_PARAMS: (i64, &str, &str) = (-32602, "Invalid parameters", "INVALID_PARAMS");
const TASK_NOT_FOUND: (i64, &str, &str) = (-32001, "Task not found", "TASK_NOT_FOUND");
const UNSUPPORTED: (i64, &str, &str) = (
    -32004,
    "This operation is not supported",
    "UNSUPPORTED_OPERATION",
);
const VERSION_NOT_SUPPORTED: (i64, &str, &str) = (
    -32009,
    "Protocol version is not supported",
    "VERSION_NOT_SUPPORTED",
);

fn refusal(id: &Value, (code, title, reason): (i64, &str, &str), detail: &str) -> Value {
    spec_error(id, code, title, reason, detail, &[])
}

fn refusal_for_task(
    id: &Value,
    (code, title, reason): (i64, &str, &str),
    detail: &str,
    task_id: &str,
) -> Value {
    spec_error(id, code, title, reason, detail, &[("taskId", task_id)])
}

/// POSTs raw bytes to `path` with the given headers; returns status, headers and body.
async fn post_raw(
    emulator: &Emulator,
    path: &str,
    headers: &[(&str, &str)],
    body: impl Into<Vec<u8>>,
) -> (u16, HeaderMap, String) {
    let mut request = emulator.http().post(emulator.url(path)).body(body.into());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = emulator.send(request).await;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// POSTs a JSON body (as bytes) to `/` and reads the JSON-RPC answer (HTTP 200).
async fn refused(emulator: &Emulator, headers: &[(&str, &str)], body: impl Into<Vec<u8>>) -> Value {
    let (status, response_headers, text) = post_raw(emulator, "/", headers, body).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        header(&response_headers, "content-type"),
        Some("application/json")
    );
    serde_json::from_str(&text).unwrap()
}

const JSON: (&str, &str) = ("content-type", "application/json");

#[tokio::test]
async fn envelope_refusals_are_precise_and_echo_the_id() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let null = Value::Null;
    let cases: Vec<(&str, Value)> = vec![
        (
            "not json",
            spec_error(
                &null,
                -32700,
                "Invalid JSON payload",
                "JSON_PARSE",
                "expected ident (line 1, column 2)",
                &[],
            ),
        ),
        (
            "",
            spec_error(
                &null,
                -32700,
                "Invalid JSON payload",
                "JSON_PARSE",
                "EOF while parsing a value (line 1, column 0)",
                &[],
            ),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}]"#,
            refusal(
                &null,
                INVALID_REQUEST,
                "batch requests are not supported; send one object",
            ),
        ),
        (
            r#""just a string""#,
            refusal(&null, INVALID_REQUEST, "the request must be a JSON object"),
        ),
        (
            r#"{"jsonrpc":"1.0","id":7,"method":"tasks/get","params":{"id":"x"}}"#,
            refusal(
                &json!(7),
                INVALID_REQUEST,
                "`jsonrpc` must be exactly \"2.0\"",
            ),
        ),
        (
            r#"{"id":"no-version","method":"tasks/get","params":{"id":"x"}}"#,
            refusal(
                &json!("no-version"),
                INVALID_REQUEST,
                "`jsonrpc` is required and must be \"2.0\"",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"no-method","params":{}}"#,
            refusal(&json!("no-method"), INVALID_REQUEST, "`method` is required"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tasks/get","params":{"id":"x"}}"#,
            refusal(
                &null,
                INVALID_REQUEST,
                "`id` must be a string, a number or null",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"tasks/get","params":{"id":"x"}}"#,
            refusal(
                &null,
                INVALID_REQUEST,
                "`id` must be a string, a number or null",
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":5}"#,
            refusal(&json!(9), INVALID_REQUEST, "`params` must be an object"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tasks/nope"}"#,
            spec_error(
                &json!(1.5),
                -32601,
                "Method not found",
                "METHOD_NOT_FOUND",
                "no method named \"tasks/nope\"",
                &[],
            ),
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"tasks/nope"}"#,
            spec_error(
                &null,
                -32601,
                "Method not found",
                "METHOD_NOT_FOUND",
                "no method named \"tasks/nope\"",
                &[],
            ),
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(refused(&emulator, &[JSON], body).await, expected, "{body}");
    }
}

#[tokio::test]
async fn version_negotiation_refusals_and_the_query_parameter() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let v1_without_header = "GetTask is an A2A 1.0 method; send the header `A2A-Version: 1.0` \
                             (this request speaks 0.3)";
    // A v1.0 method without the header.
    let response = emulator
        .call(Version::V0_3, "GetTask", json!({"id": "x"}))
        .await;
    assert_eq!(
        response,
        refusal(&response["id"], VERSION_NOT_SUPPORTED, v1_without_header)
    );
    // Versions we do not speak, whatever the method.
    for (version, method) in [("2.0", "GetTask"), ("2.0", "tasks/get"), ("1", "GetTask")] {
        let body = json!({"jsonrpc": "2.0", "id": "v", "method": method, "params": {"id": "x"}});
        let response = refused(
            &emulator,
            &[JSON, ("A2A-Version", version)],
            body.to_string(),
        )
        .await;
        assert_eq!(
            response,
            refusal(
                &json!("v"),
                VERSION_NOT_SUPPORTED,
                &format!("A2A-Version {version:?} is not supported; supported versions: 0.3, 1.0"),
            ),
            "{version} {method}"
        );
    }
    // The query parameter asks for 1.0 as the header does; so does a 1.0 patch version.
    let send = json!({"jsonrpc": "2.0", "id": "q", "method": "SendMessage",
        "params": Version::V1_0.send_params("tck-complete-task-q", "hi")});
    for (path, headers) in [
        ("/?A2A-Version=1.0", vec![JSON]),
        ("/?other=1&a2a-version=1.0", vec![JSON]),
        ("/", vec![JSON, ("A2A-Version", "1.0.1")]),
    ] {
        let (status, _, text) = post_raw(&emulator, path, &headers, send.to_string()).await;
        assert_eq!(status, 200);
        let response: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            response["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
            "{path} {headers:?}: {response}"
        );
    }
    // An explicit 0.3 header serves v0.3 names.
    let body = json!({"jsonrpc": "2.0", "id": "o", "method": "message/send",
        "params": Version::V0_3.send_params("tck-complete-task-o", "hi")});
    let response = refused(&emulator, &[JSON, ("A2A-Version", "0.3")], body.to_string()).await;
    assert_eq!(response["result"]["kind"], "task", "{response}");
    // A v0.3 method name is served as v0.3 even when the request asks for 1.0.
    let response = refused(&emulator, &[JSON, ("A2A-Version", "1.0")], body.to_string()).await;
    assert_eq!(response["result"]["kind"], "task", "{response}");
    assert_eq!(
        response["result"]["status"]["state"], "completed",
        "{response}"
    );
}

#[tokio::test]
async fn invalid_params_name_the_field() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let cases = [
        (
            Version::V1_0,
            "SendMessage",
            json!({"message": {"role": "ROLE_USER", "messageId": "m",
                "parts": [{"text": "hi", "url": "https://example.com/x"}]}}),
            "params.message.parts[0]: a part must carry exactly one of text, raw, url, data \
             (found text and url)",
        ),
        (
            Version::V0_3,
            "message/send",
            json!({"message": {"kind": "message", "role": "user", "messageId": "m",
                "parts": [{"kind": "image", "text": "hi"}]}}),
            "params.message.parts[0].kind: unknown variant `image`, expected one of `text`, \
             `file`, `data`",
        ),
        (
            Version::V0_3,
            "message/send",
            json!({"message": {"kind": "message", "role": "agent", "messageId": "m",
                "parts": [{"kind": "text", "text": "hi"}]}}),
            "params.message.role: a client's message must have the user role",
        ),
        (
            Version::V0_3,
            "message/send",
            Value::Null,
            "params: required",
        ),
        (
            Version::V0_3,
            "tasks/get",
            json!({}),
            "params: missing field `id`",
        ),
    ];
    for (version, method, params, detail) in cases {
        let response = emulator.call(version, method, params).await;
        assert_eq!(
            response,
            refusal(&response["id"], INVALID_PARAMS, detail),
            "{method}"
        );
        assert!(
            response["error"]["message"]
                .as_str()
                .unwrap()
                .contains("params"),
            "{response}"
        );
    }
}

#[tokio::test]
async fn unknown_tasks_are_not_found_for_every_method() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    for version in Version::ALL {
        for op in [Op::Get, Op::Cancel, Op::Subscribe] {
            let response = emulator
                .call_op(version, op, json!({"id": "no-such-task"}))
                .await;
            assert_eq!(
                response,
                refusal_for_task(
                    &response["id"],
                    TASK_NOT_FOUND,
                    "no task with id \"no-such-task\"",
                    "no-such-task",
                ),
                "{}",
                version.method(op)
            );
        }
        let mut message = version.user_message("m-unknown", "hello?");
        message["taskId"] = json!("no-such-task");
        let response = emulator
            .call_op(version, Op::Send, json!({"message": message}))
            .await;
        assert_eq!(
            response,
            refusal_for_task(
                &response["id"],
                TASK_NOT_FOUND,
                "no task with id \"no-such-task\"",
                "no-such-task",
            ),
            "{version:?} send"
        );
    }
}

#[tokio::test]
async fn follow_ups_to_finished_tasks_and_mismatched_contexts_are_refused() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    for version in Version::ALL {
        // A message to a completed task.
        let done = emulator
            .send_task(version, version.send_params("tck-complete-task-f", "hi"))
            .await;
        let task_id = done["id"].as_str().unwrap();
        emulator.wait_idle().await;
        let mut message = version.user_message("m-after", "more");
        message["taskId"] = json!(task_id);
        let response = emulator
            .call_op(version, Op::Send, json!({"message": message}))
            .await;
        assert_eq!(
            response,
            refusal_for_task(
                &response["id"],
                UNSUPPORTED,
                &format!(
                    "task {task_id} is completed and takes no more messages; start a new task"
                ),
                task_id,
            ),
            "{version:?}"
        );

        // A follow-up to an open task that names another context.
        let open = emulator
            .send_task(version, version.send_params("tck-input-required-f", "hi"))
            .await;
        let (task_id, context_id) = (
            open["id"].as_str().unwrap(),
            open["contextId"].as_str().unwrap(),
        );
        emulator.wait_idle().await;
        let mut message = version.user_message("m-other-context", "done");
        message["taskId"] = json!(task_id);
        message["contextId"] = json!("another-context");
        let response = emulator
            .call_op(version, Op::Send, json!({"message": message}))
            .await;
        assert_eq!(
            response,
            refusal(
                &response["id"],
                INVALID_PARAMS,
                &format!(
                    "params.message.contextId: \"another-context\" does not match the context \
                     {context_id:?} of task {task_id}"
                ),
            ),
            "{version:?}"
        );
        // The task is untouched.
        assert_eq!(emulator.get_task(version, task_id).await, open);
    }
}

#[tokio::test]
async fn a_message_to_a_working_task_is_refused() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let version = Version::V1_0;
    let sent = emulator
        .result(
            version,
            Op::Send,
            version.send_params_at_once("slow-busy", "wait"),
        )
        .await;
    let task_id = sent["task"]["id"].as_str().unwrap();
    let mut message = version.user_message("m-busy", "hurry");
    message["taskId"] = json!(task_id);
    let response = emulator
        .call_op(version, Op::Send, json!({"message": message}))
        .await;
    assert_eq!(
        response,
        refusal_for_task(
            &response["id"],
            UNSUPPORTED,
            &format!("task {task_id} is still working; wait for it to finish or cancel it"),
            task_id,
        )
    );
}

#[tokio::test]
async fn only_json_content_types_are_accepted() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"x"}}"#;
    for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
        let response = refused(&emulator, &[("content-type", content_type)], body).await;
        assert_eq!(
            response,
            spec_error(
                // The body is readable: its id is echoed.
                &json!(3),
                -32005,
                "Incompatible content types",
                "CONTENT_TYPE_NOT_SUPPORTED",
                &format!("Content-Type {content_type:?} is not supported; send application/json"),
                &[],
            )
        );
    }
    // JSON in any accepted spelling, or no content type at all, is read.
    for headers in [
        vec![("content-type", "application/json; charset=utf-8")],
        vec![("content-type", "Application/JSON")],
        vec![("content-type", "application/a2a+json")],
        vec![],
    ] {
        let response = refused(&emulator, &headers, body).await;
        assert_eq!(response["error"]["code"], -32001, "{headers:?}: {response}");
        assert_eq!(response["id"], 3);
    }
}

#[tokio::test]
async fn wrong_routes_and_methods() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    // GET on the JSON-RPC endpoint.
    let response = emulator.send(emulator.http().get(emulator.url("/"))).await;
    assert_eq!(header(response.headers(), "allow"), Some("POST"));
    let (_, body) = json_body(response, 405).await;
    assert_eq!(
        body,
        refusal(
            &Value::Null,
            INVALID_REQUEST,
            "GET is not allowed here; send JSON-RPC requests with POST",
        )
    );
    // A path that is not served.
    let response = emulator
        .send(emulator.http().get(emulator.url("/nope")))
        .await;
    let (_, body) = json_body(response, 404).await;
    assert_eq!(
        body,
        spec_error(
            &Value::Null,
            -32601,
            "Method not found",
            "METHOD_NOT_FOUND",
            "no route GET /nope; JSON-RPC goes to POST / and the card is at GET \
             /.well-known/agent-card.json",
            &[],
        )
    );
}

#[tokio::test]
async fn a_body_nested_100_000_levels_deep_is_refused_and_the_server_stays_up() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let depth = 100_000;
    let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let params = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{}1{}}}"#,
        r#"{"a":"#.repeat(depth),
        "}".repeat(depth)
    );
    // No id to read in the first; the second's is at the top level, read without
    // descending into its params.
    for (body, id) in [(arrays, Value::Null), (params, json!(1))] {
        let response = refused(&emulator, &[JSON], body).await;
        assert_eq!(
            response,
            refusal(&id, INVALID_REQUEST, "the body nests deeper than 64 levels")
        );
    }
    // Still serving.
    assert_eq!(emulator.ping().await["status"], "Healthy");
    let task = emulator
        .send_task(
            Version::V0_3,
            Version::V0_3.send_params("tck-complete-task-deep", "hi"),
        )
        .await;
    assert_eq!(task["status"]["state"], "completed");
}

#[tokio::test]
async fn requests_without_an_id_are_answered_with_a_null_id_and_never_run() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let send = r#"{"jsonrpc":"2.0","method":"message/send","params":{"message":{"kind":"message","messageId":"idless-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}"#;
    for (version_header, body, code) in [
        // A problem gets its own error...
        (
            None,
            r#"{"jsonrpc":"2.0","method":"no/such/method"}"#,
            -32601,
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","method":"tasks/get","params":{"id":7}}"#,
            -32602,
        ),
        (
            None,
            r#"{"jsonrpc":"1.0","method":"tasks/get","params":{"id":"x"}}"#,
            -32600,
        ),
        (
            None,
            r#"{"jsonrpc":"2.0","method":"message/send","params":{}}"#,
            -32602,
        ),
        // ...and a valid request is refused without running.
        (
            None,
            r#"{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"x"}}"#,
            -32600,
        ),
        (None, send, -32600),
        (
            Some("1.0"),
            r#"{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}"#,
            -32600,
        ),
    ] {
        let mut headers = vec![JSON];
        if let Some(value) = version_header {
            headers.push(("A2A-Version", value));
        }
        let (status, response_headers, text) = post_raw(&emulator, "/", &headers, body).await;
        assert_eq!(status, 200, "{body}: {text}");
        assert_eq!(
            header(&response_headers, "content-type"),
            Some("application/json"),
            "{body}"
        );
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["jsonrpc"], "2.0", "{text}");
        assert_eq!(answer["id"], Value::Null, "{text}");
        assert_eq!(answer["error"]["code"], code, "{body}: {text}");
        assert!(answer.get("result").is_none(), "{text}");
    }
    let (_, _, text) = post_raw(&emulator, "/", &[JSON], send).await;
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["error"]["message"],
        "Request payload validation error: message/send: the request has no \"id\"; A2A \
         defines no notifications, so the request was not run: send it with an id to get its \
         result",
        "{text}"
    );
    // The refused send did not run: no task holds its message.
    let listed = r#"{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}"#;
    let (_, _, text) = post_raw(&emulator, "/", &[JSON, ("A2A-Version", "1.0")], listed).await;
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["result"]["tasks"], serde_json::json!([]), "{text}");
}

#[tokio::test]
async fn the_request_id_header_is_returned() {
    let emulator = Emulator::start(&["--agent", "conformance", "--container-only"]);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}"#;
    let (_, headers, _) =
        post_raw(&emulator, "/", &[JSON, ("x-request-id", "my-req-7")], body).await;
    assert_eq!(header(&headers, "x-request-id"), Some("my-req-7"));
    let (_, headers, _) = post_raw(&emulator, "/", &[JSON], body).await;
    assert!(header(&headers, "x-request-id").is_some_and(|id| !id.is_empty()));
}
