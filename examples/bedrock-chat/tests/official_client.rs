//! End to end without AWS: the official A2A Python client (a2a-sdk) streams two turns of
//! one conversation from this crate's binary (and reads each task back: its metadata holds
//! the token usage), which the AgentCore emulator runs as a
//! session's container (`Emulator::command`), and which talks to a local stand-in for
//! Bedrock Runtime through the real SDK client.
//!
//! Python is the interop suite's venv (`tests/interop/.venv`, `A2A_INTEROP_PYTHON` to use
//! another); when it is missing it is made here as `tests/interop/run.sh` makes it, so
//! this test does not depend on the order of `make` targets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use a2a_lambda_emulator::Emulator;
use serde_json::{Value, json};
use wiremock::MockServer;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The interop venv's Python, made (with the pinned requirements) when missing.
fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("A2A_INTEROP_PYTHON") {
        return python.into();
    }
    let interop = repository().join("tests/interop");
    let venv = interop.join(".venv");
    let requirements = interop.join("python/requirements.txt");
    let stamp = venv.join(".installed-requirements.txt");
    let wanted = std::fs::read(&requirements).unwrap();
    if std::fs::read(&stamp).ok().as_ref() != Some(&wanted) {
        let made = Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .status();
        assert!(
            made.is_ok_and(|status| status.success()),
            "python3 -m venv failed"
        );
        let installed = Command::new(venv.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(&requirements)
            .status();
        assert!(
            installed.is_ok_and(|status| status.success()),
            "pip install failed"
        );
        std::fs::write(&stamp, wanted).unwrap();
    }
    venv.join("bin/python")
}

#[tokio::test]
async fn the_official_python_client_streams_a_two_turn_conversation() {
    let bedrock = MockServer::start().await;
    support::mount(
        &bedrock,
        support::streaming(support::answer(&["Nice to meet you", ", Ada."], 9, 6)),
        Some(1),
    )
    .await;
    support::mount(
        &bedrock,
        support::streaming(support::answer(&["Your name", " is Ada."], 30, 5)),
        Some(1),
    )
    .await;

    // The binary as AgentCore would run it, configured by the environment; credentials
    // are test values the stand-in does not check.
    let command = format!(
        "BEDROCK_MODEL_ID=amazon.nova-micro-v1:0 BEDROCK_REGION=us-east-1 \
         BEDROCK_ENDPOINT_URL={} AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=test-secret \
         AWS_EC2_METADATA_DISABLED=true CHAT_NAME='Ada chat' RUST_LOG=warn exec '{}'",
        bedrock.uri(),
        env!("CARGO_BIN_EXE_bedrock-chat"),
    );
    let emulator = Emulator::command(command).start().await.unwrap();

    let python = python();
    let url = emulator.url().to_owned();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/official_client.py");
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python).arg(script).arg(url).output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_str(&stdout).unwrap();
    // Metadata is a protobuf Struct to the Python SDK, whose numbers are doubles. The usage
    // is the task's: the final status update carries it as its metadata, and GetTask shows
    // it in the task's.
    let usage = |input: f64, output: f64| json!({"usage": {"inputTokens": input, "outputTokens": output, "totalTokens": input + output}});
    assert_eq!(
        seen,
        json!({
            "card": {"name": "Ada chat", "streaming": true},
            "sameContext": true,
            "turns": [
                [
                    {"task": "TASK_STATE_SUBMITTED"},
                    {"status": "TASK_STATE_WORKING"},
                    {"chunk": "Nice to meet you", "append": false, "lastChunk": false},
                    {"chunk": ", Ada.", "append": true, "lastChunk": true},
                    {"status": "TASK_STATE_COMPLETED", "message": "Nice to meet you, Ada.",
                     "metadata": usage(9.0, 6.0)},
                    {"get": "TASK_STATE_COMPLETED", "metadata": usage(9.0, 6.0)},
                ],
                [
                    {"task": "TASK_STATE_SUBMITTED"},
                    {"status": "TASK_STATE_WORKING"},
                    {"chunk": "Your name", "append": false, "lastChunk": false},
                    {"chunk": " is Ada.", "append": true, "lastChunk": true},
                    {"status": "TASK_STATE_COMPLETED", "message": "Your name is Ada.",
                     "metadata": usage(30.0, 5.0)},
                    {"get": "TASK_STATE_COMPLETED", "metadata": usage(30.0, 5.0)},
                ],
            ],
        })
    );

    // The second turn replayed the first to the model.
    let requests = bedrock.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(
        second["messages"],
        json!([
            {"role": "user", "content": [{"text": "Hi, I am Ada."}]},
            {"role": "assistant", "content": [{"text": "Nice to meet you, Ada."}]},
            {"role": "user", "content": [{"text": "What is my name?"}]},
        ])
    );
    emulator.shutdown().await.unwrap();
}
