//! A fake Lambda Runtime API that also serves the Extensions API, as Lambda does, and the
//! real function binary started against it: what the tests of the binary's invocations
//! share. The runtime gets its next invocation only once every registered extension has
//! asked for its next event (`/2020-01-01/extension/event/next`) after the previous one —
//! until then the environment is not frozen.
//!
//! As Lambda Managed Instances ([`FakeApi::start_managed`]): every runtime worker asking
//! for its next invocation gets one as soon as one is queued, whatever the others and the
//! extensions do (the environment is never frozen); an extension may register for no
//! event, and its `/event/next` is answered only at shutdown (never, here). Sources: AWS
//! Lambda Developer Guide, "Understanding the Lambda Managed Instances execution
//! environment"; AWS's runtime interface emulator for Managed Instances
//! (`internal/lambda-managed-instances/rapi/handler/agentregister.go`: "No events allowed
//! for internal extensions").
//!
//! Every wait is bounded; the child is killed on drop.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use a2a_test_support::lambda;

pub const FURL_SEND_V0_3: &str =
    include_str!("../../../lambda/tests/fixtures/function_url_send_v0_3.json");

/// How long any one step may take.
pub const STEP: Duration = Duration::from_secs(20);
/// The deadline of an invocation that is not about time.
pub const FAR: Duration = Duration::from_secs(900);

// ---------------------------------------------------------------------------------------
// The fake Runtime and Extensions APIs.

struct Invocation {
    request_id: String,
    event: String,
    deadline_ms: u128,
}

/// What the fake APIs saw, in order.
#[derive(Debug, Clone)]
pub enum Record {
    /// `/extension/register`: the name header and the body.
    Registered { name: String, body: Value },
    /// The runtime asked for its next invocation.
    RuntimeNext { at: Instant },
    /// An invocation was handed out to the runtime.
    Handed { request_id: String, at: Instant },
    /// An extension asked for its next event.
    ExtensionNext { at: Instant },
    /// The whole `/response` of an invocation arrived.
    Response {
        request_id: String,
        body: Vec<u8>,
        at: Instant,
    },
    /// `/invocation/{id}/error`.
    InvocationError { request_id: String, body: String },
}

/// Where the lifecycle stands.
#[derive(Default)]
struct Lifecycle {
    /// The invocations handed out: request id and deadline (Unix ms).
    handed: Vec<(String, u128)>,
    /// Per extension id: how many invocations it has been told of.
    told: HashMap<String, usize>,
    /// Per extension id: it is waiting in `/event/next` for the next invocation.
    asking: HashMap<String, bool>,
}

struct ApiState {
    queue: tokio::sync::Mutex<mpsc::UnboundedReceiver<Invocation>>,
    records: mpsc::UnboundedSender<Record>,
    lifecycle: watch::Sender<Lifecycle>,
    /// Lambda Managed Instances: no freezing, no events for extensions.
    managed: bool,
    /// The invocations handed out and not yet answered, and the most there ever were.
    in_flight: Mutex<(usize, usize)>,
}

pub struct FakeApi {
    addr: SocketAddr,
    state: Arc<ApiState>,
    invocations: mpsc::UnboundedSender<Invocation>,
    records: mpsc::UnboundedReceiver<Record>,
    /// Every record received so far.
    seen: Vec<Record>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn unix_millis(at: SystemTime) -> u128 {
    at.duration_since(UNIX_EPOCH).unwrap().as_millis()
}

async fn runtime_next(State(state): State<Arc<ApiState>>) -> Response {
    let _ = state
        .records
        .send(Record::RuntimeNext { at: Instant::now() });
    let Some(invocation) = state.queue.lock().await.recv().await else {
        return StatusCode::GONE.into_response();
    };
    // The environment is frozen, and the next invocation may come, only once every
    // extension has asked for its next event (on Managed Instances, never frozen).
    if !state.managed {
        let mut lifecycle = state.lifecycle.subscribe();
        let _ = lifecycle
            .wait_for(|lifecycle| lifecycle.asking.values().all(|asking| *asking))
            .await;
    }
    {
        let mut in_flight = state.in_flight.lock().unwrap();
        in_flight.0 += 1;
        in_flight.1 = in_flight.1.max(in_flight.0);
    }
    state.lifecycle.send_modify(|lifecycle| {
        lifecycle
            .handed
            .push((invocation.request_id.clone(), invocation.deadline_ms));
    });
    let _ = state.records.send(Record::Handed {
        request_id: invocation.request_id.clone(),
        at: Instant::now(),
    });
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .header("lambda-runtime-aws-request-id", &invocation.request_id)
        .header(
            "lambda-runtime-deadline-ms",
            invocation.deadline_ms.to_string(),
        )
        .header(
            "lambda-runtime-invoked-function-arn",
            "arn:aws:lambda:us-east-1:123456789012:function:a2a-agent",
        )
        .header(
            "lambda-runtime-trace-id",
            "Root=1-6630c1a8-2f1e7d5a4b3c2d1e0f9a8b7c;Parent=53995c3f42cd8ad8;Sampled=1",
        )
        .body(axum::body::Body::from(invocation.event))
        .unwrap()
}

fn answered(state: &ApiState) {
    let mut in_flight = state.in_flight.lock().unwrap();
    in_flight.0 = in_flight.0.saturating_sub(1);
}

async fn response(
    State(state): State<Arc<ApiState>>,
    Path(request_id): Path<String>,
    body: Bytes,
) -> Response {
    answered(&state);
    let _ = state.records.send(Record::Response {
        request_id,
        body: body.to_vec(),
        at: Instant::now(),
    });
    (StatusCode::ACCEPTED, r#"{"status":"OK"}"#).into_response()
}

async fn invocation_error(
    State(state): State<Arc<ApiState>>,
    Path(request_id): Path<String>,
    body: Bytes,
) -> Response {
    answered(&state);
    let body = String::from_utf8_lossy(&body).into_owned();
    let _ = state
        .records
        .send(Record::InvocationError { request_id, body });
    (StatusCode::ACCEPTED, r#"{"status":"OK"}"#).into_response()
}

async fn register(State(state): State<Arc<ApiState>>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(name) = headers
        .get("lambda-extension-name")
        .and_then(|name| name.to_str().ok())
    else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let _ = state.records.send(Record::Registered {
        name: name.to_owned(),
        body: body.clone(),
    });
    let events = body["events"].as_array().map_or(0, Vec::len);
    if state.managed && events > 0 {
        return (
            StatusCode::FORBIDDEN,
            axum::Json(
                json!({"errorMessage": "No events allowed for internal extensions",
                              "errorType": "Extension.InvalidEventType"}),
            ),
        )
            .into_response();
    }
    let mut id = String::new();
    state.lifecycle.send_modify(|lifecycle| {
        id = format!("ext-{}", lifecycle.told.len() + 1);
        lifecycle.told.insert(id.clone(), 0);
        lifecycle.asking.insert(id.clone(), false);
    });
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .header("lambda-extension-identifier", id)
        .body(axum::body::Body::from(
            json!({"functionName": "a2a-agent", "functionVersion": "$LATEST",
                   "handler": "bootstrap"})
            .to_string(),
        ))
        .unwrap()
}

async fn extension_next(State(state): State<Arc<ApiState>>, headers: HeaderMap) -> Response {
    let Some(id) = headers
        .get("lambda-extension-identifier")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned)
    else {
        return StatusCode::FORBIDDEN.into_response();
    };
    let _ = state
        .records
        .send(Record::ExtensionNext { at: Instant::now() });
    let mut told = None;
    state.lifecycle.send_modify(|lifecycle| {
        told = lifecycle.told.get(&id).copied();
        lifecycle.asking.insert(id.clone(), true);
    });
    let Some(told) = told else {
        return StatusCode::FORBIDDEN.into_response();
    };
    if state.managed {
        // No event but SHUTDOWN, which an internal extension never gets.
        return std::future::pending().await;
    }
    let mut lifecycle = state.lifecycle.subscribe();
    let _ = lifecycle
        .wait_for(|lifecycle| lifecycle.handed.len() > told)
        .await;
    let mut event = Value::Null;
    state.lifecycle.send_modify(|lifecycle| {
        let (request_id, deadline_ms) = lifecycle.handed[told].clone();
        lifecycle.told.insert(id.clone(), told + 1);
        lifecycle.asking.insert(id.clone(), false);
        event = json!({
            "eventType": "INVOKE",
            "deadlineMs": deadline_ms as u64,
            "requestId": request_id,
            "invokedFunctionArn": "arn:aws:lambda:us-east-1:123456789012:function:a2a-agent",
            "tracing": {"type": "X-Amzn-Trace-Id",
                        "value": "Root=1-6630c1a8-2f1e7d5a4b3c2d1e0f9a8b7c;Parent=53995c3f42cd8ad8;Sampled=1"},
        });
    });
    axum::Json(event).into_response()
}

impl FakeApi {
    /// The Runtime API, with the Extensions API when `extensions`.
    pub async fn start(extensions: bool) -> Self {
        Self::serve(extensions, false).await
    }

    /// The Runtime and Extensions APIs as Lambda Managed Instances serve them: start the
    /// function with [`Function::start`] and `AWS_LAMBDA_MAX_CONCURRENCY` in its variables.
    pub async fn start_managed() -> Self {
        Self::serve(true, true).await
    }

    async fn serve(extensions: bool, managed: bool) -> Self {
        let (invocations, queue) = mpsc::unbounded_channel();
        let (records_tx, records) = mpsc::unbounded_channel();
        let state = Arc::new(ApiState {
            queue: tokio::sync::Mutex::new(queue),
            records: records_tx,
            lifecycle: watch::Sender::new(Lifecycle::default()),
            managed,
            in_flight: Mutex::new((0, 0)),
        });
        let mut app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(runtime_next))
            .route(
                "/2018-06-01/runtime/invocation/{id}/response",
                post(response),
            )
            .route(
                "/2018-06-01/runtime/invocation/{id}/error",
                post(invocation_error),
            );
        if extensions {
            app = app
                .route("/2020-01-01/extension/register", post(register))
                .route("/2020-01-01/extension/event/next", get(extension_next));
        }
        let app = app.with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            addr,
            state,
            invocations,
            records,
            seen: Vec::new(),
            server,
        }
    }

    /// The most invocations that were ever handed out and not yet answered at once.
    pub fn peak_in_flight(&self) -> usize {
        self.state.in_flight.lock().unwrap().1
    }

    /// The address the function reaches the APIs at (`AWS_LAMBDA_RUNTIME_API`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues an invocation whose deadline is `within` from now; the deadline's instant.
    pub fn invoke(&self, request_id: &str, event: &str, within: Duration) -> Instant {
        let deadline = Instant::now() + within;
        self.invocations
            .send(Invocation {
                request_id: request_id.to_owned(),
                event: event.to_owned(),
                deadline_ms: unix_millis(SystemTime::now() + within),
            })
            .unwrap();
        deadline
    }

    /// The first record from `from` on (an index into [`Self::seen`]) that `find`
    /// accepts, waiting for it; its index and itself.
    pub async fn find(
        &mut self,
        what: &str,
        from: usize,
        find: impl Fn(&Record) -> bool,
    ) -> (usize, Record) {
        let deadline = tokio::time::Instant::now() + STEP;
        loop {
            if let Some(index) = (from..self.seen.len()).find(|&index| find(&self.seen[index])) {
                return (index, self.seen[index].clone());
            }
            let record = tokio::time::timeout_at(deadline, self.records.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}; seen: {:#?}", self.seen))
                .expect("the fake API stopped");
            self.seen.push(record);
        }
    }

    /// Every record so far, those not yet looked at included.
    pub fn records(&mut self) -> &[Record] {
        while let Ok(record) = self.records.try_recv() {
            self.seen.push(record);
        }
        &self.seen
    }

    pub async fn handed(&mut self, request_id: &str) -> (usize, Instant) {
        match self
            .find(&format!("{request_id} handed out"), 0, |record| {
                matches!(record, Record::Handed { request_id: id, .. } if id == request_id)
            })
            .await
        {
            (index, Record::Handed { at, .. }) => (index, at),
            _ => unreachable!(),
        }
    }

    /// The JSON-RPC answer in the buffered response to `request_id`, and when it arrived.
    pub async fn answer(&mut self, request_id: &str) -> (usize, Value, Instant) {
        let (index, record) = self
            .find(&format!("the response to {request_id}"), 0, |record| {
                matches!(record,
                    Record::Response { request_id: id, .. }
                    | Record::InvocationError { request_id: id, .. } if id == request_id)
            })
            .await;
        let (body, at) = match record {
            Record::Response { body, at, .. } => (body, at),
            Record::InvocationError { body, .. } => panic!("{request_id} failed: {body}"),
            _ => unreachable!(),
        };
        let response: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(response["statusCode"], 200, "{response}");
        let answer = serde_json::from_str(response["body"].as_str().unwrap()).unwrap();
        (index, answer, at)
    }

    /// The streamed response to `request_id` (`Lambda-Runtime-Function-Response-Mode:
    /// streaming`), once all of it arrived: its prelude (status and headers) and its body.
    pub async fn streamed(&mut self, request_id: &str) -> (Value, String) {
        let (_, record) = self
            .find(
                &format!("the streamed response to {request_id}"),
                0,
                |record| {
                    matches!(record,
                    Record::Response { request_id: id, .. }
                    | Record::InvocationError { request_id: id, .. } if id == request_id)
                },
            )
            .await;
        let Record::Response { body, .. } = record else {
            panic!("{request_id} failed: {record:?}");
        };
        let separator = [0_u8; 8];
        let at = body
            .windows(separator.len())
            .position(|window| window == separator)
            .unwrap_or_else(|| panic!("no prelude in {:?}", String::from_utf8_lossy(&body)));
        let prelude = serde_json::from_slice(&body[..at]).unwrap();
        let rest = String::from_utf8(body[at + separator.len()..].to_vec()).unwrap();
        (prelude, rest)
    }

    /// When an extension next asked for its next event after record `from`.
    pub async fn extension_next(&mut self, from: usize) -> Instant {
        match self
            .find("the extension's next /event/next", from, |record| {
                matches!(record, Record::ExtensionNext { .. })
            })
            .await
        {
            (_, Record::ExtensionNext { at }) => at,
            _ => unreachable!(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Events.

/// A Function URL event (the `function_url_send_v0_3.json` shape) carrying `body`.
pub fn event(body: &Value) -> String {
    let mut event: Value = serde_json::from_str(FURL_SEND_V0_3).unwrap();
    event["headers"]
        .as_object_mut()
        .unwrap()
        .remove("content-length");
    event["body"] = Value::String(body.to_string());
    event.to_string()
}

/// A v0.3 `message/send` with `blocking: false` of the conformance agent's message id
/// `message_id` (its prefix picks the behaviour).
pub fn non_blocking_send(message_id: &str) -> String {
    event(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": message_id, "role": "user",
                        "parts": [{"kind": "text", "text": "take your time"}]},
            "configuration": {"blocking": false},
        }}),
    )
}

pub fn get_task(task_id: &str) -> String {
    event(&json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}}))
}

// ---------------------------------------------------------------------------------------
// The function process.

pub struct Function {
    child: Child,
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
    /// The function binary as Lambda starts it, pointed at `api`, with `vars` on top.
    ///
    /// `A2A_AGENT_BINARY`, when set, names another build of the binary to start (a
    /// `lambda-release` one, for figures).
    pub fn start(api: &FakeApi, vars: &[(&str, &str)]) -> Self {
        let binary = std::env::var_os("A2A_AGENT_BINARY")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_a2a-agent").into());
        let mut command = Command::new(binary);
        command
            .env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", api.addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", "a2a-agent")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
            .env("AWS_REGION", "us-east-1")
            .env("A2A_AGENT", "conformance")
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

    /// Kills the process as a crash or a recycled instance would (SIGKILL: nothing runs
    /// after it), and waits for it to go.
    pub fn kill(&mut self) {
        self.child.kill().expect("the process is killed");
        let status = self.child.wait().expect("the process is gone");
        assert!(!status.success(), "{status}");
    }

    /// Sends the process `SIGTERM`, as Lambda does at the start of an environment's
    /// shutdown, and waits for it to exit (the test's own servers, on its runtime, go on
    /// meanwhile); how it exited, and how long after the signal.
    pub async fn terminate(&mut self) -> (std::process::ExitStatus, Duration) {
        let signaled = Instant::now();
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "SIGTERM sent: {sent}");
        loop {
            if let Some(status) = self.child.try_wait().expect("the process is there") {
                return (status, signaled.elapsed());
            }
            assert!(
                signaled.elapsed() < STEP,
                "still running {STEP:?} after SIGTERM"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// The most memory the process has had resident so far (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the process's status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in the status")
    }

    /// Waits for the process to end by itself; how it ended.
    pub async fn exited(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + STEP;
        loop {
            if let Some(status) = self.child.try_wait().expect("the process is there") {
                return status;
            }
            assert!(Instant::now() < deadline, "still running after {STEP:?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The JSON log lines so far.
    pub fn logs(&self) -> Vec<Value> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
            .collect()
    }

    /// The log lines so far that are JSON, the others left out.
    pub fn json_logs(&self) -> Vec<Value> {
        self.lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// The `init complete` log line, waiting for it.
    pub async fn init_complete(&self) -> Value {
        let deadline = Instant::now() + STEP;
        loop {
            let logs = self.logs();
            if let Some(log) = logs
                .iter()
                .find(|log| log["fields"]["message"] == "init complete")
            {
                return log.clone();
            }
            assert!(Instant::now() < deadline, "no `init complete`: {logs:#?}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// The task's id, checked.
pub fn task_id(task: &Value) -> String {
    lambda::ids(task).0
}
