#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Cards: `.connect()` reads `.well-known/agent-card.json` relative to the base (an
//! AgentCore invocation URL included), picks the JSON-RPC interface (1.0 first, 0.3 when
//! asked) and posts there in that version; a card without streaming refuses streams without
//! a request; an unreadable card is an error that says what came back.

mod common;

use a2a_lambda_client::model::SendResult;
use a2a_lambda_client::{Client, Error, ProtocolVersion, text_params};
use common::{echo_result, fast_retry, header, message_v10, request_json};
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const ARN: &str = "arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/agent-Ab12";
const ESCAPED_ARN: &str =
    "arn%3Aaws%3Abedrock-agentcore%3Aus-west-2%3A123456789012%3Aruntime%2Fagent-Ab12";

async fn card_at(server: &MockServer, card_path: &str, card: Value) {
    Mock::given(method("GET"))
        .and(path(card_path))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(server)
        .await;
}

fn hybrid_card(server: &MockServer, streaming: bool) -> Value {
    json!({
        "name": "hybrid",
        "url": format!("{}/v03/", server.uri()),
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "supportedInterfaces": [
            {"url": format!("{}/grpc", server.uri()), "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": format!("{}/v10/", server.uri()), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": streaming}
    })
}

async fn received(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap()
}

#[tokio::test]
async fn an_agentcore_invocation_base_reads_the_card_under_it_then_posts_to_the_interface() {
    let server = MockServer::start().await;
    let invocations = format!("/runtimes/{ESCAPED_ARN}/invocations/");
    let base = format!("{}{invocations}", server.uri());
    card_at(
        &server,
        &format!("{invocations}.well-known/agent-card.json"),
        json!({
            "name": "agentcore",
            "supportedInterfaces": [
                {"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {"streaming": true}
        }),
    )
    .await;
    Mock::given(method("POST"))
        .and(path(invocations.as_str()))
        .respond_with(echo_result(
            json!({"message": message_v10("from agentcore")}),
        ))
        .mount(&server)
        .await;

    let client = Client::connect(base.as_str()).await.unwrap();
    let result = client.send_text("hello").await.unwrap();

    let SendResult::Message(reply) = result else {
        panic!("expected a message, got {result:?}")
    };
    assert_eq!(reply.joined_text(), "from agentcore");
    assert_eq!(client.endpoint_url().as_str(), base);
    assert_eq!(client.version(), ProtocolVersion::V1_0);
    let card = client.card().unwrap();
    assert_eq!(card.name, "agentcore");
    assert!(card.streaming);
    assert_eq!(
        card.url.as_str(),
        format!("{base}.well-known/agent-card.json")
    );
    let requests = received(&server).await;
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method.as_str(), "GET");
    assert_eq!(
        requests[0].url.path(),
        format!("{invocations}.well-known/agent-card.json")
    );
    assert_eq!(header(&requests[0], "accept"), Some("application/json"));
    assert_eq!(header(&requests[0], "a2a-version"), None);
    assert_eq!(requests[1].method.as_str(), "POST");
    assert_eq!(requests[1].url.path(), invocations);
}

#[tokio::test]
async fn an_unescaped_arn_and_a_qualifier_are_kept_in_the_card_url() {
    let server = MockServer::start().await;
    let invocations = format!("/runtimes/{ESCAPED_ARN}/invocations");
    let interface = format!("{}{invocations}?qualifier=DEFAULT", server.uri());
    Mock::given(method("GET"))
        .and(path(format!("{invocations}/.well-known/agent-card.json")))
        .and(query_param("qualifier", "DEFAULT"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "name": "qualified",
            "supportedInterfaces": [
                {"url": interface, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ]
        })))
        .mount(&server)
        .await;

    let client = Client::connect(format!(
        "{}/runtimes/{ARN}/invocations?qualifier=DEFAULT",
        server.uri()
    ))
    .await
    .unwrap();

    assert_eq!(client.card().unwrap().name, "qualified");
    assert_eq!(client.endpoint_url().as_str(), interface);
}

#[tokio::test]
async fn a_hybrid_card_is_spoken_to_in_1_0() {
    let server = MockServer::start().await;
    card_at(
        &server,
        "/.well-known/agent-card.json",
        hybrid_card(&server, true),
    )
    .await;
    Mock::given(method("POST"))
        .and(path("/v10/"))
        .respond_with(echo_result(json!({"message": message_v10("one point oh")})))
        .mount(&server)
        .await;

    let client = Client::connect(server.uri()).await.unwrap();
    let result = client.send_text("hello").await.unwrap();

    assert_eq!(client.version(), ProtocolVersion::V1_0);
    assert!(matches!(result, SendResult::Message(_)), "{result:?}");
    let post = &received(&server).await[1];
    assert_eq!(post.url.path(), "/v10/");
    assert_eq!(header(post, "a2a-version"), Some("1.0"));
    assert_eq!(header(post, "content-type"), Some("application/json"));
    let body = request_json(post);
    assert_eq!(body["jsonrpc"], "2.0");
    assert_eq!(body["method"], "SendMessage");
    assert_eq!(body["params"]["message"]["role"], "ROLE_USER");
    assert_eq!(body["params"]["message"]["parts"][0]["text"], "hello");
}

#[tokio::test]
async fn a_hybrid_card_is_spoken_to_in_0_3_when_asked() {
    let server = MockServer::start().await;
    card_at(
        &server,
        "/.well-known/agent-card.json",
        hybrid_card(&server, true),
    )
    .await;
    Mock::given(method("POST"))
        .and(path("/v03/"))
        .respond_with(echo_result(json!({
            "kind": "message", "messageId": "r-1", "role": "agent",
            "parts": [{"kind": "text", "text": "zero point three"}]
        })))
        .mount(&server)
        .await;

    let client = Client::builder(server.uri())
        .version(ProtocolVersion::V0_3)
        .connect()
        .await
        .unwrap();
    let result = client.send_text("hello").await.unwrap();

    assert_eq!(client.version(), ProtocolVersion::V0_3);
    let SendResult::Message(reply) = result else {
        panic!("expected a message, got {result:?}")
    };
    assert_eq!(reply.joined_text(), "zero point three");
    let post = &received(&server).await[1];
    assert_eq!(post.url.path(), "/v03/");
    assert_eq!(header(post, "a2a-version"), None);
    let body = request_json(post);
    assert_eq!(body["method"], "message/send");
    assert_eq!(body["params"]["message"]["kind"], "message");
    assert_eq!(body["params"]["message"]["role"], "user");
}

#[tokio::test]
async fn a_card_without_streaming_refuses_streams_without_posting() {
    let server = MockServer::start().await;
    card_at(
        &server,
        "/.well-known/agent-card.json",
        hybrid_card(&server, false),
    )
    .await;

    let client = Client::connect(server.uri()).await.unwrap();
    let stream = client.stream(&text_params("hello")).await.unwrap_err();
    let resubscribe = client.resubscribe("t-1").await.unwrap_err();

    for (error, operation) in [(stream, "stream"), (resubscribe, "resubscribe")] {
        let Error::Unsupported {
            operation: refused,
            reason,
        } = &error
        else {
            panic!("expected Unsupported, got {error:?}")
        };
        assert_eq!(*refused, operation);
        assert!(reason.contains("streaming is false"), "{reason}");
    }
    let requests = received(&server).await;
    assert_eq!(requests.len(), 1, "only the card was read");
    assert_eq!(requests[0].method.as_str(), "GET");
}

#[tokio::test]
async fn a_missing_card_served_as_html_is_an_http_error() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(404).set_body_raw(
            "<html><body><h1>404 Not Found</h1></body></html>",
            "text/html",
        ))
        .mount(&server)
        .await;

    let error = Client::connect(server.uri()).await.unwrap_err();

    let Error::Http {
        url,
        status,
        content_type,
        body,
    } = &error
    else {
        panic!("expected Http, got {error:?}")
    };
    assert_eq!(*status, 404);
    assert_eq!(content_type.as_deref(), Some("text/html"));
    assert!(body.contains("404 Not Found"), "{body}");
    assert_eq!(
        url,
        &format!("{}/.well-known/agent-card.json", server.uri())
    );
    assert!(error.hint().unwrap().contains("nothing at that URL"));
    assert_eq!(received(&server).await.len(), 1);
}

#[tokio::test]
async fn a_card_refused_with_a_json_rpc_body_is_an_rpc_error() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(404).set_body_raw(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32051,"message":"Resource not found - Requested resource does not exist"}}"#,
            "application/json",
        ))
        .mount(&server)
        .await;

    let error = Client::connect(server.uri()).await.unwrap_err();

    let Error::Rpc(rpc) = &error else {
        panic!("expected Rpc, got {error:?}")
    };
    assert_eq!(
        (rpc.code_number(), rpc.http_status, rpc.name),
        (-32051, 404, "ResourceNotFoundException")
    );
}

#[tokio::test]
async fn an_unusable_card_is_a_card_error() {
    let server = MockServer::start().await;
    let mut cards = vec![
        ("<html>welcome</html>", "not JSON"),
        (r#"{"name":"no interfaces"}"#, "declares no interface"),
    ];
    // Without the `grpc` feature a gRPC-only card offers nothing this client speaks (with
    // it, the client uses that interface: `tests/tests/grpc.rs`).
    if cfg!(not(feature = "grpc")) {
        cards.push((
            r#"{"name":"grpc only","supportedInterfaces":[{"url":"/grpc","protocolBinding":"GRPC","protocolVersion":"1.0"}]}"#,
            "offers no JSON-RPC in 1.0 or 0.3, nor HTTP+JSON in 1.0 (it offers: GRPC 1.0)",
        ));
    }
    for (body, why) in cards {
        server.reset().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
            .mount(&server)
            .await;

        let error = Client::connect(server.uri()).await.unwrap_err();

        let Error::Card { detail, .. } = &error else {
            panic!("{body}: expected Card, got {error:?}")
        };
        assert!(detail.contains(why), "{body}: {detail}");
    }
}

#[tokio::test]
async fn a_0_3_card_cannot_be_spoken_to_in_1_0() {
    let server = MockServer::start().await;
    card_at(
        &server,
        "/.well-known/agent-card.json",
        json!({"name": "old", "url": format!("{}/", server.uri()), "protocolVersion": "0.3.0"}),
    )
    .await;

    let error = Client::builder(server.uri())
        .version(ProtocolVersion::V1_0)
        .connect()
        .await
        .unwrap_err();

    assert!(
        error.to_string().contains("offers no JSON-RPC in 1.0"),
        "{error}"
    );
    let client = Client::connect(server.uri()).await.unwrap();
    assert_eq!(client.version(), ProtocolVersion::V0_3);
}

#[tokio::test]
async fn relative_interface_urls_resolve_against_the_card() {
    let server = MockServer::start().await;
    card_at(
        &server,
        "/agents/a/.well-known/agent-card.json",
        json!({"supportedInterfaces": [
            {"url": "../rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0.0"}
        ]}),
    )
    .await;

    let client = Client::connect(format!("{}/agents/a", server.uri()))
        .await
        .unwrap();

    assert_eq!(
        client.endpoint_url().as_str(),
        format!("{}/agents/a/rpc", server.uri())
    );
}

#[tokio::test]
async fn a_throttled_card_request_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(429).set_body_raw(
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32053,"message":"Rate limit exceeded - Too many requests"}}"#,
            "application/json",
        ))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(hybrid_card(&server, true)))
        .with_priority(2)
        .mount(&server)
        .await;

    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .connect()
        .await
        .unwrap();

    assert_eq!(client.card().unwrap().name, "hybrid");
    assert_eq!(received(&server).await.len(), 2);
}

#[test]
fn a_base_that_is_not_an_http_url_is_a_config_error() {
    for base in ["", "127.0.0.1:9000", "ftp://h/", "not a url"] {
        let error = Client::builder(base).build().unwrap_err();
        assert!(matches!(error, Error::Config(_)), "{base}: {error:?}");
    }
}
