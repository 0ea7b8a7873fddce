//! The binary's flags turned into an [`Emulator`] (or, with `--container-only`, into
//! `a2a_server`'s container), served until SIGTERM or Ctrl-C.

use std::net::SocketAddr;
use std::time::Duration;

use a2a_emulator::{Emulator, EmulatorError};
use a2a_server::serve::{Container, ContainerConfig, LogFormat, shutdown_signal};

use crate::args::Args;

/// Logs to stderr in the flag's format, filtered by `RUST_LOG` (default `info`).
pub fn init_logging(args: &Args) {
    a2a_server::serve::init_logging(if args.log_format == "json" {
        LogFormat::Json
    } else {
        LogFormat::Text
    });
}

/// The card's URL from the flags: `--public-url`, else `AGENTCORE_RUNTIME_URL` with a
/// trailing slash, else none (the bound address).
fn public_url(args: &Args) -> Option<String> {
    if let Some(url) = &args.public_url {
        return Some(url.clone());
    }
    ContainerConfig::from_lookup(|name| {
        (name == "AGENTCORE_RUNTIME_URL")
            .then(|| std::env::var(name).ok())
            .flatten()
    })
    .ok()
    .and_then(|config| config.public_url)
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight work finish (bounded).
pub async fn run(args: Args) -> Result<(), EmulatorError> {
    let address = SocketAddr::new(args.host, args.port);
    let grace = Duration::from_secs(args.shutdown_grace_seconds);
    if args.container_only {
        let mut container = Container::new(args.agent.agent())
            .address(address)
            .error_profile(args.error_profile)
            .max_body_bytes(args.max_body_bytes)
            .shutdown_grace(grace);
        if let Some(url) = public_url(&args) {
            container = container.public_url(url);
        }
        let running = container.bind().await.map_err(|error| match error {
            a2a_server::serve::ServeError::Card(card) => EmulatorError::Card(card),
            other => EmulatorError::Config(other.to_string()),
        })?;
        println!(
            "a2a-emulator listening on http://{} (container only, agent: {}, card url: {})",
            running.address(),
            args.agent,
            running.url()
        );
        shutdown_signal().await;
        return running
            .shutdown()
            .await
            .map_err(|error| EmulatorError::Config(error.to_string()));
    }
    let startup_timeout = Duration::try_from_secs_f64(args.agent_startup_timeout)
        .ok()
        .filter(|timeout| !timeout.is_zero())
        .ok_or_else(|| {
            EmulatorError::Config(format!(
                "--agent-startup-timeout {} is not a positive number of seconds",
                args.agent_startup_timeout
            ))
        })?;
    let mut emulator = match (&args.upstream, &args.agent_cmd) {
        (Some(url), _) => Emulator::upstream(url.clone()),
        (None, Some(command)) => Emulator::command(command.clone()),
        (None, None) => {
            let agent = args.agent;
            Emulator::per_session(move || agent.agent()).agent_name(agent.to_string())
        }
    }
    .agent_startup_timeout(startup_timeout)
    .address(address)
    .error_profile(args.error_profile)
    .max_body_bytes(args.max_body_bytes)
    .rate_limit(args.rate_limit)
    .session_startup(Duration::from_millis(args.session_startup_ms))
    .exclusive_sessions(args.exclusive_sessions)
    .idle_timeout(Duration::from_secs(args.idle_timeout))
    .max_lifetime(Duration::from_secs(args.max_lifetime))
    .request_timeout(Duration::from_secs(args.request_timeout))
    .shutdown_grace(grace);
    if let Some(url) = public_url(&args) {
        emulator = emulator.public_url(url);
    }
    if let Some(arn) = &args.runtime_arn {
        if !a2a_emulator::is_runtime_arn(arn) {
            return Err(EmulatorError::Config(format!(
                "--runtime-arn {arn:?} is not an AgentCore runtime ARN \
                 (arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/NAME-ID)"
            )));
        }
        emulator = emulator.runtime_arn(arn.clone());
    }
    if let Some(faults) = args.fault {
        emulator = emulator.faults(faults);
    }
    if let Some(seed) = args.seed {
        emulator = emulator.seed(seed);
    }
    let mode = emulator.describe();
    let running = emulator.start().await?;
    println!(
        "a2a-emulator listening on {} ({mode}, card url: {})",
        running.url(),
        running.public_url()
    );
    tracing::info!(
        url = running.url(),
        public_url = running.public_url(),
        mode,
        "serving"
    );
    shutdown_signal().await;
    running.shutdown().await?;
    tracing::info!("stopped");
    Ok(())
}
