#![cfg(target_os = "linux")]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! `a2a-emulator lambda`, the real binary: its help, a refusal, and the real `a2a-agent`
//! served over a socket until SIGTERM shuts both down.

mod local_lambda_support;

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use a2a_lambda_emulator::lambda::LISTENING_PREFIX;
use a2a_test_support::harness::emulator_command;
use a2a_test_support::lambda::{echo_send_v0_3, redact};
use local_lambda_support::*;
use serde_json::json;

#[test]
fn the_help_names_every_setting_of_the_local_lambda() {
    let output = emulator_command()
        .args(["lambda", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    assert!(
        help.starts_with("Run a Lambda function's binary as AWS Lambda runs it"),
        "{help}"
    );
    for expected in [
        "Usage: a2a-emulator lambda [OPTIONS] --cmd <PATH [ARG]...>...",
        "--env <NAME=VALUE>",
        "--extension <PATH>",
        "--port <PORT>",
        "[default: 9000]",
        "function-url: a Function URL's event (payload format 2.0)",
        "apigw-v2:     an API Gateway HTTP API's event (payload format 2.0)",
        "apigw-v1:     an API Gateway REST API's proxy event (payload format 1.0)",
        "response-stream: RESPONSE_STREAM: the response's bytes as the function writes them",
        "--timeout <SECONDS>",
        "The function timeout in seconds (1 to 900; Lambda's default is 3)",
        "--max-concurrency <N>",
        "AWS_LAMBDA_MAX_CONCURRENCY=N",
        "--stage <STAGE>",
        "Example: a2a-emulator lambda --invoke-mode response-stream",
    ] {
        assert!(help.contains(expected), "{expected:?} in:\n{help}");
    }
}

#[test]
fn a_missing_binary_is_refused_by_name() {
    let output = emulator_command()
        .args(["lambda", "--port", "0", "--cmd", "/nonexistent/bootstrap"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(
            "a2a-emulator lambda: the function's binary /nonexistent/bootstrap is not there \
             (build it first: `cargo lambda build` or `cargo build`)"
        ),
        "{stderr}"
    );
    let output = emulator_command()
        .args(["lambda", "--timeout", "0", "--cmd", "/bin/sh"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("--timeout 0 is not a number of seconds"),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_binary_serves_the_real_function_and_shuts_it_down_on_sigterm() {
    let agent = agent_binary();
    let mut child = emulator_command()
        .args(["lambda", "--port", "0", "--env", "A2A_AGENT=echo", "--cmd"])
        .arg(&agent)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line
        .strip_prefix(LISTENING_PREFIX)
        .unwrap_or_else(|| panic!("the listening line: {line:?}"))
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    assert!(
        line.trim_end().ends_with(&format!(
            "(a function-url front, BUFFERED mode; inspector: {url}/_emulator/)"
        )),
        "{line}"
    );
    let send = rpc(
        1,
        "message/send",
        json!({"message": message("cli-1", "over a socket")}),
    );
    let (status, _, answer) = post(&format!("{url}/"), &send).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        redact(&answer),
        echo_send_v0_3(json!(1), &answer, "cli-1", "over a socket")
    );
    // The environment shows in the inspector's API, frozen.
    let sessions: serde_json::Value = eventually("the environment frozen", || {
        let sessions: serde_json::Value =
            probe::get_json(&format!("{url}/_emulator/api/sessions"))?;
        (sessions["sessions"][0]["state"] == "frozen").then_some(sessions)
    })
    .await;
    assert_eq!(sessions["sessions"][0]["id"], "lambda:a2a-agent:1");
    // SIGTERM: the emulator shuts the function down as Lambda does, then exits.
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + STEP;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(status.success(), "{status}");
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains("local Lambda stopped sigterm=true exited_in_grace=true"),
        "{stderr}"
    );
}

/// A tiny blocking GET for a polling probe: the JSON, or `None` on any failure.
mod probe {
    pub fn get_json(url: &str) -> Option<serde_json::Value> {
        let url = url.strip_prefix("http://")?;
        let (host, path) = url.split_once('/')?;
        let mut stream = std::net::TcpStream::connect(host).ok()?;
        std::io::Write::write_all(
            &mut stream,
            format!("GET /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .ok()?;
        let mut answer = String::new();
        std::io::Read::read_to_string(&mut stream, &mut answer).ok()?;
        let (_, body) = answer.split_once("\r\n\r\n")?;
        serde_json::from_str(body).ok()
    }
}
