//! Helpers for the tests of the AgentCore platform front (`front_*.rs`): AWS's invocation
//! paths, the session and request-id headers, and AgentCore's exact error bodies.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Emulator, HeaderMap, STEP_TIMEOUT, Value, header, json};

/// A well-formed AgentCore runtime ARN.
pub const ARN: &str =
    "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/test_agent-AbCdEf1234";
/// Another well-formed runtime ARN (for `--runtime-arn` pinning).
pub const OTHER_ARN: &str =
    "arn:aws:bedrock-agentcore:eu-west-1:210987654321:runtime/other_agent-ZyXwVu9876";
/// The session header.
pub const SESSION_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-session-id";
/// The per-request id header the platform adds.
pub const REQUEST_ID_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-request-id";

/// One row of AgentCore's table: HTTP status, JSON-RPC code, message.
pub type Row = (u16, i64, &'static str);
/// ResourceNotFoundException.
pub const NOT_FOUND: Row = (
    404,
    -32051,
    "Resource not found - Requested resource does not exist",
);
/// ValidationException.
pub const VALIDATION: Row = (400, -32052, "Validation error - Invalid request data");
/// ThrottlingException.
pub const THROTTLED: Row = (429, -32053, "Rate limit exceeded - Too many requests");
/// RetryableConflictException.
pub const SESSION_BUSY: Row = (409, -32054, "Session operation in progress, please retry");
/// RuntimeClientError.
pub const RUNTIME_ERROR: Row = (
    424,
    -32055,
    "Runtime client error - Please check your CloudWatch logs for more information",
);
/// InternalServerException.
pub const INTERNAL: Row = (
    500,
    -32603,
    "Internal error - An unexpected error occurred while processing the request",
);

/// Percent-encodes an ARN for a path segment, as AWS SDKs do.
pub fn encode(arn: &str) -> String {
    arn.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
                char::from(byte).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

/// `/runtimes/{encoded arn}/invocations/` (with the trailing slash).
pub fn invocations(arn: &str) -> String {
    format!("/runtimes/{}/invocations/", encode(arn))
}

/// A session id unique to this test process and call, `label` first, 40 characters.
pub fn session_id(label: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let next = NEXT.fetch_add(1, Ordering::Relaxed);
    let id = format!("s-{label}-{}-{next}-", std::process::id());
    format!("{id:0<40}")
}

/// A JSON-RPC request body.
pub fn rpc(id: &Value, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

/// Exactly the body AgentCore sends for `row`, echoing `id`.
pub fn aws_body(id: &Value, (_, code, message): Row) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

/// A whole response, read.
#[derive(Debug)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The headers.
    pub headers: HeaderMap,
    /// The body.
    pub text: String,
}

impl Reply {
    /// The body as JSON.
    ///
    /// # Panics
    /// When it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|error| panic!("not JSON ({error}): {self:?}"))
    }

    /// The session header returned.
    pub fn session(&self) -> Option<&str> {
        header(&self.headers, SESSION_HEADER)
    }

    /// The request-id header returned.
    pub fn request_id(&self) -> Option<&str> {
        header(&self.headers, REQUEST_ID_HEADER)
    }

    /// Checks that this is AgentCore's refusal `row` echoing `id`, byte for byte, as JSON.
    ///
    /// # Panics
    /// When it is not.
    pub fn assert_aws(&self, id: &Value, row: Row) {
        assert_eq!(
            (self.status, self.text.as_str()),
            (row.0, aws_body(id, row).as_str()),
            "{self:?}"
        );
        assert_eq!(
            header(&self.headers, "content-type"),
            Some("application/json"),
            "{self:?}"
        );
    }

    /// Checks HTTP 200 and returns the JSON-RPC result, panicking on an error.
    ///
    /// # Panics
    /// When it is not a success.
    pub fn result(&self) -> Value {
        assert_eq!(self.status, 200, "{self:?}");
        let body = self.json();
        assert!(body.get("error").is_none(), "{body}");
        body["result"].clone()
    }

    /// Checks HTTP 200 and returns the JSON-RPC error code.
    ///
    /// # Panics
    /// When it is not an error in HTTP 200.
    pub fn error_code(&self) -> i64 {
        assert_eq!(self.status, 200, "{self:?}");
        let body = self.json();
        body["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("not an error: {body}"))
    }
}

/// Sends a request (bounded) and returns the raw response.
pub async fn request(
    emulator: &Emulator,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> reqwest::Response {
    let method = reqwest::Method::from_bytes(method.as_bytes())
        .unwrap_or_else(|error| panic!("bad method {method}: {error}"));
    let mut request = emulator.http().request(method, emulator.url(path));
    if !body.is_empty() {
        request = request
            .header("content-type", "application/json")
            .body(body);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    emulator.send(request).await
}

/// Reads a whole response (bounded).
pub async fn read(response: reqwest::Response) -> Reply {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = match tokio::time::timeout(STEP_TIMEOUT, response.text()).await {
        Ok(Ok(text)) => text,
        Ok(Err(error)) => panic!("reading the body failed: {error}"),
        Err(_) => panic!("no complete body within {STEP_TIMEOUT:?}"),
    };
    Reply {
        status,
        headers,
        text,
    }
}

/// `POST path` with a JSON content type, `headers` and `body`.
pub async fn post(
    emulator: &Emulator,
    path: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> Reply {
    read(request(emulator, "POST", path, headers, body).await).await
}

/// `GET path` with `headers`.
pub async fn get(emulator: &Emulator, path: &str, headers: &[(&str, &str)]) -> Reply {
    read(request(emulator, "GET", path, headers, Vec::new()).await).await
}

/// Calls `method` on `path` in `session` (none: no header) with a fresh id; returns the id
/// and the reply.
pub async fn call_at(
    emulator: &Emulator,
    path: &str,
    session: Option<&str>,
    method: &str,
    params: Value,
) -> (Value, Reply) {
    let id = emulator.next_id();
    let headers: Vec<(&str, &str)> = session.map(|s| (SESSION_HEADER, s)).into_iter().collect();
    let reply = post(emulator, path, &headers, rpc(&id, method, params)).await;
    (id, reply)
}

/// [`call_at`] on the invocation path of [`ARN`].
pub async fn invoke(
    emulator: &Emulator,
    session: Option<&str>,
    method: &str,
    params: Value,
) -> (Value, Reply) {
    call_at(emulator, &invocations(ARN), session, method, params).await
}

/// `POST` `body` on the invocation path of [`ARN`] in `session`, with `Authorization:
/// Bearer {token}`.
pub async fn post_bearer(emulator: &Emulator, token: &str, session: &str, body: Vec<u8>) -> Reply {
    let bearer = format!("Bearer {token}");
    let headers = [
        ("authorization", bearer.as_str()),
        (SESSION_HEADER, session),
    ];
    post(emulator, &invocations(ARN), &headers, body).await
}

/// v0.3 `message/send` params with one text part.
pub fn send_params(message_id: &str, text: &str) -> Value {
    json!({"message": {
        "kind": "message",
        "role": "user",
        "messageId": message_id,
        "parts": [{"kind": "text", "text": text}],
    }})
}

/// Sends a message in `session` on the invocation path and returns the task's id.
///
/// # Panics
/// When the send fails or returns no task.
pub async fn create_task(emulator: &Emulator, session: &str, message_id: &str) -> String {
    let (_, reply) = invoke(
        emulator,
        Some(session),
        "message/send",
        send_params(message_id, "hello"),
    )
    .await;
    let result = reply.result();
    assert_eq!(result["kind"], "task", "{result}");
    assert_eq!(reply.session(), Some(session), "{reply:?}");
    result["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no task id: {result}"))
        .to_owned()
}

/// `tasks/get` in `session` on the invocation path.
pub async fn get_task(emulator: &Emulator, session: Option<&str>, task_id: &str) -> Reply {
    invoke(emulator, session, "tasks/get", json!({"id": task_id}))
        .await
        .1
}

/// What a run of the emulator that exits by itself printed.
#[derive(Debug)]
pub struct Exit {
    /// Its exit status.
    pub status: std::process::ExitStatus,
    /// Its stdout.
    pub stdout: String,
    /// Its stderr.
    pub stderr: String,
}

/// Runs the emulator with `args` (on a free port) and waits (bounded, polled) for it to
/// exit by itself.
///
/// # Panics
/// When it cannot start or is still running after [`super::STARTUP_TIMEOUT`].
pub fn run_to_exit(args: &[&str]) -> Exit {
    use std::io::Read as _;
    let mut child = super::emulator_command()
        .args(["--port", "0"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("a2a-emulator did not start: {error}"));
    let deadline = std::time::Instant::now() + super::STARTUP_TIMEOUT;
    let status = loop {
        let exited = child
            .try_wait()
            .unwrap_or_else(|error| panic!("waiting for a2a-emulator failed: {error}"));
        if let Some(status) = exited {
            break status;
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "a2a-emulator {args:?} did not exit within {:?}",
                super::STARTUP_TIMEOUT
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    Exit {
        status,
        stdout,
        stderr,
    }
}

/// Opens an SSE stream: `POST path` with `headers` calling `method` with a fresh id.
///
/// # Panics
/// When the answer is not an SSE stream.
pub async fn open_stream(
    emulator: &Emulator,
    path: &str,
    headers: &[(&str, &str)],
    method: &str,
    params: Value,
) -> super::SseStream {
    let id = emulator.next_id();
    let response = request(emulator, "POST", path, headers, rpc(&id, method, params)).await;
    super::SseStream::open(response, id).await
}

/// Waits (polled every 20 ms, at most `timeout`) until a line of the emulator's log
/// contains every one of `needles`.
///
/// # Panics
/// When no line does in time; the panic carries the log.
pub async fn wait_for_log(emulator: &mut Emulator, needles: &[&str], timeout: std::time::Duration) {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        let log = plain_log(emulator);
        if log
            .lines()
            .any(|line| needles.iter().all(|needle| line.contains(needle)))
        {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no log line with {needles:?} within {timeout:?}; log:\n{log}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// The emulator's log so far, without the ANSI colour codes of its text format.
pub fn plain_log(emulator: &mut Emulator) -> String {
    let log = emulator.stderr();
    let mut plain = String::with_capacity(log.len());
    let mut chars = log.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters… final byte (a letter).
            for next in chars.by_ref() {
                if next.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
}
