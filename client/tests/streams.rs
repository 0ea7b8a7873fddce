#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Streams: SSE bodies written in awkward pieces (mid-`data:`, mid-JSON, between `\r` and
//! `\n`) decode into typed events in order and end after the final one; a connection that
//! closes or breaks early resubscribes once (with `Last-Event-ID`), skips what it yielded
//! already, and ends with [`Error::StreamResumeFailed`] or, cut again,
//! [`Error::StreamInterrupted`]; a JSON-RPC error event ends with [`Error::Rpc`]. A raw HTTP/1.1 server writes the bodies (wiremock sends a
//! body in one piece).

mod common;

use std::time::Duration;

use a2a_lambda_client::model::{PartContent, StreamEvent, TaskState};
use a2a_lambda_client::{Client, Error, EventStream, ProtocolVersion, text_params};
use common::{RawServer, Reply, fast_retry, message_v10, rpc_error, rpc_result};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer};

/// `data: <JSON-RPC result for id>` (no line end).
fn data(id: u64, result: &Value) -> String {
    format!("data: {}", rpc_result(id, result))
}

/// Whole events, one per JSON-RPC result for `id`.
fn events(id: u64, results: &[Value]) -> String {
    results
        .iter()
        .map(|result| format!("{}\n\n", data(id, result)))
        .collect()
}

/// `text` with a piece boundary (`|`) inserted at byte `at`.
fn cut(text: &str, at: usize) -> String {
    format!("{}|{}", &text[..at], &text[at..])
}

fn task(state: &str) -> Value {
    json!({"task": {"id": "t-1", "contextId": "ctx-1", "status": {"state": state}}})
}

fn status(state: &str) -> Value {
    json!({"statusUpdate": {
        "taskId": "t-1", "contextId": "ctx-1",
        "status": {"state": state, "timestamp": "2025-01-01T00:00:00Z"}
    }})
}

fn artifact(text: &str, append: bool, last_chunk: bool) -> Value {
    json!({"artifactUpdate": {
        "taskId": "t-1", "contextId": "ctx-1",
        "artifact": {"artifactId": "a-1", "name": "answer", "parts": [{"text": text}]},
        "append": append, "lastChunk": last_chunk
    }})
}

/// A whole v1.0 task stream, split in the middle of everything that can be split.
fn full_stream(id: u64) -> String {
    let submitted = data(id, &task("TASK_STATE_SUBMITTED"));
    let working = data(id, &status("TASK_STATE_WORKING"));
    let first = data(id, &artifact("hel", false, false));
    let last = data(id, &artifact("lo", true, true));
    let completed = data(id, &status("TASK_STATE_COMPLETED"));
    // The second artifact's JSON is spread over two data lines (joined with LF).
    let (last_head, last_tail) = last.split_at(last.find("\"result\"").unwrap());
    let after_final = data(id, &status("TASK_STATE_FAILED"));
    [
        ": keep-alive\r|\n\r\n".to_owned(),
        // mid-`data:`, then mid-JSON, then between the CR and LF ending the event.
        format!(
            "event: message\r\n{}\r|\n\r|\n",
            cut(&cut(&submitted, 2), 60)
        ),
        format!("id: 2\n{}\n\n", cut(&working, working.len() / 2)),
        format!("{}\r\n\r\n|", cut(&first, first.len() - 1)),
        format!("{last_head}\ndata: {last_tail}\n|\n"),
        format!("retry: 1000\r{}\r\r", cut(&completed, 5)),
        // Anything after the final event is not read.
        format!("{after_final}\n\n"),
    ]
    .concat()
}

fn sse(body: fn(u64) -> String) -> Reply {
    Reply::Sse(Box::new(body))
}

fn client(url: &str) -> Client {
    Client::builder(url).retry(fast_retry()).build().unwrap()
}

async fn next(stream: &mut EventStream) -> StreamEvent {
    match stream.next_event().await {
        Some(Ok(event)) => event,
        other => panic!("expected an event, got {other:?}"),
    }
}

async fn assert_over(stream: &mut EventStream) {
    assert!(stream.next_event().await.is_none(), "the stream is over");
    assert!(stream.next_event().await.is_none(), "and stays over");
}

fn text_of(event: &StreamEvent) -> &str {
    let StreamEvent::ArtifactUpdate(update) = event else {
        panic!("expected an artifact update, got {event:?}")
    };
    match &update.artifact.parts[0].content {
        PartContent::Text(text) => text,
        other => panic!("expected text, got {other:?}"),
    }
}

#[tokio::test]
async fn events_split_anywhere_arrive_typed_and_in_order() {
    let server = RawServer::start(vec![sse(full_stream)]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    let StreamEvent::Task(task) = next(&mut stream).await else {
        panic!("expected the task first")
    };
    assert_eq!(
        (
            task.id.as_str(),
            task.context_id.as_str(),
            task.status.state
        ),
        ("t-1", "ctx-1", TaskState::Submitted)
    );
    let StreamEvent::StatusUpdate(working) = next(&mut stream).await else {
        panic!("expected a status update")
    };
    assert_eq!(working.status.state, TaskState::Working);
    assert!(!working.is_final);
    assert_eq!(
        working.status.timestamp.as_deref(),
        Some("2025-01-01T00:00:00Z")
    );
    let first = next(&mut stream).await;
    assert_eq!(text_of(&first), "hel");
    let last = next(&mut stream).await;
    assert_eq!(text_of(&last), "lo");
    let StreamEvent::ArtifactUpdate(last) = last else {
        unreachable!()
    };
    assert!(last.append && last.last_chunk);
    let StreamEvent::StatusUpdate(completed) = next(&mut stream).await else {
        panic!("expected the final status update")
    };
    assert_eq!(completed.status.state, TaskState::Completed);
    assert!(completed.is_final);
    assert_over(&mut stream).await;

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert!(request.head.starts_with("POST / HTTP/1.1\r\n"));
    assert_eq!(
        request.header("accept").as_deref(),
        Some("text/event-stream")
    );
    assert_eq!(request.header("a2a-version").as_deref(), Some("1.0"));
    assert_eq!(request.json()["method"], "SendStreamingMessage");
}

#[tokio::test]
async fn a_connection_closed_mid_event_is_an_interrupted_stream() {
    fn body(id: u64) -> String {
        let working = data(id, &status("TASK_STATE_WORKING"));
        let half = data(id, &status("TASK_STATE_COMPLETED"));
        format!(
            "{}\n|\n{}\n\n|{}",
            data(id, &task("TASK_STATE_WORKING")),
            cut(&working, 10),
            &half[..half.len() / 2]
        )
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    let StreamEvent::StatusUpdate(update) = next(&mut stream).await else {
        panic!("expected a status update")
    };
    assert_eq!(update.status.state, TaskState::Working);
    // The cut stream resubscribes once; nothing answers any more.
    let error = stream.next_event().await.unwrap().unwrap_err();
    let Error::StreamResumeFailed {
        url, cut, task_id, ..
    } = &error
    else {
        panic!("expected StreamResumeFailed, got {error:?}")
    };
    assert_eq!((url, task_id.as_str()), (&server.url, "t-1"));
    assert!(cut.contains("in the middle of an event"), "{cut}");
    assert!(
        error
            .to_string()
            .contains(") and resubscribing to task t-1 failed: cannot reach "),
        "{error}"
    );
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn a_connection_closed_between_events_before_the_end_is_an_interrupted_stream() {
    fn body(id: u64) -> String {
        format!("{}\n\n", data(id, &status("TASK_STATE_WORKING")))
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    assert!(matches!(
        next(&mut stream).await,
        StreamEvent::StatusUpdate(_)
    ));
    let error = stream.next_event().await.unwrap().unwrap_err();
    let Error::StreamResumeFailed { cut, .. } = &error else {
        panic!("expected StreamResumeFailed, got {error:?}")
    };
    assert!(cut.contains("before the task reached"), "{cut}");
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn a_broken_chunked_body_is_an_interrupted_stream() {
    fn body(id: u64) -> String {
        format!("{}\n\n", data(id, &task("TASK_STATE_WORKING")))
    }
    let server = RawServer::start(vec![Reply::SseChunkedCut(Box::new(body))]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    let error = stream.next_event().await.unwrap().unwrap_err();
    assert!(
        matches!(&error, Error::StreamResumeFailed { cut, .. } if cut.contains("error reading a body")),
        "{error:?}"
    );
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn an_error_event_ends_the_stream() {
    fn body(id: u64) -> String {
        let error = rpc_error(id, -32603, "Internal error");
        format!(
            "{}\n\n{}|\n\n{}\n\n",
            data(id, &task("TASK_STATE_WORKING")),
            cut(&format!("data: {error}"), 20),
            data(id, &status("TASK_STATE_COMPLETED"))
        )
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    let error = stream.next_event().await.unwrap().unwrap_err();
    let Error::Rpc(rpc) = &error else {
        panic!("expected Rpc, got {error:?}")
    };
    assert_eq!(
        (rpc.code_number(), rpc.message.as_str(), rpc.http_status),
        (-32603, "Internal error", 200)
    );
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn an_event_for_another_request_is_an_invalid_response() {
    fn body(id: u64) -> String {
        format!("{}\n\n", data(id + 1, &task("TASK_STATE_WORKING")))
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    let error = stream.next_event().await.unwrap().unwrap_err();
    assert!(matches!(error, Error::InvalidResponse { .. }), "{error:?}");
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn v0_3_events_are_read_by_kind() {
    fn body(id: u64) -> String {
        let events = [
            json!({"kind": "task", "id": "t-3", "contextId": "c-3", "status": {"state": "submitted"}}),
            json!({"kind": "status-update", "taskId": "t-3", "contextId": "c-3",
                   "status": {"state": "working"}, "final": false}),
            json!({"kind": "artifact-update", "taskId": "t-3", "contextId": "c-3",
                   "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "old"}]},
                   "lastChunk": true}),
            json!({"kind": "status-update", "taskId": "t-3", "contextId": "c-3",
                   "status": {"state": "completed"}, "final": true}),
        ];
        events
            .iter()
            .map(|event| {
                let line = data(id, event);
                format!("{}\r\n\r\n", cut(&line, line.len() / 3))
            })
            .collect()
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = Client::builder(&server.url)
        .version(ProtocolVersion::V0_3)
        .build()
        .unwrap();

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    let StreamEvent::Task(task) = next(&mut stream).await else {
        panic!("expected a task")
    };
    assert_eq!(
        (task.id.as_str(), task.status.state),
        ("t-3", TaskState::Submitted)
    );
    let StreamEvent::StatusUpdate(working) = next(&mut stream).await else {
        panic!("expected a status update")
    };
    assert!(!working.is_final);
    assert_eq!(text_of(&next(&mut stream).await), "old");
    let StreamEvent::StatusUpdate(done) = next(&mut stream).await else {
        panic!("expected the final status update")
    };
    assert!(done.is_final);
    assert_eq!(done.status.state, TaskState::Completed);
    assert_over(&mut stream).await;

    let request = &server.requests()[0];
    assert_eq!(request.json()["method"], "message/stream");
    assert_eq!(request.header("a2a-version"), None);
    assert_eq!(request.json()["params"]["message"]["kind"], "message");
}

#[tokio::test]
async fn a_stream_refused_as_busy_is_retried() {
    fn busy(id: u64) -> String {
        rpc_error(id, -32054, "Session operation in progress, please retry")
    }
    fn body(id: u64) -> String {
        format!(
            "{}\n\n{}\n\n",
            data(id, &task("TASK_STATE_WORKING")),
            data(id, &status("TASK_STATE_COMPLETED"))
        )
    }
    let server = RawServer::start(vec![
        Reply::Json {
            status: 409,
            body: Box::new(busy),
        },
        sse(body),
    ])
    .await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    assert!(matches!(
        next(&mut stream).await,
        StreamEvent::StatusUpdate(_)
    ));
    assert_over(&mut stream).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, requests[1].body);
}

#[tokio::test]
async fn a_stream_refused_for_good_is_an_error_before_any_event() {
    fn conflict(id: u64) -> String {
        rpc_error(id, -32054, "Resource conflict - Resource already exists")
    }
    let server = RawServer::start(vec![Reply::Json {
        status: 409,
        body: Box::new(conflict),
    }])
    .await;
    let client = client(&server.url);

    let error = client.stream(&text_params("hello")).await.unwrap_err();

    assert_eq!(error.rpc().unwrap().name, "ConflictException");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_message_ends_the_stream() {
    fn body(id: u64) -> String {
        format!(
            "{}\n\n{}\n\n",
            data(id, &json!({"message": message_v10("hi there")})),
            data(id, &task("TASK_STATE_WORKING"))
        )
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    let StreamEvent::Message(reply) = next(&mut stream).await else {
        panic!("expected a message")
    };
    assert_eq!(reply.joined_text(), "hi there");
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn resubscribe_streams_the_task_again() {
    fn body(id: u64) -> String {
        format!(
            "{}\n\n{}\n\n",
            data(id, &status("TASK_STATE_WORKING")),
            data(id, &status("TASK_STATE_INPUT_REQUIRED"))
        )
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.resubscribe("t-1").await.unwrap();

    assert!(matches!(
        next(&mut stream).await,
        StreamEvent::StatusUpdate(_)
    ));
    let StreamEvent::StatusUpdate(interrupted) = next(&mut stream).await else {
        panic!("expected a status update")
    };
    assert_eq!(interrupted.status.state, TaskState::InputRequired);
    assert_over(&mut stream).await;
    let request = server.requests()[0].json();
    assert_eq!(request["method"], "SubscribeToTask");
    assert_eq!(request["params"]["id"], "t-1");
}

#[tokio::test]
async fn a_plain_json_answer_to_a_stream_is_one_event() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(common::echo_result(json!({"message": message_v10("once")})))
        .mount(&server)
        .await;
    let client = client(&server.uri());

    let mut stream = client.stream(&text_params("hello")).await.unwrap();

    let StreamEvent::Message(reply) = next(&mut stream).await else {
        panic!("expected a message")
    };
    assert_eq!(reply.joined_text(), "once");
    assert_over(&mut stream).await;
}

const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

fn completed_task_event(id: u64) -> String {
    format!("{}\n\n", data(id, &task("TASK_STATE_COMPLETED")))
}

async fn first_item(server: &RawServer) -> Result<StreamEvent, Error> {
    let mut stream = client(&server.url).stream(&text_params("hello")).await?;
    let first = stream.next_event().await.expect("one item");
    if first.is_ok() {
        assert_over(&mut stream).await;
    }
    first
}

#[tokio::test]
async fn a_byte_order_mark_is_skipped() {
    let server = RawServer::start(vec![Reply::Raw {
        head: SSE_HEAD,
        pieces: Box::new(|id| vec![format!("\u{feff}{}", completed_task_event(id)).into_bytes()]),
    }])
    .await;

    let event = first_item(&server).await.unwrap();

    assert!(matches!(event, StreamEvent::Task(_)), "{event:?}");
}

#[tokio::test]
async fn a_multibyte_character_split_across_pieces_is_kept() {
    fn pieces(id: u64) -> Vec<Vec<u8>> {
        let event = data(
            id,
            &json!({"artifactUpdate": {"taskId": "t-1", "contextId": "ctx-1",
                "artifact": {"artifactId": "a", "parts": [{"text": "h\u{e9}\u{1f600}"}]}}}),
        );
        let bytes = format!("{event}\n\n{}", completed_task_event(id)).into_bytes();
        // Cut inside the two-byte é and inside the four-byte emoji.
        let e_acute = bytes.windows(2).position(|w| w == [0xC3, 0xA9]).unwrap();
        let emoji = bytes.iter().position(|&b| b == 0xF0).unwrap();
        vec![
            bytes[..=e_acute].to_vec(),
            bytes[e_acute + 1..emoji + 2].to_vec(),
            bytes[emoji + 2..].to_vec(),
        ]
    }
    let server = RawServer::start(vec![Reply::Raw {
        head: SSE_HEAD,
        pieces: Box::new(pieces),
    }])
    .await;
    let mut stream = client(&server.url)
        .stream(&text_params("hello"))
        .await
        .unwrap();

    assert_eq!(text_of(&next(&mut stream).await), "h\u{e9}\u{1f600}");
    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn a_content_type_with_parameters_is_a_stream() {
    let server = RawServer::start(vec![Reply::Raw {
        head: "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\nconnection: close\r\n\r\n",
        pieces: Box::new(|id| vec![completed_task_event(id).into_bytes()]),
    }])
    .await;

    let event = first_item(&server).await.unwrap();

    assert!(matches!(event, StreamEvent::Task(_)), "{event:?}");
}

/// A BOM split over the first two reads (`EF` then `BB BF data: …`) is not skipped: the
/// first line's field reads as `"\u{feff}data"`, not `data`, and the event is lost.
#[tokio::test]
async fn a_byte_order_mark_split_across_reads_is_skipped() {
    let server = RawServer::start(vec![Reply::Raw {
        head: SSE_HEAD,
        pieces: Box::new(|id| {
            let bytes = format!("\u{feff}{}", completed_task_event(id)).into_bytes();
            vec![bytes[..1].to_vec(), bytes[1..].to_vec()]
        }),
    }])
    .await;

    let event = first_item(&server).await.unwrap();

    assert!(matches!(event, StreamEvent::Task(_)), "{event:?}");
}

/// Media types are case-insensitive (RFC 9110 §8.3.1); `Text/Event-Stream` is not taken
/// for a stream, so the client reads the whole body (until the server closes it) and then
/// fails to parse it as one JSON-RPC answer.
#[tokio::test]
async fn the_sse_content_type_is_matched_case_insensitively() {
    let server = RawServer::start(vec![Reply::Raw {
        head: "HTTP/1.1 200 OK\r\nContent-Type: Text/Event-Stream\r\nconnection: close\r\n\r\n",
        pieces: Box::new(|id| vec![completed_task_event(id).into_bytes()]),
    }])
    .await;

    let event = first_item(&server).await.unwrap();

    assert!(matches!(event, StreamEvent::Task(_)), "{event:?}");
}

#[tokio::test]
async fn a_follow_up_stream_goes_on_past_the_reopened_tasks_first_snapshot() {
    // A follow-up to an input-required task: its first snapshot still says input-required.
    fn body(id: u64) -> String {
        events(
            id,
            &[
                task("TASK_STATE_INPUT_REQUIRED"),
                status("TASK_STATE_WORKING"),
                artifact("answer", false, true),
                status("TASK_STATE_COMPLETED"),
            ],
        )
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);
    let mut params = text_params("my answer");
    params.message.task_id = Some("t-1".to_owned());

    let mut stream = client.stream(&params).await.unwrap();

    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    assert!(matches!(
        next(&mut stream).await,
        StreamEvent::StatusUpdate(_)
    ));
    assert_eq!(text_of(&next(&mut stream).await), "answer");
    let StreamEvent::StatusUpdate(done) = next(&mut stream).await else {
        panic!("expected the final status")
    };
    assert_eq!(done.status.state, TaskState::Completed);
    assert_over(&mut stream).await;
}

#[tokio::test]
async fn a_subscription_stays_open_across_input_required() {
    fn body(id: u64) -> String {
        events(
            id,
            &[
                status("TASK_STATE_INPUT_REQUIRED"),
                status("TASK_STATE_WORKING"),
                status("TASK_STATE_COMPLETED"),
            ],
        )
    }
    let server = RawServer::start(vec![sse(body)]).await;
    let client = client(&server.url);

    let mut stream = client.resubscribe("t-1").await.unwrap();

    let mut states = Vec::new();
    while let Some(event) = stream.next_event().await {
        let StreamEvent::StatusUpdate(update) = event.unwrap() else {
            panic!("status updates only")
        };
        states.push(update.status.state);
    }
    assert_eq!(
        states,
        [
            TaskState::InputRequired,
            TaskState::Working,
            TaskState::Completed
        ]
    );
}

/// A server that answers with a stream's head and a keep-alive, then says nothing more
/// (holding the connection open until the test ends).
async fn silent_stream_server() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buffer = vec![0; 65536];
        let _ = socket.read(&mut buffer).await;
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n: keep-alive\n\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        socket.flush().await.unwrap();
        std::future::pending::<()>().await;
        drop(socket);
    });
    url
}

#[tokio::test]
async fn a_silent_stream_ends_at_the_idle_timeout() {
    let url = silent_stream_server().await;
    let client = Client::builder(&url)
        .retry(fast_retry())
        .stream_idle_timeout(Some(Duration::from_millis(200)))
        .build()
        .unwrap();

    let mut stream = client.resubscribe("t-1").await.unwrap();

    let error = stream.next_event().await.unwrap().unwrap_err();
    let Error::StreamInterrupted { detail, .. } = &error else {
        panic!("expected StreamInterrupted, got {error:?}")
    };
    assert!(detail.contains("nothing arrived"), "{detail}");
    assert_over(&mut stream).await;
}

/// `id: <id>` and the data of one JSON-RPC result for `id`, as one event.
fn event_with_id(sse_id: &str, id: u64, result: &Value) -> String {
    format!("id: {sse_id}\n{}\n\n", data(id, result))
}

#[tokio::test]
async fn a_cut_stream_resubscribes_after_its_last_id_and_skips_what_it_yielded() {
    fn first(id: u64) -> String {
        [
            event_with_id("t-1:1.0", id, &task("TASK_STATE_SUBMITTED")),
            event_with_id("t-1:1.1", id, &status("TASK_STATE_WORKING")),
        ]
        .concat()
    }
    // The resubscription replays the working update before what came after it.
    fn replay(id: u64) -> String {
        [
            event_with_id("t-1:1.1", id, &status("TASK_STATE_WORKING")),
            event_with_id("t-1:2.1", id, &artifact("hi", false, true)),
            event_with_id("t-1:2.2", id, &status("TASK_STATE_COMPLETED")),
        ]
        .concat()
    }
    let server = RawServer::start(vec![sse(first), sse(replay)]).await;
    let client = client(&server.url);
    let mut stream = client.stream(&text_params("hello")).await.unwrap();
    let mut seen = Vec::new();
    while let Some(event) = stream.next_event().await {
        seen.push(match event.unwrap() {
            StreamEvent::Task(task) => format!("task {:?}", task.status.state),
            StreamEvent::StatusUpdate(update) => format!("status {:?}", update.status.state),
            StreamEvent::ArtifactUpdate(_) => "artifact".to_owned(),
            StreamEvent::Message(_) => "message".to_owned(),
        });
    }
    assert_eq!(
        seen,
        [
            "task Submitted",
            "status Working",
            "artifact",
            "status Completed"
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let resubscribe: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(resubscribe["method"], "SubscribeToTask");
    assert_eq!(resubscribe["params"], json!({"id": "t-1"}));
    assert_eq!(
        requests[1].header("last-event-id").as_deref(),
        Some("t-1:1.1")
    );
    assert_eq!(requests[0].header("last-event-id"), None);
}

#[tokio::test]
async fn a_stream_cut_twice_is_an_error_that_says_so() {
    fn first(id: u64) -> String {
        event_with_id("t-1:1.0", id, &task("TASK_STATE_WORKING"))
    }
    fn again(id: u64) -> String {
        event_with_id("t-1:1.1", id, &status("TASK_STATE_WORKING"))
    }
    let server = RawServer::start(vec![sse(first), sse(again)]).await;
    let client = client(&server.url);
    let mut stream = client.stream(&text_params("hello")).await.unwrap();
    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    assert!(matches!(
        next(&mut stream).await,
        StreamEvent::StatusUpdate(_)
    ));
    let error = stream.next_event().await.unwrap().unwrap_err();
    let Error::StreamInterrupted { detail, .. } = &error else {
        panic!("expected StreamInterrupted, got {error:?}")
    };
    assert_eq!(
        detail,
        "the connection closed before the task reached a final or interrupted state, again \
         after resubscribing to task t-1 once (first: the connection closed before the task \
         reached a final or interrupted state)"
    );
    assert_over(&mut stream).await;
    assert_eq!(
        server.requests()[1].header("last-event-id").as_deref(),
        Some("t-1:1.0")
    );
}

#[tokio::test]
async fn a_refused_resubscription_of_an_ended_task_ends_with_the_task_read() {
    fn first(id: u64) -> String {
        event_with_id("t-1:1.0", id, &task("TASK_STATE_WORKING"))
    }
    let refused = Reply::Json {
        status: 200,
        body: Box::new(|id| rpc_error(id, -32004, "nothing left to subscribe to")),
    };
    let read = Reply::Json {
        status: 200,
        body: Box::new(|id| {
            rpc_result(
                id,
                &json!({"id": "t-1", "contextId": "ctx-1", "status": {"state": "TASK_STATE_COMPLETED"}}),
            )
        }),
    };
    let server = RawServer::start(vec![sse(first), refused, read]).await;
    let client = client(&server.url);
    let mut stream = client.stream(&text_params("hello")).await.unwrap();
    assert!(matches!(next(&mut stream).await, StreamEvent::Task(_)));
    let StreamEvent::Task(task) = next(&mut stream).await else {
        panic!("expected the task read")
    };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_over(&mut stream).await;
    let methods: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| serde_json::from_slice::<Value>(&request.body).unwrap()["method"].clone())
        .collect();
    assert_eq!(
        methods,
        ["SendStreamingMessage", "SubscribeToTask", "GetTask"]
    );
}
