//! Slow and broken clients of a container, over real sockets (`Container::bind`, small
//! limits): stalled headers and bodies, a connection over the cap, an SSE reader that stops
//! reading, disconnects and half-closes mid-stream — each closed or answered as
//! `a2a_lambda_server::host::listen` says, and each releasing its stream and its socket (the gauges).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use a2a_lambda_server::serve::{Container, ContainerConfig, Running};
use a2a_test_support::agents::Behaving;
use a2a_test_support::conns::{
    End, eventually, post, read_answer, read_head, read_to_end, released, rpc, send,
};
use serde_json::json;
use tokio::io::AsyncWriteExt as _;

fn container() -> Container {
    Container::new(Behaving).address(([127, 0, 0, 1], 0).into())
}

#[tokio::test]
async fn headers_not_finished_within_the_header_timeout_are_cut_without_an_answer() {
    let running = container()
        .header_read_timeout(Duration::from_millis(300))
        .bind()
        .await
        .unwrap();
    let started = Instant::now();
    let mut stream = send(
        running.address(),
        b"POST / HTTP/1.1\r\nHost: test\r\nContent-",
    )
    .await;
    assert!(
        eventually(Duration::from_secs(1), || running
            .connections()
            .connections()
            == 1)
        .await
    );
    let end = read_to_end(&mut stream, Duration::from_secs(5)).await;
    let took = started.elapsed();
    assert_eq!(end, End::Closed(Vec::new()));
    assert!(took >= Duration::from_millis(250), "cut after {took:?}");
    assert!(took < Duration::from_secs(3), "cut after {took:?}");
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_at_the_header_timeout() {
    let running = container()
        .header_read_timeout(Duration::from_millis(300))
        .bind()
        .await
        .unwrap();
    let mut stream = send(
        running.address(),
        &post("/", &rpc("message/send", "hi"), false),
    )
    .await;
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 200);
    let idle = Instant::now();
    assert_eq!(
        read_to_end(&mut stream, Duration::from_secs(5)).await,
        End::Closed(Vec::new())
    );
    assert!(idle.elapsed() >= Duration::from_millis(250));
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_body_that_stops_arriving_gets_408_with_a_json_rpc_error_and_the_connection_closed() {
    let running = container()
        .body_read_timeout(Duration::from_millis(300))
        .bind()
        .await
        .unwrap();
    let mut stream = send(
        running.address(),
        b"POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":",
    )
    .await;
    let started = Instant::now();
    let answer = read_answer(&mut stream).await;
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(answer.status, 408);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    assert_eq!(answer.header("connection"), Some("close"));
    assert_eq!(
        answer.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": -32600,
            "message": "Request payload validation error: the request body stopped arriving: no part of it for 300 ms",
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "INVALID_REQUEST",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": "the request body stopped arriving: no part of it for 300 ms"}
            }]
        }})
    );
    assert_eq!(
        read_to_end(&mut stream, Duration::from_secs(2)).await,
        End::Closed(Vec::new())
    );
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_slow_body_that_keeps_arriving_is_not_cut_the_timeout_is_between_chunks() {
    let running = container()
        .body_read_timeout(Duration::from_millis(300))
        .bind()
        .await
        .unwrap();
    let body = rpc("message/send", "slowly");
    let mut stream = send(
        running.address(),
        format!(
            "POST / HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    )
    .await;
    // Ten pieces 150 ms apart: 1.5 s in all, five times the timeout, never 300 ms quiet.
    let pieces: Vec<&[u8]> = body.as_bytes().chunks(body.len().div_ceil(10)).collect();
    for piece in pieces {
        tokio::time::sleep(Duration::from_millis(150)).await;
        stream.write_all(piece).await.unwrap();
    }
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json()["result"]["artifacts"][0]["parts"][0]["text"],
        "slowly"
    );
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_connection_over_the_cap_gets_503_retry_after_and_a_json_rpc_error() {
    let running = container().max_connections(2).bind().await.unwrap();
    let address = running.address();
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = send(address, &post("/", &rpc("message/send", "hi"), false)).await;
        assert_eq!(read_answer(&mut stream).await.status, 200);
        held.push(stream);
    }
    let mut refused = send(address, &post("/", &rpc("message/send", "hi"), false)).await;
    let answer = read_answer(&mut refused).await;
    assert_eq!(answer.status, 503);
    assert_eq!(answer.header("retry-after"), Some("1"));
    assert_eq!(answer.header("connection"), Some("close"));
    assert_eq!(
        answer.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": -32603,
            "message": "Internal error: the server has 2 connections open, its limit; retry in a second",
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "INTERNAL",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": "the server has 2 connections open, its limit; retry in a second"}
            }]
        }})
    );
    assert_eq!(
        read_to_end(&mut refused, Duration::from_secs(3)).await,
        End::Closed(Vec::new())
    );
    assert_eq!(running.connections().refused(), 1);
    assert_eq!(running.connections().connections(), 2);

    // A place freed is a place taken.
    drop(held.pop());
    assert!(
        eventually(Duration::from_secs(2), || running
            .connections()
            .connections()
            == 1)
        .await
    );
    let mut stream = send(address, &post("/", &rpc("message/send", "again"), true)).await;
    assert_eq!(read_answer(&mut stream).await.status, 200);
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_sse_reader_that_stops_reading_is_closed_after_the_write_stall_bound() {
    let running = container()
        .write_stall_timeout(Duration::from_secs(1))
        .bind()
        .await
        .unwrap();
    // A small receive buffer, so the server's writes fill it (and its own) soon.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(running.address()).await.unwrap();
    stream
        .write_all(&post("/", &rpc("message/stream", "firehose"), false))
        .await
        .unwrap();
    let (status, headers, _) = read_head(&mut stream).await;
    assert_eq!(status, 200);
    assert!(
        headers.contains(&"content-type: text/event-stream".to_owned()),
        "{headers:?}"
    );
    let gauges = running.connections();
    assert_eq!((gauges.connections(), gauges.streams()), (1, 1));
    // The client holds its socket and reads no more.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(gauges.connections(), 1, "closed before the stall bound");
    let stalled = Instant::now();
    assert!(
        eventually(Duration::from_secs(10), || gauges.connections() == 0).await,
        "a reader that stopped is still connected"
    );
    assert!(stalled.elapsed() >= Duration::from_millis(400));
    assert_eq!(gauges.streams(), 0);
    drop(stream);
    running.shutdown().await.unwrap();
}

/// A stream of a task that ticks for a while, its head read: one stream open.
async fn ticking_stream(running: &Running) -> tokio::net::TcpStream {
    let mut stream = send(
        running.address(),
        &post("/", &rpc("message/stream", "tick:20"), false),
    )
    .await;
    let (status, _, _) = read_head(&mut stream).await;
    assert_eq!(status, 200);
    assert_eq!(running.connections().streams(), 1);
    stream
}

#[tokio::test]
async fn a_client_that_disconnects_mid_stream_releases_its_stream_and_socket() {
    let running = container().bind().await.unwrap();
    let stream = ticking_stream(&running).await;
    drop(stream);
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_that_half_closes_mid_stream_releases_its_stream_and_socket() {
    let running = container().bind().await.unwrap();
    let mut stream = ticking_stream(&running).await;
    stream.shutdown().await.unwrap();
    released(running.connections()).await;
    // The server closed its side: the client reads to an end, not a hang.
    assert_ne!(
        read_to_end(&mut stream, Duration::from_secs(2)).await,
        End::Open
    );
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_that_disconnects_mid_body_releases_its_socket_at_once() {
    let running = container().bind().await.unwrap();
    let stream = send(
        running.address(),
        b"POST / HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"",
    )
    .await;
    assert!(
        eventually(Duration::from_secs(1), || running
            .connections()
            .connections()
            == 1)
        .await
    );
    drop(stream);
    // Well before the 60 s body timeout.
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn many_connections_are_served_at_once_and_all_released() {
    let running = container().bind().await.unwrap();
    let address = running.address();
    let clients: Vec<_> = (0..200)
        .map(|n| {
            tokio::spawn(async move {
                let mut stream = send(
                    address,
                    &post("/", &rpc("message/send", &format!("n{n}")), false),
                )
                .await;
                let answer = read_answer(&mut stream).await;
                (answer.status, stream)
            })
        })
        .collect();
    let mut streams = Vec::new();
    for client in clients {
        let (status, stream) = client.await.unwrap();
        assert_eq!(status, 200);
        streams.push(stream);
    }
    assert_eq!(running.connections().connections(), 200);
    drop(streams);
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[test]
fn the_connection_limits_are_read_from_the_environment() {
    let config = ContainerConfig::from_lookup(|name| {
        match name {
            "A2A_HEADER_READ_TIMEOUT_SECONDS" => Some("2.5"),
            "A2A_BODY_READ_TIMEOUT_SECONDS" => Some("7"),
            "A2A_WRITE_STALL_TIMEOUT_SECONDS" => Some("0.25"),
            "A2A_MAX_CONNECTIONS" => Some("123"),
            _ => None,
        }
        .map(str::to_owned)
    })
    .unwrap();
    assert_eq!(config.header_read_timeout, Duration::from_millis(2500));
    assert_eq!(config.body_read_timeout, Duration::from_secs(7));
    assert_eq!(config.write_stall_timeout, Duration::from_millis(250));
    assert_eq!(config.max_connections, 123);
    let defaults = ContainerConfig::default();
    assert_eq!(
        (
            defaults.header_read_timeout,
            defaults.body_read_timeout,
            defaults.write_stall_timeout,
            defaults.max_connections
        ),
        (
            Duration::from_secs(60),
            Duration::from_secs(60),
            Duration::from_secs(60),
            10_000
        )
    );
    for (name, value) in [
        ("A2A_HEADER_READ_TIMEOUT_SECONDS", "0"),
        ("A2A_BODY_READ_TIMEOUT_SECONDS", "-1"),
        ("A2A_WRITE_STALL_TIMEOUT_SECONDS", "soon"),
        ("A2A_MAX_CONNECTIONS", "0"),
    ] {
        let error = ContainerConfig::from_lookup(|asked| (asked == name).then(|| value.to_owned()))
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with(&format!("{name}={value:?} is not valid")),
            "{error}"
        );
    }
}
