//! Where a task's push-notification configurations live, and how far each has been told.
//!
//! A configuration belongs to its task: the engine checks the task's owner before it
//! reads or writes one, so a store needs no owner of its own. Each configuration keeps the
//! [`Mark`] of the last notification its webhook acknowledged (or gave up on): the task's
//! version and status timestamp then. A process that touches a task whose status moved
//! past a configuration's mark, long enough ago that the process that moved it is gone,
//! delivers the task as it stands (every notification carries the whole task), so a
//! delivery cut short by a stopped instance is made by the next one.

use a2a_lambda_core::model::PushNotificationConfig;
use a2a_lambda_core::version::ProtocolVersion;

use crate::tasks::StoreError;

/// Most configurations one task may hold: a client cannot make one task's every change
/// fan out to more webhooks than this.
pub const MAX_CONFIGS_PER_TASK: usize = 10;

/// How far a configuration has been told: the task's stored version and status timestamp
/// of the last notification acknowledged or given up on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Mark {
    /// The task's version.
    pub version: u64,
    /// The task's `status.timestamp`.
    pub status_at: String,
}

/// A configuration as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredConfig {
    /// The configuration; its `id` is always set.
    pub config: PushNotificationConfig,
    /// The protocol version of the request that created it: its notifications are
    /// written in that version.
    pub version: ProtocolVersion,
    /// The last notification told (`None`: none yet, every change is news).
    pub mark: Option<Mark>,
}

impl StoredConfig {
    /// The configuration's id (empty if a store lost it, which none should).
    pub fn id(&self) -> &str {
        self.config.id.as_deref().unwrap_or_default()
    }
}

/// A refused configuration write.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigWriteError {
    /// The task already holds [`MAX_CONFIGS_PER_TASK`] other configurations.
    #[error("task {0} already holds the most push configurations a task may hold")]
    Full(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where push-notification configurations live.
///
/// Implemented in memory (an in-memory store) and, on AWS Lambda, in the
/// function's DynamoDB table, beside the task.
#[async_trait::async_trait]
pub trait PushConfigStore: Send + Sync + 'static {
    /// The task's configurations, oldest first.
    async fn configs(&self, task_id: &str) -> Result<Vec<StoredConfig>, StoreError>;

    /// Creates the configuration, or replaces the one with the same id (keeping its
    /// place in the order).
    ///
    /// # Errors
    /// [`ConfigWriteError::Full`] for a new id when the task holds
    /// [`MAX_CONFIGS_PER_TASK`] already.
    async fn put_config(&self, task_id: &str, config: StoredConfig)
    -> Result<(), ConfigWriteError>;

    /// Deletes the configuration; `false` when there was none (a delete is idempotent).
    async fn delete_config(&self, task_id: &str, config_id: &str) -> Result<bool, StoreError>;

    /// Records that the configuration was told `mark`, unless it holds a later one
    /// already (or is gone).
    async fn mark(&self, task_id: &str, config_id: &str, mark: &Mark) -> Result<(), StoreError>;
}
