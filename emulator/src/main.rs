//! `a2a-emulator`: an A2A agent that behaves like one hosted on AWS Bedrock AgentCore
//! Runtime, for offline development and client testing.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "a2a-emulator {}: serving is not built yet. This build ships the a2a-core wire crate \
         only; the A2A router and the AgentCore front land with the engine and platform issues.",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::from(2)
}
