//! Push notifications: a task's webhook configurations and their delivery.
//!
//! An engine given a [`Push`] ([`crate::engine::Engine::with_push`]) serves the push
//! configuration methods of both versions, says `pushNotifications: true` in its card, and
//! tells each configured webhook about every status change of its task after `submitted`
//! (working, input-required, auth-required, and the terminal completed, failed, canceled
//! and rejected), POSTing the whole task as it then stands: a v0.3 configuration gets the
//! bare task (`application/json`, as a2a-sdk 0.3 sends it), a v1.0 one a `StreamResponse`
//! `{"task": …}` (`application/a2a+json`, A2A v1.0 specification §4.3.3). Artifact changes
//! alone are not notified: the next status change carries them.
//!
//! - [`store`]: where configurations live; [`InMemoryPushConfigs`] here, DynamoDB on Lambda.
//! - [`target`]: where a webhook may point (the SSRF guard).
//! - [`delivery`]: one notification POSTed, with its timeout and retries.

pub mod delivery;
mod memory;
mod notifier;
pub mod store;
pub mod target;

pub use memory::InMemoryPushConfigs;
pub use notifier::{DEFAULT_RECOVERY_GRACE, MAX_CONCURRENT_DELIVERIES, MAX_QUEUED_PER_TASK, Push};
pub use store::{ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, PushConfigStore, StoredConfig};
