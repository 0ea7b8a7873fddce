#![doc = include_str!("../README.md")]
//!
//! ## The binary and the library
//!
//! The `a2a-emulator` binary is a thin `main` over [`cli`]: `a2a-emulator --help` lists
//! its flags ([`cli::Args`]), each an [`Emulator`] setter, and [`cli::Args::build`] is
//! what it serves.
//!
//! # Features
//!
//! None is on by default: the emulator builds without TLS or crypto, which is all an
//! agent behind it on this machine needs (plain HTTP, webhooks on loopback).
//!
//! - `auth`: inbound auth as an AgentCore runtime's, SigV4 or a JWT authorizer
//!   (`Emulator::auth`, `InboundAuth`, `TestIssuer`; the binary's `--auth` and its `token`
//!   subcommand). Turns on `tls`. A test of auth turns it on:
//!   `a2a-lambda-emulator = { version = "…", features = ["auth"] }` in `[dev-dependencies]`.
//! - `tls`: https out of the emulator: webhooks (push notifications) and `--upstream` at
//!   https URLs. Without it such a webhook is not tried (its delivery gives up at once,
//!   saying why) and an https upstream is refused at start.
//!
//! A binary built without `auth` refuses `--auth` and `token` with an error naming the
//! feature; `cargo run -p a2a-lambda-emulator --features auth -- --auth jwt` builds it in.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod auth_flags;
pub mod cli;
mod emulator;
mod front;
pub mod inspector;
pub mod lambda;
mod running;
pub mod telemetry;

pub use a2a_lambda_core::error::ErrorProfile;
pub use emulator::{Emulator, EmulatorError, FrontService};
pub use front::allowlist::{
    AllowlistError, DEFAULT_REQUEST_HEADER_ALLOWLIST, RequestHeaderAllowlist,
};
#[cfg(feature = "auth")]
pub use front::auth::InboundAuth;
#[cfg(feature = "auth")]
pub use front::auth::issuer::{
    ISSUER as JWT_ISSUER, KEY_FILE as JWT_KEY_FILE, TestIssuer, TokenRequest,
};
#[cfg(feature = "auth")]
pub use front::auth::jwt::{JwtAuthorizer, JwtKeys};
pub use front::auth::{AuthError, SigV4Keys};
pub use front::is_runtime_arn;
pub use front::limits::{BadFaultSpec, FaultSpec};
pub use front::webhooks::WebhookDelivery;
pub use inspector::{InvocationFilter, InvocationRecord, Journal};
pub use running::Running;
