//! [`Args::build`]: the flags turned into the [`Server`] the binary runs, an [`Emulator`]
//! (the AgentCore front) or, with `--container-only`, a bare [`Container`].

use std::net::SocketAddr;
use std::time::Duration;

use a2a_lambda_server::serve::{Container, ContainerConfig};

use super::Args;
use super::server::{Server, Target};
use crate::{Emulator, EmulatorError};

impl Args {
    /// [`Args::build_with_env`] reading `AGENTCORE_RUNTIME_URL` from the process
    /// environment, as the binary does.
    ///
    /// # Errors
    /// As [`Args::build_with_env`].
    pub fn build(&self) -> Result<Server, EmulatorError> {
        self.build_with_env(|name| std::env::var(name).ok())
    }

    /// What the flags serve: the AgentCore front over the built-in agent, `--upstream` or
    /// `--agent-cmd`, or with `--container-only` the bare container. `env` looks up
    /// `AGENTCORE_RUNTIME_URL`, the card's URL (a trailing slash added) when
    /// `--public-url` is not given.
    ///
    /// # Errors
    /// [`EmulatorError::Config`] for a non-positive `--agent-startup-timeout` or a
    /// `--runtime-arn` that is not an AgentCore runtime ARN.
    pub fn build_with_env(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Server, EmulatorError> {
        let address = SocketAddr::new(self.host, self.port);
        let grace = Duration::from_secs(self.shutdown_grace_seconds);
        let public_url = self.public_url(&env);
        let limits = self.connection_limits()?;
        if self.container_only {
            // What AgentCore runs passes only JSON-RPC's `POST /` (and the card, `/ping`).
            let mut container = Container::new(self.agent.agent())
                .address(address)
                .error_profile(self.error_profile)
                .max_body_bytes(self.max_body_bytes)
                .shutdown_grace(grace)
                .header_read_timeout(limits.header_read_timeout)
                .body_read_timeout(limits.body_read_timeout)
                .write_stall_timeout(limits.write_stall_timeout)
                .max_connections(limits.max_connections)
                .bindings(a2a_lambda_core::card::Bindings::default())
                .task_store_bytes(self.task_store_bytes);
            if let Some(url) = public_url {
                container = container.public_url(url);
            }
            return Ok(Server(Target::Container {
                container: Box::new(container),
                agent: self.agent,
            }));
        }
        let startup_timeout = Duration::try_from_secs_f64(self.agent_startup_timeout)
            .ok()
            .filter(|timeout| !timeout.is_zero())
            .ok_or_else(|| {
                EmulatorError::Config(format!(
                    "--agent-startup-timeout {} is not a positive number of seconds",
                    self.agent_startup_timeout
                ))
            })?;
        let mut emulator = match (&self.upstream, &self.agent_cmd) {
            (Some(url), _) => Emulator::upstream(url.clone()),
            (None, Some(command)) => Emulator::command(command.clone()),
            (None, None) => {
                let agent = self.agent;
                Emulator::per_session(move || agent.agent()).agent_name(agent.to_string())
            }
        }
        .agent_startup_timeout(startup_timeout)
        .address(address)
        .error_profile(self.error_profile)
        .max_body_bytes(self.max_body_bytes)
        .rate_limit(self.rate_limit)
        .session_startup(Duration::from_millis(self.session_startup_ms))
        .exclusive_sessions(self.exclusive_sessions)
        .idle_timeout(Duration::from_secs(self.idle_timeout))
        .max_lifetime(Duration::from_secs(self.max_lifetime))
        .request_timeout(Duration::from_secs(self.request_timeout))
        .shutdown_grace(grace)
        .max_stream_duration(Duration::from_secs(self.max_stream_seconds))
        .max_sessions(self.max_sessions)
        .qualifier(self.qualifier.clone())
        .connection_limits(limits);
        emulator = if self.push_notifications == "off" {
            emulator.push_notifications(false)
        } else if self.push_allow_insecure_targets {
            emulator.push_targets(a2a_lambda_server::push::target::TargetPolicy::AllowPrivate)
        } else {
            emulator
        };
        if let Some(url) = public_url {
            emulator = emulator.public_url(url);
        }
        if let Some(arn) = &self.runtime_arn {
            if !crate::is_runtime_arn(arn) {
                return Err(EmulatorError::Config(format!(
                    "--runtime-arn {arn:?} is not an AgentCore runtime ARN \
                     (arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/NAME-ID)"
                )));
            }
            emulator = emulator.runtime_arn(arn.clone());
        }
        if let Some(faults) = self.fault {
            emulator = emulator.faults(faults);
        }
        if let Some(seed) = self.seed {
            emulator = emulator.seed(seed);
        }
        if let Some(names) = self.request_header_names() {
            emulator = emulator.request_header_allowlist(names);
        }
        emulator = crate::auth_flags::with_inbound_auth(self, emulator, &env)?;
        emulator = emulator.task_store_bytes(self.task_store_bytes);
        emulator = if self.inspector == "off" {
            emulator.inspector(false)
        } else {
            emulator
                .journal_size(self.journal_size)
                .journal_body_bytes(self.journal_body_bytes)
        };
        Ok(Server(Target::Front(Box::new(emulator))))
    }

    /// The connection flags as limits (the shutdown grace from its own flag).
    fn connection_limits(&self) -> Result<a2a_lambda_server::host::listen::Limits, EmulatorError> {
        let seconds = |flag: &str, value: f64| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|timeout| !timeout.is_zero())
                .ok_or_else(|| {
                    EmulatorError::Config(format!(
                        "--{flag} {value} is not a positive number of seconds"
                    ))
                })
        };
        if self.max_connections == 0 {
            return Err(EmulatorError::Config(
                "--max-connections 0: at least one connection must be allowed".to_owned(),
            ));
        }
        let mut limits = a2a_lambda_server::host::listen::Limits::default();
        limits.header_read_timeout = seconds("header-read-timeout", self.header_read_timeout)?;
        limits.body_read_timeout = seconds("body-read-timeout", self.body_read_timeout)?;
        limits.write_stall_timeout = seconds("write-stall-timeout", self.write_stall_timeout)?;
        limits.max_connections = self.max_connections;
        limits.shutdown_grace = Duration::from_secs(self.shutdown_grace_seconds);
        Ok(limits)
    }

    /// `--request-header-allowlist` as names (none for an empty value).
    /// The allowlist given, if one was (`None`: the emulator's default).
    fn request_header_names(&self) -> Option<Vec<String>> {
        let list = self.request_header_allowlist.as_deref()?.trim();
        if list.is_empty() {
            return Some(Vec::new());
        }
        Some(list.split(',').map(|name| name.trim().to_owned()).collect())
    }

    /// The card's URL: `--public-url`, else `AGENTCORE_RUNTIME_URL` with a trailing slash,
    /// else none (the bound address).
    fn public_url(&self, env: impl Fn(&str) -> Option<String>) -> Option<String> {
        if let Some(url) = &self.public_url {
            return Some(url.clone());
        }
        ContainerConfig::from_lookup(|name| {
            (name == "AGENTCORE_RUNTIME_URL")
                .then(|| env(name))
                .flatten()
        })
        .ok()
        .and_then(|config| config.public_url)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn args(flags: &[&str]) -> Args {
        let argv = ["a2a-emulator", "--port", "0"].iter().chain(flags);
        Args::try_parse_args_only(argv).unwrap()
    }

    #[test]
    fn a_runtime_arn_that_is_not_one_is_refused() {
        let error = args(&["--runtime-arn", "nope"])
            .build_with_env(|_| None)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "--runtime-arn \"nope\" is not an AgentCore runtime ARN \
             (arn:aws:bedrock-agentcore:REGION:ACCOUNT:runtime/NAME-ID)"
        );
    }

    #[test]
    fn a_zero_agent_startup_timeout_is_refused() {
        let error = args(&["--agent-startup-timeout", "0"])
            .build_with_env(|_| None)
            .unwrap_err();
        assert!(
            error.to_string().contains("not a positive number"),
            "{error}"
        );
    }

    #[test]
    fn the_allowlist_flag_defaults_to_the_emulators_default() {
        assert_eq!(args(&[]).request_header_names(), None);
        let empty = args(&["--request-header-allowlist", ""]);
        assert_eq!(empty.request_header_names(), Some(Vec::new()));
        let listed = args(&["--request-header-allowlist", "A2A-Version, X-Tenant"]);
        assert_eq!(
            listed.request_header_names().unwrap(),
            ["A2A-Version", "X-Tenant"]
        );
    }
}
