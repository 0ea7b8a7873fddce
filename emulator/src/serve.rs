//! What the binary does with its flags: builds the server ([`Args::build`]), says where it
//! listens, and serves until SIGTERM or Ctrl-C.

use a2a_lambda_emulator::EmulatorError;
use a2a_lambda_emulator::cli::Args;
use a2a_lambda_server::host::graceful::shutdown_signal;

/// Serves until SIGTERM or Ctrl-C, then lets in-flight work finish (bounded).
pub async fn run(args: &Args) -> Result<(), EmulatorError> {
    let started = args.build()?.start().await?;
    println!("{}", started.listening_line());
    if let Some(line) = started.inspector_line() {
        println!("{line}");
    }
    let front = started.front().is_some();
    if let Some((running, mode)) = started.front() {
        tracing::info!(
            url = running.url(),
            public_url = running.public_url(),
            mode,
            "serving"
        );
    }
    if front && !cfg!(feature = "tls") && args.push_notifications != "off" {
        tracing::info!(
            "built without the `tls` feature: webhooks at https URLs are not tried (http on \
             this machine is); `--features tls` builds it in"
        );
    }
    shutdown_signal().await;
    started.shutdown().await?;
    if front {
        tracing::info!("stopped");
    }
    Ok(())
}
