//! A container's graceful shutdown under load, over real sockets: the listener closes at
//! once, idle connections close, requests in flight finish within the grace or get a
//! JSON-RPC error, and streams end cleanly (the chunked body terminated, not a reset).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use a2a_lambda_server::serve::Container;
use a2a_test_support::agents::Behaving;
use a2a_test_support::conns::{
    End, eventually, post, read_answer, read_head, read_to_end, rpc, send,
};
use serde_json::json;

fn container(grace: Duration) -> Container {
    Container::new(Behaving)
        .address(([127, 0, 0, 1], 0).into())
        .shutdown_grace(grace)
}

#[tokio::test]
async fn on_shutdown_new_connections_are_refused_idle_ones_close_in_flight_finish_and_streams_end_cleanly()
 {
    let running = container(Duration::from_secs(2)).bind().await.unwrap();
    let address = running.address();
    // An idle keep-alive connection.
    let mut idle = send(address, &post("/", &rpc("message/send", "hi"), false)).await;
    assert_eq!(read_answer(&mut idle).await.status, 200);
    // A request in flight, answered 500 ms from now.
    let mut in_flight = send(
        address,
        &post("/", &rpc("message/send", "sleep:500"), false),
    )
    .await;
    // A stream that will not end by itself within the grace.
    let mut endless = send(
        address,
        &post("/", &rpc("message/stream", "tick:50"), false),
    )
    .await;
    assert_eq!(read_head(&mut endless).await.0, 200);
    // A stream whose task ends within the grace.
    let mut ending = send(
        address,
        &post("/", &rpc("message/stream", "sleep:300"), false),
    )
    .await;
    assert_eq!(read_head(&mut ending).await.0, 200);
    assert!(
        eventually(Duration::from_secs(2), || running.connections().streams()
            == 2)
        .await
    );
    // Concurrent sends while it stops: each is answered, or refused at connect.
    let load: Vec<_> = (0..50)
        .map(|n| {
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(n * 4)).await;
                let Ok(mut stream) = tokio::net::TcpStream::connect(address).await else {
                    return None;
                };
                let request = post("/", &rpc("message/send", &format!("n{n}")), true);
                if tokio::io::AsyncWriteExt::write_all(&mut stream, &request)
                    .await
                    .is_err()
                {
                    return None;
                }
                Some(read_to_end(&mut stream, Duration::from_secs(5)).await)
            })
        })
        .collect();

    let stopping = Instant::now();
    let shutdown = tokio::spawn(running.shutdown());

    // The listener is closed at once.
    let mut refused_after = None;
    for _ in 0..50 {
        if tokio::net::TcpStream::connect(address).await.is_err() {
            refused_after = Some(stopping.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let refused_after = refused_after.expect("still accepting after 500 ms");
    assert!(
        refused_after < Duration::from_millis(500),
        "{refused_after:?}"
    );
    // The idle connection is closed at once, without an answer.
    assert_eq!(
        read_to_end(&mut idle, Duration::from_millis(500)).await,
        End::Closed(Vec::new())
    );
    // The request in flight finishes.
    let answer = read_answer(&mut in_flight).await;
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json()["result"]["artifacts"][0]["parts"][0]["text"],
        "slept"
    );
    // The stream whose task ended closes with its final event and the chunked end.
    let End::Closed(tail) = read_to_end(&mut ending, Duration::from_secs(2)).await else {
        panic!("the ending stream did not close cleanly");
    };
    let tail = String::from_utf8(tail).unwrap();
    assert!(tail.contains(r#""final":true"#), "{tail}");
    assert!(tail.ends_with("\r\n0\r\n\r\n"), "{tail:?}");
    // The endless stream ends cleanly at the grace.
    let End::Closed(tail) = read_to_end(&mut endless, Duration::from_secs(4)).await else {
        panic!("the endless stream was not closed cleanly");
    };
    let ended_after = stopping.elapsed();
    assert!(
        ended_after >= Duration::from_millis(1900),
        "{ended_after:?}"
    );
    let tail = String::from_utf8(tail).unwrap();
    assert!(tail.ends_with("\r\n0\r\n\r\n"), "{tail:?}");
    assert!(!tail.contains(r#""final":true"#));

    shutdown.await.unwrap().unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(4));
    for client in load {
        match client.await.unwrap() {
            // Refused at connect: the listener had closed.
            None => {}
            Some(End::Closed(bytes)) => {
                let text = String::from_utf8_lossy(&bytes);
                assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
            }
            Some(other) => panic!("a send during shutdown ended {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_request_unanswered_when_the_grace_runs_out_gets_503_with_a_json_rpc_error() {
    let running = container(Duration::from_millis(300)).bind().await.unwrap();
    let mut stream = send(
        running.address(),
        &post("/", &rpc("message/send", "sleep:10000"), false),
    )
    .await;
    assert!(
        eventually(Duration::from_secs(1), || running
            .connections()
            .connections()
            == 1)
        .await
    );
    let stopping = Instant::now();
    let shutdown = tokio::spawn(running.shutdown());
    let answer = read_answer(&mut stream).await;
    assert!(stopping.elapsed() >= Duration::from_millis(250));
    assert_eq!(answer.status, 503);
    assert_eq!(answer.header("connection"), Some("close"));
    assert_eq!(
        answer.json(),
        json!({"jsonrpc": "2.0", "id": null, "error": {
            "code": -32603,
            "message": "Internal error: the server is shutting down and this request did not finish in time",
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "INTERNAL",
                "domain": "a2a-protocol.org",
                "metadata": {"detail": "the server is shutting down and this request did not finish in time"}
            }]
        }})
    );
    assert_eq!(
        read_to_end(&mut stream, Duration::from_secs(2)).await,
        End::Closed(Vec::new())
    );
    shutdown.await.unwrap().unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(2));
}
