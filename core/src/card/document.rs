//! The card documents as each version writes them: plain serde data.
//!
//! [`CardV0_3`] follows the v0.3 `AgentCard`; [`CardV1_0`] the v1.0 `AgentCard` in
//! ProtoJSON; [`HybridCard`] is the v1.0 document plus the v0.3 members a v0.3 client
//! needs (`url`, `protocolVersion`, `preferredTransport`, `security`,
//! `supportsAuthenticatedExtendedCard`), which is what the official SDKs serve and accept.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The organization behind an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderDoc {
    /// Organization name.
    pub organization: String,
    /// Organization URL.
    pub url: String,
}

/// One skill, in the shape both versions share.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillDoc {
    /// Unique skill id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What the skill does.
    pub description: String,
    /// Keywords.
    pub tags: Vec<String>,
    /// Example prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Media types the skill accepts, when they differ from the card's defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub input_modes: Vec<String>,
    /// Media types the skill produces, when they differ from the card's defaults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_modes: Vec<String>,
}

/// v0.3 `capabilities`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilitiesV0_3 {
    /// The agent streams (`message/stream`, `tasks/resubscribe`).
    #[serde(default)]
    pub streaming: bool,
    /// The agent pushes notifications.
    #[serde(default)]
    pub push_notifications: bool,
    /// The agent keeps status history.
    #[serde(default)]
    pub state_transition_history: bool,
}

/// v1.0 `capabilities`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CapabilitiesV1_0 {
    /// The agent streams (`SendStreamingMessage`, `SubscribeToTask`).
    #[serde(default)]
    pub streaming: bool,
    /// The agent pushes notifications.
    #[serde(default)]
    pub push_notifications: bool,
    /// The agent serves an extended card.
    #[serde(default)]
    pub extended_agent_card: bool,
}

/// A v1.0 `AgentInterface`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterfaceDoc {
    /// Where to send requests.
    pub url: String,
    /// `JSONRPC`, `GRPC` or `HTTP+JSON`.
    pub protocol_binding: String,
    /// `Major.Minor` of the protocol spoken there.
    pub protocol_version: String,
}

/// The v0.3 agent card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardV0_3 {
    /// Protocol version, `"0.3.0"`.
    pub protocol_version: String,
    /// Agent name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// Where to send JSON-RPC requests.
    pub url: String,
    /// Transport at `url`: `JSONRPC`.
    pub preferred_transport: String,
    /// The agent's own version.
    pub version: String,
    /// Organization behind the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderDoc>,
    /// Documentation URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// Icon URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
    /// What the agent can do.
    pub capabilities: CapabilitiesV0_3,
    /// Security schemes by name (v0.3 shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<Map<String, Value>>,
    /// Which schemes a caller must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Value>,
    /// Media types accepted by default.
    pub default_input_modes: Vec<String>,
    /// Media types produced by default.
    pub default_output_modes: Vec<String>,
    /// Skills.
    pub skills: Vec<SkillDoc>,
    /// The agent serves `agent/getAuthenticatedExtendedCard`.
    #[serde(default)]
    pub supports_authenticated_extended_card: bool,
}

/// The v1.0 agent card (ProtoJSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CardV1_0 {
    /// Agent name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// Interfaces, preferred first.
    pub supported_interfaces: Vec<InterfaceDoc>,
    /// Organization behind the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderDoc>,
    /// The agent's own version.
    pub version: String,
    /// Documentation URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// What the agent can do.
    pub capabilities: CapabilitiesV1_0,
    /// Security schemes by name (v1.0 shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_schemes: Option<Map<String, Value>>,
    /// Which schemes a caller must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_requirements: Option<Value>,
    /// Media types accepted by default.
    pub default_input_modes: Vec<String>,
    /// Media types produced by default.
    pub default_output_modes: Vec<String>,
    /// Skills.
    pub skills: Vec<SkillDoc>,
    /// Icon URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon_url: Option<String>,
}

/// The hybrid card: the v1.0 document plus the v0.3 members.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HybridCard {
    /// The v1.0 card. Its `securitySchemes` entries carry both versions' members.
    #[serde(flatten)]
    pub v1_0: CardV1_0,
    /// v0.3: where to send JSON-RPC requests.
    pub url: String,
    /// v0.3: `"0.3.0"`.
    pub protocol_version: String,
    /// v0.3: `JSONRPC`.
    pub preferred_transport: String,
    /// v0.3: which schemes a caller must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Value>,
    /// v0.3: the agent serves `agent/getAuthenticatedExtendedCard`.
    #[serde(default)]
    pub supports_authenticated_extended_card: bool,
}
