//! Where the tasks live ([`DynamoSettings`]) and how the client calls DynamoDB: its
//! timeouts, retries and credentials chain.

use std::time::Duration;

use aws_config::ecs::EcsCredentialsProvider;
use aws_config::environment::EnvironmentVariableCredentialsProvider;
use aws_config::meta::credentials::CredentialsProviderChain;
use aws_config::profile::ProfileFileCredentialsProvider;
use aws_config::provider_config::ProviderConfig;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};

/// How long a task is kept after its last change, unless configured otherwise: 7 days.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// How long the lease of a running task lasts from its last write, unless configured
/// otherwise: 30 s (renewed after 10 s without a write; honoured 5 s past its expiry).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Longest wait for a connection to DynamoDB.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Longest wait for the first byte of an answer.
pub const READ_TIMEOUT: Duration = Duration::from_secs(3);
/// Longest one attempt of a call may take.
pub const OPERATION_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest a call may take, retries included.
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(5);
/// Attempts per call (the first one included), in the standard retry mode.
pub const MAX_ATTEMPTS: u32 = 3;

/// Where the tasks live and how long they are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamoSettings {
    /// The table's name (`A2A_TASK_TABLE`).
    pub table: String,
    /// The table's region (`AWS_REGION`).
    pub region: String,
    /// Another endpoint than AWS's (`A2A_DYNAMODB_ENDPOINT`): a local DynamoDB or moto.
    pub endpoint: Option<String>,
    /// How long a task is kept after its last change (`A2A_TASK_RETENTION_DAYS`).
    pub retention: Duration,
    /// How long the lease of a running task lasts from its last write
    /// (`A2A_TASK_LEASE_SECONDS`).
    pub lease: Duration,
}

impl DynamoSettings {
    /// Settings for `table` in `region`, on AWS, with the default retention.
    pub fn new(table: impl Into<String>, region: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            region: region.into(),
            endpoint: None,
            retention: DEFAULT_RETENTION,
            lease: DEFAULT_LEASE,
        }
    }

    /// The DynamoDB client configuration: region, endpoint, timeouts, retries and the
    /// credentials chain (environment, profile files, container endpoint; never instance
    /// metadata). Building it does no I/O.
    ///
    /// Tests add their own credentials to it before building the client.
    pub fn client_config(&self) -> aws_sdk_dynamodb::config::Builder {
        let region = Region::new(self.region.clone());
        let mut builder = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(region.clone())
            .timeout_config(timeout_config())
            .retry_config(retry_config())
            .credentials_provider(credentials_chain(region));
        if let Some(endpoint) = &self.endpoint {
            builder = builder.endpoint_url(endpoint);
        }
        builder
    }
}

/// The timeouts of every call: [`CONNECT_TIMEOUT`], [`READ_TIMEOUT`],
/// [`OPERATION_ATTEMPT_TIMEOUT`] and [`OPERATION_TIMEOUT`].
pub fn timeout_config() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .operation_attempt_timeout(OPERATION_ATTEMPT_TIMEOUT)
        .operation_timeout(OPERATION_TIMEOUT)
        .build()
}

/// The standard retry mode with [`MAX_ATTEMPTS`] attempts and short backoffs (50 ms
/// initial, 1 s at most): throttling, 5xx answers and timeouts are retried.
pub fn retry_config() -> RetryConfig {
    RetryConfig::standard()
        .with_max_attempts(MAX_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(50))
        .with_max_backoff(Duration::from_secs(1))
}

/// Environment variables first (Lambda sets them), then the shared profile files (a
/// developer's machine), then a container credentials endpoint. Each is asked only at the
/// first call, and instance metadata never is.
fn credentials_chain(region: Region) -> CredentialsProviderChain {
    let providers = ProviderConfig::default().with_region(Some(region));
    CredentialsProviderChain::first_try(
        "Environment",
        EnvironmentVariableCredentialsProvider::new(),
    )
    .or_else(
        "Profile",
        ProfileFileCredentialsProvider::builder()
            .configure(&providers)
            .build(),
    )
    .or_else(
        "EcsContainer",
        EcsCredentialsProvider::builder()
            .configure(&providers)
            .build(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_call_has_timeouts_and_few_retries() {
        let config = timeout_config();
        assert_eq!(config.connect_timeout(), Some(CONNECT_TIMEOUT));
        assert_eq!(config.read_timeout(), Some(READ_TIMEOUT));
        assert_eq!(config.operation_timeout(), Some(OPERATION_TIMEOUT));
        assert_eq!(
            config.operation_attempt_timeout(),
            Some(OPERATION_ATTEMPT_TIMEOUT)
        );
        assert_eq!(retry_config().max_attempts(), MAX_ATTEMPTS);
    }
}
