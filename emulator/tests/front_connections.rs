//! Slow and broken clients of the emulator's AgentCore front, over real sockets (the
//! emulator library, small limits): a stalled body on the invocation path gets the 408
//! JSON-RPC body, a connection over the cap the 503 refusal, a reader that stops reading
//! is closed by the write-stall bound, a disconnect mid-stream releases stream and socket,
//! and shutdown ends a stream cleanly while refusing new connections.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use a2a_lambda_emulator::Emulator;
use a2a_test_support::agents::Behaving;
use a2a_test_support::conns::{
    End, eventually, read_answer, read_head, read_to_end, released, rpc, send,
};
use a2a_test_support::harness::front::{ARN, SESSION_HEADER, invocations};
use serde_json::json;
use tokio::io::AsyncWriteExt as _;

fn emulator() -> Emulator {
    Emulator::new(Behaving)
}

/// `POST` on the runtime's invocation path, session `session`, with `body`.
fn invoke(session: &str, body: &str) -> Vec<u8> {
    format!(
        "POST {} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{SESSION_HEADER}: {session}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        invocations(ARN),
        body.len()
    )
    .into_bytes()
}

const SESSION: &str = "front-connections-session-0000000000001";

#[tokio::test]
async fn a_body_that_stops_arriving_on_the_invocation_path_gets_408_with_a_json_rpc_error() {
    let running = emulator()
        .body_read_timeout(Duration::from_millis(300))
        .start()
        .await
        .unwrap();
    let mut head = invoke(SESSION, "");
    let length = head.len();
    head.truncate(length - 4 - 1);
    head.extend_from_slice(b"100\r\n\r\n{\"jsonrpc\":");
    let mut stream = send(running.address(), &head).await;
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 408);
    assert_eq!(answer.header("connection"), Some("close"));
    assert_eq!(answer.json()["id"], json!(null));
    assert_eq!(answer.json()["error"]["code"], -32600);
    assert_eq!(
        answer.json()["error"]["message"],
        "Request payload validation error: the request body stopped arriving: no part of it for 300 ms"
    );
    assert_eq!(
        read_to_end(&mut stream, Duration::from_secs(2)).await,
        End::Closed(Vec::new())
    );
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_connection_over_the_front_s_cap_gets_the_503_refusal() {
    let running = emulator().max_connections(1).start().await.unwrap();
    let mut first = send(
        running.address(),
        &invoke(SESSION, &rpc("message/send", "hi")),
    )
    .await;
    assert_eq!(read_answer(&mut first).await.status, 200);
    let mut refused = send(
        running.address(),
        &invoke(SESSION, &rpc("message/send", "hi")),
    )
    .await;
    let answer = read_answer(&mut refused).await;
    assert_eq!(answer.status, 503);
    assert_eq!(answer.header("retry-after"), Some("1"));
    assert_eq!(answer.json()["error"]["code"], -32603);
    assert_eq!(
        answer.json()["error"]["message"],
        "Internal error: the server has 1 connections open, its limit; retry in a second"
    );
    assert_eq!(running.connections().refused(), 1);
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_front_stream_whose_reader_stops_reading_is_closed_after_the_write_stall_bound() {
    let running = emulator()
        .write_stall_timeout(Duration::from_secs(1))
        .start()
        .await
        .unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(running.address()).await.unwrap();
    stream
        .write_all(&invoke(SESSION, &rpc("message/stream", "firehose")))
        .await
        .unwrap();
    assert_eq!(read_head(&mut stream).await.0, 200);
    let gauges = running.connections();
    assert_eq!((gauges.connections(), gauges.streams()), (1, 1));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(gauges.connections(), 1, "closed before the stall bound");
    assert!(
        eventually(Duration::from_secs(10), || gauges.connections() == 0).await,
        "a reader that stopped is still connected"
    );
    assert_eq!(gauges.streams(), 0);
    drop(stream);
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_that_disconnects_mid_stream_releases_the_front_s_stream_and_socket() {
    let running = emulator().start().await.unwrap();
    let mut stream = send(
        running.address(),
        &invoke(SESSION, &rpc("message/stream", "tick:20")),
    )
    .await;
    assert_eq!(read_head(&mut stream).await.0, 200);
    assert_eq!(running.connections().streams(), 1);
    drop(stream);
    released(running.connections()).await;
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn on_shutdown_the_front_refuses_new_connections_and_ends_its_streams_cleanly() {
    let running = emulator()
        .shutdown_grace(Duration::from_secs(1))
        .start()
        .await
        .unwrap();
    let address = running.address();
    let mut stream = send(address, &invoke(SESSION, &rpc("message/stream", "tick:50"))).await;
    assert_eq!(read_head(&mut stream).await.0, 200);
    let stopping = Instant::now();
    let shutdown = tokio::spawn(running.shutdown());
    assert!(
        eventually(Duration::from_millis(500), || std::net::TcpStream::connect(
            address
        )
        .is_err())
        .await,
        "still accepting"
    );
    let End::Closed(tail) = read_to_end(&mut stream, Duration::from_secs(3)).await else {
        panic!("the stream was not closed cleanly");
    };
    assert!(stopping.elapsed() >= Duration::from_millis(900));
    assert!(String::from_utf8(tail).unwrap().ends_with("\r\n0\r\n\r\n"));
    shutdown.await.unwrap().unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(3));
}
