//! `a2a`: call an A2A agent from the shell. `a2a --help` lists the commands; the exit
//! codes are documented in [`exit`].

mod args;
mod exit;
mod new;
mod print;
mod push;
mod run;
mod webhook;

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = args::Cli::parse();
    if cli.global.verbose {
        tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_env_filter("a2a_lambda_client=debug")
            .init();
    }
    let json = cli.global.json;
    match run::run(cli).await {
        Ok(code) => code.into(),
        Err(error) => exit::report(&error, json),
    }
}
