//! Push notifications: a task's webhook configurations and their delivery.
//!
//! [`store`] holds the configurations; [`target`] says where a webhook may point (the
//! SSRF guard); [`delivery`] POSTs one notification, with its timeout and retries.

pub mod delivery;
pub mod store;
pub mod target;

pub use store::{ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, PushConfigStore, StoredConfig};
