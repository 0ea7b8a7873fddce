//! The active-session quota: AgentCore caps the session workloads that are active at once
//! ("Active session workloads per account", 1,000 in US East (N. Virginia) and US West
//! (Oregon), 500 in other Regions, adjustable:
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/bedrock-agentcore-limits.html>).
//!
//! The emulator counts live sessions of its one endpoint against `--max-sessions` and
//! refuses the invocation that would start one more. The A2A contract's JSON-RPC table
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>)
//! has no row for a quota, so the refusal is the `ServiceQuotaExceededException` that
//! `InvokeAgentRuntime` lists (HTTP 402, AWS's restJson1 shape:
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html>).

use axum::response::Response;

use super::aws_error::AwsError;
use super::sessions::Unavailable;

/// AgentCore's default quota of active sessions (US East (N. Virginia), US West (Oregon)).
pub const DEFAULT_MAX_SESSIONS: usize = 1000;

/// The answer to an invocation that would start a session past the quota.
pub(super) fn refused(unavailable: &Unavailable) -> Response {
    tracing::info!(%unavailable, "platform refusal: session quota");
    let message = match unavailable {
        Unavailable::Quota(active) => format!(
            "The number of active sessions has reached this endpoint's quota of {active}; stop a session (StopRuntimeSession) or wait for one to end"
        ),
        other => other.to_string(),
    };
    AwsError::ServiceQuotaExceeded.response(&message, None)
}
