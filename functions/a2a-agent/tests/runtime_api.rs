//! The real function binary against a fake Lambda Runtime API.
//!
//! The test serves the Runtime API itself (an axum server on `127.0.0.1:0`): it hands out
//! invocations on `GET /2018-06-01/runtime/invocation/next` with the `Lambda-Runtime-*`
//! headers, and records what the binary posts to `…/{id}/response`, `…/{id}/error` and
//! `/runtime/init/error` — chunk by chunk, with the time each chunk arrived, so a
//! streamed response can be told apart from one sent at the end.
//!
//! The binary under test is the one cargo builds for this package's tests
//! (`CARGO_BIN_EXE_a2a-agent`), always the current code. Every wait is bounded; the child
//! is killed on drop.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader, Read};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use a2a_test_support::lambda::{
    FUNCTION_URL_HOST, echo_card, echo_send_v0_3, echo_send_v1_0, ids, is_uuid, redact,
    unknown_method_error,
};
use a2a_test_support::sse;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tokio::sync::mpsc;

const FURL_CARD: &str = include_str!("../../lambda/tests/fixtures/function_url_get_card.json");
const FURL_SEND_V0_3: &str =
    include_str!("../../lambda/tests/fixtures/function_url_send_v0_3.json");
const FURL_SEND_V1_0: &str =
    include_str!("../../lambda/tests/fixtures/function_url_send_v1_0.json");
const FURL_UNKNOWN_METHOD: &str =
    include_str!("../../lambda/tests/fixtures/function_url_unknown_method.json");
const FURL_STREAM: &str = include_str!("../../lambda/tests/fixtures/function_url_stream_v0_3.json");
const FURL_STREAM_SLOW: &str =
    include_str!("../../lambda/tests/fixtures/function_url_stream_slow.json");
const FURL_REST_STREAM: &str =
    include_str!("../../lambda/tests/fixtures/function_url_rest_stream.json");
const FURL_REST_SUBSCRIBE: &str =
    include_str!("../../lambda/tests/fixtures/function_url_rest_subscribe.json");
const REST_PROD_CARD: &str =
    include_str!("../../lambda/tests/fixtures/apigw_v1_prod_get_card.json");

/// How long any one step may take: a record from the fake API, a log line, an exit.
const STEP: Duration = Duration::from_secs(20);
/// The separator between the streaming prelude and the body.
const PRELUDE_END: &[u8] = &[0; 8];

// ---------------------------------------------------------------------------------------
// The release binary.

/// The function binary cargo built for this test run.
fn function_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_a2a-agent"))
}

// ---------------------------------------------------------------------------------------
// The fake Runtime API.

struct Invocation {
    request_id: String,
    event: String,
}

/// What the fake API saw, in arrival order.
enum Record {
    /// An invocation was handed out on `/next`.
    Handed { request_id: String, at: Instant },
    /// A `/response` POST began (its headers).
    ResponseStart {
        request_id: String,
        headers: HeaderMap,
    },
    /// A piece of a `/response` body.
    Chunk { request_id: String, bytes: Bytes },
    /// The `/response` body is complete.
    ResponseEnd { request_id: String, at: Instant },
    /// `/invocation/{id}/error`.
    InvocationError { request_id: String, body: String },
    /// `/runtime/init/error`.
    InitError { headers: HeaderMap, body: String },
}

struct ApiState {
    queue: tokio::sync::Mutex<mpsc::UnboundedReceiver<Invocation>>,
    records: mpsc::UnboundedSender<Record>,
}

struct FakeRuntimeApi {
    addr: SocketAddr,
    invocations: mpsc::UnboundedSender<Invocation>,
    records: mpsc::UnboundedReceiver<Record>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeRuntimeApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn unix_millis(at: SystemTime) -> u128 {
    at.duration_since(UNIX_EPOCH).unwrap().as_millis()
}

async fn next_invocation(State(state): State<Arc<ApiState>>) -> Response {
    // Long-poll like the real API: wait until the test hands out an invocation.
    let Some(invocation) = state.queue.lock().await.recv().await else {
        return StatusCode::GONE.into_response();
    };
    let deadline = unix_millis(SystemTime::now() + Duration::from_secs(900));
    let response = Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .header("lambda-runtime-aws-request-id", &invocation.request_id)
        .header("lambda-runtime-deadline-ms", deadline.to_string())
        .header(
            "lambda-runtime-invoked-function-arn",
            "arn:aws:lambda:us-east-1:123456789012:function:a2a-agent",
        )
        .header(
            "lambda-runtime-trace-id",
            "Root=1-6630c1a8-2f1e7d5a4b3c2d1e0f9a8b7c;Parent=53995c3f42cd8ad8;Sampled=1",
        )
        .body(Body::from(invocation.event))
        .unwrap();
    let _ = state.records.send(Record::Handed {
        request_id: invocation.request_id,
        at: Instant::now(),
    });
    response
}

async fn invocation_response(
    State(state): State<Arc<ApiState>>,
    Path(request_id): Path<String>,
    request: Request,
) -> Response {
    let (parts, mut body) = request.into_parts();
    let _ = state.records.send(Record::ResponseStart {
        request_id: request_id.clone(),
        headers: parts.headers,
    });
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            // The function went away mid-stream (the tests kill it).
            return StatusCode::BAD_REQUEST.into_response();
        };
        if let Ok(bytes) = frame.into_data() {
            let _ = state.records.send(Record::Chunk {
                request_id: request_id.clone(),
                bytes,
            });
        }
    }
    let _ = state.records.send(Record::ResponseEnd {
        request_id,
        at: Instant::now(),
    });
    (StatusCode::ACCEPTED, r#"{"status":"OK"}"#).into_response()
}

async fn invocation_error(
    State(state): State<Arc<ApiState>>,
    Path(request_id): Path<String>,
    body: Bytes,
) -> Response {
    let body = String::from_utf8_lossy(&body).into_owned();
    let _ = state
        .records
        .send(Record::InvocationError { request_id, body });
    (StatusCode::ACCEPTED, r#"{"status":"OK"}"#).into_response()
}

async fn init_error(
    State(state): State<Arc<ApiState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body = String::from_utf8_lossy(&body).into_owned();
    let _ = state.records.send(Record::InitError { headers, body });
    (StatusCode::ACCEPTED, r#"{"status":"OK"}"#).into_response()
}

impl FakeRuntimeApi {
    async fn start() -> Self {
        let (invocations, queue) = mpsc::unbounded_channel();
        let (records_tx, records) = mpsc::unbounded_channel();
        let state = Arc::new(ApiState {
            queue: tokio::sync::Mutex::new(queue),
            records: records_tx,
        });
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next_invocation))
            .route(
                "/2018-06-01/runtime/invocation/{id}/response",
                post(invocation_response),
            )
            .route(
                "/2018-06-01/runtime/invocation/{id}/error",
                post(invocation_error),
            )
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            addr,
            invocations,
            records,
            server,
        }
    }

    fn invoke(&self, request_id: &str, event: &str) {
        self.invocations
            .send(Invocation {
                request_id: request_id.to_owned(),
                event: event.to_owned(),
            })
            .unwrap();
    }

    async fn record(&mut self, what: &str) -> Record {
        tokio::time::timeout(STEP, self.records.recv())
            .await
            .unwrap_or_else(|_| panic!("timed out after {STEP:?} waiting for {what}"))
            .expect("the fake Runtime API stopped")
    }

    /// Hands out `event` and returns the buffered response the function posts back, with
    /// the time from handing out the invocation to the end of the response.
    async fn call(&mut self, request_id: &str, event: &str) -> (HeaderMap, Vec<u8>, Duration) {
        self.invoke(request_id, event);
        let handed = match self.record("the invocation to be fetched").await {
            Record::Handed { request_id: id, at } if id == request_id => at,
            other => panic!("expected {request_id} handed out, got {}", describe(other)),
        };
        let headers = match self.record("the response").await {
            Record::ResponseStart {
                request_id: id,
                headers,
            } if id == request_id => headers,
            other => panic!(
                "expected the response to {request_id}, got {}",
                describe(other)
            ),
        };
        let mut body = Vec::new();
        loop {
            match self.record("the response body").await {
                Record::Chunk {
                    request_id: id,
                    bytes,
                } if id == request_id => body.extend_from_slice(&bytes),
                Record::ResponseEnd { request_id: id, at } if id == request_id => {
                    return (headers, body, at - handed);
                }
                other => panic!("expected the body of {request_id}, got {}", describe(other)),
            }
        }
    }
}

/// A record in words, for failure messages.
fn describe(record: Record) -> String {
    match record {
        Record::Handed { request_id, .. } => format!("{request_id} handed out"),
        Record::ResponseStart {
            request_id,
            headers,
        } => format!("response to {request_id} began: {headers:?}"),
        Record::Chunk { request_id, bytes } => {
            format!(
                "chunk of {request_id}: {:?}",
                String::from_utf8_lossy(&bytes)
            )
        }
        Record::ResponseEnd { request_id, .. } => format!("response to {request_id} ended"),
        Record::InvocationError { request_id, body } => {
            format!("/invocation/{request_id}/error: {body}")
        }
        Record::InitError { headers, body } => format!("/init/error {headers:?}: {body}"),
    }
}

// ---------------------------------------------------------------------------------------
// The function process.

struct Function {
    child: Child,
    /// Every line the process printed (stdout and stderr), as they come.
    lines: Arc<Mutex<Vec<String>>>,
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect_lines(stream: impl Read + Send + 'static, lines: Arc<Mutex<Vec<String>>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            lines
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(line);
        }
    });
}

impl Function {
    /// Starts the release binary as Lambda would, pointed at `api`, with `vars` on top of
    /// the Lambda environment (and nothing else from the test's environment).
    fn start(api: &FakeRuntimeApi, vars: &[(&str, &str)]) -> Self {
        let mut command = Command::new(function_binary());
        command
            .env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", api.addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", "a2a-agent")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env(
                "AWS_LAMBDA_LOG_STREAM_NAME",
                "2026/04/30/[$LATEST]0123456789abcdef0123456789abcdef",
            )
            .env("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/a2a-agent")
            .env("AWS_REGION", "us-east-1")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in vars {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("the binary starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        collect_lines(child.stdout.take().unwrap(), Arc::clone(&lines));
        collect_lines(child.stderr.take().unwrap(), Arc::clone(&lines));
        Self { child, lines }
    }

    fn output(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Polls (every 10 ms, for at most [`STEP`]) until a printed line satisfies `find`.
    async fn line(&self, what: &str, find: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(line) = self.output().into_iter().find(|line| find(line)) {
                return line;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; output so far:\n{}",
                self.output().join("\n")
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The `init_ms` of the `init complete` log line.
    async fn init_ms(&self) -> f64 {
        let line = self
            .line("the `init complete` log line", |line| {
                line.contains("\"init complete\"")
            })
            .await;
        let log: Value = serde_json::from_str(&line).expect("the log line is JSON");
        log["fields"]["init_ms"].as_f64().expect("init_ms")
    }

    /// Polls (every 10 ms, for at most [`STEP`]) until the process exits.
    async fn exit_status(&mut self) -> ExitStatus {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the process did not exit; output:\n{}",
                self.output().join("\n")
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reading what the function posted.

/// A buffered HTTP-integration response (the Function URL / HTTP API v2 shape): its JSON
/// with the body parsed and the generated headers checked and removed.
fn buffered(headers: &HeaderMap, body: &[u8]) -> (Value, Value) {
    assert!(
        headers
            .get("lambda-runtime-function-response-mode")
            .is_none(),
        "buffered responses are not streamed: {headers:?}"
    );
    let mut response: Value = serde_json::from_slice(body)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(body)));
    let request_id = response["headers"]
        .as_object_mut()
        .and_then(|headers| headers.remove("x-request-id"))
        .unwrap_or_else(|| panic!("x-request-id in {response}"));
    assert!(is_uuid(request_id.as_str().unwrap()), "{request_id}");
    let text = response["body"].as_str().expect("a text body").to_owned();
    response["body"] = json!("<body>");
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (response, body)
}

/// The Lambda response around a JSON body of `length` bytes.
fn lambda_json_response(length: usize, extra_headers: &[(&str, &str)]) -> Value {
    let mut headers =
        json!({"content-type": "application/json", "content-length": length.to_string()});
    for (name, value) in extra_headers {
        headers[*name] = json!(value);
    }
    json!({
        "statusCode": 200,
        "headers": headers,
        "multiValueHeaders": {},
        "body": "<body>",
        "isBase64Encoded": false,
        "cookies": [],
    })
}

/// A streamed response, parsed as its chunks arrive: the prelude, then SSE events.
#[derive(Default)]
struct Streamed {
    bytes: Vec<u8>,
    prelude: Option<Value>,
    body_from: usize,
}

impl Streamed {
    fn push(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        if self.prelude.is_none()
            && let Some(at) = self
                .bytes
                .windows(PRELUDE_END.len())
                .position(|window| window == PRELUDE_END)
        {
            let prelude = &self.bytes[..at];
            self.prelude = Some(serde_json::from_slice(prelude).unwrap_or_else(|_| {
                panic!(
                    "the prelude is not JSON: {}",
                    String::from_utf8_lossy(prelude)
                )
            }));
            self.body_from = at + PRELUDE_END.len();
        }
    }

    fn body(&self) -> &str {
        std::str::from_utf8(&self.bytes[self.body_from..]).expect("a UTF-8 body")
    }

    /// The complete SSE events so far (`data:` payloads as JSON).
    fn events(&self) -> Vec<Value> {
        if self.prelude.is_none() {
            return Vec::new();
        }
        sse::json(self.body())
    }
}

fn assert_streaming_headers(headers: &HeaderMap) {
    assert_eq!(
        headers
            .get("lambda-runtime-function-response-mode")
            .unwrap(),
        "streaming",
        "{headers:?}"
    );
    assert_eq!(
        headers.get("content-type").unwrap(),
        "application/vnd.awslambda.http-integration-response"
    );
    assert_eq!(headers.get("transfer-encoding").unwrap(), "chunked");
}

/// The prelude with its generated `x-request-id` checked and removed.
fn prelude_without_request_id(prelude: &Value) -> Value {
    let mut prelude = prelude.clone();
    let id = prelude["headers"]
        .as_object_mut()
        .and_then(|headers| headers.remove("x-request-id"))
        .unwrap_or_else(|| panic!("x-request-id in the prelude {prelude}"));
    assert!(is_uuid(id.as_str().unwrap()), "{id}");
    prelude
}

fn sse_prelude() -> Value {
    json!({
        "statusCode": 200,
        "headers": {"content-type": "text/event-stream", "cache-control": "no-cache"},
        "cookies": [],
    })
}

// ---------------------------------------------------------------------------------------
// The tests.

#[tokio::test]
async fn buffered_invocations_post_the_exact_responses() {
    let mut api = FakeRuntimeApi::start().await;
    let function = Function::start(&api, &[]);
    let init_ms = function.init_ms().await;
    eprintln!("buffered echo: init_ms = {init_ms:.3}");

    // The card, with the URL the request came to.
    let (headers, body, card_took) = api.call("inv-card", FURL_CARD).await;
    let (mut response, card) = buffered(&headers, &body);
    for name in ["etag", "last-modified"] {
        let value = response["headers"].as_object_mut().unwrap().remove(name);
        assert!(value.is_some_and(|value| value.is_string()), "{name}");
    }
    let card_json = serde_json::to_vec(&card).unwrap();
    assert_eq!(
        response,
        lambda_json_response(card_json.len(), &[("cache-control", "public, max-age=300")])
    );
    assert_eq!(
        card,
        echo_card(&format!("https://{FUNCTION_URL_HOST}/"), false)
    );

    // message/send (v0.3), SendMessage (v1.0), an unknown method.
    let mut durations = vec![card_took];
    let (headers, body, took) = api.call("inv-send-v0-3", FURL_SEND_V0_3).await;
    durations.push(took);
    let (response, answer) = buffered(&headers, &body);
    let length = serde_json::to_vec(&answer).unwrap().len();
    assert_eq!(response, lambda_json_response(length, &[]));
    assert_eq!(
        redact(&answer),
        echo_send_v0_3(
            json!(1),
            &answer,
            "furl-send-1",
            "hello from a function url"
        )
    );

    let (headers, body, took) = api.call("inv-send-v1-0", FURL_SEND_V1_0).await;
    durations.push(took);
    let (response, answer) = buffered(&headers, &body);
    let length = serde_json::to_vec(&answer).unwrap().len();
    assert_eq!(response, lambda_json_response(length, &[]));
    assert_eq!(
        redact(&answer),
        echo_send_v1_0(json!("v1-send"), &answer, "furl-send-2", "hello v1")
    );

    let (headers, body, took) = api.call("inv-unknown", FURL_UNKNOWN_METHOD).await;
    durations.push(took);
    let (response, answer) = buffered(&headers, &body);
    let length = serde_json::to_vec(&answer).unwrap().len();
    assert_eq!(response, lambda_json_response(length, &[]));
    assert_eq!(answer, unknown_method_error());

    // A stream method in buffered mode: refused, not streamed.
    let (headers, body, _) = api.call("inv-stream", FURL_STREAM).await;
    let (_, answer) = buffered(&headers, &body);
    assert_eq!(answer["error"]["code"], -32004, "{answer}");

    // Not an HTTP event (a direct `aws lambda invoke`): reported on `/error`, and the
    // function goes on serving.
    api.invoke("inv-not-http", r#"{"hello":"world"}"#);
    match api.record("the invocation to be fetched").await {
        Record::Handed { request_id, .. } => assert_eq!(request_id, "inv-not-http"),
        other => panic!("{}", describe(other)),
    }
    match api.record("the invocation error").await {
        Record::InvocationError { request_id, body } => {
            assert_eq!(request_id, "inv-not-http");
            let error: Value = serde_json::from_str(&body).unwrap();
            let message = error["errorMessage"].as_str().unwrap();
            assert!(
                message.contains("this function expects a JSON payload from Amazon API Gateway"),
                "{error}"
            );
            assert!(error["errorType"].is_string(), "{error}");
        }
        other => panic!("{}", describe(other)),
    }

    // Warm invocations of the echo agent: a few more sends.
    for round in 0..20 {
        let (headers, body, took) = api.call(&format!("inv-warm-{round}"), FURL_SEND_V0_3).await;
        let (_, answer) = buffered(&headers, &body);
        assert_eq!(answer["result"]["status"]["state"], "completed");
        durations.push(took);
    }
    let micros: Vec<u128> = durations.iter().map(Duration::as_micros).collect();
    let mut warm = micros[4..].to_vec();
    warm.sort_unstable();
    eprintln!(
        "buffered echo: handout → response end (µs): card {}, v0.3 send {}, v1.0 send {}, \
         unknown {}; 20 warm v0.3 sends: min {} median {} max {}",
        micros[0],
        micros[1],
        micros[2],
        micros[3],
        warm[0],
        warm[warm.len() / 2],
        warm[warm.len() - 1]
    );

    // Nothing went to the error endpoints.
    if let Ok(record) = api.records.try_recv() {
        panic!("no further records, got {}", describe(record));
    }

    // JSON logs: every JSON-RPC call logs the engine's request id, method, version,
    // outcome and duration inside the runtime's span (AWS request id, X-Ray trace id).
    let logs = function.output();
    let logs: Vec<Value> = logs
        .iter()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let rpc_log = |aws_request_id: &str| {
        let mut log = logs
            .iter()
            .find(|log| log["span"]["requestId"] == aws_request_id)
            .unwrap_or_else(|| panic!("no log line for {aws_request_id}: {logs:?}"))
            .clone();
        let fields = log["fields"].as_object_mut().unwrap();
        let request_id = fields.remove("request_id").unwrap();
        assert!(is_uuid(request_id.as_str().unwrap()), "{request_id}");
        let duration = fields.remove("duration_ms").unwrap();
        assert!(duration.as_f64().is_some_and(|ms| ms >= 0.0), "{duration}");
        log
    };
    let span = |aws_request_id: &str| {
        json!({
            "requestId": aws_request_id,
            "xrayTraceId": "Root=1-6630c1a8-2f1e7d5a4b3c2d1e0f9a8b7c;Parent=53995c3f42cd8ad8;Sampled=1",
            "name": "Lambda runtime invoke",
        })
    };
    for (aws_request_id, method, version, outcome) in [
        ("inv-send-v0-3", "message/send", "0.3", "ok"),
        ("inv-send-v1-0", "SendMessage", "1.0", "ok"),
        ("inv-unknown", "tasks/frobnicate", "0.3", "-32601"),
        ("inv-stream", "message/stream", "0.3", "-32004"),
    ] {
        assert_eq!(
            rpc_log(aws_request_id),
            json!({
                "level": "INFO",
                "fields": {
                    "message": "rpc", "session_id": "", "method": method,
                    "version": version, "outcome": outcome,
                },
                "span": span(aws_request_id),
            })
        );
    }
}

#[tokio::test]
async fn streaming_message_stream_sends_the_prelude_then_the_events_in_order() {
    let mut api = FakeRuntimeApi::start().await;
    let function = Function::start(
        &api,
        &[("A2A_STREAMING", "true"), ("A2A_AGENT", "conformance")],
    );
    let init_ms = function.init_ms().await;
    eprintln!("streaming conformance: init_ms = {init_ms:.3}");

    // Even the card goes out through the streaming protocol; it says the host streams.
    let (headers, body, _) = api.call("inv-card", FURL_CARD).await;
    assert_streaming_headers(&headers);
    let mut streamed = Streamed::default();
    streamed.push(&body);
    let mut prelude = prelude_without_request_id(streamed.prelude.as_ref().expect("a prelude"));
    for name in ["etag", "last-modified"] {
        assert!(
            prelude["headers"]
                .as_object_mut()
                .unwrap()
                .remove(name)
                .is_some()
        );
    }
    assert_eq!(
        prelude,
        json!({
            "statusCode": 200,
            "headers": {
                "content-type": "application/json",
                "cache-control": "public, max-age=300",
                "content-length": streamed.body().len().to_string(),
            },
            "cookies": [],
        })
    );
    let card: Value = serde_json::from_str(streamed.body()).unwrap();
    assert_eq!(card["name"], "Conformance Agent");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["url"], format!("https://{FUNCTION_URL_HOST}/"));

    // message/stream: working → three artifact chunks → completed.
    let (headers, body, _) = api.call("inv-stream", FURL_STREAM).await;
    assert_streaming_headers(&headers);
    let mut streamed = Streamed::default();
    streamed.push(&body);
    assert_eq!(
        prelude_without_request_id(streamed.prelude.as_ref().unwrap()),
        sse_prelude()
    );
    let events = streamed.events();
    assert!(
        streamed.body().ends_with("\n\n"),
        "the body is whole SSE frames: {:?}",
        streamed.body()
    );
    let task = &events[0]["result"];
    let (task_id, context_id) = ids(task);
    let event = |result: Value| json!({"jsonrpc": "2.0", "id": "stream-1", "result": result});
    let chunk = |text: &str, append: bool, last: bool| {
        event(json!({
            "kind": "artifact-update", "taskId": task_id, "contextId": context_id,
            "artifact": {"artifactId": "stream", "parts": [{"kind": "text", "text": text}]},
            "append": append, "lastChunk": last,
        }))
    };
    let status = |state: &str, last: bool| {
        event(json!({
            "kind": "status-update", "taskId": task_id, "contextId": context_id,
            "status": {"state": state, "timestamp": "<timestamp>"}, "final": last,
        }))
    };
    let expected = vec![
        event(json!({
            "kind": "task", "id": task_id, "contextId": context_id,
            "status": {"state": "submitted", "timestamp": "<timestamp>"},
            "history": [{
                "kind": "message", "messageId": "tck-stream-1", "role": "user",
                "parts": [{"kind": "text", "text": "stream please"}],
                "contextId": context_id, "taskId": task_id,
            }],
        })),
        status("working", false),
        chunk("Streaming ", false, false),
        chunk("chunk ", true, false),
        chunk("content", true, true),
        status("completed", true),
    ];
    assert_eq!(redact(&Value::Array(events)), Value::Array(expected));
    if let Ok(record) = api.records.try_recv() {
        panic!("no further records, got {}", describe(record));
    }
}

#[tokio::test]
async fn streaming_events_reach_the_runtime_api_while_the_invocation_is_open() {
    let mut api = FakeRuntimeApi::start().await;
    let _function = Function::start(
        &api,
        &[("A2A_STREAMING", "true"), ("A2A_AGENT", "conformance")],
    );
    // `slow-1` stays working until canceled: the response never ends by itself.
    api.invoke("inv-slow", FURL_STREAM_SLOW);
    match api.record("the invocation to be fetched").await {
        Record::Handed { request_id, .. } => assert_eq!(request_id, "inv-slow"),
        other => panic!("{}", describe(other)),
    }
    match api.record("the streamed response to begin").await {
        Record::ResponseStart {
            request_id,
            headers,
        } => {
            assert_eq!(request_id, "inv-slow");
            assert_streaming_headers(&headers);
        }
        other => panic!("{}", describe(other)),
    }
    let mut streamed = Streamed::default();
    while streamed.events().len() < 2 {
        match api.record("the first SSE events").await {
            Record::Chunk { bytes, .. } => streamed.push(&bytes),
            other => panic!(
                "the first events must arrive while the response is open, got {} after {:?}",
                describe(other),
                String::from_utf8_lossy(&streamed.bytes)
            ),
        }
    }
    assert_eq!(
        prelude_without_request_id(streamed.prelude.as_ref().unwrap()),
        sse_prelude()
    );
    let events = redact(&Value::Array(streamed.events()));
    assert_eq!(events[0]["result"]["kind"], "task");
    assert_eq!(events[0]["result"]["status"]["state"], "submitted");
    assert_eq!(
        events[1]["result"],
        json!({
            "kind": "status-update",
            "taskId": events[0]["result"]["id"],
            "contextId": events[0]["result"]["contextId"],
            "status": {"state": "working", "timestamp": "<timestamp>"},
            "final": false,
        })
    );
    // The invocation is still open: no end of the response has been recorded.
    while let Ok(record) = api.records.try_recv() {
        assert!(
            matches!(record, Record::Chunk { .. }),
            "the stream is still open, but got {}",
            describe(record)
        );
    }
    // Dropping `_function` kills the process; the test ends here.
}

#[tokio::test]
async fn bad_agent_fails_the_init_with_a_clear_log_line() {
    let mut api = FakeRuntimeApi::start().await;
    let mut function = Function::start(&api, &[("A2A_AGENT", "parrot")]);
    let status = function.exit_status().await;
    assert_eq!(status.code(), Some(1), "{status:?}");
    let output = function.output();
    let line = function
        .line("the `init failed` log line", |line| {
            line.contains("init failed")
        })
        .await;
    let log: Value = serde_json::from_str(&line).expect("a JSON log line");
    assert_eq!(
        log,
        json!({"level": "ERROR", "fields": {
            "message": "init failed",
            "error": "A2A_AGENT=\"parrot\" is not valid: one of echo, conformance",
        }}),
        "{}",
        output.join("\n")
    );
    // What it does NOT do: it never asks for an invocation and does not report to
    // `/runtime/init/error` (Lambda records the exit as Runtime.ExitError, with the log
    // line in CloudWatch).
    let mut seen = Vec::new();
    while let Ok(record) = api.records.try_recv() {
        seen.push(describe(record));
    }
    assert!(seen.is_empty(), "{seen:?}");
}

/// `AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH=true` (one of the two remedies DESIGN §4b names
/// for the REST stage prefix) keeps the stage out of the request path — but the public
/// URL still has it: API Gateway serves the REST API only under `/prod/`, so the card must
/// still say `https://{host}/prod/`.
#[tokio::test]
async fn ignore_stage_in_path_still_advertises_the_stage_in_the_card() {
    let mut api = FakeRuntimeApi::start().await;
    let _function = Function::start(&api, &[("AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH", "true")]);
    let (_, body, _) = api.call("inv-rest-card", REST_PROD_CARD).await;
    let response: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(response["statusCode"], 200, "{response}");
    let card: Value = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
    assert_eq!(
        card["url"],
        "https://k9l8m7n6o5.execute-api.us-east-1.amazonaws.com/prod/"
    );
}

#[tokio::test]
async fn streaming_http_json_stream_sends_bare_stream_responses_and_a_refused_subscribe_its_status()
{
    let mut api = FakeRuntimeApi::start().await;
    let _function = Function::start(
        &api,
        &[("A2A_STREAMING", "true"), ("A2A_AGENT", "conformance")],
    );
    // `POST /message:stream` of the HTTP+JSON binding, through the RESPONSE_STREAM URL.
    let mut event: Value = serde_json::from_str(FURL_REST_STREAM).unwrap();
    event["body"] = json!(
        json!({"message": {"messageId": "tck-stream-1", "role": "ROLE_USER",
                           "parts": [{"text": "stream please"}]}})
        .to_string()
    );
    let (headers, body, _) = api.call("inv-rest-stream", &event.to_string()).await;
    assert_streaming_headers(&headers);
    let mut streamed = Streamed::default();
    streamed.push(&body);
    assert_eq!(
        prelude_without_request_id(streamed.prelude.as_ref().unwrap()),
        sse_prelude()
    );
    assert!(
        streamed.body().ends_with("\n\n") && !streamed.body().contains("jsonrpc"),
        "whole SSE frames of bare StreamResponses: {:?}",
        streamed.body()
    );
    let events = streamed.events();
    let (task_id, context_id) = ids(&events[0]["task"]);
    let chunk = |text: &str, more: Value| {
        let mut update = json!({
            "taskId": task_id, "contextId": context_id,
            "artifact": {"artifactId": "stream", "parts": [{"text": text}]},
        });
        for (name, value) in more.as_object().unwrap() {
            update[name] = value.clone();
        }
        json!({"artifactUpdate": update})
    };
    let status = |state: &str| {
        json!({"statusUpdate": {"taskId": task_id, "contextId": context_id,
                                "status": {"state": state, "timestamp": "<timestamp>"}}})
    };
    let expected = json!([
        {"task": {
            "id": task_id, "contextId": context_id,
            "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": "<timestamp>"},
            "history": [{
                "messageId": "tck-stream-1", "contextId": context_id, "taskId": task_id,
                "role": "ROLE_USER", "parts": [{"text": "stream please"}],
            }],
        }},
        status("TASK_STATE_WORKING"),
        chunk("Streaming ", json!({})),
        chunk("chunk ", json!({"append": true})),
        chunk("content", json!({"append": true, "lastChunk": true})),
        status("TASK_STATE_COMPLETED"),
    ]);
    assert_eq!(redact(&Value::Array(events)), expected);

    // Subscribing to the finished task is refused before any event: the prelude carries
    // the 400, and the body is the google.rpc.Status, not an SSE stream.
    let mut subscribe: Value = serde_json::from_str(FURL_REST_SUBSCRIBE).unwrap();
    let path = format!("/tasks/{task_id}:subscribe");
    subscribe["rawPath"] = json!(path);
    subscribe["requestContext"]["http"]["path"] = json!(path);
    let (headers, body, _) = api.call("inv-rest-subscribe", &subscribe.to_string()).await;
    assert_streaming_headers(&headers);
    let mut streamed = Streamed::default();
    streamed.push(&body);
    let prelude = prelude_without_request_id(streamed.prelude.as_ref().unwrap());
    assert_eq!(prelude["statusCode"], 400, "{prelude}");
    assert_eq!(prelude["headers"]["content-type"], "application/json");
    let refusal: Value = serde_json::from_str(streamed.body()).unwrap();
    assert_eq!(refusal["error"]["code"], 400, "{refusal}");
    assert_eq!(
        refusal["error"]["status"], "FAILED_PRECONDITION",
        "{refusal}"
    );
    assert_eq!(
        refusal["error"]["details"][0]["reason"], "UNSUPPORTED_OPERATION",
        "{refusal}"
    );
}
