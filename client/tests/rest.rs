#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The HTTP+JSON binding against a scripted server: the headers every request carries
//! (`A2A-Version: 1.0`, `Accept`, `Content-Type` on bodies only), and a stream whose
//! server refuses mid-way with `event: error`, which ends the stream with the refusal's
//! JSON-RPC code.

mod common;

use a2a_lambda_client::model::{StreamEvent, TaskState};
use a2a_lambda_client::{Binding, Client, Error, text_params};
use common::header;
use futures_util::StreamExt;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A request as seen on the wire: verb and path, `A2A-Version`, `Accept`, `Content-Type`.
type Seen<'a> = (String, Option<&'a str>, Option<&'a str>, Option<&'a str>);

async fn rest_card(server: &MockServer) {
    let card = json!({
        "name": "rest",
        "supportedInterfaces": [
            {"url": format!("{}/api", server.uri()), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": true}
    });
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(server)
        .await;
}

#[tokio::test]
async fn requests_carry_the_version_accept_and_content_type_headers() {
    let server = MockServer::start().await;
    rest_card(&server).await;
    let task =
        json!({"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}});
    Mock::given(method("POST"))
        .and(path("/api/message:send"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"task": task})))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/tasks/t-1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(task.clone()))
        .mount(&server)
        .await;

    let client = Client::connect(server.uri()).await.unwrap();
    assert_eq!(client.binding(), Binding::HttpJson);
    client.send_text("hi").await.unwrap();
    let got = client.get_task("t-1", Some(2)).await.unwrap();
    assert_eq!(got.status.state, TaskState::Completed);

    let requests = server.received_requests().await.unwrap();
    let calls: Vec<Seen<'_>> = requests[1..]
        .iter()
        .map(|request| {
            (
                format!("{} {}", request.method, request.url.path()),
                header(request, "a2a-version"),
                header(request, "accept"),
                header(request, "content-type"),
            )
        })
        .collect();
    let accept = Some("application/a2a+json, application/json");
    assert_eq!(
        calls,
        vec![
            (
                "POST /api/message:send".to_owned(),
                Some("1.0"),
                accept,
                Some("application/json")
            ),
            ("GET /api/tasks/t-1".to_owned(), Some("1.0"), accept, None),
        ]
    );
    assert_eq!(requests[2].url.query(), Some("historyLength=2"));
}

#[tokio::test]
async fn an_error_event_ends_the_stream_with_its_code() {
    let server = MockServer::start().await;
    rest_card(&server).await;
    let body = concat!(
        "data: {\"statusUpdate\":{\"taskId\":\"t-1\",\"contextId\":\"c-1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n",
        "event: error\n",
        "data: {\"error\":{\"code\":400,\"status\":\"FAILED_PRECONDITION\",\"message\":\"Unsupported operation\",",
        "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"UNSUPPORTED_OPERATION\",\"domain\":\"a2a-protocol.org\"}]}}\n\n",
    );
    Mock::given(method("POST"))
        .and(path("/api/message:stream"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .mount(&server)
        .await;

    let client = Client::connect(server.uri()).await.unwrap();
    let mut stream = client.stream(&text_params("go")).await.unwrap();
    let first = stream.next().await.unwrap().unwrap();
    assert!(
        matches!(&first, StreamEvent::StatusUpdate(update) if update.status.state == TaskState::Working),
        "{first:?}"
    );
    let error = stream.next().await.unwrap().unwrap_err();
    let Error::Rpc(rpc) = &error else {
        panic!("a refusal, not {error:?}")
    };
    assert_eq!(
        (rpc.code_number(), rpc.message.as_str(), rpc.http_status),
        (-32004, "Unsupported operation", 400)
    );
    assert!(stream.next().await.is_none());
}
