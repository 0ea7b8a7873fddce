//! The driver: workers on a multi-threaded runtime, each generating inputs from its own
//! seeded random bytes, sending them to the targets and checking each answer; a panic
//! hook counts panics (the router turns them into answers) and names the input that
//! was being served.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::generate::{self, Known};
use crate::input::Input;
use crate::oracle;
use crate::targets::{BuildError, Outcome, Targets};

/// How a run goes.
#[derive(Debug, Clone)]
pub struct Config {
    /// The first worker's seed; worker `n` uses `seed + n`.
    pub seed: u64,
    /// Stop after this many inputs (`None`: only the time limit).
    pub inputs: Option<u64>,
    /// Stop after this long (`None`: only the input count).
    pub duration: Option<Duration>,
    /// Runtime worker threads.
    pub threads: usize,
    /// Inputs in flight at once.
    pub concurrency: usize,
    /// How long an input may take, its whole body read.
    pub bound: Duration,
    /// Findings kept (with their inputs) at most; the rest are only counted.
    pub keep: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            seed: 19,
            inputs: Some(10_000),
            duration: None,
            threads: 2,
            concurrency: 8,
            bound: Duration::from_secs(5),
            keep: 50,
        }
    }
}

/// One thing wrong: what, and the input that showed it.
#[derive(Debug, Clone)]
pub struct Finding {
    /// What went wrong.
    pub kind: String,
    /// The details.
    pub detail: String,
    /// The input (none for a panic outside any input's task).
    pub input: Option<Input>,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs generated.
    pub inputs: u64,
    /// Inputs hyper would have refused before the service (not sent).
    pub unsendable: u64,
    /// Answers by HTTP status.
    pub statuses: BTreeMap<u16, u64>,
    /// Findings by kind (panic, timeout, 5xx, wrong id, …).
    pub counts: BTreeMap<String, u64>,
    /// The first findings, with their inputs.
    pub findings: Vec<Finding>,
    /// Known issues ([`crate::known`]) seen, by name: reported, not counted as findings.
    pub known: BTreeMap<&'static str, u64>,
    /// How long it ran.
    pub elapsed: Duration,
}

impl Report {
    /// Every finding counted.
    pub fn total_findings(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Inputs a second.
    pub fn rate(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

#[derive(Default)]
struct Shared {
    claimed: AtomicU64,
    report: Mutex<Report>,
    keep: usize,
}

impl Shared {
    fn record(&self, kind: &str, detail: String, input: Option<Input>) {
        let Ok(mut report) = self.report.lock() else {
            return;
        };
        *report.counts.entry(kind.to_owned()).or_default() += 1;
        if report.findings.len() < self.keep {
            report.findings.push(Finding {
                kind: kind.to_owned(),
                detail,
                input,
            });
        }
    }
}

tokio::task_local! {
    /// The input being served, for the panic hook.
    static CURRENT: RefCell<Option<Input>>;
}

/// A response the front cut because a StopRuntimeSession input ended its session: the
/// platform's documented behaviour, counted with the known issues.
pub const CUT_BY_STOP: &str = "documented, not an issue: a response cut by StopRuntimeSession";

/// Panics seen by the hook since the last [`take_panics`]: message and input.
static PANICS: Mutex<Vec<(String, Option<Input>)>> = Mutex::new(Vec::new());

fn install_panic_hook() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // Panics outside an input (a test's own assertion) keep the previous hook's report.
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let input = CURRENT
                .try_with(|current| current.borrow().clone())
                .ok()
                .flatten();
            if input.is_none() {
                previous(info);
            }
            let location = info
                .location()
                .map(|at| format!(" at {}:{}", at.file(), at.line()))
                .unwrap_or_default();
            let message = info
                .payload()
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            if let Ok(mut panics) = PANICS.lock() {
                panics.push((format!("{message}{location}"), input));
            }
        }));
    });
}

fn take_panics() -> Vec<(String, Option<Input>)> {
    PANICS
        .lock()
        .map(|mut panics| std::mem::take(&mut *panics))
        .unwrap_or_default()
}

/// Checks one input against a fresh set of targets (a corpus file, a kept crash).
///
/// # Errors
/// The violation, a timeout or a panic, as text.
pub async fn check_one(targets: &Targets, input: &Input, bound: Duration) -> Result<(), String> {
    install_panic_hook();
    let outcome = CURRENT
        .scope(
            RefCell::new(Some(input.clone())),
            targets.call(input, bound),
        )
        .await;
    let panics = take_panics();
    if let Some((message, _)) = panics.first() {
        return Err(format!("panic: {message}"));
    }
    match outcome {
        Outcome::Answered(answer) => oracle::check(input, &answer).map_err(|violation| {
            format!(
                "{violation} (HTTP {}, body {})",
                answer.status,
                oracle::preview(&answer.body)
            )
        }),
        Outcome::TimedOut => Err(format!("no whole answer within {bound:?}")),
        Outcome::BodyFailed(error) => Err(format!("the body failed: {error}")),
        Outcome::Unsendable => Ok(()),
    }
}

/// Runs the fuzzer as `config` says.
///
/// # Errors
/// [`BuildError`] when the targets cannot be built.
pub fn run(config: &Config) -> Result<Report, BuildError> {
    install_panic_hook();
    let _ = take_panics();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(config.threads.max(1))
        .enable_all()
        .build()
        .map_err(|error| {
            BuildError::Emulator(a2a_lambda_emulator::EmulatorError::Config(
                error.to_string(),
            ))
        })?;
    let shared = Arc::new(Shared {
        keep: config.keep,
        ..Shared::default()
    });
    let started = Instant::now();
    runtime.block_on(async {
        let targets = Targets::new()?;
        let workers: Vec<_> = (0..config.concurrency.max(1))
            .map(|worker| {
                let targets = targets.clone();
                let shared = Arc::clone(&shared);
                let config = config.clone();
                tokio::spawn(async move { work(worker as u64, &targets, &shared, &config).await })
            })
            .collect();
        for worker in workers {
            if let Err(error) = worker.await {
                shared.record("worker died", error.to_string(), None);
            }
        }
        Ok::<_, BuildError>(())
    })?;
    drop(runtime);
    for (message, input) in take_panics() {
        shared.record("panic", message, input);
    }
    let mut report = shared
        .report
        .lock()
        .map(|mut report| std::mem::take(&mut *report))
        .unwrap_or_default();
    report.elapsed = started.elapsed();
    report.inputs = shared
        .claimed
        .load(Ordering::Relaxed)
        .min(config.inputs.unwrap_or(u64::MAX));
    Ok(report)
}

async fn work(worker: u64, targets: &Targets, shared: &Shared, config: &Config) {
    let mut rng = fastrand::Rng::with_seed(config.seed.wrapping_add(worker));
    let mut known = Known::default();
    let mut bytes = vec![0u8; 4096];
    let deadline = config.duration.map(|duration| Instant::now() + duration);
    let mut statuses: BTreeMap<u16, u64> = BTreeMap::new();
    let mut unsendable = 0;
    loop {
        let claimed = shared.claimed.fetch_add(1, Ordering::Relaxed);
        if config.inputs.is_some_and(|limit| claimed >= limit)
            || deadline.is_some_and(|deadline| Instant::now() >= deadline)
        {
            break;
        }
        let length = rng.usize(16..=bytes.len());
        rng.fill(&mut bytes[..length]);
        let mut u = arbitrary::Unstructured::new(&bytes[..length]);
        let Ok(input) = generate::input(&mut u, &known) else {
            continue;
        };
        let outcome = CURRENT
            .scope(
                RefCell::new(Some(input.clone())),
                targets.call(&input, config.bound),
            )
            .await;
        match outcome {
            Outcome::Answered(answer) => {
                *statuses.entry(answer.status.as_u16()).or_default() += 1;
                if let Err(violation) = oracle::check(&input, &answer) {
                    if let Some(known) = crate::known::known_issue(&input, &answer, &violation) {
                        if let Ok(mut report) = shared.report.lock() {
                            *report.known.entry(known).or_default() += 1;
                        }
                        continue;
                    }
                    let kind = violation.kind();
                    let detail = format!(
                        "{violation} (HTTP {}, body {})",
                        answer.status,
                        oracle::preview(&answer.body)
                    );
                    shared.record(kind, detail, Some(input));
                } else {
                    for id in oracle::task_ids(&answer) {
                        known.remember(&id);
                    }
                }
            }
            Outcome::TimedOut => {
                shared.record(
                    "timeout",
                    format!("no whole answer within {:?}", config.bound),
                    Some(input),
                );
            }
            Outcome::BodyFailed(error)
                if input.target == crate::input::Target::Front && error == "the session ended" =>
            {
                // StopRuntimeSession "instantly terminates the specified session and stops
                // any ongoing streaming responses" (AgentCore Developer Guide,
                // runtime-stop-session.html): the fuzzer stops its own sessions too.
                if let Ok(mut report) = shared.report.lock() {
                    *report.known.entry(CUT_BY_STOP).or_default() += 1;
                }
            }
            Outcome::BodyFailed(error) => {
                shared.record("body failed", error, Some(input));
            }
            Outcome::Unsendable => unsendable += 1,
        }
    }
    if let Ok(mut report) = shared.report.lock() {
        report.unsendable += unsendable;
        for (status, count) in statuses {
            *report.statuses.entry(status).or_default() += count;
        }
    }
}
