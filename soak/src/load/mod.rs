//! The mixed load: one worker per connection, each sending, in turn chosen at random,
//! v0.3 and v1.0 sends, streams, gets of its own tasks, a cancel of a working task with a
//! resubscribe open on it, and bad inputs; every answer checked (JSON-RPC 2.0 with the
//! request's id, the state or error code due), every latency kept.

mod caller;
mod checks;
mod scenarios;
mod stats;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::server::Kind;
use caller::Caller;
use checks::answer;
use scenarios::{Outcome, act};
pub use stats::{Action, Stats, percentiles};

/// A runtime ARN for the front's invocation path (percent-encoded).
const ARN: &str =
    "arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fsoak-AbCdEf1234";
/// How long one request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

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
