#![cfg(unix)]
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The Lambda function under a real `cargo lambda watch`, called by the real `a2a` CLI.
//!
//! `cargo lambda watch` serves the function at `http://{address}:{port}/lambda-url/a2a-agent/`
//! and hands it HTTP API v2 events without that prefix in the path; the card must still
//! advertise the prefixed plain-HTTP URL, and JSON-RPC must be answered there. cargo-lambda
//! comes from `make cargo-lambda` (PyPI, into `.venv-tools`); without it the test fails and
//! says so. The watch process (cargo-lambda, its `cargo run` and the function) runs in its
//! own process group, killed when the test ends however it ends.

use std::fs::File;
use std::net::TcpListener;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use a2a_test_support::harness::{Value, binary};

/// How long the first card may take: `cargo lambda watch` compiles the function on the
/// first invocation, behind whatever else holds the target directory's lock.
const FIRST_CARD_TIMEOUT: Duration = Duration::from_secs(300);
/// How long one card request may wait before it is sent again.
const CARD_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(30);

/// Environment variables of the function (and the CLI) that would change what is tested.
const CLEARED_ENV: [&str; 10] = [
    "A2A_PUBLIC_URL",
    "A2A_AGENT",
    "A2A_AUTH",
    "A2A_API_KEY",
    "A2A_STREAMING",
    "A2A_TASK_STORE",
    "A2A_SESSION_ID",
    "A2A_BEARER_TOKEN",
    "RUST_LOG",
    "AWS_LAMBDA_HTTP_IGNORE_STAGE_IN_PATH",
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("an ephemeral port")
        .port()
}

/// A running `cargo lambda watch`, killed (with its whole process group) on drop.
struct Watch {
    child: Child,
    log: PathBuf,
    url: String,
}

impl Watch {
    fn start() -> Self {
        let root = workspace_root();
        let tools = root.join(".venv-tools").join("bin");
        let cargo_lambda = tools.join("cargo-lambda");
        assert!(
            cargo_lambda.is_file(),
            "cargo-lambda is not installed (.venv-tools/bin/cargo-lambda is missing): \
             run `make cargo-lambda` first"
        );
        let port = free_port();
        let log = std::env::temp_dir().join(format!("a2a-lambda-watch-{port}.log"));
        let output = File::create(&log).expect("the watch log file");
        let path = std::env::var_os("PATH").unwrap_or_default();
        let path = std::env::join_paths(
            std::iter::once(tools.clone()).chain(std::env::split_paths(&path)),
        )
        .expect("a PATH");
        let mut command = Command::new(&cargo_lambda);
        command
            .args([
                "lambda",
                "watch",
                "--ignore-changes",
                "-A",
                "127.0.0.1",
                "-P",
            ])
            .arg(port.to_string())
            // With its telemetry, as the tests build it (the Makefile's TEST_FEATURES):
            // the watch writes the same target/debug/a2a-agent that the local Lambda's
            // tests run, perhaps while they run.
            .args(["-p", "a2a-agent", "--features", "otel"])
            .current_dir(&root)
            .env("PATH", path)
            .stdin(Stdio::null())
            .stdout(output.try_clone().expect("the watch log file"))
            .stderr(output)
            .process_group(0);
        for name in CLEARED_ENV {
            command.env_remove(name);
        }
        let child = command.spawn().expect("cargo lambda watch starts");
        Self {
            child,
            log,
            url: format!("http://127.0.0.1:{port}/lambda-url/a2a-agent/"),
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The card, once the function answers (bounded by [`FIRST_CARD_TIMEOUT`]).
    async fn first_card(&mut self) -> Value {
        let card_url = format!("{}.well-known/agent-card.json", self.url);
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("an HTTP client");
        let deadline = Instant::now() + FIRST_CARD_TIMEOUT;
        let mut last = String::from("no answer yet");
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("cargo lambda watch exited ({status}):\n{}", self.log());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "no card at {card_url} after {FIRST_CARD_TIMEOUT:?} (last: {last}):\n{}",
                self.log()
            );
            match http
                .get(&card_url)
                .timeout(left.min(CARD_ATTEMPT_TIMEOUT))
                .send()
                .await
            {
                Ok(response) if response.status().is_success() => {
                    return response.json().await.expect("the card is JSON");
                }
                Ok(response) => last = format!("HTTP {}", response.status()),
                Err(error) => last = error.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // The group's id is the leader's pid (`process_group(0)`): this reaches `cargo
        // run` and the function too. `kill` the command, so the tests need no libc.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

/// Runs `a2a` with `args`, its environment variables cleared; asserts it exits 0.
fn a2a(args: &[&str]) -> String {
    let mut command = Command::new(binary("a2a-lambda-cli", "a2a"));
    for name in CLEARED_ENV {
        command.env_remove(name);
    }
    let Output {
        status,
        stdout,
        stderr,
    } = command.args(args).output().expect("a2a runs");
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr);
    assert!(
        status.success(),
        "a2a {args:?}: {status}\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2a_cli_reads_the_card_and_sends_through_cargo_lambda_watch() {
    // Built before the watch compiles the function, so the two builds do not interleave.
    binary("a2a-lambda-cli", "a2a");
    let mut watch = Watch::start();
    let card = watch.first_card().await;
    let url = watch.url.clone();
    assert_eq!(card["url"], url.as_str(), "{card}");
    // JSON-RPC at the URL, HTTP+JSON at the same base without its trailing slash (its
    // routes are appended: `{url}/message:send`).
    for interface in card["supportedInterfaces"].as_array().expect("interfaces") {
        let expected = if interface["protocolBinding"] == "HTTP+JSON" {
            url.trim_end_matches('/')
        } else {
            url.as_str()
        };
        assert_eq!(interface["url"], expected, "{card}");
    }

    let printed = a2a(&["card", &url]);
    assert!(
        printed.contains(&format!("using:     JSON-RPC 1.0 at {url}\n")),
        "{printed}"
    );
    let card_json: Value = serde_json::from_str(a2a(&["--json", "card", &url]).trim())
        .expect("`a2a --json card` prints JSON");
    assert_eq!(card_json["url"], url.as_str(), "{card_json}");

    let text = "hello through cargo lambda watch";
    assert_eq!(a2a(&["send", &url, text]), format!("{text}\n"));
    assert_eq!(
        a2a(&["--protocol", "0.3", "send", &url, text]),
        format!("{text}\n")
    );
    // The base URL as a user may type it, without the trailing slash.
    assert_eq!(
        a2a(&["send", url.trim_end_matches('/'), text]),
        format!("{text}\n")
    );

    // The HTTP+JSON binding through the same function.
    let rest = reqwest::Client::new()
        .post(format!("{}/message:send", url.trim_end_matches('/')))
        .header("A2A-Version", "1.0")
        .json(&serde_json::json!({"message": {"messageId": "watch-rest-1",
            "role": "ROLE_USER", "parts": [{"text": text}]}}))
        .send()
        .await
        .expect("the REST send is answered");
    assert_eq!(rest.status(), 200);
    let body: Value = rest.json().await.expect("a JSON task");
    assert_eq!(
        body["task"]["artifacts"][0]["parts"][0]["text"], text,
        "{body}"
    );
}
