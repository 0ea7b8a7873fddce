//! # a2a-emulator
//!
//! A local emulator of AWS Bedrock AgentCore Runtime in front of *your* agent, for
//! integration tests and offline development: AWS's invocation paths, the session header,
//! one isolated container per session, throttling, faults, and AgentCore's JSON-RPC errors
//! with their real HTTP statuses.
//!
//! In a test, the way wiremock's `MockServer::start()` is used: build an emulator around
//! your agent, start it on a free loopback port, point your client at its URL.
//!
//! ```
//! use a2a_lambda_emulator::Emulator;
//! use a2a_lambda_server::agents::EchoAgent;
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let emulator = Emulator::new(EchoAgent).start().await?;
//! let card = format!("{}/.well-known/agent-card.json", emulator.url());
//! assert!(card.starts_with("http://127.0.0.1:"));
//! emulator.shutdown().await?;
//! # Ok(())
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
//! ```
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
mod running;

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
