//! Helpers shared by the integration tests: a fast retry policy, JSON-RPC answers that echo
//! the request's id (wiremock responders), and a raw HTTP/1.1 server that writes SSE bodies
//! in pieces and can hang up mid-event (wiremock sends a body in one piece).

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_lambda_client::RetryPolicy;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wiremock::{Request, ResponseTemplate};

/// Retries with waits of a few milliseconds at most.
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy::default()
        .with_initial_backoff(Duration::from_millis(1))
        .with_max_backoff(Duration::from_millis(5))
}

/// The JSON-RPC id of a request body.
pub fn request_id(body: &[u8]) -> u64 {
    let request: Value = serde_json::from_slice(body).expect("the request body is JSON");
    request["id"]
        .as_u64()
        .expect("the request has a numeric id")
}

/// The JSON-RPC request a wiremock request carries.
pub fn request_json(request: &Request) -> Value {
    serde_json::from_slice(&request.body).expect("the request body is JSON")
}

/// A header of a wiremock request, as text.
pub fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request
        .headers
        .get(name)
        .map(|value| value.to_str().expect("a text header"))
}

/// `{"jsonrpc":"2.0","id":id,"result":result}`.
pub fn rpc_result(id: u64, result: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// `{"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}}`.
pub fn rpc_error(id: u64, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Answers 200 with `result`, echoing the request's id.
pub fn echo_result(result: Value) -> impl Fn(&Request) -> ResponseTemplate + Send + Sync {
    move |request: &Request| {
        ResponseTemplate::new(200).set_body_raw(
            rpc_result(request_id(&request.body), &result),
            "application/json",
        )
    }
}

/// Answers `status` with a JSON-RPC error, echoing the request's id.
pub fn echo_error(
    status: u16,
    code: i64,
    message: &'static str,
) -> impl Fn(&Request) -> ResponseTemplate + Send + Sync {
    move |request: &Request| {
        ResponseTemplate::new(status).set_body_raw(
            rpc_error(request_id(&request.body), code, message),
            "application/json",
        )
    }
}

/// A v1.0 task in `state` (`TASK_STATE_WORKING`, …).
pub fn task_v10(id: &str, state: &str) -> Value {
    json!({"id": id, "contextId": "ctx-1", "status": {"state": state}})
}

/// A v1.0 agent message with one text part.
pub fn message_v10(text: &str) -> Value {
    json!({"messageId": "reply-1", "role": "ROLE_AGENT", "parts": [{"text": text}]})
}

/// A request as the raw server read it.
#[derive(Debug, Clone)]
pub struct RawRequest {
    /// Request line and headers.
    pub head: String,
    /// The body.
    pub body: Vec<u8>,
}

impl RawRequest {
    /// A header's value (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (field, value) = line.split_once(':')?;
            field
                .trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }

    /// The JSON-RPC request.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the request body is JSON")
    }
}

/// Builds a body for a request id.
pub type BodyFn = Box<dyn Fn(u64) -> String + Send + Sync>;

/// What the raw server answers one connection with (then it closes the connection).
pub enum Reply {
    /// A complete JSON response with a `content-length`.
    Json {
        /// HTTP status.
        status: u16,
        /// The body for the request's id.
        body: BodyFn,
    },
    /// A `text/event-stream` response without length, delimited by closing the
    /// connection; the body is written in the pieces `|` separates, flushed one by one.
    Sse(BodyFn),
    /// A response head as given (ending with the blank line), then the body pieces as
    /// bytes (to split inside a character), flushed one by one.
    Raw {
        /// Status line and headers, `\r\n\r\n` included.
        head: &'static str,
        /// The body pieces for the request's id.
        pieces: Box<dyn Fn(u64) -> Vec<Vec<u8>> + Send + Sync>,
    },
    /// A chunked `text/event-stream` response: each `|` piece is one chunk, then a chunk
    /// is announced and cut short, and the connection closed (a broken body).
    SseChunkedCut(BodyFn),
}

/// A raw HTTP/1.1 server that answers one request per connection, in the order given.
pub struct RawServer {
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    requests: Arc<Mutex<Vec<RawRequest>>>,
    task: tokio::task::JoinHandle<()>,
}

impl RawServer {
    /// Serves `replies`, one connection each.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            for reply in replies {
                let (mut socket, _) = listener.accept().await.unwrap();
                socket.set_nodelay(true).unwrap();
                let request = read_request(&mut socket).await;
                let id = serde_json::from_slice::<Value>(&request.body)
                    .ok()
                    .and_then(|json| json["id"].as_u64())
                    .unwrap_or(0);
                seen.lock().unwrap().push(request);
                write_reply(&mut socket, &reply, id).await;
                let _ = socket.shutdown().await;
            }
        });
        Self {
            url,
            requests,
            task,
        }
    }

    /// The requests read so far.
    pub fn requests(&self) -> Vec<RawRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn read_request(socket: &mut TcpStream) -> RawRequest {
    let mut buffer = Vec::new();
    let mut chunk = [0_u8; 4096];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break at + 4;
        }
        let read = socket.read(&mut chunk).await.unwrap();
        assert!(read > 0, "the client hung up before sending a request");
        buffer.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8(buffer[..head_end].to_vec()).unwrap();
    let length = RawRequest {
        head: head.clone(),
        body: Vec::new(),
    }
    .header("content-length")
    .map_or(0, |length| length.parse::<usize>().unwrap());
    while buffer.len() < head_end + length {
        let read = socket.read(&mut chunk).await.unwrap();
        assert!(read > 0, "the client hung up in the middle of its body");
        buffer.extend_from_slice(&chunk[..read]);
    }
    RawRequest {
        head,
        body: buffer[head_end..head_end + length].to_vec(),
    }
}

/// Writes and flushes one piece, then lets the client run. A client that has stopped
/// reading (a stream over) may have hung up: write errors are ignored.
async fn write_piece(socket: &mut TcpStream, bytes: &[u8]) {
    let _ = socket.write_all(bytes).await;
    let _ = socket.flush().await;
    tokio::task::yield_now().await;
}

async fn write_reply(socket: &mut TcpStream, reply: &Reply, id: u64) {
    match reply {
        Reply::Json { status, body } => {
            let body = body(id);
            let head = format!(
                "HTTP/1.1 {status} Status\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            write_piece(socket, head.as_bytes()).await;
            write_piece(socket, body.as_bytes()).await;
        }
        Reply::Sse(body) => {
            write_piece(
                socket,
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n",
            )
            .await;
            for piece in body(id).split('|') {
                write_piece(socket, piece.as_bytes()).await;
            }
        }
        Reply::Raw { head, pieces } => {
            write_piece(socket, head.as_bytes()).await;
            for piece in pieces(id) {
                write_piece(socket, &piece).await;
            }
        }
        Reply::SseChunkedCut(body) => {
            write_piece(
                socket,
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n",
            )
            .await;
            for piece in body(id).split('|') {
                let chunk = format!("{:x}\r\n{piece}\r\n", piece.len());
                write_piece(socket, chunk.as_bytes()).await;
            }
            write_piece(socket, b"400\r\ndata: {\"jsonrpc\"").await;
        }
    }
}
