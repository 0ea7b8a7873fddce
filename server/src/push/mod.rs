//! Push notifications: a task's webhook configurations and their delivery.
//!
//! [`store`] holds the configurations; the engine tells each configured webhook about
//! every status change of its task after `submitted` (working, input-required,
//! auth-required and the terminal states), POSTing the whole task in the version of the
//! request that created the configuration.

pub mod store;

pub use store::{ConfigWriteError, MAX_CONFIGS_PER_TASK, Mark, PushConfigStore, StoredConfig};
