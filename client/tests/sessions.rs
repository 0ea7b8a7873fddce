#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Sessions: `X-Amzn-Bedrock-AgentCore-Runtime-Session-Id` on every request (the card's
//! included), generated long enough for AgentCore and stable, or the caller's as given; an
//! id the server returns is carried from the next request on; a bad caller id is refused
//! when the client is built.

mod common;

use a2a_lambda_client::{Client, Error, new_session_id};
use common::{echo_result, header, task_v10};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const SESSION_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-session-id";
const MINE: &str = "caller-chosen-session-0123456789abcdef";
const RETURNED: &str = "server-assigned-session-fedcba9876543210";

async fn answering(server: &MockServer) {
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_WORKING")))
        .with_priority(5)
        .mount(server)
        .await;
}

async fn sessions_sent(server: &MockServer) -> Vec<String> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| {
            header(request, SESSION_HEADER)
                .expect("every request carries the session header")
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_generated_session_is_long_enough_and_stable() {
    let server = MockServer::start().await;
    answering(&server).await;
    let client = Client::builder(server.uri()).build().unwrap();
    let generated = client.session_id();

    client.get_task("t-1", None).await.unwrap();
    client.get_task("t-2", Some(1)).await.unwrap();
    client.cancel_task("t-1").await.unwrap();

    let sent = sessions_sent(&server).await;
    assert_eq!(sent.len(), 3);
    assert!(generated.len() >= 33, "{generated}");
    assert!(generated.len() <= 256, "{generated}");
    assert!(sent.iter().all(|session| *session == generated), "{sent:?}");
    assert_eq!(client.session_id(), generated);
}

#[tokio::test]
async fn two_clients_get_two_sessions() {
    let one = Client::builder("http://127.0.0.1:9/").build().unwrap();
    let two = Client::builder("http://127.0.0.1:9/").build().unwrap();
    assert_ne!(one.session_id(), two.session_id());
    assert!(new_session_id().len() >= 33);
}

#[tokio::test]
async fn a_caller_session_is_sent_as_is() {
    let server = MockServer::start().await;
    answering(&server).await;
    let client = Client::builder(server.uri())
        .session_id(MINE)
        .build()
        .unwrap();

    client.get_task("t-1", None).await.unwrap();
    client.get_task("t-1", None).await.unwrap();

    assert_eq!(sessions_sent(&server).await, [MINE, MINE]);
    assert_eq!(client.session_id(), MINE);
}

#[tokio::test]
async fn a_session_returned_by_the_server_is_used_next() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(|request: &Request| {
            echo_result(task_v10("t-1", "TASK_STATE_WORKING"))(request)
                .insert_header(SESSION_HEADER, RETURNED)
        })
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    answering(&server).await;
    let client = Client::builder(server.uri())
        .session_id(MINE)
        .build()
        .unwrap();

    client.get_task("t-1", None).await.unwrap();
    assert_eq!(client.session_id(), RETURNED);
    client.get_task("t-1", None).await.unwrap();
    client.get_task("t-1", None).await.unwrap();

    assert_eq!(sessions_sent(&server).await, [MINE, RETURNED, RETURNED]);
}

#[tokio::test]
async fn a_session_returned_with_an_error_is_kept_too() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(404)
                .insert_header(SESSION_HEADER, RETURNED)
                .set_body_string("not here"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    answering(&server).await;
    let client = Client::builder(server.uri()).build().unwrap();
    let generated = client.session_id();

    client.get_task("t-1", None).await.unwrap_err();
    client.get_task("t-1", None).await.unwrap();

    assert_eq!(
        sessions_sent(&server).await,
        [generated, RETURNED.to_owned()]
    );
}

#[tokio::test]
async fn a_returned_session_agentcore_would_refuse_is_ignored() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(|request: &Request| {
            echo_result(task_v10("t-1", "TASK_STATE_WORKING"))(request)
                .insert_header(SESSION_HEADER, "too-short")
        })
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    answering(&server).await;
    let client = Client::builder(server.uri())
        .session_id(MINE)
        .build()
        .unwrap();

    client.get_task("t-1", None).await.unwrap();
    client.get_task("t-1", None).await.unwrap();

    assert_eq!(sessions_sent(&server).await, [MINE, MINE]);
}

#[tokio::test]
async fn the_card_request_carries_the_session_too() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "name": "a", "url": format!("{}/", server.uri()), "protocolVersion": "0.3.0"
        })))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(json!({
            "kind": "task", "id": "t-1", "contextId": "c", "status": {"state": "working"}
        })))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .session_id(MINE)
        .connect()
        .await
        .unwrap();

    client.get_task("t-1", None).await.unwrap();

    assert_eq!(sessions_sent(&server).await, [MINE, MINE]);
}

#[test]
fn a_bad_caller_session_is_refused_at_build() {
    let too_long = "x".repeat(257);
    let not_ascii = format!("{}é", "x".repeat(32));
    for bad in ["too-short", &"x".repeat(32), &too_long, &not_ascii, ""] {
        let error = Client::builder("http://127.0.0.1:9/")
            .session_id(bad)
            .build()
            .unwrap_err();
        let Error::Config(detail) = &error else {
            panic!("{bad:?}: expected Config, got {error:?}")
        };
        assert!(detail.contains("33 to 256"), "{detail}");
    }
    for good in ["x".repeat(33), "x".repeat(256)] {
        Client::builder("http://127.0.0.1:9/")
            .session_id(good)
            .build()
            .unwrap();
    }
}

#[tokio::test]
async fn a_bad_caller_session_is_refused_before_reading_the_card() {
    let server = MockServer::start().await;

    let error = Client::builder(server.uri())
        .session_id("short")
        .connect()
        .await
        .unwrap_err();

    assert!(matches!(error, Error::Config(_)), "{error:?}");
    assert!(server.received_requests().await.unwrap().is_empty());
}
