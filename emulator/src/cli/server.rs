//! [`Server`], what a command line serves before it listens, and [`Started`], the same
//! serving in the background.

use std::net::SocketAddr;

use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::{Container, ServeError};

use super::LISTENING_PREFIX;
use crate::{Emulator, EmulatorError, Running};

/// What a command line serves, built by [`Args::build`](super::Args::build) and not yet
/// listening.
#[derive(Debug)]
#[must_use = "a server does nothing until started"]
pub struct Server(pub(super) Target);

#[derive(Debug)]
pub(super) enum Target {
    /// The AgentCore front (boxed: an emulator's settings outweigh the container's).
    Front(Box<Emulator>),
    /// `--container-only`: the A2A router alone.
    Container {
        /// Boxed too: its connection limits made it the larger variant.
        container: Box<Container>,
        agent: BuiltIn,
    },
}

impl Server {
    /// Binds the address and serves in the background until [`Started::shutdown`] (or
    /// until the [`Started`] is dropped).
    ///
    /// # Errors
    /// The address cannot be bound, or the agent's card or the public URL is invalid.
    pub async fn start(self) -> Result<Started, EmulatorError> {
        match self.0 {
            Target::Front(emulator) => {
                let mode = emulator.describe();
                let running = emulator.start().await?;
                let line = format!(
                    "{LISTENING_PREFIX}{} ({mode}, card url: {})",
                    running.url(),
                    running.public_url()
                );
                Ok(Started {
                    line,
                    serving: Serving::Front { running, mode },
                })
            }
            Target::Container { container, agent } => {
                let running = (*container).bind().await.map_err(|error| match error {
                    ServeError::Card(card) => EmulatorError::Card(card),
                    other => EmulatorError::Config(other.to_string()),
                })?;
                let line = format!(
                    "{LISTENING_PREFIX}http://{} (container only, agent: {agent}, card url: {})",
                    running.address(),
                    running.url()
                );
                Ok(Started {
                    line,
                    serving: Serving::Container(running),
                })
            }
        }
    }
}

/// A command line's server, serving in the background. Dropping it stops the server
/// without waiting.
#[derive(Debug)]
pub struct Started {
    line: String,
    serving: Serving,
}

#[derive(Debug)]
enum Serving {
    Front { running: Running, mode: String },
    Container(a2a_lambda_server::serve::Running),
}

impl Started {
    /// The line the binary prints once it accepts connections: [`LISTENING_PREFIX`], the
    /// base URL, and in parentheses what is served and the card's URL.
    pub fn listening_line(&self) -> &str {
        &self.line
    }

    /// The line the binary prints after the listening line when the inspector is on:
    /// `a2a-emulator inspector on {url}/_emulator/`.
    pub fn inspector_line(&self) -> Option<String> {
        match &self.serving {
            Serving::Front { running, .. } => running
                .inspector_url()
                .map(|url| format!("a2a-emulator inspector on {url}")),
            Serving::Container(_) => None,
        }
    }

    /// The bound address.
    pub fn address(&self) -> SocketAddr {
        match &self.serving {
            Serving::Front { running, .. } => running.address(),
            Serving::Container(running) => running.address(),
        }
    }

    /// The AgentCore front and what it serves ([`Emulator::describe`]), unless
    /// `--container-only`.
    pub fn front(&self) -> Option<(&Running, &str)> {
        match &self.serving {
            Serving::Front { running, mode } => Some((running, mode)),
            Serving::Container(_) => None,
        }
    }

    /// Stops accepting, lets in-flight work finish (within the shutdown grace), and
    /// returns.
    ///
    /// # Errors
    /// [`EmulatorError::Serve`] (or, container only, [`EmulatorError::Config`]) when the
    /// server had failed.
    pub async fn shutdown(self) -> Result<(), EmulatorError> {
        match self.serving {
            Serving::Front { running, .. } => running.shutdown().await,
            Serving::Container(running) => running
                .shutdown()
                .await
                .map_err(|error| EmulatorError::Config(error.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Args;

    fn args(flags: &[&str]) -> Args {
        let argv = ["a2a-emulator", "--port", "0"].iter().chain(flags);
        Args::try_parse_args_only(argv).unwrap()
    }

    #[tokio::test]
    async fn agentcore_runtime_url_comes_from_the_given_environment() {
        let started = args(&["--container-only"])
            .build_with_env(|name| {
                (name == "AGENTCORE_RUNTIME_URL").then(|| "https://example.com/rt".to_owned())
            })
            .unwrap()
            .start()
            .await
            .unwrap();
        assert!(started.front().is_none());
        let line = started.listening_line().to_owned();
        let address = started.address();
        assert_eq!(
            line,
            format!(
                "{LISTENING_PREFIX}http://{address} (container only, agent: echo, card url: \
                 https://example.com/rt/)"
            )
        );
        started.shutdown().await.unwrap();
    }

    #[tokio::test]
    async fn an_allowlist_against_the_rules_is_refused_at_start() {
        let error = args(&["--request-header-allowlist", "A2A-Version,X-Amz-Date"])
            .build_with_env(|_| None)
            .unwrap()
            .start()
            .await
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "request header allowlist: `X-Amz-Date`: headers starting with x-amz- are reserved \
             for SigV4 signing"
        );
    }
}
