//! `scripts/preflight.sh`, `make test`'s first step: a machine that lacks what the steps
//! need is told at once what to install, and the script fails, so nothing is built first.

use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(|root| root.join("scripts/preflight.sh"))
        .unwrap_or_default()
}

#[test]
fn a_missing_chromium_is_named_with_the_package_that_installs_it_and_the_run_stops() {
    let missing = std::env::temp_dir().join(format!("no-chromium-{}", std::process::id()));
    let output = Command::new("bash")
        .arg(script())
        .env("CHROMIUM", &missing)
        .env("A2A_PREFLIGHT_INSTALL", "no")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("preflight: make test needs what this machine lacks:"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "  - Chromium at {} (CHROMIUM=path",
            missing.display()
        )),
        "{stderr}"
    );
    let install = stderr
        .lines()
        .find(|line| line.starts_with("  sudo apt-get install -y --no-install-recommends"))
        .unwrap_or_default();
    assert!(
        install.split_whitespace().any(|word| word == "chromium"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing is reported as ready");
}
