#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Errors as the client reports them: a JSON-RPC error body is [`Error::Rpc`] whatever the
//! HTTP status (every row of AgentCore's table, the specification's codes at 200); a non-2xx
//! body that is not JSON-RPC is [`Error::Http`]; a 2xx that is not the promised answer is
//! [`Error::InvalidResponse`].

mod common;

use a2a_lambda_client::{Client, Error, RetryPolicy};
use a2a_lambda_core::error::{AGENTCORE_TABLE, ErrorCode, SPEC_TABLE};
use common::{echo_error, echo_result, request_id, rpc_result, task_v10};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

fn client(server: &MockServer) -> Client {
    Client::builder(server.uri())
        .retry(RetryPolicy::none())
        .build()
        .unwrap()
}

async fn answer(server: &MockServer, response: ResponseTemplate) {
    Mock::given(method("POST"))
        .respond_with(response)
        .mount(server)
        .await;
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

#[tokio::test]
async fn every_agentcore_row_is_read_with_its_status_and_name() {
    let server = MockServer::start().await;
    let client = client(&server);
    for row in AGENTCORE_TABLE {
        server.reset().await;
        Mock::given(method("POST"))
            .respond_with(echo_error(
                row.http_status.as_u16(),
                row.code.code(),
                row.message,
            ))
            .mount(&server)
            .await;

        let error = client.get_task("t-1", None).await.unwrap_err();

        let Error::Rpc(rpc) = &error else {
            panic!("{row:?}: expected Rpc, got {error:?}")
        };
        assert_eq!(rpc.code, row.code, "{row:?}");
        assert_eq!(rpc.code_number(), row.code.code(), "{row:?}");
        assert_eq!(rpc.message, row.message, "{row:?}");
        assert_eq!(rpc.http_status, row.http_status, "{row:?}");
        assert_eq!(rpc.name, row.name, "{row:?}");
        assert_eq!(
            error.http_status(),
            Some(row.http_status.as_u16()),
            "{row:?}"
        );
        let retryable = matches!(
            row.name,
            "ThrottlingException" | "RetryableConflictException"
        );
        assert_eq!(rpc.is_retryable(), retryable, "{row:?}");
        assert!(
            error
                .to_string()
                .ends_with(&format!("(HTTP {})", row.http_status.as_u16())),
            "{error}"
        );
        assert_eq!(requests(&server).await, 1, "{row:?}: never retried");
    }
}

#[tokio::test]
async fn every_spec_error_at_200_keeps_the_spec_name() {
    let server = MockServer::start().await;
    let client = client(&server);
    for row in SPEC_TABLE {
        server.reset().await;
        Mock::given(method("POST"))
            .respond_with(echo_error(200, row.code.code(), row.message))
            .mount(&server)
            .await;

        let error = client.get_task("t-1", None).await.unwrap_err();

        let Error::Rpc(rpc) = &error else {
            panic!("{row:?}: expected Rpc, got {error:?}")
        };
        assert_eq!(
            (rpc.code, rpc.message.as_str(), rpc.http_status, rpc.name),
            (row.code, row.message, 200, row.name),
            "{row:?}"
        );
        assert!(!rpc.is_retryable(), "{row:?}");
    }
}

#[tokio::test]
async fn task_not_found_at_200_is_an_rpc_error() {
    let server = MockServer::start().await;
    answer(
        &server,
        ResponseTemplate::new(200).set_body_raw(
            json!({"jsonrpc": "2.0", "id": 1, "error": {
                "code": -32001, "message": "Task not found", "data": {"taskId": "t-404"}
            }})
            .to_string(),
            "application/json",
        ),
    )
    .await;

    let error = client(&server).get_task("t-404", None).await.unwrap_err();

    let Error::Rpc(rpc) = &error else {
        panic!("expected Rpc, got {error:?}")
    };
    assert_eq!(rpc.code, ErrorCode::TaskNotFound);
    assert_eq!(rpc.http_status, 200);
    assert_eq!(rpc.name, "TaskNotFoundError");
    assert_eq!(rpc.data, Some(json!({"taskId": "t-404"})));
    assert_eq!(
        error.to_string(),
        "-32001 TaskNotFoundError: Task not found"
    );
    assert!(error.hint().is_some());
}

#[tokio::test]
async fn an_error_with_a_null_id_is_still_the_error() {
    let server = MockServer::start().await;
    answer(
        &server,
        ResponseTemplate::new(400).set_body_raw(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}}"#,
            "application/json",
        ),
    )
    .await;

    let error = client(&server).get_task("t-1", None).await.unwrap_err();

    let rpc = error.rpc().expect("an Rpc error");
    assert_eq!((rpc.code, rpc.http_status), (ErrorCode::ParseError, 400));
}

#[tokio::test]
async fn an_html_413_is_an_http_error() {
    let server = MockServer::start().await;
    let html = format!(
        "<html>\n<head><title>413 Request Entity Too Large</title></head>\n<body>{}</body>\n</html>",
        "<p>too large</p>".repeat(50)
    );
    answer(
        &server,
        ResponseTemplate::new(413).set_body_raw(html, "text/html"),
    )
    .await;

    let error = client(&server).send_text("big").await.unwrap_err();

    let Error::Http {
        url,
        status,
        content_type,
        body,
    } = &error
    else {
        panic!("expected Http, got {error:?}")
    };
    assert_eq!(*status, 413);
    assert_eq!(content_type.as_deref(), Some("text/html"));
    assert!(
        body.starts_with("<html> <head><title>413 Request Entity Too Large</title></head> <body>"),
        "{body}"
    );
    assert!(body.ends_with('…') && body.chars().count() == 201, "{body}");
    assert!(!body.contains('\n'));
    assert_eq!(url, &format!("{}/", server.uri()));
    assert_eq!(error.http_status(), Some(413));
    assert!(error.hint().unwrap().contains("too large"));
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn a_plain_text_403_is_an_http_error() {
    let server = MockServer::start().await;
    answer(
        &server,
        ResponseTemplate::new(403).set_body_string("Forbidden: missing authentication token"),
    )
    .await;

    let error = client(&server).get_task("t-1", None).await.unwrap_err();

    let Error::Http {
        status,
        content_type,
        body,
        ..
    } = &error
    else {
        panic!("expected Http, got {error:?}")
    };
    assert_eq!(*status, 403);
    assert_eq!(content_type.as_deref(), Some("text/plain"));
    assert_eq!(body, "Forbidden: missing authentication token");
    assert!(error.hint().unwrap().contains("access denied"));
}

#[tokio::test]
async fn an_empty_502_is_an_http_error() {
    let server = MockServer::start().await;
    answer(&server, ResponseTemplate::new(502)).await;

    let error = client(&server).get_task("t-1", None).await.unwrap_err();

    let Error::Http {
        status,
        content_type,
        body,
        ..
    } = &error
    else {
        panic!("expected Http, got {error:?}")
    };
    assert_eq!(*status, 502);
    assert_eq!(content_type, &None);
    assert_eq!(body, "(empty body)");
    assert_eq!(
        error.to_string(),
        format!("HTTP 502 from {}/: (empty body)", server.uri())
    );
}

#[tokio::test]
async fn json_that_is_not_json_rpc_at_500_is_an_http_error() {
    let server = MockServer::start().await;
    for body in [
        r#"{"message":"Internal Server Error"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"id":"t-1"}}"#,
        r#"["not", "an", "object"]"#,
        r#"{"error":"a string, not an object"}"#,
        "null",
    ] {
        server.reset().await;
        answer(
            &server,
            ResponseTemplate::new(500).set_body_raw(body, "application/json"),
        )
        .await;

        let error = client(&server).get_task("t-1", None).await.unwrap_err();

        let Error::Http {
            status,
            content_type,
            body: snippet,
            ..
        } = &error
        else {
            panic!("{body}: expected Http, got {error:?}")
        };
        assert_eq!(*status, 500, "{body}");
        assert_eq!(content_type.as_deref(), Some("application/json"), "{body}");
        assert_eq!(snippet, body, "{body}");
    }
}

#[tokio::test]
async fn a_200_with_html_is_an_invalid_response() {
    let server = MockServer::start().await;
    answer(
        &server,
        ResponseTemplate::new(200).set_body_raw("<html><body>Welcome</body></html>", "text/html"),
    )
    .await;

    let error = client(&server).send_text("hi").await.unwrap_err();

    let Error::InvalidResponse { detail, .. } = &error else {
        panic!("expected InvalidResponse, got {error:?}")
    };
    assert!(detail.contains("not a JSON-RPC response"), "{detail}");
    assert!(detail.contains("<html><body>Welcome"), "{detail}");
}

#[tokio::test]
async fn a_200_answering_another_id_is_an_invalid_response() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(|request: &Request| {
            let wrong = request_id(&request.body) + 41;
            ResponseTemplate::new(200).set_body_raw(
                rpc_result(wrong, &task_v10("t-1", "TASK_STATE_WORKING")),
                "application/json",
            )
        })
        .mount(&server)
        .await;

    let error = client(&server).get_task("t-1", None).await.unwrap_err();

    let Error::InvalidResponse { detail, .. } = &error else {
        panic!("expected InvalidResponse, got {error:?}")
    };
    assert!(detail.contains("is not the request's"), "{detail}");
}

#[tokio::test]
async fn a_200_without_result_or_error_is_an_invalid_response() {
    let server = MockServer::start().await;
    answer(
        &server,
        ResponseTemplate::new(200).set_body_raw(r#"{"jsonrpc":"2.0","id":1}"#, "application/json"),
    )
    .await;

    let error = client(&server).get_task("t-1", None).await.unwrap_err();

    assert!(matches!(error, Error::InvalidResponse { .. }), "{error:?}");
}

#[tokio::test]
async fn a_result_of_the_wrong_shape_is_an_invalid_response() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_result(json!({"task": {"id": "t-1"}})))
        .mount(&server)
        .await;

    let error = client(&server).get_task("t-1", None).await.unwrap_err();

    let Error::InvalidResponse { detail, .. } = &error else {
        panic!("expected InvalidResponse, got {error:?}")
    };
    assert!(detail.starts_with("result:"), "{detail}");
}

#[tokio::test]
async fn a_well_formed_task_is_read() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_INPUT_REQUIRED")))
        .mount(&server)
        .await;

    let task = client(&server).get_task("t-1", Some(3)).await.unwrap();

    assert_eq!(task.id, "t-1");
    assert_eq!(task.context_id, "ctx-1");
    assert_eq!(
        task.status.state,
        a2a_lambda_client::model::TaskState::InputRequired
    );
    let sent = common::request_json(&server.received_requests().await.unwrap()[0]);
    assert_eq!(sent["method"], "GetTask");
    assert_eq!(sent["params"]["id"], "t-1");
    assert_eq!(sent["params"]["historyLength"], 3);
}

#[tokio::test]
async fn list_tasks_is_refused_in_0_3_without_a_request() {
    let server = MockServer::start().await;
    let client = Client::builder(server.uri())
        .version(a2a_lambda_client::ProtocolVersion::V0_3)
        .build()
        .unwrap();

    let error = client
        .list_tasks(&a2a_lambda_client::model::ListTasksParams::default())
        .await
        .unwrap_err();

    assert!(
        matches!(
            error,
            Error::Unsupported {
                operation: "list",
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(requests(&server).await, 0);
}
