//! `infra/`: the AgentCore image's entry point run for real, and the offline checks of the
//! templates (`infra/check.py`: cfn-lint, the template's settings, the env variables
//! against the binary's, the Dockerfile, `cargo lambda deploy --dry`).

use std::path::{Path, PathBuf};

use a2a_test_support::harness::{Emulator, Value, Version};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The `ENTRYPOINT` of the image's final stage, as its exec-form JSON array.
fn dockerfile_entrypoint() -> Vec<String> {
    let path = root().join("infra/agentcore/Dockerfile");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let line = text
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("ENTRYPOINT "))
        .unwrap_or_else(|| panic!("no ENTRYPOINT in {}", path.display()));
    serde_json::from_str(line).unwrap_or_else(|error| panic!("ENTRYPOINT {line}: {error}"))
}

/// The image's command, on loopback and a free port instead of 0.0.0.0:9000, serves the
/// AgentCore container: the card at the runtime's URL, `/ping`, JSON-RPC on `/`, and
/// JSON logs for CloudWatch.
#[tokio::test]
async fn the_agentcore_image_command_serves_the_container() {
    let entrypoint = dockerfile_entrypoint();
    assert_eq!(entrypoint, ["/usr/local/bin/a2a-container"]);

    let runtime_url = "https://bedrock-agentcore.us-east-1.amazonaws.com/runtimes/\
                       arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fa2a_agent-abcdefghij/invocations";
    // The image sets A2A_LOG_FORMAT=json; the test binds loopback and a free port.
    let mut emulator = Emulator::container()
        .env("AGENTCORE_RUNTIME_URL", runtime_url)
        .env("A2A_LOG_FORMAT", "json")
        .start();
    assert!(
        emulator.listening_line().contains("agent: echo"),
        "{}",
        emulator.listening_line()
    );

    let card = emulator.card().await;
    let expected_url = format!("{runtime_url}/");
    assert_eq!(card["supportedInterfaces"][0]["url"], expected_url.as_str());
    assert_eq!(emulator.ping().await["status"], "Healthy");
    let response = emulator
        .call(
            Version::V0_3,
            "message/send",
            Version::V0_3.send_params("infra-image", "hi"),
        )
        .await;
    assert_eq!(
        response["result"]["status"]["state"], "completed",
        "{response}"
    );

    emulator.terminate();
    let status = emulator
        .exited_within(std::time::Duration::from_secs(15))
        .await;
    assert!(status.is_some(), "the container did not stop on SIGTERM");
    let logs = emulator.stderr();
    assert!(!logs.trim().is_empty(), "no logs");
    for line in logs.lines().filter(|line| !line.trim().is_empty()) {
        let parsed: Result<Value, _> = serde_json::from_str(line);
        assert!(
            parsed.is_ok_and(|value| value.is_object()),
            "not a JSON log line: {line}"
        );
    }
}

/// The request header allowlist our AgentCore deployment configures
/// (`infra/agentcore/request-headers.json`, CreateAgentRuntime's
/// `requestHeaderConfiguration`) is the emulator's default, and valid by AgentCore's rules:
/// a client tested against the emulator gets the same headers to its container.
#[test]
fn the_deployed_allowlist_is_the_emulators_default() {
    let path = root().join("infra/agentcore/request-headers.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    let configuration: Value = serde_json::from_str(&text).unwrap();
    let object = configuration.as_object().unwrap();
    // RequestHeaderConfiguration is a union: the allowlist is its only member.
    assert_eq!(
        object.keys().collect::<Vec<_>>(),
        ["requestHeaderAllowlist"],
        "{text}"
    );
    let deployed: Vec<&str> = object["requestHeaderAllowlist"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert_eq!(
        deployed,
        a2a_lambda_emulator::DEFAULT_REQUEST_HEADER_ALLOWLIST
    );
    let checked = a2a_lambda_emulator::RequestHeaderAllowlist::new(&deployed, false);
    assert!(checked.is_ok(), "{checked:?}");
    let readme = std::fs::read_to_string(root().join("infra/agentcore/README.md")).unwrap();
    assert!(
        readme
            .contains("--request-header-configuration file://infra/agentcore/request-headers.json"),
        "the create-agent-runtime step does not pass request-headers.json"
    );
}
