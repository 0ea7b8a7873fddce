//! The corpus replayed: every input under `corpus/` (valid requests of each kind, and each
//! input a fuzz run found wrong once, kept after its fix) gets an answer the oracle
//! accepts; the inputs under `corpus/known/` (issues reported in files another engineer
//! owns) show only their known issue, or none once fixed.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use a2a_fuzz::input::Input;
use a2a_fuzz::targets::{Outcome, Targets};
use a2a_fuzz::{known, oracle, run};

const BOUND: Duration = Duration::from_secs(10);

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "http"))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> Input {
    let bytes = std::fs::read(path).unwrap();
    Input::from_bytes(&bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_corpus_input_gets_an_answer_the_oracle_accepts() {
    let targets = Targets::new().unwrap();
    let files = files(&corpus());
    assert!(files.len() >= 20, "the corpus lost its files: {files:?}");
    let mut failures = Vec::new();
    for path in &files {
        let input = read(path);
        if let Err(failure) = run::check_one(&targets, &input, BOUND).await {
            failures.push(format!("{}: {failure}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn known_issues_show_nothing_but_themselves() {
    let targets = Targets::new().unwrap();
    let known = corpus().join("known");
    // None are known now (the directory comes back with the next one found).
    let paths = if known.is_dir() {
        files(&known)
    } else {
        Vec::new()
    };
    for path in paths {
        let input = read(&path);
        let Outcome::Answered(answer) = targets.call(&input, BOUND).await else {
            panic!("{}: no answer", path.display());
        };
        match oracle::check(&input, &answer) {
            Ok(()) => println!(
                "{}: fixed; move it up to corpus/ and drop its rule in known.rs",
                path.display()
            ),
            Err(violation) => assert!(
                known::known_issue(&input, &answer, &violation).is_some(),
                "{}: {violation}",
                path.display()
            ),
        }
    }
}

#[test]
fn corpus_files_read_back_as_they_were_written() {
    for path in files(&corpus()) {
        let input = read(&path);
        assert_eq!(Input::from_bytes(&input.to_bytes()), Ok(input));
    }
}
