//! `a2a-agent`: the A2A agent as an AWS Lambda function.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "a2a-agent {}: the Lambda host is not built yet. This build ships the a2a-core wire \
         crate only; the Lambda function lands with the Lambda issue.",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::from(2)
}
