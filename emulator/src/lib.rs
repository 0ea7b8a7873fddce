#![doc = include_str!("../README.md")]
//!
//! ## The binary and the library
//!
//! The `a2a-emulator` binary is a thin `main` over [`cli`]: `a2a-emulator --help` lists
//! its flags ([`cli::Args`]), each an [`Emulator`] setter, and [`cli::Args::build`] is
//! what it serves.

pub mod auth_flags;
pub mod cli;
mod emulator;
mod front;
pub mod inspector;
mod running;

pub use a2a_lambda_core::error::ErrorProfile;
pub use emulator::{Emulator, EmulatorError, FrontService};
pub use front::allowlist::{
    AllowlistError, DEFAULT_REQUEST_HEADER_ALLOWLIST, RequestHeaderAllowlist,
};
pub use front::auth::issuer::{
    ISSUER as JWT_ISSUER, KEY_FILE as JWT_KEY_FILE, TestIssuer, TokenRequest,
};
pub use front::auth::jwt::{JwtAuthorizer, JwtKeys};
pub use front::auth::sigv4::SigV4Keys;
pub use front::auth::{AuthError, InboundAuth};
pub use front::is_runtime_arn;
pub use front::limits::{BadFaultSpec, FaultSpec};
pub use front::webhooks::WebhookDelivery;
pub use inspector::{InvocationFilter, InvocationRecord, Journal};
pub use running::Running;
