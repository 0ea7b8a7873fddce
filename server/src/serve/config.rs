//! A container's settings ([`ContainerConfig`]) and the environment variables they are
//! read from ([`VARIABLES`]).

use crate::push::target::TargetPolicy;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use a2a_lambda_core::card::{Binding, Bindings};
use a2a_lambda_core::error::ErrorProfile;

use super::ServeError;
use crate::http::DEFAULT_MAX_BODY_BYTES;
use crate::identity::Identity;
use crate::listen::{self, Limits};
use crate::tasks::DEFAULT_IN_MEMORY_BYTES;

/// The port AgentCore expects an A2A container on.
pub const AGENTCORE_PORT: u16 = 9000;

/// Every variable [`ContainerConfig::from_env`] reads.
pub const VARIABLES: [&str; 19] = [
    "A2A_HOST",
    "PORT",
    "A2A_PUBLIC_URL",
    "AGENTCORE_RUNTIME_URL",
    "A2A_ERROR_PROFILE",
    "A2A_MAX_BODY_BYTES",
    "A2A_SHUTDOWN_GRACE_SECONDS",
    "A2A_LOG_FORMAT",
    "A2A_IDENTITY",
    "A2A_PUSH_NOTIFICATIONS",
    "A2A_PUSH_ALLOW_PRIVATE",
    "A2A_BINDINGS",
    "A2A_TASK_STORE_BYTES",
    "A2A_HEADER_READ_TIMEOUT_SECONDS",
    "A2A_BODY_READ_TIMEOUT_SECONDS",
    "A2A_WRITE_STALL_TIMEOUT_SECONDS",
    "A2A_MAX_CONNECTIONS",
    "A2A_GRPC_PORT",
    "A2A_GRPC_PUBLIC_URL",
];

/// The port the gRPC binding listens on unless `A2A_GRPC_PORT` says otherwise (gRPC's
/// customary port).
pub const DEFAULT_GRPC_PORT: u16 = 50051;

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    /// Human-readable lines (the default).
    #[default]
    Text,
    /// One JSON object a line (what CloudWatch reads best).
    Json,
}

/// A container's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContainerConfig {
    /// Where to listen: `A2A_HOST` (default `0.0.0.0`, as AgentCore requires) and `PORT`
    /// (default 9000; 0 picks a free port).
    pub address: SocketAddr,
    /// The card's URL: `A2A_PUBLIC_URL`, else `AGENTCORE_RUNTIME_URL` (a trailing slash
    /// added), else `http://{address}/` once bound (loopback for an unspecified address).
    pub public_url: Option<String>,
    /// `A2A_ERROR_PROFILE`: `spec` (default) or `agentcore`.
    pub error_profile: ErrorProfile,
    /// `A2A_MAX_BODY_BYTES`: largest request body (default AgentCore's 100 MB).
    pub max_body_bytes: usize,
    /// `A2A_SHUTDOWN_GRACE_SECONDS`: how long in-flight requests get after SIGTERM
    /// (default 10).
    pub shutdown_grace: Duration,
    /// `A2A_LOG_FORMAT`: `text` (default) or `json`.
    pub log_format: LogFormat,
    /// `A2A_IDENTITY`: `agentcore` (default: callers as AgentCore names them) or `none`
    /// (every caller anonymous); see [`crate::host::identity`].
    pub identity: Identity,
    /// `A2A_PUSH_NOTIFICATIONS`: `on` (default: the push methods are served and webhooks
    /// told) or `off` (they answer -32003 and the card says `pushNotifications: false`).
    pub push_notifications: bool,
    /// `A2A_PUSH_ALLOW_PRIVATE`: `true` lets webhooks be plain `http` on any address,
    /// private ones included (a lab network); `loopback` allows `http` and this machine's
    /// loopback addresses besides public ones (local development: the emulator passes
    /// it); default `false`, `https` to public addresses only
    /// ([`TargetPolicy::PublicHttps`]).
    pub push_targets: TargetPolicy,
    /// `A2A_BINDINGS`: the protocol bindings served, preferred first (`jsonrpc`,
    /// `http+json`, `grpc`, comma-separated). Default `jsonrpc,http+json`; but `jsonrpc`
    /// alone behind AgentCore (`AGENTCORE_RUNTIME_URL` set), which passes only JSON-RPC's
    /// `POST /` to a container, so the card lists no interface a client cannot reach.
    /// `grpc` needs the crate's `grpc` feature, and is refused behind AgentCore.
    pub bindings: Bindings,
    /// `A2A_GRPC_PORT`: the gRPC binding's port, on `A2A_HOST` (default
    /// [`DEFAULT_GRPC_PORT`]; 0 picks a free port). Read when `A2A_BINDINGS` names `grpc`.
    pub grpc_port: u16,
    /// `A2A_GRPC_PUBLIC_URL`: the gRPC interface's URL in the card; default
    /// `http://{address}` of the gRPC port once bound (loopback for an unspecified
    /// address).
    pub grpc_public_url: Option<String>,
    /// `A2A_TASK_STORE_BYTES`: about how many bytes of tasks the in-memory task store
    /// keeps before it forgets the oldest finished ones (default
    /// [`DEFAULT_IN_MEMORY_BYTES`], 256 MiB; a task store of your own,
    /// [`Container::task_store`](super::Container::task_store), has its own bounds).
    pub task_store_bytes: usize,
    /// `A2A_HEADER_READ_TIMEOUT_SECONDS` (decimals allowed): how long a connection may take
    /// to send a request's headers, counted from when it opened or was last answered, so
    /// also the keep-alive idle timeout (default 60 s, [`listen::DEFAULT_HEADER_READ_TIMEOUT`]).
    pub header_read_timeout: Duration,
    /// `A2A_BODY_READ_TIMEOUT_SECONDS`: how long a request body may go without a byte
    /// arriving before it is answered `408` (default 60 s, between chunks, not in total).
    pub body_read_timeout: Duration,
    /// `A2A_WRITE_STALL_TIMEOUT_SECONDS`: how long a write may wait for a client that does
    /// not read before its connection is closed (default 60 s).
    pub write_stall_timeout: Duration,
    /// `A2A_MAX_CONNECTIONS`: connections open at once; more are refused with `503`
    /// (default 10,000, [`listen::DEFAULT_MAX_CONNECTIONS`]).
    pub max_connections: usize,
}

impl Default for ContainerConfig {
    fn default() -> Self {
        Self {
            address: SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), AGENTCORE_PORT),
            public_url: None,
            error_profile: ErrorProfile::Spec,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            shutdown_grace: Duration::from_secs(10),
            log_format: LogFormat::Text,
            identity: Identity::AgentCore,
            push_notifications: true,
            push_targets: TargetPolicy::PublicHttps,
            bindings: Bindings::both(),
            grpc_port: DEFAULT_GRPC_PORT,
            grpc_public_url: None,
            task_store_bytes: DEFAULT_IN_MEMORY_BYTES,
            header_read_timeout: listen::DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: listen::DEFAULT_BODY_READ_TIMEOUT,
            write_stall_timeout: listen::DEFAULT_WRITE_STALL_TIMEOUT,
            max_connections: listen::DEFAULT_MAX_CONNECTIONS,
        }
    }
}

/// A positive number of seconds, decimals allowed (`0.5`).
fn seconds(name: &'static str, value: &str) -> Result<Duration, ServeError> {
    value
        .parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| invalid(name, value, "a positive number of seconds"))
}

/// Whether `grpc` may be served here: not behind AgentCore, which passes a container
/// only JSON-RPC's `POST /` (AgentCore Developer Guide, "A2A protocol contract":
/// https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html),
/// and only when the crate was built with its `grpc` feature.
fn grpc_served(bindings: &Bindings, behind_agentcore: bool) -> Result<(), ServeError> {
    let text = bindings.to_string();
    if behind_agentcore {
        return Err(invalid(
            "A2A_BINDINGS",
            &text,
            "jsonrpc (AGENTCORE_RUNTIME_URL is set: AgentCore passes a container only \
             JSON-RPC's POST /, so gRPC cannot be reached behind it)",
        ));
    }
    if cfg!(not(feature = "grpc")) {
        return Err(invalid(
            "A2A_BINDINGS",
            &text,
            "jsonrpc or http+json (this build has no gRPC: build a2a-lambda-server with \
             its `grpc` feature)",
        ));
    }
    Ok(())
}

fn invalid(name: &'static str, value: &str, expected: &'static str) -> ServeError {
    ServeError::Config {
        name,
        value: value.to_owned(),
        expected,
    }
}

impl ContainerConfig {
    /// Reads the process environment ([`VARIABLES`]).
    ///
    /// # Errors
    /// [`ServeError::Config`] for the first variable with an unusable value.
    pub fn from_env() -> Result<Self, ServeError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup`; empty values count as unset.
    ///
    /// ```
    /// use a2a_lambda_server::serve::ContainerConfig;
    ///
    /// let config = ContainerConfig::from_lookup(|name| match name {
    ///     "PORT" => Some("9100".to_owned()),
    ///     "AGENTCORE_RUNTIME_URL" => Some("https://example.com/invocations".to_owned()),
    ///     _ => None,
    /// })
    /// .unwrap();
    /// assert_eq!(config.address.port(), 9100);
    /// assert_eq!(config.public_url.as_deref(), Some("https://example.com/invocations/"));
    /// assert!(ContainerConfig::from_lookup(|name| (name == "PORT").then(|| "x".into())).is_err());
    /// ```
    ///
    /// # Errors
    /// [`ServeError::Config`] for the first variable with an unusable value.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ServeError> {
        let get = |name: &str| {
            lookup(name)
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        let mut config = Self::default();
        if let Some(host) = get("A2A_HOST") {
            let ip = host
                .parse()
                .map_err(|_| invalid("A2A_HOST", &host, "an IP address"))?;
            config.address.set_ip(ip);
        }
        if let Some(port) = get("PORT") {
            let port = port
                .parse()
                .map_err(|_| invalid("PORT", &port, "a port number (0 to 65535)"))?;
            config.address.set_port(port);
        }
        config.bindings = match get("A2A_BINDINGS") {
            Some(text) => Bindings::parse_with_grpc(&text).map_err(|_| {
                invalid(
                    "A2A_BINDINGS",
                    &text,
                    "jsonrpc, http+json or grpc, comma-separated, each once",
                )
            })?,
            None if get("AGENTCORE_RUNTIME_URL").is_some() => Bindings::default(),
            None => Bindings::both(),
        };
        if config.bindings.serves(Binding::Grpc) {
            grpc_served(&config.bindings, get("AGENTCORE_RUNTIME_URL").is_some())?;
        }
        if let Some(port) = get("A2A_GRPC_PORT") {
            config.grpc_port = port
                .parse()
                .map_err(|_| invalid("A2A_GRPC_PORT", &port, "a port number (0 to 65535)"))?;
        }
        config.grpc_public_url = get("A2A_GRPC_PUBLIC_URL");
        config.public_url = match (get("A2A_PUBLIC_URL"), get("AGENTCORE_RUNTIME_URL")) {
            (Some(url), _) => Some(url),
            (None, Some(url)) if url.ends_with('/') => Some(url),
            (None, Some(url)) => Some(format!("{url}/")),
            (None, None) => None,
        };
        if let Some(profile) = get("A2A_ERROR_PROFILE") {
            config.error_profile = profile
                .parse()
                .map_err(|_| invalid("A2A_ERROR_PROFILE", &profile, "spec or agentcore"))?;
        }
        if let Some(bytes) = get("A2A_MAX_BODY_BYTES") {
            config.max_body_bytes = bytes
                .parse()
                .ok()
                .filter(|bytes| *bytes > 0)
                .ok_or_else(|| invalid("A2A_MAX_BODY_BYTES", &bytes, "a positive number"))?;
        }
        if let Some(bytes) = get("A2A_TASK_STORE_BYTES") {
            config.task_store_bytes =
                bytes
                    .parse()
                    .ok()
                    .filter(|bytes| *bytes > 0)
                    .ok_or_else(|| {
                        invalid("A2A_TASK_STORE_BYTES", &bytes, "a positive number of bytes")
                    })?;
        }
        if let Some(seconds) = get("A2A_SHUTDOWN_GRACE_SECONDS") {
            config.shutdown_grace = seconds
                .parse()
                .map(Duration::from_secs)
                .map_err(|_| invalid("A2A_SHUTDOWN_GRACE_SECONDS", &seconds, "whole seconds"))?;
        }
        config.log_format = match get("A2A_LOG_FORMAT").as_deref() {
            None | Some("text") => LogFormat::Text,
            Some("json") => LogFormat::Json,
            Some(other) => return Err(invalid("A2A_LOG_FORMAT", other, "text or json")),
        };
        if let Some(identity) = get("A2A_IDENTITY") {
            config.identity = identity
                .parse()
                .map_err(|()| invalid("A2A_IDENTITY", &identity, "agentcore or none"))?;
        }
        config.push_notifications = match get("A2A_PUSH_NOTIFICATIONS").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => return Err(invalid("A2A_PUSH_NOTIFICATIONS", other, "on or off")),
        };
        config.push_targets = match get("A2A_PUSH_ALLOW_PRIVATE").as_deref() {
            None | Some("false") => TargetPolicy::PublicHttps,
            Some("true") => TargetPolicy::AllowPrivate,
            Some("loopback") => TargetPolicy::Loopback,
            Some(other) => {
                return Err(invalid(
                    "A2A_PUSH_ALLOW_PRIVATE",
                    other,
                    "true, false or loopback",
                ));
            }
        };
        for (name, field) in [
            (
                "A2A_HEADER_READ_TIMEOUT_SECONDS",
                &mut config.header_read_timeout,
            ),
            (
                "A2A_BODY_READ_TIMEOUT_SECONDS",
                &mut config.body_read_timeout,
            ),
            (
                "A2A_WRITE_STALL_TIMEOUT_SECONDS",
                &mut config.write_stall_timeout,
            ),
        ] {
            if let Some(value) = get(name) {
                *field = seconds(name, &value)?;
            }
        }
        if let Some(count) = get("A2A_MAX_CONNECTIONS") {
            config.max_connections = count
                .parse()
                .ok()
                .filter(|count| *count > 0)
                .ok_or_else(|| invalid("A2A_MAX_CONNECTIONS", &count, "a positive number"))?;
        }
        Ok(config)
    }

    /// The connection limits these settings make.
    ///
    /// (gRPC connections are HTTP/2 and served by tonic: these limits are the HTTP
    /// bindings'.)
    pub(super) fn limits(&self) -> Limits {
        Limits {
            header_read_timeout: self.header_read_timeout,
            body_read_timeout: self.body_read_timeout,
            write_stall_timeout: self.write_stall_timeout,
            max_connections: self.max_connections,
            shutdown_grace: self.shutdown_grace,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<ContainerConfig, ServeError> {
        ContainerConfig::from_lookup(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
    }

    #[test]
    fn grpc_is_read_with_its_port_and_url() {
        let read = config(&[("A2A_BINDINGS", "jsonrpc,grpc")]);
        if cfg!(feature = "grpc") {
            let read = read.unwrap();
            assert!(read.bindings.serves(Binding::Grpc));
            assert_eq!(read.grpc_port, DEFAULT_GRPC_PORT);
            let set = config(&[
                ("A2A_BINDINGS", "grpc"),
                ("A2A_GRPC_PORT", "7000"),
                ("A2A_GRPC_PUBLIC_URL", "https://grpc.example.com"),
            ])
            .unwrap();
            assert_eq!(set.grpc_port, 7000);
            assert_eq!(
                set.grpc_public_url.as_deref(),
                Some("https://grpc.example.com")
            );
        } else {
            assert_eq!(
                read.unwrap_err().to_string(),
                "A2A_BINDINGS=\"jsonrpc,grpc\" is not valid: jsonrpc or http+json (this build has \
                 no gRPC: build a2a-lambda-server with its `grpc` feature)"
            );
        }
        let port = config(&[("A2A_GRPC_PORT", "x")]).unwrap_err();
        assert_eq!(
            port.to_string(),
            "A2A_GRPC_PORT=\"x\" is not valid: a port number (0 to 65535)"
        );
    }
}
