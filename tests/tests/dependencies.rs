//! The crates' roles, as their dependency trees show them: the protocol crate has no async
//! runtime or web framework, and a client compiles no web server.

use std::process::Command;

/// The normal (non-dev, non-build) dependency tree of `package`, one crate name a line.
fn tree(package: &str) -> Vec<String> {
    tree_with(package, &[])
}

/// [`tree`] with more `cargo tree` flags (features).
fn tree_with(package: &str, flags: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .args(flags)
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

/// What `make run` builds, and a user's tests by default: an emulator without TLS or crypto
/// (aws-lc's C code alone took a good part of a first build). `auth` and `tls` bring them.
#[test]
fn the_emulator_by_default_compiles_no_tls_or_crypto() {
    let tls_or_crypto = [
        "aws-lc-sys",
        "aws-lc-rs",
        "rustls",
        "jsonwebtoken",
        "aws-sigv4",
    ];
    let crates = tree("a2a-lambda-emulator");
    assert!(
        crates.iter().any(|name| name == "a2a-lambda-server"),
        "{crates:?}"
    );
    for banned in tls_or_crypto {
        assert!(
            !crates.iter().any(|name| name == banned),
            "a2a-lambda-emulator depends on {banned} by default: {crates:?}"
        );
    }
    let server = tree_with("a2a-lambda-server", &["--no-default-features"]);
    assert!(
        !server.iter().any(|name| name == "rustls"),
        "a2a-lambda-server without its default features depends on rustls: {server:?}"
    );
    let with_auth = tree_with("a2a-lambda-emulator", &["--features", "auth"]);
    for needed in ["jsonwebtoken", "aws-sigv4", "rustls"] {
        assert!(
            with_auth.iter().any(|name| name == needed),
            "a2a-lambda-emulator --features auth lacks {needed}: {with_auth:?}"
        );
    }
}

/// The gRPC binding's crates (tonic, prost) come with the `grpc` features only, and the
/// client's brings no server framework.
#[test]
fn grpc_is_built_only_when_asked_for() {
    for package in ["a2a-lambda-core", "a2a-lambda-server", "a2a-lambda-client"] {
        let crates = tree(package);
        for banned in ["tonic", "prost", "protox"] {
            assert!(
                !crates.iter().any(|name| name == banned),
                "{package} depends on {banned} by default: {crates:?}"
            );
        }
    }
    let client = tree_with("a2a-lambda-client", &["--features", "grpc"]);
    assert!(client.iter().any(|name| name == "tonic"), "{client:?}");
    for banned in ["axum", "a2a-lambda-server"] {
        assert!(
            !client.iter().any(|name| name == banned),
            "a2a-lambda-client --features grpc depends on {banned}: {client:?}"
        );
    }
    let server = tree_with("a2a-lambda-server", &["--features", "grpc"]);
    assert!(server.iter().any(|name| name == "tonic"), "{server:?}");
}
