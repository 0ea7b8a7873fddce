//! A binary that does not serve yet says so and exits non-zero: nothing pretends to work.

use std::process::Command;

use a2a_integration_tests::binary;

#[test]
fn lambda_function_says_it_does_not_serve_yet() {
    let output = Command::new(binary("a2a-agent", "a2a-agent"))
        .output()
        .unwrap_or_else(|error| panic!("a2a-agent did not start: {error}"));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not built yet"), "{stderr}");
}
