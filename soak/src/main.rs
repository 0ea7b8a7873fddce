//! `a2a-soak`: a bounded soak of the release front (`a2a-emulator`) and container
//! (`a2a-container`) on loopback — a mixed load at N connections for S seconds, then a
//! report: requests by kind, unexpected errors (0 expected), p50/p99, RSS at warm-up and
//! at the end (flat within 10%), open file descriptors before and after (back to the
//! baseline), tasks left `working` (none).
//!
//! `--slowloris N` runs the load again with N connections dribbling their headers and
//! compares the p99 of normal traffic (target ≤ 2×); `--sigterm` sends SIGTERM halfway:
//! in-flight requests must finish or be answered, new connections be refused, the exit
//! code be 0 within the grace.

mod load;
mod server;
mod slowloris;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;

use load::{Load, Stats, StopClock};
use server::{Kind, Server};

/// Soaks the release emulator and container.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Seconds of load (each phase).
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Concurrent connections (one worker each).
    #[arg(long, default_value_t = 256)]
    connections: usize,
    /// Which servers: front, container or both.
    #[arg(long, default_value = "both", value_parser = ["front", "container", "both"])]
    target: String,
    /// Also run with this many slow-loris connections open and compare the p99.
    #[arg(long, value_name = "N")]
    slowloris: Option<usize>,
    /// Send SIGTERM halfway through the load and check the shutdown.
    #[arg(long)]
    sigterm: bool,
    /// Seed of the workers' choices.
    #[arg(long, default_value_t = 19)]
    seed: u64,
    /// Seconds the servers get after SIGTERM (their default grace is 10).
    #[arg(long, default_value_t = 10)]
    grace: u64,
}

/// What one target's run found wrong.
#[derive(Debug, Default)]
struct Verdict {
    failures: Vec<String>,
}

impl Verdict {
    fn check(&mut self, ok: bool, what: String) {
        let mark = if ok { "ok  " } else { "FAIL" };
        println!("  [{mark}] {what}");
        if !ok {
            self.failures.push(what);
        }
    }
}

fn raise_fd_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

fn print_stats(stats: &Stats) {
    for (action, latencies) in &stats.latencies {
        let mut latencies = latencies.clone();
        let (p50, p99) = load::percentiles(&mut latencies);
        println!(
            "    {:20} {:>8}  p50 {p50:8.2} ms  p99 {p99:8.2} ms",
            action.name(),
            latencies.len()
        );
    }
    for sample in &stats.samples {
        println!("    unexpected: {sample}");
    }
}

async fn soak(kind: Kind, args: &Args) -> Result<Verdict, String> {
    let mut verdict = Verdict::default();
    let mut server = Server::start(kind)
        .await
        .map_err(|error| error.to_string())?;
    let base = format!("http://{}", server.address);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fds_before = server.open_fds();
    let duration = Duration::from_secs(args.seconds);
    let load = Load {
        base: base.clone(),
        kind,
        connections: args.connections,
        duration,
        seed: args.seed,
    };
    println!(
        "{}: pid {}, {} connections, {} s{}",
        kind.name(),
        server.pid(),
        args.connections,
        args.seconds,
        if args.sigterm {
            ", SIGTERM halfway"
        } else {
            ""
        }
    );
    let stop = Arc::new(StopClock::default());
    let began = Instant::now();
    let running = {
        let load = load.clone();
        let stop = Arc::clone(&stop);
        tokio::spawn(async move { load::run(&load, stop).await })
    };
    // Warm-up: the first sixth of the run (at most 10 s).
    let warm_up = (duration / 6).min(Duration::from_secs(10));
    tokio::time::sleep(warm_up).await;
    let rss_warm = server.rss_kib();
    if args.sigterm {
        tokio::time::sleep((duration / 2).saturating_sub(warm_up)).await;
        return sigterm(&mut server, args, began, &stop, running, verdict).await;
    }
    let stats = running.await.map_err(|error| error.to_string())?;
    let elapsed = began.elapsed();
    let rss_end = server.rss_kib();
    // Back to the baseline once the clients are gone (closing takes a moment).
    let settle = Instant::now() + Duration::from_secs(10);
    let mut fds_after = server.open_fds();
    while fds_after > fds_before && Instant::now() < settle {
        tokio::time::sleep(Duration::from_millis(100)).await;
        fds_after = server.open_fds();
    }
    let (p50, p99) = stats.unary_percentiles();
    println!(
        "  requests: {} in {:.1} s ({:.0}/s); p50 {p50:.2} ms, p99 {p99:.2} ms (sends, gets, bad inputs)",
        stats.total(),
        elapsed.as_secs_f64(),
        stats.total() as f64 / elapsed.as_secs_f64()
    );
    print_stats(&stats);
    verdict.check(
        stats.unexpected == 0,
        format!("unexpected errors: {}", stats.unexpected),
    );
    println!(
        "  resubscribes that found the task canceled already: {}; gets of an evicted task (-32001): {}",
        stats.raced, stats.evicted
    );
    let growth = rss_end as f64 / rss_warm.max(1) as f64 - 1.0;
    verdict.check(
        growth <= 0.10,
        format!(
            "RSS after warm-up {:.1} MiB, at the end {:.1} MiB ({:+.1}%)",
            rss_warm as f64 / 1024.0,
            rss_end as f64 / 1024.0,
            growth * 100.0
        ),
    );
    verdict.check(
        fds_after <= fds_before,
        format!("open fds before the load {fds_before}, after {fds_after}"),
    );
    match load::left_working(&base, kind, args.connections).await {
        Ok(working) => verdict.check(working == 0, format!("tasks left working: {working}")),
        Err(error) => verdict.check(false, format!("tasks left working: unreadable ({error})")),
    }
    if let Some(count) = args.slowloris {
        slow_phase(&server, &load, count, p99, &mut verdict).await;
    }
    Ok(verdict)
}

async fn slow_phase(
    server: &Server,
    load: &Load,
    count: usize,
    baseline_p99: f64,
    verdict: &mut Verdict,
) {
    let slow = slowloris::Slowloris::start(server.address, count).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let open = slow.open.load(std::sync::atomic::Ordering::Relaxed);
    let stats = load::run(load, Arc::new(StopClock::default())).await;
    let still_open = slow.open.load(std::sync::atomic::Ordering::Relaxed);
    let closed = slow
        .closed_by_server
        .load(std::sync::atomic::Ordering::Relaxed);
    slow.stop().await;
    let (p50, p99) = stats.unary_percentiles();
    println!(
        "  with {count} slow-loris connections ({open} opened, {still_open} still open at the end, {closed} closed by the server): {} requests, p50 {p50:.2} ms, p99 {p99:.2} ms",
        stats.total()
    );
    print_stats(&stats);
    verdict.check(
        stats.unexpected == 0,
        format!("unexpected errors with slow-loris: {}", stats.unexpected),
    );
    verdict.check(
        p99 <= baseline_p99 * 2.0,
        format!(
            "p99 with slow-loris {p99:.2} ms vs {baseline_p99:.2} ms without ({:.2}×, target ≤ 2×)",
            p99 / baseline_p99.max(1e-9)
        ),
    );
}

async fn sigterm(
    server: &mut Server,
    args: &Args,
    began: Instant,
    stop: &StopClock,
    running: tokio::task::JoinHandle<Stats>,
    mut verdict: Verdict,
) -> Result<Verdict, String> {
    server
        .terminate()
        .map_err(|error| format!("SIGTERM: {error}"))?;
    stop.mark(began.elapsed());
    let signalled = Instant::now();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let refused = tokio::net::TcpStream::connect(server.address)
        .await
        .is_err();
    let grace = Duration::from_secs(args.grace);
    let status = server.wait_exit(grace + Duration::from_secs(5)).await;
    let exited_after = signalled.elapsed();
    let stats = running.await.map_err(|error| error.to_string())?;
    println!(
        "  requests: {} done; {} begun after SIGTERM failed (new connections are refused); \
         {} begun before it were never taken (sent on a keep-alive connection the server \
         was closing, no response began)",
        stats.total(),
        stats.refused_after_stop,
        stats.not_taken_at_stop
    );
    print_stats(&stats);
    verdict.check(
        stats.unexpected == 0,
        format!(
            "requests in flight at SIGTERM (a response begun) that did not finish, or answered wrong: {}",
            stats.unexpected
        ),
    );
    verdict.check(
        refused,
        "a new connection 0.5 s after SIGTERM is refused".to_owned(),
    );
    match status {
        Some(status) => verdict.check(
            status.success(),
            format!(
                "exit {status} {:.1} s after SIGTERM (grace {} s)",
                exited_after.as_secs_f64(),
                args.grace
            ),
        ),
        None => verdict.check(
            false,
            format!("still running {} s after SIGTERM", args.grace + 5),
        ),
    }
    Ok(verdict)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    raise_fd_limit();
    let kinds: &[Kind] = match args.target.as_str() {
        "front" => &[Kind::Front],
        "container" => &[Kind::Container],
        _ => &[Kind::Front, Kind::Container],
    };
    let mut failed = false;
    for &kind in kinds {
        match soak(kind, &args).await {
            Ok(verdict) => failed |= !verdict.failures.is_empty(),
            Err(error) => {
                eprintln!("a2a-soak: {}: {error}", kind.name());
                failed = true;
            }
        }
    }
    if failed {
        println!("soak: FAILED (see [FAIL] above)");
        ExitCode::FAILURE
    } else {
        println!("soak: passed");
        ExitCode::SUCCESS
    }
}
