//! Configuration from environment variables, validated at init.

use std::num::NonZeroU32;

use a2a_lambda_core::card::{Bindings, BindingsError, SecurityMechanism};
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::push::target::TargetPolicy;

use crate::dynamo::{DEFAULT_LEASE, DEFAULT_RETENTION, DynamoSettings};

/// Lambda's own payload limit for a synchronous invocation: 6 MB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 6 * 1024 * 1024;

/// Every variable the function reads, for documentation and for the template check
/// (with `A2A_TASK_TABLE` it also reads `AWS_REGION`, which Lambda sets).
pub const VARIABLES: [&str; 13] = [
    "A2A_PUBLIC_URL",
    "A2A_STREAMING",
    "A2A_TASK_TABLE",
    "A2A_TASK_RETENTION_DAYS",
    "A2A_TASK_LEASE_SECONDS",
    "A2A_DYNAMODB_ENDPOINT",
    "A2A_ERROR_PROFILE",
    "A2A_MAX_BODY_BYTES",
    "A2A_AUTH",
    "A2A_API_KEY",
    "A2A_PUSH_NOTIFICATIONS",
    "A2A_PUSH_ALLOW_PRIVATE",
    "A2A_BINDINGS",
];

/// Longest `A2A_TASK_RETENTION_DAYS`: ten years.
pub const MAX_RETENTION_DAYS: u64 = 3_650;

/// Shortest and longest `A2A_TASK_LEASE_SECONDS`: a lease is renewed after a third of it,
/// so 3 s means a renewal a second at most; an hour leaves a dead instance's task working
/// for that long.
pub const LEASE_SECONDS: std::ops::RangeInclusive<u64> = 3..=3_600;

/// How callers authenticate.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    /// Nobody is checked (the Function URL's AWS_IAM auth, or none).
    None,
    /// `X-API-Key` must equal this secret.
    ApiKey(String),
    /// A JWT bearer token, validated in front of the function (an API Gateway JWT
    /// authorizer); the card publishes the scheme.
    Jwt,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::None => "None",
            Self::ApiKey(_) => "ApiKey(<redacted>)",
            Self::Jwt => "Jwt",
        })
    }
}

impl Auth {
    /// The scheme the card publishes.
    pub fn mechanism(&self) -> SecurityMechanism {
        match self {
            Self::None => SecurityMechanism::None,
            Self::ApiKey(_) => SecurityMechanism::ApiKey,
            Self::Jwt => SecurityMechanism::Jwt,
        }
    }
}

/// The function's configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// `A2A_PUBLIC_URL`: the card's URL; otherwise derived from each request's host and
    /// stage.
    pub public_url: Option<String>,
    /// `A2A_STREAMING`: the Function URL is in `RESPONSE_STREAM` mode (default false).
    pub streaming: bool,
    /// `A2A_TASK_TABLE`: the DynamoDB table tasks live in, with its region (`AWS_REGION`),
    /// `A2A_TASK_RETENTION_DAYS` (default 7), `A2A_TASK_LEASE_SECONDS` (how long a running
    /// task's lease lasts, default 30) and `A2A_DYNAMODB_ENDPOINT` (a local DynamoDB or
    /// moto; default AWS's). `None`: tasks live in the instance's memory.
    pub task_table: Option<DynamoSettings>,
    /// `A2A_ERROR_PROFILE`: `spec` (default) or `agentcore`.
    pub error_profile: ErrorProfile,
    /// `A2A_MAX_BODY_BYTES`: largest request body (default 6 MB).
    pub max_body_bytes: usize,
    /// `A2A_AUTH` (`none`, `api-key`, `jwt`) and `A2A_API_KEY`.
    pub auth: Auth,
    /// `A2A_PUSH_NOTIFICATIONS` and `A2A_PUSH_ALLOW_PRIVATE`.
    pub push: PushSettings,
    /// `A2A_BINDINGS`: the protocol bindings served, preferred first (`jsonrpc`,
    /// `http+json`, comma-separated, each once; the container's syntax,
    /// [`a2a_lambda_server::serve::ContainerConfig::bindings`]). Default `jsonrpc,http+json`:
    /// every front a function sits behind (a Function URL, API Gateway, an ALB) passes
    /// it any path and method, so both bindings' routes reach it.
    pub bindings: Bindings,
    /// `AWS_LAMBDA_MAX_CONCURRENCY`: set by Lambda (never by you) when the function runs
    /// on Lambda Managed Instances, to the most invocations it sends one execution
    /// environment at once (the function's `PerExecutionEnvironmentMaxConcurrency`).
    /// `Some`: the environment serves that many invocations at once and is never frozen
    /// between them ([`crate::Lambda::run`] then works as the guide's Managed Instances
    /// section says). Sources: AWS Lambda Developer Guide, "Building custom runtimes for
    /// Lambda Managed Instances"
    /// (<https://docs.aws.amazon.com/lambda/latest/dg/runtimes-custom.html#runtimes-custom-managed-instances>)
    /// and "Rust support for Lambda Managed Instances"
    /// (<https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-rust.html>).
    pub max_concurrency: Option<NonZeroU32>,
}

/// Push notifications: on unless turned off, to public HTTPS webhooks unless told
/// otherwise. The same variables and values as the container's
/// ([`a2a_lambda_server::serve::ContainerConfig`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushSettings {
    /// `A2A_PUSH_NOTIFICATIONS`: `on` (default) or `off`. On, tasks may have webhook
    /// configurations and their status changes are POSTed to them — only where the
    /// background-work extension keeps the environment thawed for the deliveries
    /// (the internal extension `a2a-background`); without it push is off, and the card says so.
    pub enabled: bool,
    /// `A2A_PUSH_ALLOW_PRIVATE`: `false` (default) allows `https` webhooks on public
    /// addresses only ([`TargetPolicy::PublicHttps`]); `true` also plain `http` and every
    /// address, private ones included ([`TargetPolicy::AllowPrivate`]: a private network,
    /// or tests); `loopback` `http` and this machine's loopback addresses besides public
    /// ones ([`TargetPolicy::Loopback`]).
    pub targets: TargetPolicy,
}

impl Default for PushSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            targets: TargetPolicy::PublicHttps,
        }
    }
}

/// A variable with a value the function cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}={value:?} is not valid: {expected}")]
pub struct ConfigError {
    /// The variable.
    pub name: &'static str,
    /// Its value (secrets are never shown).
    pub value: String,
    /// What it should be.
    pub expected: String,
}

/// The variable Lambda sets on Managed Instances ([`Config::max_concurrency`]).
pub const MAX_CONCURRENCY: &str = "AWS_LAMBDA_MAX_CONCURRENCY";

/// [`MAX_CONCURRENCY`] in the process's environment (what the Lambda runtime library
/// reads).
///
/// # Errors
/// A value [`Config::from_env`] would refuse.
pub(crate) fn max_concurrency_from_env() -> Result<Option<NonZeroU32>, ConfigError> {
    max_concurrency(&|name: &str| {
        std::env::var(name)
            .ok()
            .filter(|value| !value.trim().is_empty())
    })
}

/// [`MAX_CONCURRENCY`] read through `get`: unset, or a whole number from 1 on. The Lambda
/// runtime library would treat any other value as unset and serve one invocation at a
/// time where Lambda sends several, so a bad value fails the init instead.
fn max_concurrency(
    get: &impl Fn(&str) -> Option<String>,
) -> Result<Option<NonZeroU32>, ConfigError> {
    let Some(value) = get(MAX_CONCURRENCY) else {
        return Ok(None);
    };
    value.trim().parse::<NonZeroU32>().map(Some).map_err(|_| {
        invalid(
            MAX_CONCURRENCY,
            &value,
            "a whole number of concurrent invocations, 1 or more (Lambda sets it on \
                 Managed Instances)",
        )
    })
}

fn invalid(name: &'static str, value: &str, expected: impl Into<String>) -> ConfigError {
    ConfigError {
        name,
        value: value.to_owned(),
        expected: expected.into(),
    }
}

impl Config {
    /// Reads the process environment.
    ///
    /// # Errors
    /// The first variable with an unusable value.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads variables through `lookup` (empty values count as unset).
    ///
    /// # Errors
    /// The first variable with an unusable value.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let public_url = match get("A2A_PUBLIC_URL") {
            None => None,
            Some(value) => {
                a2a_lambda_core::card::validate_url("A2A_PUBLIC_URL", &value).map_err(|_| {
                    invalid(
                        "A2A_PUBLIC_URL",
                        &value,
                        "an absolute http:// or https:// URL",
                    )
                })?;
                Some(value)
            }
        };
        let streaming = match get("A2A_STREAMING").as_deref().map(str::trim) {
            None => false,
            Some("true" | "1" | "yes") => true,
            Some("false" | "0" | "no") => false,
            Some(value) => return Err(invalid("A2A_STREAMING", value, "true or false")),
        };
        let error_profile = match get("A2A_ERROR_PROFILE") {
            None => ErrorProfile::Spec,
            Some(value) => value
                .parse()
                .map_err(|_| invalid("A2A_ERROR_PROFILE", &value, "spec or agentcore"))?,
        };
        let max_body_bytes = match get("A2A_MAX_BODY_BYTES") {
            None => DEFAULT_MAX_BODY_BYTES,
            Some(value) => value
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|bytes| *bytes > 0)
                .ok_or_else(|| {
                    invalid("A2A_MAX_BODY_BYTES", &value, "a positive number of bytes")
                })?,
        };
        let auth = match get("A2A_AUTH").as_deref().map(str::trim) {
            None | Some("none") => Auth::None,
            Some("jwt") => Auth::Jwt,
            Some("api-key") => match get("A2A_API_KEY") {
                Some(secret) if secret.len() >= 16 => Auth::ApiKey(secret),
                _ => {
                    return Err(invalid(
                        "A2A_API_KEY",
                        "<redacted>",
                        "a secret of at least 16 characters (required by A2A_AUTH=api-key)",
                    ));
                }
            },
            Some(value) => return Err(invalid("A2A_AUTH", value, "one of none, api-key, jwt")),
        };
        let task_table = Self::task_table(&get)?;
        let bindings = match get("A2A_BINDINGS") {
            None => Bindings::both(),
            Some(value) => value.parse().map_err(|error| {
                let expected = match error {
                    // A Function URL and API Gateway carry HTTP/1.1 requests to the
                    // function as events: gRPC cannot reach it.
                    BindingsError::GrpcNotServed => {
                        "jsonrpc, http+json or both (gRPC cannot reach a Lambda function: \
                         serve it from the container host)"
                    }
                    _ => "jsonrpc, http+json or both, comma-separated, each once",
                };
                invalid("A2A_BINDINGS", &value, expected)
            })?,
        };
        let push = PushSettings {
            enabled: match get("A2A_PUSH_NOTIFICATIONS").as_deref().map(str::trim) {
                None | Some("on") => true,
                Some("off") => false,
                Some(value) => return Err(invalid("A2A_PUSH_NOTIFICATIONS", value, "on or off")),
            },
            targets: match get("A2A_PUSH_ALLOW_PRIVATE").as_deref().map(str::trim) {
                None | Some("false") => TargetPolicy::PublicHttps,
                Some("true") => TargetPolicy::AllowPrivate,
                Some("loopback") => TargetPolicy::Loopback,
                Some(value) => {
                    return Err(invalid(
                        "A2A_PUSH_ALLOW_PRIVATE",
                        value,
                        "true, false or loopback",
                    ));
                }
            },
        };
        Ok(Self {
            public_url,
            streaming,
            task_table,
            error_profile,
            max_body_bytes,
            auth,
            push,
            bindings,
            max_concurrency: max_concurrency(&get)?,
        })
    }

    /// The DynamoDB settings, when `A2A_TASK_TABLE` is set. The retention, lease and
    /// endpoint are checked even without a table; the region is required only with one.
    fn task_table(
        get: &impl Fn(&str) -> Option<String>,
    ) -> Result<Option<DynamoSettings>, ConfigError> {
        let retention = match get("A2A_TASK_RETENTION_DAYS") {
            None => DEFAULT_RETENTION,
            Some(value) => value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|days| (1..=MAX_RETENTION_DAYS).contains(days))
                .map(|days| std::time::Duration::from_secs(days * 24 * 60 * 60))
                .ok_or_else(|| {
                    invalid(
                        "A2A_TASK_RETENTION_DAYS",
                        &value,
                        format!("a whole number of days from 1 to {MAX_RETENTION_DAYS}"),
                    )
                })?,
        };
        let lease = match get("A2A_TASK_LEASE_SECONDS") {
            None => DEFAULT_LEASE,
            Some(value) => value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|seconds| LEASE_SECONDS.contains(seconds))
                .map(std::time::Duration::from_secs)
                .ok_or_else(|| {
                    invalid(
                        "A2A_TASK_LEASE_SECONDS",
                        &value,
                        format!(
                            "a whole number of seconds from {} to {}",
                            LEASE_SECONDS.start(),
                            LEASE_SECONDS.end()
                        ),
                    )
                })?,
        };
        let endpoint = match get("A2A_DYNAMODB_ENDPOINT") {
            None => None,
            Some(value) => {
                let value = value.trim().to_owned();
                a2a_lambda_core::card::validate_url("A2A_DYNAMODB_ENDPOINT", &value).map_err(
                    |_| {
                        invalid(
                            "A2A_DYNAMODB_ENDPOINT",
                            &value,
                            "an absolute http:// or https:// URL (a local DynamoDB or moto)",
                        )
                    },
                )?;
                Some(value)
            }
        };
        let Some(table) = get("A2A_TASK_TABLE").map(|table| table.trim().to_owned()) else {
            return Ok(None);
        };
        let valid_name = (3..=255).contains(&table.len())
            && table
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !valid_name {
            return Err(invalid(
                "A2A_TASK_TABLE",
                &table,
                "a DynamoDB table name: 3 to 255 of a-z, A-Z, 0-9, _, - and .",
            ));
        }
        // Never let the SDK look for a region: without one it probes instance metadata
        // for seconds.
        let region = match get("AWS_REGION") {
            Some(region)
                if region
                    .trim()
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') =>
            {
                region.trim().to_owned()
            }
            other => {
                return Err(invalid(
                    "AWS_REGION",
                    other.as_deref().unwrap_or(""),
                    "the table's region, such as eu-west-1 (required by A2A_TASK_TABLE; \
                     Lambda sets it)",
                ));
            }
        };
        Ok(Some(DynamoSettings {
            table,
            region,
            endpoint,
            retention,
            lease,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults() {
        let config = config(&[]).unwrap();
        assert!(!config.streaming);
        assert_eq!(config.max_body_bytes, 6 * 1024 * 1024);
        assert_eq!(config.auth, Auth::None);
        assert_eq!(config.error_profile, ErrorProfile::Spec);
        assert_eq!(config.public_url, None);
        assert_eq!(
            config.push,
            PushSettings {
                enabled: true,
                targets: TargetPolicy::PublicHttps
            }
        );
    }

    #[test]
    fn push_settings_are_read() {
        let push = |vars: &[(&str, &str)]| config(vars).unwrap().push;
        assert!(!push(&[("A2A_PUSH_NOTIFICATIONS", "off")]).enabled);
        assert!(!push(&[("A2A_PUSH_NOTIFICATIONS", " off ")]).enabled);
        assert!(push(&[("A2A_PUSH_NOTIFICATIONS", "on")]).enabled);
        let targets = |value| push(&[("A2A_PUSH_ALLOW_PRIVATE", value)]).targets;
        assert_eq!(targets("true"), TargetPolicy::AllowPrivate);
        assert_eq!(targets("false"), TargetPolicy::PublicHttps);
        assert_eq!(targets("loopback"), TargetPolicy::Loopback);
        assert_eq!(
            config(&[("A2A_PUSH_NOTIFICATIONS", "false")])
                .unwrap_err()
                .to_string(),
            "A2A_PUSH_NOTIFICATIONS=\"false\" is not valid: on or off"
        );
        assert_eq!(
            config(&[("A2A_PUSH_NOTIFICATIONS", "disabled")])
                .unwrap_err()
                .to_string(),
            "A2A_PUSH_NOTIFICATIONS=\"disabled\" is not valid: on or off"
        );
        assert_eq!(
            config(&[("A2A_PUSH_ALLOW_PRIVATE", "sometimes")])
                .unwrap_err()
                .to_string(),
            "A2A_PUSH_ALLOW_PRIVATE=\"sometimes\" is not valid: true, false or loopback"
        );
    }

    #[test]
    fn bindings_default_to_both_and_are_read_in_order() {
        use a2a_lambda_core::card::Binding;
        let bindings = |vars: &[(&str, &str)]| config(vars).unwrap().bindings;
        assert_eq!(bindings(&[]).to_string(), "jsonrpc,http+json");
        let rest_first = bindings(&[("A2A_BINDINGS", "http+json, jsonrpc")]);
        assert_eq!(rest_first.preferred(), Binding::HttpJson);
        assert!(rest_first.serves(Binding::JsonRpc));
        let only_rpc = bindings(&[("A2A_BINDINGS", "jsonrpc")]);
        assert!(!only_rpc.serves(Binding::HttpJson));
        assert_eq!(
            config(&[("A2A_BINDINGS", "jsonrpc,grpc")])
                .unwrap_err()
                .to_string(),
            "A2A_BINDINGS=\"jsonrpc,grpc\" is not valid: jsonrpc, http+json or both (gRPC \
             cannot reach a Lambda function: serve it from the container host)"
        );
        for value in ["jsonrpc,jsonrpc", ","] {
            assert_eq!(
                config(&[("A2A_BINDINGS", value)]).unwrap_err().to_string(),
                format!(
                    "A2A_BINDINGS={value:?} is not valid: jsonrpc, http+json or both, \
                     comma-separated, each once"
                ),
            );
        }
    }

    #[test]
    fn values_are_read() {
        let config = config(&[
            ("A2A_STREAMING", "true"),
            ("A2A_ERROR_PROFILE", "agentcore"),
            ("A2A_MAX_BODY_BYTES", "1024"),
            ("A2A_AUTH", "api-key"),
            ("A2A_API_KEY", "0123456789abcdef"),
            ("A2A_PUBLIC_URL", "https://abc.lambda-url.us-east-1.on.aws/"),
        ])
        .unwrap();
        assert!(config.streaming);
        assert_eq!(config.error_profile, ErrorProfile::AgentCore);
        assert_eq!(config.max_body_bytes, 1024);
        assert_eq!(config.auth, Auth::ApiKey("0123456789abcdef".into()));
        assert!(
            !format!("{config:?}").contains("0123456789abcdef"),
            "secret redacted"
        );
    }

    #[test]
    fn bad_values_fail_clearly() {
        let cases = [
            (
                ("A2A_STREAMING", "maybe"),
                "A2A_STREAMING=\"maybe\" is not valid: true or false",
            ),
            (
                ("A2A_ERROR_PROFILE", "aws"),
                "A2A_ERROR_PROFILE=\"aws\" is not valid: spec or agentcore",
            ),
            (
                ("A2A_MAX_BODY_BYTES", "0"),
                "A2A_MAX_BODY_BYTES=\"0\" is not valid: a positive number of bytes",
            ),
            (
                ("A2A_AUTH", "oauth"),
                "A2A_AUTH=\"oauth\" is not valid: one of none, api-key, jwt",
            ),
            (
                ("A2A_PUBLIC_URL", "example.com"),
                "A2A_PUBLIC_URL=\"example.com\" is not valid: an absolute http:// or https:// URL",
            ),
        ];
        for ((name, value), message) in cases {
            assert_eq!(config(&[(name, value)]).unwrap_err().to_string(), message);
        }
        let missing_key = config(&[("A2A_AUTH", "api-key")]).unwrap_err().to_string();
        assert!(
            missing_key.starts_with("A2A_API_KEY=\"<redacted>\" is not valid"),
            "{missing_key}"
        );
        let short_key = config(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", "short")]).unwrap_err();
        assert!(
            !short_key.to_string().contains("short"),
            "secret never shown"
        );
    }

    #[test]
    fn managed_instances_concurrency_is_read_and_a_bad_value_fails_init() {
        assert_eq!(config(&[]).unwrap().max_concurrency, None);
        let read = config(&[(MAX_CONCURRENCY, " 8 ")]).unwrap();
        assert_eq!(read.max_concurrency.map(NonZeroU32::get), Some(8));
        let one = config(&[(MAX_CONCURRENCY, "1")]).unwrap();
        assert_eq!(one.max_concurrency.map(NonZeroU32::get), Some(1));
        for bad in ["0", "-2", "eight", "8.5", "4294967296"] {
            assert_eq!(
                config(&[(MAX_CONCURRENCY, bad)]).unwrap_err().to_string(),
                format!(
                    "AWS_LAMBDA_MAX_CONCURRENCY={bad:?} is not valid: a whole number of \
                     concurrent invocations, 1 or more (Lambda sets it on Managed Instances)"
                )
            );
        }
    }

    #[test]
    fn task_table_with_its_region_retention_and_endpoint() {
        assert_eq!(config(&[]).unwrap().task_table, None);
        let settings = config(&[("A2A_TASK_TABLE", "a2a-tasks"), ("AWS_REGION", "eu-west-1")])
            .unwrap()
            .task_table
            .unwrap();
        assert_eq!(settings, DynamoSettings::new("a2a-tasks", "eu-west-1"));
        assert_eq!(
            settings.retention,
            std::time::Duration::from_secs(7 * 86_400)
        );
        let settings = config(&[
            ("A2A_TASK_TABLE", "a2a-tasks"),
            ("AWS_REGION", "us-east-1"),
            ("A2A_TASK_RETENTION_DAYS", "30"),
            ("A2A_TASK_LEASE_SECONDS", "5"),
            ("A2A_DYNAMODB_ENDPOINT", "http://127.0.0.1:5000"),
        ])
        .unwrap()
        .task_table
        .unwrap();
        assert_eq!(settings.lease, std::time::Duration::from_secs(5));
        assert_eq!(settings.region, "us-east-1");
        assert_eq!(
            settings.retention,
            std::time::Duration::from_secs(30 * 86_400)
        );
        assert_eq!(settings.endpoint.as_deref(), Some("http://127.0.0.1:5000"));
        // Without a table, the other two are checked but unused.
        let config_without = config(&[("A2A_TASK_RETENTION_DAYS", "3")]).unwrap();
        assert_eq!(config_without.task_table, None);
    }

    #[test]
    fn bad_task_table_values_fail_clearly() {
        let cases: [(&[(&str, &str)], &str); 8] = [
            (
                &[("A2A_TASK_LEASE_SECONDS", "2")],
                "A2A_TASK_LEASE_SECONDS=\"2\" is not valid: a whole number of seconds from 3 to 3600",
            ),
            (
                &[("A2A_TASK_LEASE_SECONDS", "ten")],
                "A2A_TASK_LEASE_SECONDS=\"ten\" is not valid: a whole number of seconds from 3 to 3600",
            ),
            (
                &[("A2A_TASK_TABLE", "tasks")],
                "AWS_REGION=\"\" is not valid: the table's region, such as eu-west-1 \
                 (required by A2A_TASK_TABLE; Lambda sets it)",
            ),
            (
                &[("A2A_TASK_TABLE", "tasks"), ("AWS_REGION", "EU West")],
                "AWS_REGION=\"EU West\" is not valid: the table's region, such as eu-west-1 \
                 (required by A2A_TASK_TABLE; Lambda sets it)",
            ),
            (
                &[("A2A_TASK_TABLE", "my tasks"), ("AWS_REGION", "eu-west-1")],
                "A2A_TASK_TABLE=\"my tasks\" is not valid: a DynamoDB table name: 3 to 255 of \
                 a-z, A-Z, 0-9, _, - and .",
            ),
            (
                &[("A2A_TASK_RETENTION_DAYS", "0")],
                "A2A_TASK_RETENTION_DAYS=\"0\" is not valid: a whole number of days from 1 to 3650",
            ),
            (
                &[("A2A_TASK_RETENTION_DAYS", "1.5")],
                "A2A_TASK_RETENTION_DAYS=\"1.5\" is not valid: a whole number of days from 1 to 3650",
            ),
            (
                &[("A2A_DYNAMODB_ENDPOINT", "localhost:8000")],
                "A2A_DYNAMODB_ENDPOINT=\"localhost:8000\" is not valid: an absolute http:// or \
                 https:// URL (a local DynamoDB or moto)",
            ),
        ];
        for (vars, message) in cases {
            assert_eq!(config(vars).unwrap_err().to_string(), message, "{vars:?}");
        }
    }
}
