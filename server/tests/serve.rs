//! `Container`: an agent served as an AgentCore container on a real socket — the card at
//! the public URL, `/ping`, JSON-RPC on `/`, a clean shutdown — and the settings read from
//! the environment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;

use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::serve::{Container, ContainerConfig, LogFormat, ServeError};
use serde_json::Value;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

/// One HTTP/1.1 exchange over a fresh connection: the status and the JSON body.
async fn exchange(address: SocketAddr, method: &str, path: &str, body: &str) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    let (_, body) = answer.split_once("\r\n\r\n").unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_container_serves_card_ping_and_json_rpc_then_stops() {
    let running = Container::new(EchoAgent)
        .address(([127, 0, 0, 1], 0).into())
        .public_url("https://example.com/runtimes/abc/invocations/")
        .bind()
        .await
        .unwrap();
    let address = running.address();
    assert_ne!(address.port(), 0);
    assert_eq!(
        running.url(),
        "https://example.com/runtimes/abc/invocations/"
    );

    let (status, card) = exchange(address, "GET", "/.well-known/agent-card.json", "").await;
    assert_eq!(status, 200);
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        "https://example.com/runtimes/abc/invocations/"
    );
    let (status, ping) = exchange(address, "GET", "/ping", "").await;
    assert_eq!((status, ping["status"].as_str()), (200, Some("Healthy")));
    let send = r#"{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}"#;
    let (status, answer) = exchange(address, "POST", "/", send).await;
    assert_eq!(status, 200);
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["status"]["state"], "completed");
    assert_eq!(answer["result"]["artifacts"][0]["parts"][0]["text"], "hi");

    running.shutdown().await.unwrap();
    assert!(
        tokio::net::TcpStream::connect(address).await.is_err(),
        "still listening"
    );
}

#[tokio::test]
async fn map_router_serves_the_routes_where_it_puts_them() {
    let running = Container::new(EchoAgent)
        .address(([127, 0, 0, 1], 0).into())
        .public_url("http://127.0.0.1:9000/agent")
        .map_router(|a2a| {
            axum::Router::new()
                .nest("/agent", a2a)
                .route("/version", axum::routing::get(|| async { "\"1.2.3\"" }))
        })
        .bind()
        .await
        .unwrap();
    let address = running.address();

    let (status, card) = exchange(address, "GET", "/agent/.well-known/agent-card.json", "").await;
    assert_eq!(status, 200);
    assert_eq!(
        card["supportedInterfaces"][0]["url"],
        "http://127.0.0.1:9000/agent"
    );
    let send = r#"{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"nested"}]}}}"#;
    let (status, answer) = exchange(address, "POST", "/agent", send).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["artifacts"][0]["parts"][0]["text"],
        "nested"
    );
    let (status, version) = exchange(address, "GET", "/version", "").await;
    assert_eq!((status, version), (200, Value::from("1.2.3")));
    // Only where the map put them: nothing is left at the root.
    let (status, _) = exchange(address, "POST", "/", send).await;
    assert_eq!(status, 404);
    let (status, _) = exchange(address, "GET", "/.well-known/agent-card.json", "").await;
    assert_eq!(status, 404);

    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_a_public_url_the_card_names_the_bound_address_on_loopback() {
    let running = Container::new(EchoAgent)
        .address(([0, 0, 0, 0], 0).into())
        .bind()
        .await
        .unwrap();
    let port = running.address().port();
    assert_eq!(running.url(), format!("http://127.0.0.1:{port}/"));
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_taken_port_is_a_bind_error_naming_the_address() {
    let taken = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = taken.local_addr().unwrap();
    let error = Container::new(EchoAgent)
        .address(address)
        .bind()
        .await
        .unwrap_err();
    assert!(matches!(error, ServeError::Bind { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot listen on {address}")),
        "{error}"
    );
}

#[test]
fn settings_come_from_the_environment_with_agentcore_defaults() {
    let defaults = ContainerConfig::from_lookup(|_| None).unwrap();
    assert_eq!(defaults.address, SocketAddr::from(([0, 0, 0, 0], 9000)));
    assert_eq!(defaults.public_url, None);
    assert_eq!(defaults.log_format, LogFormat::Text);

    let set = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" => "9100",
                "AGENTCORE_RUNTIME_URL" => "https://example.com/invocations",
                "A2A_ERROR_PROFILE" => "agentcore",
                "A2A_MAX_BODY_BYTES" => "1024",
                "A2A_SHUTDOWN_GRACE_SECONDS" => "3",
                "A2A_LOG_FORMAT" => "json",
                _ => return None,
            }
            .to_owned(),
        )
    })
    .unwrap();
    assert_eq!(set.address, SocketAddr::from(([127, 0, 0, 1], 9100)));
    assert_eq!(
        set.public_url.as_deref(),
        Some("https://example.com/invocations/")
    );
    assert_eq!(set.error_profile, a2a_lambda_core::ErrorProfile::AgentCore);
    assert_eq!(set.max_body_bytes, 1024);
    assert_eq!(set.shutdown_grace.as_secs(), 3);
    assert_eq!(set.log_format, LogFormat::Json);

    for (name, value, message) in [
        (
            "PORT",
            "nine",
            "PORT=\"nine\" is not valid: a port number (0 to 65535)",
        ),
        (
            "A2A_HOST",
            "localhost",
            "A2A_HOST=\"localhost\" is not valid: an IP address",
        ),
        (
            "A2A_ERROR_PROFILE",
            "aws",
            "A2A_ERROR_PROFILE=\"aws\" is not valid: spec or agentcore",
        ),
        (
            "A2A_MAX_BODY_BYTES",
            "0",
            "A2A_MAX_BODY_BYTES=\"0\" is not valid: a positive number",
        ),
        (
            "A2A_LOG_FORMAT",
            "xml",
            "A2A_LOG_FORMAT=\"xml\" is not valid: text or json",
        ),
    ] {
        let error = ContainerConfig::from_lookup(|asked| (asked == name).then(|| value.to_owned()))
            .unwrap_err();
        assert_eq!(error.to_string(), message);
    }
}
