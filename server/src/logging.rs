//! Logs written off the request path: a request's task formats its line and hands it to a
//! bounded queue; one thread of its own writes the queue to stderr, buffered, flushing
//! whenever the queue runs empty (so a quiet server's lines appear at once, and a busy
//! one's go out many to a write).
//!
//! No line is lost unless the queue is full ([`DEFAULT_BUFFER_LINES`] lines waiting: the
//! writer is far behind, say a stalled terminal or pipe). A line that finds it full is
//! dropped rather than making the request wait, and counted; every
//! [`DEFAULT_REPORT_EVERY`] the count dropped since the last report is logged once, as a
//! warning, and once more when the [`LogGuard`] is dropped. Dropping the guard also writes
//! out what is queued: the hosts ([`serve`](crate::serve::serve), `a2a-container`, the
//! emulator's binary) hold it until they return.
//!
//! The queue and its writer thread are `tracing-appender`'s non-blocking writer
//! (<https://docs.rs/tracing-appender/0.2/tracing_appender/non_blocking/>).
//!
//! ```
//! use a2a_server::logging::Logging;
//! use a2a_server::serve::LogFormat;
//!
//! // What a host does first: filtered by RUST_LOG (default info), held until it returns.
//! let _logs = Logging::new(LogFormat::Text).init();
//! tracing::info!("listening");
//! ```

use std::io::{self, BufWriter, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing::Dispatch;
use tracing_appender::non_blocking::{ErrorCounter, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::serve::LogFormat;

/// Lines the queue holds before new ones are dropped (tracing-appender's default; at a
/// few hundred bytes a line, tens of MB at most).
pub const DEFAULT_BUFFER_LINES: usize = 128_000;

/// How often the count of dropped lines is logged, when lines were dropped.
pub const DEFAULT_REPORT_EVERY: Duration = Duration::from_secs(10);

/// Bytes the writer thread gathers before it writes (it also writes whenever the queue
/// runs empty).
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// Tries, at shutdown, to get the last drop report written past a still-full queue.
const FINAL_REPORT_TRIES: usize = 10;

/// How the logs are set up: the format, the filter, the queue's size and how often drops
/// are reported.
#[derive(Debug, Clone)]
#[must_use]
pub struct Logging {
    format: LogFormat,
    filter: Option<String>,
    buffer_lines: usize,
    report_every: Duration,
}

impl Logging {
    /// Lines in `format`, filtered by `RUST_LOG` (default `info`), the default queue and
    /// report interval.
    pub fn new(format: LogFormat) -> Self {
        Self {
            format,
            filter: None,
            buffer_lines: DEFAULT_BUFFER_LINES,
            report_every: DEFAULT_REPORT_EVERY,
        }
    }

    /// Filter directives (`RUST_LOG`'s syntax) instead of `RUST_LOG`.
    pub fn filter(mut self, directives: impl Into<String>) -> Self {
        self.filter = Some(directives.into());
        self
    }

    /// Lines the queue holds before new ones are dropped (at least 1).
    pub fn buffer_lines(mut self, lines: usize) -> Self {
        self.buffer_lines = lines.max(1);
        self
    }

    /// How often the count of dropped lines is logged.
    pub fn report_every(mut self, every: Duration) -> Self {
        self.report_every = every;
        self
    }

    /// Installs the logs as the process's, writing to stderr (colours only on a terminal
    /// and without `NO_COLOR`). Leaves a subscriber already installed in place; the guard
    /// then holds nothing.
    pub fn init(self) -> LogGuard {
        let colour = io::IsTerminal::is_terminal(&io::stderr())
            && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
        let (dispatch, guard) = self.dispatch(io::stderr(), colour);
        match dispatch.try_init() {
            Ok(()) => guard,
            Err(_) => LogGuard::empty(),
        }
    }

    /// The logs as a [`Dispatch`] writing to `writer` (no colours), for a caller that
    /// installs it itself (a test: `tracing::dispatcher::with_default`).
    pub fn build<W: Write + Send + 'static>(self, writer: W) -> (Dispatch, LogGuard) {
        self.dispatch(writer, false)
    }

    fn dispatch<W: Write + Send + 'static>(self, writer: W, colour: bool) -> (Dispatch, LogGuard) {
        let filter = match &self.filter {
            Some(directives) => EnvFilter::new(directives),
            None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        };
        let (queue, worker) = NonBlockingBuilder::default()
            .buffered_lines_limit(self.buffer_lines)
            .lossy(true)
            .thread_name("a2a-log-writer")
            .finish(BufWriter::with_capacity(WRITE_BUFFER_BYTES, writer));
        let dropped = queue.error_counter();
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(colour)
            .with_writer(queue);
        let dispatch = match self.format {
            LogFormat::Json => Dispatch::new(builder.json().finish()),
            LogFormat::Text => Dispatch::new(builder.finish()),
        };
        let reporter = Reporter::spawn(dropped, dispatch.clone(), self.report_every);
        let guard = LogGuard {
            reporter,
            worker: Some(worker),
        };
        (dispatch, guard)
    }
}

/// Keeps the log writer running; dropping it logs the last drop count and writes out the
/// queued lines (waiting up to about a second for the writer).
#[must_use = "the logs stop when the guard is dropped: hold it until the host returns"]
#[derive(Debug)]
pub struct LogGuard {
    reporter: Option<Reporter>,
    worker: Option<WorkerGuard>,
}

impl LogGuard {
    /// A guard for logs set up elsewhere.
    fn empty() -> Self {
        Self {
            reporter: None,
            worker: None,
        }
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        // The last report goes into the queue before the writer is told to finish.
        if let Some(reporter) = self.reporter.take() {
            reporter.stop();
        }
        drop(self.worker.take());
    }
}

/// The thread that logs how many lines were dropped, each interval that dropped some.
#[derive(Debug)]
struct Reporter {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Reporter {
    /// `None` when the thread cannot be started (drops then go unreported).
    fn spawn(counter: ErrorCounter, dispatch: Dispatch, every: Duration) -> Option<Self> {
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("a2a-log-drops".to_owned())
            .spawn(move || {
                let mut drops = Drops {
                    counter,
                    reported: 0,
                };
                loop {
                    match stopped.recv_timeout(every) {
                        Err(RecvTimeoutError::Timeout) => drops.report(&dispatch),
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
                drops.report_last(&dispatch);
            })
            .ok()?;
        Some(Self { stop, thread })
    }

    /// Stops the thread after its last report.
    fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// The dropped-line count, and how much of it has been reported.
struct Drops {
    counter: ErrorCounter,
    reported: usize,
}

impl Drops {
    /// Logs the lines dropped since the last report, if any. A report that is itself
    /// dropped is counted, and so reported the next time.
    fn report(&mut self, dispatch: &Dispatch) {
        let total = self.counter.dropped_lines();
        if total > self.reported {
            let dropped = total - self.reported;
            self.reported = total;
            tracing::dispatcher::with_default(dispatch, || {
                tracing::warn!(
                    dropped,
                    total,
                    "log lines dropped: the log queue was full (the writer is behind)"
                );
            });
        }
    }

    /// Reports until a report gets through (the queue drains as the host stops), a few
    /// tries at most.
    fn report_last(&mut self, dispatch: &Dispatch) {
        for _ in 0..FINAL_REPORT_TRIES {
            if self.counter.dropped_lines() == self.reported {
                return;
            }
            self.report(dispatch);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
