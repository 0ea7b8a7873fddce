#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The local Lambda's shutdown as Lambda's "Shutdown phase" describes it
//! (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-shutdown>):
//! with an extension registered the runtime gets `SIGTERM`, and `SIGKILL` once 500 ms are
//! over if it is still there; with none, `SIGKILL` at once and no `SIGTERM`. The
//! functions are tiny Python custom runtimes (the real `a2a-agent` exits on `SIGTERM`,
//! see `local_lambda.rs`): Python runs a signal handler while its main thread waits on a
//! socket, which a shell runtime blocked in `curl` does not.

mod local_lambda_support;

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use a2a_lambda_emulator::lambda::{LocalLambda, SHUTDOWN_GRACE};
use local_lambda_support::*;

/// A Python custom runtime in `dir` that answers every invocation `ok`, notes each
/// `SIGTERM` (with the time, in ms since the epoch) in `notes` and carries on, so that
/// only `SIGKILL` ends it. With `extension`, it registers an internal extension (for
/// `INVOKE` events, asked for by a thread of its own) before its first `/next`.
fn stubborn_runtime(dir: &Path, notes: &Path, extension: bool) -> PathBuf {
    let script = format!(
        r#"#!/usr/bin/env python3
import os, signal, threading, time, urllib.request

api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"]
notes = {notes:?}

def note(line):
    with open(notes, "a") as file:
        file.write(line + "\n")

signal.signal(signal.SIGTERM, lambda *_: note("SIGTERM %d" % (time.time() * 1000)))

if {extension}:
    register = urllib.request.Request(
        api + "/2020-01-01/extension/register", data=b'{{"events":["INVOKE"]}}',
        headers={{"Lambda-Extension-Name": "stubborn"}}, method="POST")
    with urllib.request.urlopen(register) as answer:
        extension_id = answer.headers["Lambda-Extension-Identifier"]

    def events():
        while True:
            next_event = urllib.request.Request(
                api + "/2020-01-01/extension/event/next",
                headers={{"Lambda-Extension-Identifier": extension_id}})
            with urllib.request.urlopen(next_event) as answer:
                answer.read()

    threading.Thread(target=events, daemon=True).start()

while True:
    with urllib.request.urlopen(api + "/2018-06-01/runtime/invocation/next") as answer:
        request_id = answer.headers["Lambda-Runtime-Aws-Request-Id"]
        answer.read()
    response = urllib.request.Request(
        api + "/2018-06-01/runtime/invocation/" + request_id + "/response",
        data=b'{{"statusCode":200,"body":"ok"}}', method="POST")
    with urllib.request.urlopen(response) as answer:
        answer.read()
"#,
        notes = notes.display().to_string(),
        extension = if extension { "True" } else { "False" },
    );
    let path = dir.join("bootstrap");
    std::fs::write(&path, script).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
    path
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

/// The times (ms since the epoch) of the `SIGTERM`s the runtime noted.
fn sigterms(notes: &Path) -> Vec<u128> {
    std::fs::read_to_string(notes)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.strip_prefix("SIGTERM "))
        .map(|ms| ms.parse().unwrap())
        .collect()
}

/// Starts `runtime` and serves one invocation, so that its environment is up (and
/// frozen, as after any invocation on Lambda's default model).
async fn started_and_invoked(runtime: PathBuf) -> a2a_lambda_emulator::lambda::RunningLambda {
    let lambda = start(LocalLambda::new(runtime).port(0)).await;
    let answer = reqwest::Client::new()
        .get(lambda.base_url())
        .timeout(STEP)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "ok");
    frozen(&lambda).await;
    lambda
}

#[tokio::test]
async fn a_runtime_that_ignores_sigterm_is_killed_once_the_500_ms_are_over() {
    let scratch = Scratch::new("stubborn");
    let notes = scratch.path("notes");
    let lambda = started_and_invoked(stubborn_runtime(&scratch.0, &notes, true)).await;
    let pid = lambda.pid().unwrap();
    let asked = now_ms();
    let report = lambda.shutdown().await.unwrap();
    let over = now_ms();
    // SIGTERM first (an extension is registered), then, the runtime still there after
    // the grace, SIGKILL: its exit status is the signal's, not an exit of its own.
    assert!(report.environment && report.sigterm, "{report:?}");
    assert!(!report.exited_in_grace, "{report:?}");
    assert!(report.killed, "ended by SIGKILL: {report:?}");
    let terms = sigterms(&notes);
    assert_eq!(terms.len(), 1, "one SIGTERM: {terms:?}");
    assert!(
        terms[0] >= asked,
        "SIGTERM at {}, asked at {asked}",
        terms[0]
    );
    // The kill waited for the whole grace (a lower bound only: how late the shutdown
    // returns depends on the machine).
    let grace = SHUTDOWN_GRACE.as_millis();
    assert!(
        over >= asked + grace,
        "asked at {asked}, over at {over}: less than {grace} ms apart"
    );
    assert_eq!(process_state(pid), None, "the process is gone");
}

#[tokio::test]
async fn a_runtime_without_an_extension_gets_no_sigterm_and_is_killed_at_once() {
    let scratch = Scratch::new("no-extension");
    let notes = scratch.path("notes");
    let lambda = started_and_invoked(stubborn_runtime(&scratch.0, &notes, false)).await;
    let pid = lambda.pid().unwrap();
    let report = lambda.shutdown().await.unwrap();
    assert!(report.environment, "{report:?}");
    assert!(
        !report.sigterm,
        "no SIGTERM without an extension: {report:?}"
    );
    assert!(report.killed, "ended by SIGKILL: {report:?}");
    assert_eq!(sigterms(&notes), Vec::<u128>::new());
    assert_eq!(process_state(pid), None, "the process is gone");
}

#[tokio::test]
async fn a_runtime_that_exits_on_sigterm_is_not_killed() {
    // The contrast: a runtime that stops when told (the shell's default for SIGTERM)
    // ends by the signal it was sent, within the grace.
    let scratch = Scratch::new("obedient");
    let init = r#"ext="http://$AWS_LAMBDA_RUNTIME_API/2020-01-01/extension"
id=$(curl -sS -D - -o /dev/null -X POST "$ext/register" -H 'Lambda-Extension-Name: obedient' -d '{"events":[]}' | tr -d '\r' | grep -i '^lambda-extension-identifier:' | cut -d' ' -f2)
curl -sS -o /dev/null -H "Lambda-Extension-Identifier: $id" "$ext/event/next" &"#;
    let lambda = started_and_invoked(shell_function(&scratch.0, init, RESPOND_OK)).await;
    let report = lambda.shutdown().await.unwrap();
    assert!(report.sigterm && report.exited_in_grace, "{report:?}");
    assert!(!report.killed, "{report:?}");
}
