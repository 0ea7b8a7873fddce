#![allow(clippy::expect_used, clippy::unwrap_used)]
//! `a2a new NAME`, the real binary: the crate it writes (published versions by default, a
//! checkout's crates with `--crates-path`), what it refuses and what it leaves alone, and
//! the deploy files it writes kept equal to the project's own (`infra/deploy-lambda.sh`,
//! the AgentCore request header allowlist). `make scaffold-check` builds and tests such a
//! crate.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use a2a_test_support::harness::binary;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// A fresh, empty folder under the system's temporary folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "a2a-scaffold-{test}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// `a2a ARGS` run in this folder.
    fn a2a(&self, args: &[&str]) -> Output {
        Command::new(binary("a2a-lambda-cli", "a2a"))
            .args(args)
            .current_dir(&self.0)
            .output()
            .unwrap()
    }

    fn read(&self, path: &str) -> String {
        let path = self.0.join(path);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
    }

    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn writes_a_crate_on_the_published_crates_of_its_own_version() {
    let scratch = Scratch::new("published");
    let output = scratch.a2a(&["new", "weather-bot"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("cd weather-bot\n"), "{stdout}");
    assert!(stdout.contains("cargo test"), "{stdout}");

    let version = env!("CARGO_PKG_VERSION");
    let manifest = scratch.read("weather-bot/Cargo.toml");
    for line in [
        "name = \"weather-bot\"".to_owned(),
        format!("a2a-lambda = \"{version}\""),
        format!("a2a-lambda-server = \"{version}\""),
        format!("a2a-lambda-emulator = \"{version}\""),
        "panic = \"unwind\"".to_owned(),
        "[profile.lambda-release]".to_owned(),
        "env = { A2A_STREAMING = \"true\", RUST_LOG = \"info\" }".to_owned(),
    ] {
        assert!(
            manifest.lines().any(|l| l == line),
            "no {line} in\n{manifest}"
        );
    }
    assert!(
        scratch
            .read("weather-bot/src/main.rs")
            .contains("use weather_bot::Agent;")
    );
    for file in [
        ".gitignore",
        ".dockerignore",
        "README.md",
        "src/lib.rs",
        "tests/agent.rs",
        "tests/emulator.rs",
        "tests/lambda.rs",
        "template.yaml",
        "Dockerfile",
    ] {
        let content = scratch.read(&format!("weather-bot/{file}"));
        assert!(!content.contains("{{"), "{file}: a placeholder is left");
    }
}

#[test]
fn with_crates_path_it_depends_on_the_checkout() {
    let scratch = Scratch::new("checkout");
    let root = root().canonicalize().unwrap();
    let output = scratch.a2a(&["new", "local", "--crates-path", root.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let manifest = scratch.read("local/Cargo.toml");
    for (crate_name, folder) in [
        ("a2a-lambda", "functions/lambda"),
        ("a2a-lambda-server", "server"),
        ("a2a-lambda-emulator", "emulator"),
    ] {
        let path = root.join(folder);
        let line = format!("{crate_name} = {{ path = {:?} }}", path.to_str().unwrap());
        assert!(
            manifest.lines().any(|l| l == line),
            "no {line} in\n{manifest}"
        );
    }

    // A folder that is not a checkout is refused, and nothing is written.
    let elsewhere = Scratch::new("elsewhere");
    let output = scratch.a2a(&[
        "new",
        "other",
        "--crates-path",
        elsewhere.0.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("is not a checkout of the a2a-lambda repository"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(scratch.entries(), ["local"]);
}

#[test]
fn refuses_an_existing_folder_and_invalid_names_and_writes_nothing() {
    let scratch = Scratch::new("refusals");
    std::fs::create_dir(scratch.0.join("taken")).unwrap();
    std::fs::write(scratch.0.join("taken/keep.txt"), "mine").unwrap();
    let output = scratch.a2a(&["new", "taken"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("already exists"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(scratch.read("taken/keep.txt"), "mine");
    assert_eq!(
        std::fs::read_dir(scratch.0.join("taken")).unwrap().count(),
        1
    );

    for (name, rule) in [
        ("2fast", "starts with a letter"),
        ("My-Agent", "use lowercase"),
        ("my.agent", "only ASCII letters, digits, `-` and `_`"),
        ("async", "`async` is a Rust keyword"),
        ("a2a-lambda-server", "which the new crate depends on"),
        ("test", "Rust's standard library"),
    ] {
        let output = scratch.a2a(&["new", name]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        let stderr = text(&output.stderr);
        assert!(
            stderr.starts_with(&format!("error: invalid crate name {name:?}: "))
                && stderr.contains(rule),
            "{name}: {stderr}"
        );
    }
    assert_eq!(scratch.entries(), ["taken"]);
}

/// The crate's deploy script is the project's, for its function; its header allowlist is
/// the one the emulator applies and infra/agentcore deploys.
#[test]
fn the_deploy_files_are_the_projects_own() {
    let scratch = Scratch::new("deploy");
    let output = scratch.a2a(&["new", "shipit"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));

    let general = std::fs::read_to_string(root().join("infra/deploy-lambda.sh")).unwrap();
    assert!(general.contains("\nFUNCTION=a2a-agent\n"));
    assert_eq!(
        scratch.read("shipit/deploy-lambda.sh"),
        general.replacen("\nFUNCTION=a2a-agent\n", "\nFUNCTION=shipit\n", 1)
    );

    let headers: serde_json::Value =
        serde_json::from_str(&scratch.read("shipit/request-headers.json")).unwrap();
    let infra: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("infra/agentcore/request-headers.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(headers, infra);
    let listed: Vec<&str> = headers["requestHeaderAllowlist"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        a2a_lambda_emulator::DEFAULT_REQUEST_HEADER_ALLOWLIST
    );

    let readme = scratch.read("shipit/README.md");
    assert!(readme.contains("--request-header-configuration file://request-headers.json"));
    assert!(readme.contains("--agent-runtime-name shipit"));
}
