//! Inbound auth, AgentCore's two kinds (one per runtime): IAM SigV4 (`sigv4`) or a
//! `customJWTAuthorizer` (`jwt`), as "Authenticate and authorize with Inbound Auth and
//! Outbound Auth" describes
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-oauth.html>).
//!
//! A step of its own before routing (`InboundAuthLayer`, in `layer.rs`): the request's
//! body is read first (SigV4 signs it), checked, then handed on as it came; with auth off
//! the step is not in the stack.
//!
//! The check needs the `auth` feature (its crypto: `aws-sigv4`, `jsonwebtoken`,
//! `aws-lc-rs`); without it only what every build uses is here: [`AuthError`], the
//! credentials type ([`keys`]) and the 403 of the `access-denied` fault.
//!
//! Refusals, from the A2A protocol contract
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>):
//! SigV4 runtimes answer 403 `AccessDeniedException` without `WWW-Authenticate`; OAuth
//! runtimes answer a missing or invalid token with 401 and
//! `WWW-Authenticate: Bearer resource_metadata="…/invocations/.well-known/oauth-protected-resource?qualifier=…"`,
//! and serve that RFC 9728 document. A request of the other kind is refused with 403
//! AccessDenied "Authorization method mismatch…".

#[cfg(feature = "auth")]
pub mod issuer;
#[cfg(feature = "auth")]
pub mod jwt;
pub mod keys;
#[cfg(feature = "auth")]
mod layer;
#[cfg(feature = "auth")]
mod metadata;
#[cfg(feature = "auth")]
pub mod sigv4;

use axum::http::HeaderValue;
use axum::response::Response;

use super::aws_error::AwsError;

pub use keys::SigV4Keys;
#[cfg(feature = "auth")]
pub(crate) use layer::InboundAuthLayer;
#[cfg(feature = "auth")]
pub use layer::{Guard, InboundAuth};

/// What AWS answers a request with no signature at all.
pub const MISSING_TOKEN: &str = "Missing Authentication Token";

/// Why an auth setting cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A setting (flag, file) is invalid.
    #[error("{0}")]
    Config(String),
    /// A signing key cannot be made, read or used.
    #[error("JWT signing key: {0}")]
    Key(String),
}

/// AWS's 403 AccessDenied; `why` is logged.
fn access_denied(message: &str, why: &str, request_id: Option<&HeaderValue>) -> Response {
    tracing::info!(why, "inbound auth refused the request (403)");
    AwsError::AccessDenied.response(message, request_id)
}

/// The 403 an unsigned request gets from a SigV4 runtime (also the `access-denied` fault).
pub(crate) fn unsigned(request_id: Option<&HeaderValue>) -> Response {
    access_denied(MISSING_TOKEN, MISSING_TOKEN, request_id)
}
