//! Logs written off the request path. A request's task formats its line (as
//! `tracing-subscriber`'s `fmt` does) and appends it to a shared in-memory queue of
//! bounded size: a short lock and a copy, no write to stderr and no wake-up of another
//! thread. One thread of its own gathers the queue for a few milliseconds at a time
//! ([`GATHER`]) and writes it to stderr in one write, so a busy server's lines go out
//! thousands to a system call, and a quiet one's within those milliseconds.
//!
//! No line is lost unless the queue is full ([`DEFAULT_BUFFER_BYTES`] waiting: the writer
//! is far behind, a stalled terminal or pipe). A line that finds it full is dropped rather
//! than making the request wait, and counted; every [`DEFAULT_REPORT_EVERY`] that dropped
//! lines the count is logged once, as a warning, and once more when the [`LogGuard`] is
//! dropped. Dropping the guard also writes out what is queued: the hosts
//! ([`serve`](crate::serve::serve), `a2a-container`, the emulator's binary) hold it until
//! they return.
//!
//! Why not `tracing-appender`'s non-blocking writer: it copies each line into a message of
//! its own and wakes its writer thread for nearly every line on a quiet-to-busy server,
//! which cost more per request than writing to stderr directly did (measured with
//! `scripts/load.py`; figures in the guide's docs/src/reference/limits.md and
//! docs/src/contributing/benchmarks.md).
//!
//! ```
//! use a2a_lambda_server::host::logging::Logging;
//! use a2a_lambda_server::serve::LogFormat;
//!
//! // What a host does first: filtered by RUST_LOG (default info), held until it returns.
//! let _logs = Logging::new(LogFormat::Text).init();
//! tracing::info!("listening");
//! ```

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tracing::Dispatch;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::serve::LogFormat;

/// Bytes of lines the queue holds before new ones are dropped: at a few hundred bytes a
/// line, tens of thousands of lines, seconds of a busy server's logs.
pub const DEFAULT_BUFFER_BYTES: usize = 8 * 1024 * 1024;

/// How often the count of dropped lines is logged, when lines were dropped.
pub const DEFAULT_REPORT_EVERY: Duration = Duration::from_secs(10);

/// How long the writer gathers lines before it writes them (less when the queue is half
/// full): the most a line waits on a quiet server.
pub const GATHER: Duration = Duration::from_millis(10);

/// How long dropping the guard waits for the writer to write what is queued.
const FLUSH_WAIT: Duration = Duration::from_secs(2);

/// How the logs are set up: the format, the filter, the queue's size and how often drops
/// are reported.
#[derive(Debug, Clone)]
#[must_use]
pub struct Logging {
    format: LogFormat,
    filter: Option<String>,
    buffer_bytes: usize,
    report_every: Duration,
    #[cfg(feature = "otel")]
    telemetry_fallback: Option<String>,
}

impl Logging {
    /// Lines in `format`, filtered by `RUST_LOG` (default `info`), the default queue and
    /// report interval.
    pub fn new(format: LogFormat) -> Self {
        Self {
            format,
            filter: None,
            buffer_bytes: DEFAULT_BUFFER_BYTES,
            report_every: DEFAULT_REPORT_EVERY,
            #[cfg(feature = "otel")]
            telemetry_fallback: None,
        }
    }

    /// Filter directives (`RUST_LOG`'s syntax) instead of `RUST_LOG`.
    pub fn filter(mut self, directives: impl Into<String>) -> Self {
        self.filter = Some(directives.into());
        self
    }

    /// With the `otel` feature: where telemetry exports when the `OTEL_*` variables name
    /// no endpoint (a base URL; the emulator gives its own OTLP receiver).
    #[cfg(feature = "otel")]
    pub fn telemetry_fallback(mut self, endpoint: impl Into<String>) -> Self {
        self.telemetry_fallback = Some(endpoint.into());
        self
    }

    /// Bytes of lines the queue holds before new lines are dropped.
    pub fn buffer_bytes(mut self, bytes: usize) -> Self {
        self.buffer_bytes = bytes;
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
    ///
    /// With the `otel` feature, telemetry is turned on here too when the `OTEL_*`
    /// variables ask for it ([`crate::host::telemetry`]; inside a tokio runtime, which
    /// its exports run on): the guard then also exports what is left when dropped. A
    /// variable that asks for what this build cannot do leaves telemetry off and is
    /// logged as an error: the host serves on without it.
    pub fn init(self) -> LogGuard {
        let colour = io::IsTerminal::is_terminal(&io::stderr())
            && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
        #[cfg(feature = "otel")]
        let (telemetry, refused) =
            match crate::telemetry::Telemetry::from_env_or(self.telemetry_fallback.as_deref()) {
                Ok(telemetry) if tokio::runtime::Handle::try_current().is_ok() => (telemetry, None),
                Ok(None) => (None, None),
                Ok(Some(_)) => (
                    None,
                    Some("telemetry is off: it needs a tokio runtime to export on".to_owned()),
                ),
                Err(error) => (None, Some(format!("telemetry is off: {error}"))),
            };
        #[cfg(feature = "otel")]
        let (dispatch, guard) = match &telemetry {
            Some(telemetry) => self.dispatch_exported(io::stderr(), colour, telemetry),
            None => self.dispatch(io::stderr(), colour),
        };
        #[cfg(not(feature = "otel"))]
        let (dispatch, guard) = self.dispatch(io::stderr(), colour);
        #[cfg_attr(not(feature = "otel"), allow(unused_mut))]
        let mut guard = match dispatch.try_init() {
            Ok(()) => guard,
            Err(_) => LogGuard::empty(),
        };
        #[cfg(feature = "otel")]
        {
            if let Some(refused) = refused {
                tracing::error!("{refused}");
            }
            if let Some(telemetry) = telemetry {
                guard.telemetry = Some(telemetry.install());
            }
        }
        guard
    }

    /// The logs as a [`Dispatch`] writing to `writer` (no colours), for a caller that
    /// installs it itself (a test: `tracing::dispatcher::with_default`).
    pub fn build<W: Write + Send + 'static>(self, writer: W) -> (Dispatch, LogGuard) {
        self.dispatch(writer, false)
    }

    fn env_filter(&self) -> EnvFilter {
        match &self.filter {
            Some(directives) => EnvFilter::new(directives),
            None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        }
    }

    /// The logs and the telemetry's span export side by side, each with its own filter:
    /// the lines leave the telemetry's own spans out.
    #[cfg(feature = "otel")]
    fn dispatch_exported<W: Write + Send + 'static>(
        self,
        writer: W,
        colour: bool,
        telemetry: &crate::telemetry::Telemetry,
    ) -> (Dispatch, LogGuard) {
        use tracing_subscriber::Layer as _;
        use tracing_subscriber::layer::SubscriberExt as _;
        let mut filter = self.env_filter();
        if let Ok(directive) = format!("{}=off", crate::telemetry::TARGET).parse() {
            filter = filter.add_directive(directive);
        }
        let queue = Arc::new(Queue::new(self.buffer_bytes));
        let lines = tracing_subscriber::fmt::layer()
            .with_ansi(colour)
            .with_writer(Lines(Arc::clone(&queue)));
        let registry = tracing_subscriber::registry().with(telemetry.layer());
        let dispatch = match self.format {
            LogFormat::Json => Dispatch::new(registry.with(lines.json().with_filter(filter))),
            LogFormat::Text => Dispatch::new(registry.with(lines.with_filter(filter))),
        };
        self.guarded(dispatch, queue, writer)
    }

    fn dispatch<W: Write + Send + 'static>(self, writer: W, colour: bool) -> (Dispatch, LogGuard) {
        let filter = self.env_filter();
        let queue = Arc::new(Queue::new(self.buffer_bytes));
        let builder = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(colour)
            .with_writer(Lines(Arc::clone(&queue)));
        let dispatch = match self.format {
            LogFormat::Json => Dispatch::new(builder.json().finish()),
            LogFormat::Text => Dispatch::new(builder.finish()),
        };
        self.guarded(dispatch, queue, writer)
    }

    /// The writer thread for `dispatch`'s lines, and the guard that keeps it.
    fn guarded<W: Write + Send + 'static>(
        self,
        dispatch: Dispatch,
        queue: Arc<Queue>,
        writer: W,
    ) -> (Dispatch, LogGuard) {
        let writer = Writer {
            queue: Arc::clone(&queue),
            out: writer,
            dispatch: dispatch.clone(),
            report_every: self.report_every,
            reported: 0,
        };
        let guard = LogGuard {
            worker: writer.spawn(),
            queue: Some(queue),
            #[cfg(feature = "otel")]
            telemetry: None,
        };
        (dispatch, guard)
    }
}

/// Keeps the log writer running; dropping it writes out the queued lines and the last drop
/// count (waiting up to two seconds for the writer).
#[must_use = "the logs stop when the guard is dropped: hold it until the host returns"]
#[derive(Debug)]
pub struct LogGuard {
    worker: Option<Worker>,
    queue: Option<Arc<Queue>>,
    /// Telemetry turned on with the logs: dropped (its last export) before the writer
    /// stops, so that its warnings are still written.
    #[cfg(feature = "otel")]
    telemetry: Option<crate::telemetry::TelemetryGuard>,
}

impl LogGuard {
    /// A guard for logs set up elsewhere.
    fn empty() -> Self {
        Self {
            worker: None,
            queue: None,
            #[cfg(feature = "otel")]
            telemetry: None,
        }
    }

    /// Lines dropped so far because the queue was full (0 for logs set up elsewhere).
    pub fn dropped(&self) -> usize {
        self.queue
            .as_ref()
            .map_or(0, |queue| queue.dropped.load(Ordering::Relaxed))
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        #[cfg(feature = "otel")]
        drop(self.telemetry.take());
        if let (Some(worker), Some(queue)) = (self.worker.take(), &self.queue) {
            queue.lock().stopping = true;
            queue.wake.notify_one();
            // A writer stuck on a stalled stderr is left behind, not waited for forever.
            if worker.done.recv_timeout(FLUSH_WAIT).is_ok() {
                let _ = worker.thread.join();
            }
        }
    }
}

/// The writer thread, and word of its end.
#[derive(Debug)]
struct Worker {
    thread: JoinHandle<()>,
    done: mpsc::Receiver<()>,
}

/// The lines waiting to be written.
#[derive(Debug)]
struct Queue {
    state: Mutex<Pending>,
    /// Wakes the writer: a first line after a quiet spell, a queue half full, the stop.
    wake: Condvar,
    capacity: usize,
    dropped: AtomicUsize,
}

#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    /// The writer waits for a first line.
    idle: bool,
    stopping: bool,
}

impl Queue {
    fn new(capacity: usize) -> Self {
        Self {
            state: Mutex::default(),
            wake: Condvar::new(),
            capacity,
            dropped: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues one line, or counts it dropped when it does not fit.
    fn push(&self, line: &[u8]) {
        let mut pending = self.lock();
        if pending.bytes.len() + line.len() > self.capacity {
            drop(pending);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            crate::telemetry::metrics::dropped_lines(1);
            return;
        }
        let half = self.capacity / 2;
        let crossed_half = pending.bytes.len() <= half && pending.bytes.len() + line.len() > half;
        pending.bytes.extend_from_slice(line);
        if std::mem::take(&mut pending.idle) || crossed_half {
            drop(pending);
            self.wake.notify_one();
        }
    }
}

/// `fmt`'s writer: each event's line is one `write_all`, queued whole.
struct Lines(Arc<Queue>);

impl<'a> MakeWriter<'a> for Lines {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        Line(&self.0)
    }
}

/// One line on its way into the queue.
struct Line<'a>(&'a Queue);

impl Write for Line<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.push(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The thread's side: drains the queue into `out`, reports drops.
struct Writer<W> {
    queue: Arc<Queue>,
    out: W,
    dispatch: Dispatch,
    report_every: Duration,
    /// Drops reported so far.
    reported: usize,
}

impl<W: Write + Send + 'static> Writer<W> {
    /// `None` when the thread cannot be started: lines then stay queued until the queue is
    /// full, and are counted dropped after.
    fn spawn(self) -> Option<Worker> {
        let (done, finished) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("a2a-log-writer".to_owned())
            .spawn(move || {
                self.run();
                let _ = done.send(());
            })
            .ok()?;
        Some(Worker {
            thread,
            done: finished,
        })
    }

    fn run(mut self) {
        let mut batch = Vec::new();
        let mut last_report = Instant::now();
        loop {
            let stopping = self.gather(&mut batch);
            self.write(&mut batch);
            if stopping {
                // The last report goes after what was queued, then out with it.
                self.report();
                let _ = self.gather(&mut batch);
                self.write(&mut batch);
                return;
            }
            if last_report.elapsed() >= self.report_every {
                self.report();
                last_report = Instant::now();
            }
        }
    }

    /// Waits for lines (up to the report interval while none come), gathers them for
    /// [`GATHER`] unless the queue fills to half, and takes them into `batch`. True once
    /// the guard was dropped.
    fn gather(&self, batch: &mut Vec<u8>) -> bool {
        let queue = &*self.queue;
        let mut pending = queue.lock();
        if pending.bytes.is_empty() && !pending.stopping {
            pending.idle = true;
            pending = wait(queue, pending, self.report_every);
            pending.idle = false;
        }
        let deadline = Instant::now() + GATHER;
        while !pending.stopping && pending.bytes.len() <= queue.capacity / 2 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            pending = wait(queue, pending, left);
        }
        // The queue keeps the emptied buffer of the last batch: no allocation once warm.
        std::mem::swap(&mut pending.bytes, batch);
        pending.stopping
    }

    fn write(&mut self, batch: &mut Vec<u8>) {
        if !batch.is_empty() {
            // A failed write (stderr closed) loses its batch; there is nowhere to say so.
            let _ = self.out.write_all(batch).and_then(|()| self.out.flush());
            batch.clear();
        }
    }

    /// Logs the lines dropped since the last report, if any.
    fn report(&mut self) {
        let total = self.queue.dropped.load(Ordering::Relaxed);
        if total > self.reported {
            let dropped = total - self.reported;
            self.reported = total;
            tracing::dispatcher::with_default(&self.dispatch, || {
                tracing::warn!(
                    dropped,
                    total,
                    "log lines dropped: the log queue was full (the writer is behind)"
                );
            });
        }
    }
}

fn wait<'a>(
    queue: &'a Queue,
    pending: MutexGuard<'a, Pending>,
    timeout: Duration,
) -> MutexGuard<'a, Pending> {
    queue
        .wake
        .wait_timeout(pending, timeout)
        .map_or_else(|poisoned| poisoned.into_inner().0, |(pending, _)| pending)
}
