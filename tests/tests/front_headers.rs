//! The request header allowlist of the real binary: it refuses an allowlist against
//! AgentCore's rules, and logs each dropped header by name, never its value. (What reaches
//! the container, in-process: `emulator/tests/front_headers.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::front::{SESSION_HEADER, session_id};
use a2a_test_support::harness::{emulator_command, json};

const USER_ID_HEADER: &str = "X-Amzn-Bedrock-AgentCore-Runtime-User-Id";

const TOKEN_PREFIX: &str = "a2a-emulator-workload-token-";

#[tokio::test]
async fn the_binary_refuses_an_allowlist_against_the_rules() {
    for (list, message) in [
        (
            "A2A-Version,X-Amz-Date",
            "`X-Amz-Date`: headers starting with x-amz- are reserved for SigV4 signing",
        ),
        (
            "Authorization",
            "`Authorization`: Authorization can be allowlisted only on a runtime with a \
             customJWTAuthorizer",
        ),
        (
            "Content-Type",
            "`Content-Type`: a restricted header, which AgentCore never passes to the container",
        ),
    ] {
        let output = emulator_command()
            .args(["--port", "0", "--request-header-allowlist", list])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{list}: {stderr}");
        assert!(
            stderr.contains(&format!("request header allowlist: {message}")),
            "{list}: {stderr}"
        );
    }
}

/// The binary's log: one debug line per dropped header with its name and never its value,
/// one info line per session for a protocol header the allowlist lacks, and no token.
#[tokio::test]
async fn drops_are_logged_by_name_once_per_session_and_no_value_is() {
    let mut emulator = a2a_test_support::harness::Emulator::builder()
        .args(["--request-header-allowlist", ""])
        .env("RUST_LOG", "debug")
        .process()
        .start();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "x"}});
    let sessions = [session_id("log-a"), session_id("log-b")];
    for session in [&sessions[0], &sessions[0], &sessions[1]] {
        let response = emulator
            .send(
                emulator
                    .http()
                    .post(emulator.url("/"))
                    .header("content-type", "application/json")
                    .header(SESSION_HEADER, session.as_str())
                    .header("A2A-Version", "0.3")
                    .header("X-Api-Key", "secret-api-key-value")
                    .header(USER_ID_HEADER, "alice")
                    .body(body.to_string()),
            )
            .await;
        assert_eq!(response.status().as_u16(), 200);
    }
    let logs = a2a_test_support::harness::eventually(
        "the drop lines",
        std::time::Duration::from_secs(10),
        || {
            let logs = emulator.stderr();
            let ready = logs.matches("x-api-key dropped").count() == 2;
            async move { ready.then_some(logs) }
        },
    )
    .await;
    for session in &sessions {
        let told = logs
            .lines()
            .filter(|line| {
                line.contains(session.as_str())
                    && line.contains(
                        "a2a-version dropped: add it to the allowlist (--request-header-allowlist)",
                    )
            })
            .count();
        assert_eq!(told, 1, "{session}: {logs}");
    }
    let debug_lines = logs
        .lines()
        .filter(|line| {
            line.contains("header dropped before the container")
                && line.contains("header=\"x-api-key\"")
        })
        .count();
    assert_eq!(debug_lines, 3, "a debug line per request: {logs}");
    assert!(!logs.contains("secret-api-key-value"), "{logs}");
    assert!(!logs.contains(TOKEN_PREFIX), "{logs}");
}
