//! `agent/getAuthenticatedExtendedCard` / `GetExtendedAgentCard`: this engine serves no
//! extended card (its card says `extendedAgentCard: false`), so the operation is refused.

use a2a_lambda_core::error::{Error, Refusal};

/// The refusal of the extended card, for `method`.
pub(in crate::engine) fn refusal(method: &str) -> Error {
    Error::new(
        Refusal::UnsupportedOperation,
        format!(
            "{method}: this agent has no extended card (capabilities.extendedAgentCard is false)"
        ),
    )
}
