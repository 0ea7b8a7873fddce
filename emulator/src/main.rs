//! `a2a-emulator`: an A2A agent served the way AWS Bedrock AgentCore Runtime runs one, for
//! offline development and client testing. `a2a-emulator --help` lists every flag.

use std::process::ExitCode;

use a2a_lambda_emulator::auth_flags::Command;
use a2a_lambda_emulator::cli::Args;
use clap::Parser as _;

mod serve;

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let _logs = args.init_logging();
    if let Some(Command::Lambda(lambda)) = &args.command {
        return match a2a_lambda_emulator::lambda::run(lambda).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("a2a-emulator lambda: {error}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(Command::Token(token)) = &args.command {
        return match a2a_lambda_emulator::auth_flags::token(&args, token, &|name| {
            std::env::var(name).ok()
        }) {
            Ok(jwt) => {
                println!("{jwt}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("a2a-emulator token: {error}");
                ExitCode::FAILURE
            }
        };
    }
    match serve::run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("a2a-emulator: {error}");
            ExitCode::FAILURE
        }
    }
}
