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
