//! The Lambda binary outside Lambda says so and exits non-zero, with no panic.

use std::process::Command;

#[test]
fn lambda_function_outside_lambda_explains_and_fails() {
    let output = Command::new(env!("CARGO_BIN_EXE_a2a-agent"))
        .env_remove("AWS_LAMBDA_RUNTIME_API")
        .output()
        .unwrap_or_else(|error| panic!("a2a-agent did not start: {error}"));
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("not running inside AWS Lambda"), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
