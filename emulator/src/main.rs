//! `a2a-emulator`: an A2A agent served the way AWS Bedrock AgentCore Runtime runs one, for
//! offline development and client testing. `a2a-emulator --help` lists every flag.

use std::process::ExitCode;

use clap::Parser as _;

mod args;
mod serve;

#[tokio::main]
async fn main() -> ExitCode {
    let args = args::Args::parse();
    serve::init_logging(&args);
    match serve::run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("a2a-emulator: {error}");
            ExitCode::FAILURE
        }
    }
}
