//! `--upstream`: the platform front before an external A2A server, against real processes.
//! The upstream is a second `a2a-emulator --container-only`, or a tiny server in the test
//! (one that records what it is sent, one that hangs up without answering); an unreachable
//! upstream is AgentCore's 424/-32055.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use a2a_test_support::harness::front::{
    self, ARN, RUNTIME_ERROR, SESSION_HEADER, invocations, invoke, rpc, send_params, session_id,
};
use a2a_test_support::harness::{Emulator, Value, Version, header, json};

fn upstream_container() -> Emulator {
    Emulator::start(&["--container-only", "--agent", "echo"])
}

fn front_of(upstream: &str) -> Emulator {
    Emulator::start(&["--upstream", upstream])
}

#[tokio::test]
async fn send_get_and_card_reach_the_upstream() {
    let upstream = upstream_container();
    let front = front_of(upstream.base_url());
    let session = session_id("upstream");
    let (id, reply) = invoke(
        &front,
        Some(&session),
        "message/send",
        send_params("m-upstream", "through the front"),
    )
    .await;
    assert_eq!(reply.json()["id"], id);
    let task = reply.result();
    assert_eq!(task["status"]["state"], "completed", "{task}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "through the front"
    );
    assert_eq!(reply.session(), Some(session.as_str()));
    assert!(reply.request_id().is_some());

    // The task is in the upstream: the front and the upstream both find it.
    let task_id = task["id"].as_str().unwrap();
    let via_front = front::get_task(&front, Some(&session), task_id).await;
    assert_eq!(via_front.result()["id"], task_id);
    let direct = upstream
        .call(Version::V0_3, "tasks/get", json!({"id": task_id}))
        .await;
    assert_eq!(direct["result"]["id"], task_id);

    // The container path too.
    let (_, reply) = front::call_at(
        &front,
        "/",
        None,
        "message/send",
        send_params("m-upstream-root", "root"),
    )
    .await;
    assert_eq!(reply.result()["artifacts"][0]["parts"][0]["text"], "root");

    // The card on the invocation path advertises the front's invocation URL.
    let expected = format!("{}{}", front.base_url(), invocations(ARN));
    let card = front::get(
        &front,
        &format!("{}.well-known/agent-card.json", invocations(ARN)),
        &[(SESSION_HEADER, &session)],
    )
    .await;
    assert_eq!(card.status, 200, "{card:?}");
    assert_eq!(card.session(), Some(session.as_str()));
    let card = card.json();
    assert_eq!(card["name"], "Echo Agent", "{card}");
    assert_eq!(card["url"], expected.as_str(), "{card}");
    let interfaces = card["supportedInterfaces"].as_array().expect("interfaces");
    assert!(!interfaces.is_empty(), "{card}");
    for interface in interfaces {
        assert_eq!(interface["url"], expected.as_str(), "{card}");
    }
    // The container's own card path is the upstream's card, unchanged.
    let own = front::get(&front, "/.well-known/agent-card.json", &[]).await;
    assert_eq!(own.status, 200, "{own:?}");
    assert_eq!(own.json()["url"], format!("{}/", upstream.base_url()));
}

#[tokio::test]
async fn a_stream_from_the_upstream_arrives_event_by_event() {
    let upstream = upstream_container();
    let front = front_of(upstream.base_url());
    let session = session_id("upstream-stream");
    let mut stream = front::open_stream(
        &front,
        &invocations(ARN),
        &[(SESSION_HEADER, session.as_str())],
        "message/stream",
        send_params("m-upstream-stream", "streamed"),
    )
    .await;
    assert_eq!(
        header(&stream.headers, SESSION_HEADER),
        Some(session.as_str())
    );
    assert!(header(&stream.headers, front::REQUEST_ID_HEADER).is_some());
    let first = stream.next_result().await;
    assert_eq!(first["kind"], "task", "{first}");
    let rest: Vec<Value> = stream
        .rest()
        .await
        .into_iter()
        .map(|event| event["result"].clone())
        .collect();
    let kinds: Vec<&str> = rest.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["status-update", "artifact-update", "status-update"],
        "{rest:?}"
    );
    assert_eq!(rest[0]["status"]["state"], "working");
    assert_eq!(rest[1]["artifact"]["parts"][0]["text"], "streamed");
    assert_eq!(rest[2]["status"]["state"], "completed");
    assert_eq!(rest[2]["final"], true);
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

async fn assert_unreachable(front: &Emulator) {
    let session = session_id("unreachable");
    for path in [invocations(ARN), "/".to_owned()] {
        let (id, reply) = front::call_at(
            front,
            &path,
            Some(&session),
            "message/send",
            send_params("m-unreachable", "anyone?"),
        )
        .await;
        reply.assert_aws(&id, RUNTIME_ERROR);
        assert_eq!(reply.session(), Some(session.as_str()));
        assert!(reply.request_id().is_some());
    }
    let card = front::get(
        front,
        &format!("{}.well-known/agent-card.json", invocations(ARN)),
        &[],
    )
    .await;
    card.assert_aws(&Value::Null, RUNTIME_ERROR);
    assert!(card.session().is_some());
}

#[tokio::test]
async fn an_upstream_that_refuses_connections_is_424() {
    let front = front_of(&format!("http://127.0.0.1:{}", closed_port()));
    assert_unreachable(&front).await;
}

/// Accepts connections and hangs up on each: after reading the request when `read_head`,
/// and after writing `answer` (a partial response, or nothing).
fn hanging_up_upstream(read_head: bool, answer: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            if read_head {
                let _ = read_request(&mut stream);
            }
            let _ = stream.write_all(answer);
            // Dropped: the connection closes without a (complete) answer.
        }
    });
    url
}

#[tokio::test]
async fn an_upstream_that_hangs_up_without_answering_is_424() {
    let front = front_of(&hanging_up_upstream(false, b""));
    assert_unreachable(&front).await;
    let front = front_of(&hanging_up_upstream(true, b""));
    assert_unreachable(&front).await;
}

#[tokio::test]
async fn an_upstream_that_dies_in_its_response_head_is_424() {
    let front = front_of(&hanging_up_upstream(true, b"HTTP/1.1 200 OK\r\nContent-Ty"));
    assert_unreachable(&front).await;
}

/// Reads one HTTP/1.1 request (head and `Content-Length` body); returns the head's lines
/// and the body.
fn read_request(stream: &mut TcpStream) -> std::io::Result<Recorded> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end().to_owned();
        if line.is_empty() {
            break;
        }
        lines.push(line);
    }
    let length = lines
        .iter()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())
                .flatten()
        })
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok((lines, body))
}

/// Answers every request with a fixed JSON-RPC message result, sending each request's
/// head lines and body to the returned channel.
/// A request as the upstream read it: its head lines and its body.
type Recorded = (Vec<String>, Vec<u8>);

fn recording_upstream() -> (String, mpsc::Receiver<Recorded>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let Ok((lines, body)) = read_request(&mut stream) else {
                continue;
            };
            let id = serde_json::from_slice::<Value>(&body)
                .map(|request| request["id"].clone())
                .unwrap_or(Value::Null);
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"kind": "message",
                "role": "agent", "messageId": "recorded",
                "parts": [{"kind": "text", "text": "recorded"}]}})
            .to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{answer}",
                answer.len()
            );
            let _ = tx.send((lines, body));
        }
    });
    (url, rx)
}

fn header_line<'a>(lines: &'a [String], name: &str) -> Option<&'a str> {
    lines.iter().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

#[tokio::test]
async fn the_session_trace_and_allowlisted_headers_reach_the_upstream_and_no_other() {
    let (url, recorded) = recording_upstream();
    let front = front_of(&url);
    let traces = [
        (
            "x-amzn-trace-id",
            "Root=1-5759e988-bd862e3fe1be46a994272793",
        ),
        (
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        ),
        ("tracestate", "congo=t61rcWkgMzE"),
        ("baggage", "userId=alice"),
    ];
    let session = session_id("recorded");
    let mut headers = vec![(SESSION_HEADER, session.as_str())];
    headers.extend(traces);
    // Only the allowlisted caller headers follow (the default allowlist names
    // A2A-Extensions).
    headers.extend([
        ("a2a-extensions", "https://example.com/ext"),
        ("x-custom-signature", "not allowlisted"),
        ("cookie", "restricted"),
    ]);
    let body = rpc(
        &json!("rec-1"),
        "message/send",
        send_params("m-rec", "recorded"),
    );
    let path = format!("{}?qualifier=DEFAULT", invocations(ARN));
    let reply = front::post(&front, &path, &headers, body.clone()).await;
    assert_eq!(reply.result()["messageId"], "recorded", "{reply:?}");
    assert_eq!(reply.json()["id"], "rec-1");
    assert_eq!(reply.session(), Some(session.as_str()));

    let (lines, received) = recorded
        .recv_timeout(Duration::from_secs(10))
        .expect("the upstream was called");
    // The container sees `/` (with the client's query).
    let target = lines[0].split(' ').nth(1).unwrap_or_default();
    assert!(lines[0].starts_with("POST "), "{lines:?}");
    assert_eq!(target.split('?').next(), Some("/"), "{lines:?}");
    assert_eq!(
        received, body,
        "the payload reaches the container unchanged"
    );
    assert_eq!(
        header_line(&lines, SESSION_HEADER),
        Some(session.as_str()),
        "{lines:?}"
    );
    for (name, value) in traces {
        assert_eq!(header_line(&lines, name), Some(value), "{name}: {lines:?}");
    }
    assert_eq!(
        header_line(&lines, "a2a-extensions"),
        Some("https://example.com/ext"),
        "{lines:?}"
    );
    for dropped in ["x-custom-signature", "cookie", "x-request-id"] {
        assert_eq!(header_line(&lines, dropped), None, "{dropped}: {lines:?}");
    }
    // The platform's request id, under its name, is the one the client gets back.
    assert_eq!(
        header_line(&lines, front::REQUEST_ID_HEADER),
        reply.request_id(),
        "{lines:?}"
    );

    // Without the header, the generated session is the one the container sees.
    let reply = front::post(&front, &invocations(ARN), &[], body).await;
    let generated = reply.session().expect("a generated session").to_owned();
    let (lines, _) = recorded
        .recv_timeout(Duration::from_secs(10))
        .expect("the upstream was called");
    assert_eq!(
        header_line(&lines, SESSION_HEADER),
        Some(generated.as_str()),
        "{lines:?}"
    );
}

/// The front passes the upstream's events on as they come: the first ones arrive while
/// the task still works, and a cancel through the front ends the stream.
#[tokio::test]
async fn an_upstream_stream_is_not_buffered() {
    let upstream = Emulator::start(&["--container-only", "--agent", "conformance"]);
    let front = front_of(upstream.base_url());
    let session = session_id("upstream-live");
    let mut stream = front::open_stream(
        &front,
        &invocations(ARN),
        &[(SESSION_HEADER, session.as_str())],
        "message/stream",
        send_params("slow-upstream-live", "wait"),
    )
    .await;
    let task = stream.next_result().await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    assert_eq!(stream.next_result().await["status"]["state"], "working");
    let (_, canceled) = invoke(
        &front,
        Some(&session),
        "tasks/cancel",
        json!({"id": task_id}),
    )
    .await;
    assert_eq!(canceled.result()["status"]["state"], "canceled");
    let rest = stream.rest().await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["result"]["status"]["state"], "canceled");
    assert_eq!(rest[0]["result"]["final"], true);
}
