//! Push notifications: where a webhook may point, and delivering to it.
pub mod delivery;
pub mod target;
