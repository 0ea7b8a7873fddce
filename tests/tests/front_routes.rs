//! The real binary's `--runtime-arn` and `--help`: an invalid ARN stops it with a clear
//! message, and the help gives every flag its AgentCore meaning. (The front's routes,
//! in-process: `emulator/tests/front_routes.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::front::{self};

#[test]
fn an_invalid_runtime_arn_stops_the_binary_with_a_clear_message() {
    for arn in [
        "not-an-arn",
        "arn:aws:bedrock:us-east-1:123456789012:runtime/test_agent-AbCdEf1234",
    ] {
        let exit = front::run_to_exit(&["--runtime-arn", arn]);
        assert!(!exit.status.success(), "{arn}: {exit:?}");
        assert!(
            exit.stderr.contains("--runtime-arn")
                && exit.stderr.contains(arn)
                && exit.stderr.contains("not an AgentCore runtime ARN"),
            "{arn}: {exit:?}"
        );
        assert!(!exit.stdout.contains("listening on"), "{exit:?}");
    }
}

#[test]
fn help_documents_every_flag_with_its_agentcore_meaning() {
    let output = a2a_test_support::harness::emulator_command()
        .arg("--help")
        .output()
        .expect("--help runs");
    assert!(output.status.success(), "{output:?}");
    let help = String::from_utf8_lossy(&output.stdout);
    // Flag, then words that must appear in its paragraph.
    let flags: [(&str, &[&str]); 17] = [
        ("--host", &["0.0.0.0"]),
        ("--port", &["9000"]),
        ("--agent", &["echo", "conformance"]),
        ("--public-url", &["AGENTCORE_RUNTIME_URL"]),
        ("--error-profile", &["spec", "agentcore"]),
        ("--container-only", &["microVM"]),
        ("--upstream", &["424/-32055"]),
        (
            "--runtime-arn",
            &["404/-32051", "ResourceNotFoundException"],
        ),
        (
            "--max-body-bytes",
            &["100 MB", "400/-32052", "ValidationException"],
        ),
        ("--rate-limit", &["429/-32053", "ThrottlingException", "25"]),
        (
            "--session-startup-ms",
            &["409/-32054", "Session operation in progress, please retry"],
        ),
        ("--exclusive-sessions", &["409/-32054"]),
        ("--idle-timeout", &["idleRuntimeSessionTimeout", "900"]),
        ("--max-lifetime", &["maxLifetime", "28800"]),
        ("--request-timeout", &["424/-32055", "RuntimeClientError"]),
        (
            "--fault",
            &[
                "throttle=",
                "conflict=",
                "runtime-error=",
                "internal=",
                "latency=",
            ],
        ),
        ("--seed", &["reproducible"]),
    ];
    for (flag, words) in flags {
        let start = [" ", "\n"]
            .iter()
            .find_map(|after| help.find(&format!("\n      {flag}{after}")))
            .unwrap_or_else(|| panic!("{flag} is not in --help:\n{help}"))
            + 1;
        let paragraph = &help[start..];
        let end = paragraph[flag.len() + 6..]
            .find("\n      --")
            .map_or(paragraph.len(), |at| at + flag.len() + 6);
        let paragraph = &paragraph[..end];
        for word in words {
            assert!(
                paragraph.contains(word),
                "{flag}'s help does not mention {word:?}:\n{paragraph}"
            );
        }
    }
}
