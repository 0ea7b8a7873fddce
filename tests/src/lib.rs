//! Helpers for the workspace-level tests that run the real binaries.
//!
//! [`binary`] builds a workspace binary once per test process (with the same profile as
//! the tests) and returns its path, so `cargo test --workspace` never runs a stale build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The target directory the tests were built into (`…/target/debug`).
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    // …/target/debug/deps/<test-binary>
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Builds `bin` from package `package` (once per process) and returns its path.
///
/// # Panics
/// When the build fails: the test cannot run without the binary.
pub fn binary(package: &str, bin: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(Vec::new()));
    let mut built = built
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = profile_dir().join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    if !built.iter().any(|name| name == bin) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let status = Command::new(cargo)
            .args(["build", "--quiet", "-p", package, "--bin", bin])
            .status();
        assert!(
            status.is_ok_and(|status| status.success()),
            "building {bin} failed"
        );
        built.push(bin.to_owned());
    }
    assert!(path.exists(), "{} was not built", path.display());
    path
}
