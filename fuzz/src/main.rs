//! `a2a-fuzz`: runs the structured fuzzer for a time or a number of inputs and reports
//! inputs/s, answers by status and every finding; findings' inputs are written to a
//! directory in the corpus format, ready to be kept as regression tests. Exits 1 when
//! anything was found.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use a2a_fuzz::run::{Config, run};
use clap::Parser;

/// Fuzzes the container's router and the emulator's front in-process.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Seconds to run (0: no time limit; then --inputs must be set).
    #[arg(long, default_value_t = 180)]
    seconds: u64,
    /// Inputs to run at most (default: no limit but time).
    #[arg(long)]
    inputs: Option<u64>,
    /// Runtime worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Inputs in flight at once.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Seed of the random bytes (worker n uses seed + n).
    #[arg(long, default_value_t = 19)]
    seed: u64,
    /// Milliseconds an input may take, its whole answer read.
    #[arg(long, default_value_t = 5000)]
    bound_ms: u64,
    /// Where the inputs of findings are written (`*.http`).
    #[arg(long, default_value = "target/fuzz-findings")]
    findings: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.seconds == 0 && args.inputs.is_none() {
        eprintln!("a2a-fuzz: give --seconds or --inputs");
        return ExitCode::from(2);
    }
    let config = Config {
        seed: args.seed,
        inputs: args.inputs,
        duration: (args.seconds > 0).then(|| Duration::from_secs(args.seconds)),
        threads: args.threads,
        concurrency: args.concurrency,
        bound: Duration::from_millis(args.bound_ms),
        keep: 200,
    };
    println!(
        "a2a-fuzz: seed {}, {} threads, {} in flight, bound {} ms, {}",
        config.seed,
        config.threads,
        config.concurrency,
        args.bound_ms,
        match (config.inputs, config.duration) {
            (Some(inputs), Some(duration)) => format!("{inputs} inputs or {duration:?}"),
            (Some(inputs), None) => format!("{inputs} inputs"),
            (None, Some(duration)) => format!("{duration:?}"),
            (None, None) => String::new(),
        }
    );
    let report = match run(&config) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("a2a-fuzz: {error}");
            return ExitCode::from(2);
        }
    };
    println!(
        "inputs: {} in {:.1} s ({:.0} inputs/s); not sendable over HTTP: {}",
        report.inputs,
        report.elapsed.as_secs_f64(),
        report.rate(),
        report.unsendable
    );
    let statuses: Vec<String> = report
        .statuses
        .iter()
        .map(|(status, count)| format!("{status}: {count}"))
        .collect();
    println!("answers by status: {}", statuses.join(", "));
    println!("findings: {}", report.total_findings());
    for (kind, count) in &report.counts {
        println!("  {kind}: {count}");
    }
    for (known, count) in &report.known {
        println!("known (counted apart): {known}: {count}");
    }
    if report.findings.is_empty() {
        return ExitCode::SUCCESS;
    }
    if let Err(error) = std::fs::create_dir_all(&args.findings) {
        eprintln!(
            "a2a-fuzz: cannot create {}: {error}",
            args.findings.display()
        );
    }
    let mut shown: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (number, finding) in report.findings.iter().enumerate() {
        let count = shown.entry(finding.kind.as_str()).or_default();
        *count += 1;
        if *count <= 5 {
            println!("- {}: {}", finding.kind, finding.detail);
        }
        if let Some(input) = &finding.input {
            let name = finding
                .kind
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect::<String>();
            let path = args.findings.join(format!("{name}-{number}.http"));
            match std::fs::write(&path, input.to_bytes()) {
                Ok(()) if *count <= 5 => println!("  input: {}", path.display()),
                Ok(()) => {}
                Err(error) => eprintln!("a2a-fuzz: cannot write {}: {error}", path.display()),
            }
        }
    }
    ExitCode::FAILURE
}
