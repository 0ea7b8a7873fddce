//! `--fault stream-cut=P`: the front cuts SSE answers short as a dropped connection, and
//! the `a2a-lambda-client` stream resubscribes once (with `Last-Event-ID`) and goes on without
//! repeating an event; a second cut, or an upstream that refuses the resubscription, is a
//! clear error. The seeds are chosen for their draws: each stream is cut after 1 to 3
//! events (`--seed 0`: 1 then 1; `--seed 1`: 3 then 3; `--seed 2`: 2 then 2).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_lambda_client::model::{PartContent, StreamEvent, TaskState};
use a2a_lambda_client::{Client, Error, ProtocolVersion, RetryPolicy, text_params};
use a2a_test_support::harness::front::{invocations, rpc, session_id};
use a2a_test_support::harness::{Emulator, STEP_TIMEOUT, Value, Version, json};
use a2a_test_support::sse;
use futures_util::StreamExt as _;

const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/cut-Zz98Yy76Xx";

/// The emulator with every stream cut, the draws of `seed`, the conformance agent.
fn cutting(seed: &str) -> Emulator {
    Emulator::builder()
        .args([
            "--fault",
            "stream-cut=1",
            "--seed",
            seed,
            "--agent",
            "conformance",
        ])
        .start()
}

async fn client(emulator: &Emulator, version: ProtocolVersion) -> Client {
    Client::builder(emulator.url(&invocations(ARN)))
        .session_id(session_id("cut"))
        .version(version)
        .connect()
        .await
        .unwrap()
}

/// Every item of a stream of `message_id`, each event as a line naming its kind, state
/// (or text) and task.
async fn streamed(client: &Client, message_id: &str) -> Vec<String> {
    let mut params = text_params("cut me");
    params.message.message_id = message_id.to_owned();
    let mut events = client.stream(&params).await.unwrap();
    let mut lines = Vec::new();
    loop {
        let next = tokio::time::timeout(4 * STEP_TIMEOUT, events.next_event()).await;
        let Some(item) = next.expect("the stream goes on or ends") else {
            return lines;
        };
        lines.push(match item {
            Ok(StreamEvent::Task(task)) => {
                let text: Vec<String> = task
                    .artifacts
                    .iter()
                    .flat_map(|artifact| &artifact.parts)
                    .filter_map(|part| match &part.content {
                        PartContent::Text(text) => Some(text.clone()),
                        _ => None,
                    })
                    .collect();
                format!("task {:?} {text:?}", task.status.state)
            }
            Ok(StreamEvent::StatusUpdate(update)) => {
                format!("status {:?}", update.status.state)
            }
            Ok(StreamEvent::ArtifactUpdate(update)) => format!(
                "artifact {:?}",
                update.artifact.parts.first().map(|part| &part.content)
            ),
            Ok(StreamEvent::Message(_)) => "message".to_owned(),
            Err(error) => format!("error {error}"),
        });
    }
}

#[tokio::test]
async fn a_cut_stream_resumes_after_its_last_event_and_yields_each_event_once() {
    // Cut after 2 events (submitted, working) while the task works; the resubscription
    // resumes after the working update and brings the rest.
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let emulator = cutting("2");
        let client = client(&emulator, version).await;
        let lines = streamed(&client, "tck-delayed-complete-cut").await;
        assert_eq!(
            lines,
            ["task Submitted []", "status Working", "status Completed"],
            "{version:?}"
        );
    }
}

#[tokio::test]
async fn a_task_that_ended_during_the_cut_goes_on_as_the_task_as_it_stands() {
    // Cut after 3 events (submitted, working, first chunk); the task has ended by the time
    // the client resubscribes and the server answers with the task as it stands (all
    // three chunks, completed): the stream ends with it, no event twice.
    for version in [ProtocolVersion::V0_3, ProtocolVersion::V1_0] {
        let emulator = cutting("1");
        let client = client(&emulator, version).await;
        let lines = streamed(&client, "tck-stream-cut").await;
        assert_eq!(lines.len(), 4, "{version:?}: {lines:?}");
        assert_eq!(lines[..2], ["task Submitted []", "status Working"]);
        assert!(lines[2].starts_with("artifact Some(Text(\""), "{lines:?}");
        assert!(
            lines[3].starts_with("task Completed [") && lines[3].contains("content"),
            "{lines:?}"
        );
    }
}

#[tokio::test]
async fn a_second_cut_is_an_error_that_says_so() {
    // Cut after 1 event, resubscribed after it, cut again after the next.
    let emulator = cutting("0");
    let client = client(&emulator, ProtocolVersion::V1_0).await;
    let lines = streamed(&client, "tck-delayed-complete-twice").await;
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[..2], ["task Submitted []", "status Working"]);
    let error = &lines[2];
    assert!(error.starts_with("error the stream from "), "{error}");
    assert!(
        error.contains("again after resubscribing to task ") && error.contains(" once (first: "),
        "{error}"
    );
}

#[tokio::test]
async fn the_raw_answer_breaks_off_after_the_drawn_events_with_no_final_event() {
    let emulator = cutting("0");
    let response = emulator
        .send(
            emulator
                .http()
                .post(emulator.url(&invocations(ARN)))
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .header(
                    "x-amzn-bedrock-agentcore-runtime-session-id",
                    session_id("raw"),
                )
                .body(rpc(
                    &json!(7),
                    "message/stream",
                    Version::V0_3.send_params("m-raw", "hi"),
                )),
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let failure = loop {
        match tokio::time::timeout(STEP_TIMEOUT, body.next())
            .await
            .unwrap()
        {
            Some(Ok(chunk)) => text.push_str(&String::from_utf8_lossy(&chunk)),
            Some(Err(error)) => break Some(error),
            None => break None,
        }
    };
    assert!(failure.is_some(), "the body ended cleanly: {text}");
    let events: Vec<Value> = sse::json(&text);
    assert_eq!(events.len(), 1, "{text}");
    assert_eq!(events[0]["result"]["kind"], "task", "{text}");
    assert_eq!(events[0]["result"]["status"]["state"], "submitted");
}

/// A v1.0 upstream that streams a task (submitted, working, an artifact, never its end
/// before the front's cut). Without `replays`, it refuses `SubscribeToTask` with -32004
/// and `GetTask` says the task is still working; with it, a subscription replays the
/// working update and the artifact (ids `t-up:1`, `t-up:2`) before the completion
/// (`t-up:3`), whatever `Last-Event-ID` says. Returns its URL and the `Last-Event-ID`s it
/// was sent.
fn upstream(replays: bool) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { break };
            let record = Arc::clone(&record);
            std::thread::spawn(move || answer(stream, replays, &record));
        }
    });
    (url, seen)
}

/// An SSE event of id `id` whose data is `data`.
fn sse(id: &str, data: &str) -> String {
    format!("id: {id}\ndata: {data}\n\n")
}

const SSE_HEAD: &[u8] =
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

fn answer(mut stream: TcpStream, replays: bool, last_event_ids: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
        if let Some(value) = lower.strip_prefix("last-event-id:") {
            last_event_ids.lock().unwrap().push(value.trim().to_owned());
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let request: Value = serde_json::from_slice(&body).unwrap();
    let id = &request["id"];
    let task =
        json!({"id": "t-up", "contextId": "c-up", "status": {"state": "TASK_STATE_WORKING"}});
    let reply = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    match request["method"].as_str().unwrap() {
        "SendStreamingMessage" => {
            let submitted = json!({"task": {"id": "t-up", "contextId": "c-up",
                "status": {"state": "TASK_STATE_SUBMITTED"}}});
            let working = json!({"statusUpdate": {"taskId": "t-up", "contextId": "c-up",
                "status": {"state": "TASK_STATE_WORKING"}}});
            let artifact = json!({"artifactUpdate": {"taskId": "t-up", "contextId": "c-up",
                "artifact": {"artifactId": "a", "parts": [{"text": "part"}]}}});
            let mut out = SSE_HEAD.to_vec();
            for (n, event) in [submitted, working, artifact].into_iter().enumerate() {
                out.extend(sse(&format!("t-up:{n}"), &reply(event)).bytes());
            }
            let _ = stream.write_all(&out);
            // The task goes on working: the stream stays open until the front cuts it.
            std::thread::sleep(Duration::from_secs(30));
        }
        "SubscribeToTask" if replays => {
            let working = json!({"statusUpdate": {"taskId": "t-up", "contextId": "c-up",
                "status": {"state": "TASK_STATE_WORKING"}}});
            let artifact = json!({"artifactUpdate": {"taskId": "t-up", "contextId": "c-up",
                "artifact": {"artifactId": "a", "parts": [{"text": "part"}]}}});
            let completed = json!({"statusUpdate": {"taskId": "t-up", "contextId": "c-up",
                "status": {"state": "TASK_STATE_COMPLETED"}}});
            let mut out = SSE_HEAD.to_vec();
            for (n, event) in [working, artifact, completed].into_iter().enumerate() {
                out.extend(sse(&format!("t-up:{}", n + 1), &reply(event)).bytes());
            }
            let _ = stream.write_all(&out);
        }
        method => {
            let body = if method == "GetTask" {
                reply(task)
            } else {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32004,
                    "message": "This operation is not supported"}})
                .to_string()
            };
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    }
}

#[tokio::test]
async fn without_resubscription_upstream_the_cut_is_a_clear_error() {
    let (upstream, _) = upstream(false);
    let emulator = Emulator::builder()
        .args(["--upstream", &upstream, "--fault", "stream-cut=1"])
        .args(["--seed", "0"])
        .start();
    let client = Client::builder(emulator.url(&invocations(ARN)))
        .session_id(session_id("no-resub"))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let mut events = client.stream(&text_params("hi")).await.unwrap();
    let first = events.next_event().await.unwrap().unwrap();
    assert!(
        matches!(first, StreamEvent::Task(ref task) if task.status.state == TaskState::Submitted),
        "{first:?}"
    );
    let error = tokio::time::timeout(STEP_TIMEOUT, events.next_event())
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(error, Error::StreamResumeFailed { ref task_id, .. } if task_id == "t-up"),
        "{error:?}"
    );
    assert_eq!(error.rpc().map(|rpc| rpc.code_number()), Some(-32004));
    let text = error.to_string();
    assert!(
        text.contains(") and resubscribing to task t-up failed: ") && text.contains("-32004"),
        "{text}"
    );
    assert!(events.next_event().await.is_none());
}

#[tokio::test]
async fn events_a_resubscription_replays_are_not_yielded_twice() {
    // Cut after the three events the upstream sends first; its subscription replays two
    // of them before the completion.
    let (upstream, last_event_ids) = upstream(true);
    let emulator = Emulator::builder()
        .args(["--upstream", &upstream, "--fault", "stream-cut=1"])
        .args(["--seed", "1"])
        .start();
    let client = Client::builder(emulator.url(&invocations(ARN)))
        .session_id(session_id("replay"))
        .build()
        .unwrap();
    let mut events = client.stream(&text_params("hi")).await.unwrap();
    let mut seen = Vec::new();
    while let Some(event) = tokio::time::timeout(STEP_TIMEOUT, events.next_event())
        .await
        .unwrap()
    {
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
    assert_eq!(*last_event_ids.lock().unwrap(), ["t-up:2"]);
}
