//! The mixed load: one worker per connection, each sending, in turn chosen at random,
//! v0.3 and v1.0 sends, streams, gets of its own tasks, a cancel of a working task with a
//! resubscribe open on it, and bad inputs; every answer checked (JSON-RPC 2.0 with the
//! request's id, the state or error code due), every latency kept.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::server::Kind;

/// A runtime ARN for the front's invocation path (percent-encoded).
const ARN: &str =
    "arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fsoak-AbCdEf1234";
/// How long one request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What a worker does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// v0.3 `message/send`, completes.
    SendV03,
    /// v1.0 `SendMessage`, completes.
    SendV10,
    /// v0.3 `message/stream`, to completion.
    StreamV03,
    /// v1.0 `SendStreamingMessage`, to completion.
    StreamV10,
    /// `tasks/get` of a task of this worker's.
    Get,
    /// A working task: resubscribe to it, cancel it, the stream ends canceled.
    CancelResubscribe,
    /// A refused input: bad JSON, unknown method, a v1.0 method without its header.
    Bad,
}

impl Action {
    const WEIGHTED: [Action; 12] = [
        Action::SendV03,
        Action::SendV03,
        Action::SendV10,
        Action::SendV10,
        Action::StreamV03,
        Action::StreamV10,
        Action::Get,
        Action::Get,
        Action::CancelResubscribe,
        Action::Bad,
        Action::Bad,
        Action::SendV10,
    ];

    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::SendV03 => "send v0.3",
            Self::SendV10 => "send v1.0",
            Self::StreamV03 => "stream v0.3",
            Self::StreamV10 => "stream v1.0",
            Self::Get => "get",
            Self::CancelResubscribe => "cancel+resubscribe",
            Self::Bad => "bad input",
        }
    }

    /// Whether it is one request answered at once (its latency is "normal traffic").
    pub fn unary(self) -> bool {
        matches!(self, Self::SendV03 | Self::SendV10 | Self::Get | Self::Bad)
    }
}

/// What the load did.
#[derive(Debug, Default)]
pub struct Stats {
    /// Completed actions and their latencies (µs), by action.
    pub latencies: BTreeMap<Action, Vec<u32>>,
    /// Unexpected answers or failures, counted; the first few kept.
    pub unexpected: u64,
    /// The first unexpected ones.
    pub samples: Vec<String>,
    /// Failures of requests begun after the server was told to stop (expected then:
    /// new connections are refused).
    pub refused_after_stop: u64,
    /// Actions begun before the stop whose request the server never took once it was
    /// stopping (no response began: sent on a connection it was closing).
    pub not_taken_at_stop: u64,
    /// Resubscribes that found the task already canceled (the cancel won the race).
    pub raced: u64,
    /// Gets answered -32001 (task not found): the task was evicted, the in-memory store
    /// keeping its newest 1,000 finished tasks (all sessions together on the front).
    pub evicted: u64,
}

impl Stats {
    /// Requests (actions) done.
    pub fn total(&self) -> usize {
        self.latencies.values().map(Vec::len).sum()
    }

    /// p50 and p99 (ms) of the unary actions.
    pub fn unary_percentiles(&self) -> (f64, f64) {
        let mut all: Vec<u32> = self
            .latencies
            .iter()
            .filter(|(action, _)| action.unary())
            .flat_map(|(_, latencies)| latencies.iter().copied())
            .collect();
        percentiles(&mut all)
    }

    fn fail(&mut self, what: String) {
        self.unexpected += 1;
        if self.samples.len() < 20 {
            self.samples.push(what);
        }
    }
}

/// p50 and p99 (ms) of `latencies` (µs).
pub fn percentiles(latencies: &mut [u32]) -> (f64, f64) {
    if latencies.is_empty() {
        return (0.0, 0.0);
    }
    latencies.sort_unstable();
    let at = |q: f64| {
        let index = ((latencies.len() as f64 * q) as usize).min(latencies.len() - 1);
        f64::from(latencies[index]) / 1000.0
    };
    (at(0.50), at(0.99))
}

/// How a load runs.
#[derive(Debug, Clone)]
pub struct Load {
    /// The server's base URL (`http://127.0.0.1:PORT`).
    pub base: String,
    /// Which server (the front gets a session per worker on AWS's invocation path).
    pub kind: Kind,
    /// Workers, one connection each.
    pub connections: usize,
    /// How long.
    pub duration: Duration,
    /// Seed of the choices.
    pub seed: u64,
}

/// Set once the server is told to stop: later failures are expected refusals.
#[derive(Debug, Default)]
pub struct StopClock {
    /// Microseconds since the load began when the stop was sent (0: not yet).
    at: AtomicU64,
}

impl StopClock {
    /// Marks the stop at `since` after `began`.
    pub fn mark(&self, since: Duration) {
        self.at
            .store(since.as_micros().max(1) as u64, Ordering::SeqCst);
    }

    fn stopped(&self) -> bool {
        self.at.load(Ordering::SeqCst) != 0
    }

    fn stopped_before(&self, since: Duration) -> bool {
        let at = self.at.load(Ordering::SeqCst);
        at != 0 && u128::from(at) <= since.as_micros()
    }
}

/// A JSON-RPC caller for one worker.
struct Caller {
    client: reqwest::Client,
    url: String,
    session: Option<String>,
    next: u64,
}

/// One answer: status, content type, body.
struct Reply {
    status: u16,
    sse: bool,
    body: String,
}

impl Caller {
    async fn call(
        &mut self,
        method: &str,
        params: Value,
        v1: bool,
    ) -> Result<(Value, Reply), String> {
        self.next += 1;
        let id = json!(self.next);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = self
            .raw(body.to_string().into_bytes(), v1, "application/json")
            .await?;
        Ok((id, reply))
    }

    async fn raw(&self, body: Vec<u8>, v1: bool, content_type: &str) -> Result<Reply, String> {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", content_type)
            .timeout(REQUEST_TIMEOUT)
            .body(body);
        if v1 {
            request = request.header("a2a-version", "1.0");
        }
        if let Some(session) = &self.session {
            request = request.header("x-amzn-bedrock-agentcore-runtime-session-id", session);
        }
        let response = request
            .send()
            .await
            .map_err(|error| format!("send: {error}"))?;
        let status = response.status().as_u16();
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let body = response
            .text()
            .await
            .map_err(|error| format!("body: {error}"))?;
        Ok(Reply { status, sse, body })
    }
}

/// A JSON-RPC response with `id`: its result, or its error code.
fn answer(reply: &Reply, id: &Value) -> Result<Result<Value, i64>, String> {
    let value: Value = serde_json::from_str(&reply.body)
        .map_err(|_| format!("HTTP {} not JSON: {}", reply.status, preview(&reply.body)))?;
    one(&value, id)
}

fn one(value: &Value, id: &Value) -> Result<Result<Value, i64>, String> {
    if value["jsonrpc"] != "2.0" || value["id"] != *id {
        return Err(format!(
            "not JSON-RPC 2.0 with id {id}: {}",
            preview(&value.to_string())
        ));
    }
    match (value.get("result"), value["error"]["code"].as_i64()) {
        (Some(result), None) => Ok(Ok(result.clone())),
        (None, Some(code)) => Ok(Err(code)),
        _ => Err(format!("neither result nor error: {value}")),
    }
}

/// The events of an SSE body, each checked to be a JSON-RPC result with `id`.
fn stream_results(reply: &Reply, id: &Value) -> Result<Vec<Value>, String> {
    if !reply.sse {
        return match answer(reply, id)? {
            Ok(result) => Ok(vec![result]),
            Err(code) => Err(format!("stream refused with {code}")),
        };
    }
    let mut results = Vec::new();
    for block in reply.body.split("\n\n") {
        let data: String = block
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim_start)
            .collect();
        if data.is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(&data).map_err(|_| format!("event not JSON: {data}"))?;
        match one(&value, id)? {
            Ok(result) => results.push(result),
            Err(code) => return Err(format!("stream event error {code}")),
        }
    }
    Ok(results)
}

fn preview(text: &str) -> String {
    text.chars().take(200).collect()
}

fn state_of(result: &Value) -> &str {
    let task = result.get("task").unwrap_or(result);
    let update = result.get("statusUpdate").unwrap_or(task);
    update["status"]["state"].as_str().unwrap_or_default()
}

fn message_v03(id: &str) -> Value {
    json!({"kind": "message", "role": "user", "messageId": id,
        "parts": [{"kind": "text", "text": "soak"}]})
}

fn message_v10(id: &str) -> Value {
    json!({"role": "ROLE_USER", "messageId": id, "parts": [{"text": "soak"}]})
}

/// Runs the load; `stop` tells when the server was told to stop.
pub async fn run(load: &Load, stop: Arc<StopClock>) -> Stats {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(load.connections)
        .no_proxy()
        .build()
        .unwrap_or_default();
    let stats = Arc::new(Mutex::new(Stats::default()));
    let began = Instant::now();
    let url = match load.kind {
        Kind::Front => format!("{}/runtimes/{ARN}/invocations", load.base),
        Kind::Container => format!("{}/", load.base),
    };
    let mut workers = Vec::new();
    for worker in 0..load.connections {
        let caller = Caller {
            client: client.clone(),
            url: url.clone(),
            session: (load.kind == Kind::Front).then(|| session(worker)),
            next: 0,
        };
        let stats = Arc::clone(&stats);
        let stop = Arc::clone(&stop);
        let seed = load.seed.wrapping_add(worker as u64);
        let duration = load.duration;
        workers.push(tokio::spawn(async move {
            work(caller, seed, began, duration, &stats, &stop).await;
        }));
    }
    for worker in workers {
        let _ = worker.await;
    }
    drop(client);
    Arc::try_unwrap(stats)
        .ok()
        .and_then(|stats| stats.into_inner().ok())
        .unwrap_or_default()
}

/// Worker `n`'s session id on the front (33 to 256 characters, as AgentCore wants).
pub fn session(worker: usize) -> String {
    format!("soak-session-{worker:0>30}")
}

async fn work(
    mut caller: Caller,
    seed: u64,
    began: Instant,
    duration: Duration,
    stats: &Mutex<Stats>,
    stop: &StopClock,
) {
    let mut rng = fastrand::Rng::with_seed(seed);
    // Task ids this worker made, newest last.
    let mut tasks: Vec<String> = Vec::new();
    let mut n = 0u64;
    while began.elapsed() < duration {
        n += 1;
        let action = match Action::WEIGHTED[rng.usize(..Action::WEIGHTED.len())] {
            // Nothing to get yet: make a task first.
            Action::Get if tasks.is_empty() => Action::SendV03,
            action => action,
        };
        let start = began.elapsed();
        let clock = Instant::now();
        let outcome = act(&mut caller, action, &mut tasks, seed, n, &mut rng).await;
        let micros = u32::try_from(clock.elapsed().as_micros()).unwrap_or(u32::MAX);
        let after_stop = stop.stopped_before(start);
        {
            let Ok(mut stats) = stats.lock() else {
                return;
            };
            match outcome {
                Ok(outcome) => {
                    stats.raced += u64::from(outcome == Outcome::Raced);
                    stats.evicted += u64::from(outcome == Outcome::Evicted);
                    stats.latencies.entry(action).or_default().push(micros);
                }
                Err(_) if after_stop => stats.refused_after_stop += 1,
                // Begun before the stop, refused without a response once it came.
                Err(error) if stop.stopped() && error.starts_with("send:") => {
                    stats.not_taken_at_stop += 1;
                }
                // Begun before the stop: must have finished or been answered.
                Err(error) => stats.fail(format!("{}: {error}", action.name())),
            }
        }
        if after_stop {
            // After the stop, new requests only now and then.
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// How an action that went as due ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// As planned.
    Done,
    /// A resubscribe found the task canceled already (the cancel came first).
    Raced,
    /// A get found its task evicted.
    Evicted,
}

/// Does one action.
async fn act(
    caller: &mut Caller,
    action: Action,
    tasks: &mut Vec<String>,
    seed: u64,
    n: u64,
    rng: &mut fastrand::Rng,
) -> Result<Outcome, String> {
    let message_id = |prefix: &str| format!("{prefix}-{seed}-{n}");
    match action {
        Action::SendV03 => {
            let params = json!({"message": message_v03(&message_id("tck-complete-task"))});
            let (id, reply) = caller.call("message/send", params, false).await?;
            let result = answer(&reply, &id)?.map_err(|code| format!("error {code}"))?;
            expect_state(&result, "completed")?;
            remember(tasks, &result);
            Ok(Outcome::Done)
        }
        Action::SendV10 => {
            let params = json!({"message": message_v10(&message_id("tck-complete-task"))});
            let (id, reply) = caller.call("SendMessage", params, true).await?;
            let result = answer(&reply, &id)?.map_err(|code| format!("error {code}"))?;
            expect_state(&result, "TASK_STATE_COMPLETED")?;
            remember(tasks, &result);
            Ok(Outcome::Done)
        }
        Action::StreamV03 => {
            let params = json!({"message": message_v03(&message_id("tck-stream"))});
            let (id, reply) = caller.call("message/stream", params, false).await?;
            let results = stream_results(&reply, &id)?;
            let last = results.last().ok_or("an empty stream")?;
            if last["final"] != true || state_of(last) != "completed" {
                return Err(format!("the stream ended with {last}"));
            }
            Ok(Outcome::Done)
        }
        Action::StreamV10 => {
            let params = json!({"message": message_v10(&message_id("tck-stream"))});
            let (id, reply) = caller.call("SendStreamingMessage", params, true).await?;
            let results = stream_results(&reply, &id)?;
            let last = results.last().ok_or("an empty stream")?;
            expect_state(last, "TASK_STATE_COMPLETED")?;
            Ok(Outcome::Done)
        }
        Action::Get => {
            // This worker's newest task: the likeliest to be kept still.
            let task = tasks.last().cloned().unwrap_or_default();
            let (id, reply) = caller.call("tasks/get", json!({"id": task}), false).await?;
            let result = match answer(&reply, &id)? {
                Ok(result) => result,
                Err(-32001) => return Ok(Outcome::Evicted),
                Err(code) => return Err(format!("error {code}")),
            };
            if result["id"] != task.as_str() {
                return Err(format!("got another task: {result}"));
            }
            Ok(Outcome::Done)
        }
        Action::CancelResubscribe => {
            cancel_resubscribe(caller, &message_id("slow"), rng.bool()).await
        }
        Action::Bad => {
            // Bad JSON; an unknown method; a v1.0 method without `A2A-Version: 1.0`.
            let (body, due): (&[u8], _) = match rng.u8(..3) {
                0 => (br#"{"jsonrpc":"2.0","id":1,"method":"#, None),
                1 => (
                    br#"{"jsonrpc":"2.0","id":7,"method":"tasks/nothing","params":{}}"#,
                    Some(-32601),
                ),
                _ => (
                    br#"{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{"id":"t"}}"#,
                    Some(-32009),
                ),
            };
            let reply = caller.raw(body.to_vec(), false, "application/json").await?;
            if reply.status >= 500 {
                return Err(format!("HTTP {} for a bad input", reply.status));
            }
            let id = a2a_id(body);
            match (answer(&reply, &id)?, due) {
                (Err(code), Some(due)) if code == due => Ok(Outcome::Done),
                // Bad JSON: -32700 from the container; the front refuses the payload itself.
                (Err(-32700 | -32052), None) => Ok(Outcome::Done),
                (other, _) => Err(format!("a bad input answered {other:?}")),
            }
        }
    }
}

fn a2a_id(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|value| value.get("id").cloned())
        .unwrap_or(Value::Null)
}

fn expect_state(result: &Value, state: &str) -> Result<(), String> {
    if state_of(result) == state {
        Ok(())
    } else {
        Err(format!(
            "state {:?} where {state:?} is due: {}",
            state_of(result),
            preview(&result.to_string())
        ))
    }
}

fn remember(tasks: &mut Vec<String>, result: &Value) {
    let task = result.get("task").unwrap_or(result);
    if let Some(id) = task["id"].as_str() {
        if tasks.len() >= 32 {
            tasks.remove(0);
        }
        tasks.push(id.to_owned());
    }
}

/// A `slow-` task (working until canceled), a resubscribe to it, its cancel; the
/// resubscribe must end with the canceled state (or find it canceled, when the cancel
/// came first).
async fn cancel_resubscribe(
    caller: &mut Caller,
    message_id: &str,
    v1: bool,
) -> Result<Outcome, String> {
    let (send, params) = if v1 {
        (
            "SendMessage",
            json!({"message": message_v10(message_id), "configuration": {"returnImmediately": true}}),
        )
    } else {
        (
            "message/send",
            json!({"message": message_v03(message_id), "configuration": {"blocking": false}}),
        )
    };
    let (id, reply) = caller.call(send, params, v1).await?;
    let result = answer(&reply, &id)?.map_err(|code| format!("send: error {code}"))?;
    let task = result.get("task").unwrap_or(&result)["id"]
        .as_str()
        .ok_or_else(|| format!("no task: {result}"))?
        .to_owned();
    let (subscribe, cancel, canceled) = if v1 {
        ("SubscribeToTask", "CancelTask", "TASK_STATE_CANCELED")
    } else {
        ("tasks/resubscribe", "tasks/cancel", "canceled")
    };
    let mut subscriber = Caller {
        client: caller.client.clone(),
        url: caller.url.clone(),
        session: caller.session.clone(),
        next: 1_000_000 + caller.next,
    };
    let task_for_stream = task.clone();
    let stream = tokio::spawn(async move {
        subscriber
            .call(subscribe, json!({"id": task_for_stream}), v1)
            .await
    });
    let (id, reply) = caller.call(cancel, json!({"id": task}), v1).await?;
    let result = answer(&reply, &id)?.map_err(|code| format!("cancel: error {code}"))?;
    expect_state(&result, canceled)?;
    let (id, reply) = stream
        .await
        .map_err(|error| format!("resubscribe: {error}"))??;
    if !reply.sse {
        // The cancel came first: the task is terminal, which a resubscribe refuses.
        return match answer(&reply, &id)? {
            Err(_) => Ok(Outcome::Raced),
            Ok(result) => Err(format!("resubscribe answered {result} without a stream")),
        };
    }
    let results = match stream_results(&reply, &id) {
        // v0.3 sends the refusal of a resubscription to a task already finished as the
        // stream's one event (as the official v0.3 servers do); v1.0 as JSON, above.
        Err(error) if !v1 && error == "stream event error -32004" => return Ok(Outcome::Raced),
        // Canceled, then evicted before the resubscription was read: the store keeps
        // the newest 1,000 finished tasks, all sessions together.
        Err(error) if !v1 && error == "stream event error -32001" => {
            return Ok(Outcome::Evicted);
        }
        other => other?,
    };
    match results.last() {
        Some(last) if state_of(last) == canceled => Ok(Outcome::Done),
        Some(last) => Err(format!(
            "resubscribe ended with {}",
            preview(&last.to_string())
        )),
        None => Ok(Outcome::Raced),
    }
}

/// Task ids left `working`: v1.0 `ListTasks` with a status filter (each session's, on the
/// front). `None` when the list could not be read.
pub async fn left_working(base: &str, kind: Kind, connections: usize) -> Result<usize, String> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap_or_default();
    let url = match kind {
        Kind::Front => format!("{base}/runtimes/{ARN}/invocations"),
        Kind::Container => format!("{base}/"),
    };
    let sessions: Vec<Option<String>> = match kind {
        Kind::Front => (0..connections)
            .map(|worker| Some(session(worker)))
            .collect(),
        Kind::Container => vec![None],
    };
    let mut working = 0;
    for session in sessions {
        let caller = Caller {
            client: client.clone(),
            url: url.clone(),
            session,
            next: 0,
        };
        let mut caller = caller;
        let params = json!({"status": "TASK_STATE_WORKING", "pageSize": 100});
        let (id, reply) = caller.call("ListTasks", params, true).await?;
        let result = answer(&reply, &id)?.map_err(|code| format!("ListTasks: error {code}"))?;
        working += result["tasks"].as_array().map_or(0, Vec::len);
    }
    Ok(working)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(body: &str) -> Reply {
        Reply {
            status: 200,
            sse: true,
            body: body.to_owned(),
        }
    }

    #[test]
    fn percentiles_are_the_50th_and_99th_in_milliseconds() {
        let mut latencies: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        assert_eq!(percentiles(&mut latencies), (51.0, 100.0));
        assert_eq!(percentiles(&mut []), (0.0, 0.0));
    }

    #[test]
    fn a_stream_is_read_event_by_event_each_with_the_id() {
        let body = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"task\"}}\n\n\
                    data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"final\":true}}\n\n";
        let results = stream_results(&sse(body), &json!(3)).unwrap();
        assert_eq!(results, [json!({"kind": "task"}), json!({"final": true})]);
        // Another id, or an error event, is not what the stream is due.
        assert!(stream_results(&sse(body), &json!(4)).is_err());
        let error = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"x\"}}\n\n";
        assert_eq!(
            stream_results(&sse(error), &json!(3)),
            Err("stream event error -32603".to_owned())
        );
    }

    #[test]
    fn the_state_is_read_from_a_task_a_v1_wrapper_or_a_status_update() {
        assert_eq!(
            state_of(&json!({"status": {"state": "completed"}})),
            "completed"
        );
        assert_eq!(
            state_of(&json!({"task": {"status": {"state": "TASK_STATE_WORKING"}}})),
            "TASK_STATE_WORKING"
        );
        assert_eq!(
            state_of(&json!({"statusUpdate": {"status": {"state": "TASK_STATE_CANCELED"}}})),
            "TASK_STATE_CANCELED"
        );
    }
}
