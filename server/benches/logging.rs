//! What one request's log line costs the request's own thread: the engine's `rpc` line
//! at info written to a file as the hosts wrote it before (`fmt` straight to the file, a
//! write per line), through [`a2a_lambda_server::host::logging`]'s queue, and filtered out (as with
//! `RUST_LOG=warn`). `cargo bench -p a2a-lambda-server --bench logging`.

use std::fs::File;

use a2a_lambda_server::host::logging::Logging;
use a2a_lambda_server::serve::LogFormat;
use criterion::{Criterion, criterion_group, criterion_main};
use tracing::Dispatch;

/// The engine's per-request line, with fields of the sizes a request has.
fn line() {
    tracing::info!(
        request_id = "4be967a6-74b3-419b-aacc-7772b6e47f57",
        session_id = "a2a-emulator-default-session-50226f7b-49a6-42cc-9972-2b8e400f4567",
        method = "message/send",
        version = "0.3",
        outcome = "ok".to_owned(),
        duration_ms = 0.163,
        "rpc"
    );
}

fn file(name: &str) -> File {
    let path = std::env::temp_dir().join(format!("a2a-logging-bench-{name}.log"));
    File::create(path).unwrap_or_else(|error| panic!("bench log file: {error}"))
}

fn lines(c: &mut Criterion) {
    let mut group = c.benchmark_group("log line");
    let direct = Dispatch::new(
        tracing_subscriber::fmt()
            .with_env_filter("info")
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(file("direct")))
            .finish(),
    );
    tracing::dispatcher::with_default(&direct, || {
        group.bench_function("written directly (before)", |b| b.iter(line));
    });
    let (queued, guard) = Logging::new(LogFormat::Text)
        .filter("info")
        .build(file("queued"));
    tracing::dispatcher::with_default(&queued, || {
        group.bench_function("queued (a2a_lambda_server::host::logging)", |b| {
            b.iter(line)
        });
    });
    drop(guard);
    let (off, guard) = Logging::new(LogFormat::Text)
        .filter("warn")
        .build(file("off"));
    tracing::dispatcher::with_default(&off, || {
        group.bench_function("filtered out (RUST_LOG=warn)", |b| b.iter(line));
    });
    drop(guard);
    group.finish();
}

criterion_group!(benches, lines);
criterion_main!(benches);
