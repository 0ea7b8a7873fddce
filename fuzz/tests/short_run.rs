//! A short, bounded fuzz run with a fixed seed and input count (what `make test` runs;
//! `make fuzz` runs the long one): no panic, no timeout, no answer the oracle refuses.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_fuzz::run::{Config, run};

/// Inputs in the short run: about 10 s of a debug build on a 2-core machine.
const INPUTS: u64 = 6_000;

#[test]
fn a_short_fuzz_run_finds_nothing() {
    let report = run(&Config {
        seed: 19,
        inputs: Some(INPUTS),
        ..Config::default()
    })
    .unwrap();
    println!(
        "{} inputs in {:.1} s ({:.0}/s), statuses {:?}, known {:?}",
        report.inputs,
        report.elapsed.as_secs_f64(),
        report.rate(),
        report.statuses,
        report.known
    );
    assert_eq!(report.inputs, INPUTS);
    // Every kind of answer was reached: results, refusals, streams' 200s.
    for status in [200, 400, 404, 405] {
        assert!(
            report.statuses.contains_key(&status),
            "{:?}",
            report.statuses
        );
    }
    let findings: Vec<String> = report
        .findings
        .iter()
        .map(|finding| {
            let input = finding
                .input
                .as_ref()
                .map(|input| String::from_utf8_lossy(&input.to_bytes()).into_owned())
                .unwrap_or_default();
            format!("{}: {}\n{input}", finding.kind, finding.detail)
        })
        .collect();
    assert_eq!(report.total_findings(), 0, "{}", findings.join("\n---\n"));
}
