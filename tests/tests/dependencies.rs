//! The crates' roles, as their dependency trees show them: the protocol crate has no async
//! runtime or web framework, and a client compiles no web server.

use std::process::Command;

/// The normal (non-dev, non-build) dependency tree of `package`, one crate name a line.
fn tree(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|error| panic!("cargo tree -p {package}: {error}"));
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_protocol_crate_has_no_runtime_or_web_framework() {
    let crates = tree("a2a-lambda-core");
    assert!(crates.iter().any(|name| name == "serde_json"), "{crates:?}");
    for banned in [
        "tokio",
        "hyper",
        "axum",
        "tower",
        "tower-http",
        "async-trait",
        "futures-util",
    ] {
        assert!(
            !crates.iter().any(|name| name == banned),
            "a2a-lambda-core depends on {banned}: {crates:?}"
        );
    }
}

#[test]
fn the_client_compiles_no_server() {
    let crates = tree("a2a-lambda-client");
    assert!(
        crates.iter().any(|name| name == "a2a-lambda-core"),
        "{crates:?}"
    );
    // reqwest 0.13 itself brings tower-http 0.6 (its redirect layer); the server's
    // framework and crates never come along.
    for banned in ["axum", "a2a-lambda-server", "lambda_http", "a2a-emulator"] {
        assert!(
            !crates.iter().any(|name| name == banned),
            "a2a-lambda-client depends on {banned}: {crates:?}"
        );
    }
}
