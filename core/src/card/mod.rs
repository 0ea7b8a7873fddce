//! The agent card: one configuration, rendered as a v0.3, a v1.0 or a hybrid document.
//!
//! The card says what the agent does, never how it is built. [`AgentCard`] holds both the
//! public description and the agent's [`InternalSettings`] (instructions, model id,
//! metadata, environment); the renderers copy public fields one by one from an allowlist,
//! so nothing internal can reach a document, whatever is added to the settings later.
//!
//! ```
//! use a2a_lambda_core::card::{AgentCard, Skill};
//!
//! let card = AgentCard::new("Echo", "Echoes what you send.", "1.0.0")
//!     .with_skill(Skill::new("echo", "Echo", "Repeats the input.", ["echo"]));
//! card.validate().unwrap();
//! let hybrid = card.render_hybrid("http://127.0.0.1:9000/");
//! assert_eq!(hybrid.url, "http://127.0.0.1:9000/");
//! assert_eq!(hybrid.v1_0.supported_interfaces[0].protocol_version, "1.0");
//! ```

use std::collections::BTreeMap;

use serde_json::Value;

pub mod bindings;
pub mod document;
pub mod security;

pub use bindings::{Binding, Bindings, BindingsError, GRPC_BINDING};
pub use document::{CardV0_3, CardV1_0, HybridCard};
pub use security::SecurityMechanism;

use document::{CapabilitiesV0_3, CapabilitiesV1_0, InterfaceDoc, ProviderDoc, SkillDoc};

/// The v0.3 `protocolVersion` written in cards.
pub const PROTOCOL_VERSION_V0_3: &str = "0.3.0";
/// The card's `protocolBinding` of JSON-RPC.
pub const JSONRPC_BINDING: &str = "JSONRPC";
/// Where an agent serves its card (A2A v0.3 §5.3, v1.0 §8.2: the well-known URI).
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// Who provides the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// Organization name.
    pub organization: String,
    /// Organization URL.
    pub url: String,
}

/// One thing the agent can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Unique id.
    pub id: String,
    /// Human-readable name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Keywords (at least one: v1.0 requires a non-empty list).
    pub tags: Vec<String>,
    /// Example prompts.
    pub examples: Vec<String>,
    /// Accepted media types, when they differ from the card's defaults.
    pub input_modes: Vec<String>,
    /// Produced media types, when they differ from the card's defaults.
    pub output_modes: Vec<String>,
}

impl Skill {
    /// A skill with its required fields.
    pub fn new<T: Into<String>>(
        id: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
        tags: impl IntoIterator<Item = T>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            description: description.into(),
            tags: tags.into_iter().map(Into::into).collect(),
            examples: Vec::new(),
            input_modes: Vec::new(),
            output_modes: Vec::new(),
        }
    }
}

/// What the host and agent can honour. A host that cannot stream sets `streaming: false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// Streaming methods are served.
    pub streaming: bool,
    /// Push notifications are sent.
    pub push_notifications: bool,
    /// An extended card is served.
    pub extended_card: bool,
}

/// Settings the agent uses internally. Never rendered into any card.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InternalSettings {
    /// The agent's instructions (system prompt).
    pub instructions: Option<String>,
    /// Model identifier.
    pub model_id: Option<String>,
    /// Internal metadata.
    pub metadata: BTreeMap<String, String>,
    /// Environment the agent runs with.
    pub environment: BTreeMap<String, String>,
}

/// An agent card configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCard {
    /// Agent name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The agent's own version.
    pub version: String,
    /// Who provides it.
    pub provider: Option<Provider>,
    /// Documentation URL.
    pub documentation_url: Option<String>,
    /// Icon URL.
    pub icon_url: Option<String>,
    /// Skills (at least one).
    pub skills: Vec<Skill>,
    /// Media types accepted by default.
    pub default_input_modes: Vec<String>,
    /// Media types produced by default.
    pub default_output_modes: Vec<String>,
    /// What the agent and host can honour.
    pub capabilities: Capabilities,
    /// How callers authenticate.
    pub security: SecurityMechanism,
    /// The protocol bindings served, preferred first (set by the host; JSON-RPC only by
    /// default).
    pub bindings: Bindings,
    /// Internal settings, never published.
    pub internal: InternalSettings,
}

/// Why a card configuration or public URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// A required text field is empty.
    #[error("agent card: `{0}` is required and must not be empty")]
    Missing(&'static str),
    /// A required list is empty.
    #[error("agent card: `{0}` must list at least one entry")]
    EmptyList(&'static str),
    /// A skill is incomplete.
    #[error("agent card: skills[{index}] ({id:?}): {problem}")]
    Skill {
        /// Position in `skills`.
        index: usize,
        /// The skill's id, as given.
        id: String,
        /// What is wrong.
        problem: String,
    },
    /// Two skills share an id.
    #[error("agent card: skill id {0:?} is used more than once")]
    DuplicateSkill(String),
    /// A URL is not an absolute http(s) URL.
    #[error("agent card: `{field}` must be an absolute http:// or https:// URL, got {value:?}")]
    Url {
        /// Which field.
        field: &'static str,
        /// The value given.
        value: String,
    },
}

impl AgentCard {
    /// A card with its required text fields, text in and out, no skills yet.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            version: version.into(),
            provider: None,
            documentation_url: None,
            icon_url: None,
            skills: Vec::new(),
            default_input_modes: vec!["text/plain".to_owned()],
            default_output_modes: vec!["text/plain".to_owned()],
            capabilities: Capabilities::default(),
            security: SecurityMechanism::None,
            bindings: Bindings::default(),
            internal: InternalSettings::default(),
        }
    }

    /// Adds a skill.
    #[must_use]
    pub fn with_skill(mut self, skill: Skill) -> Self {
        self.skills.push(skill);
        self
    }

    /// Says whether the agent streams (`capabilities.streaming`; off by default). A host
    /// that cannot stream still advertises `false`.
    #[must_use]
    pub fn with_streaming(mut self, streaming: bool) -> Self {
        self.capabilities.streaming = streaming;
        self
    }

    /// Checks every required field, so a broken card fails at startup rather than at run
    /// time.
    ///
    /// # Errors
    /// The first problem found.
    pub fn validate(&self) -> Result<(), CardError> {
        for (field, value) in [
            ("name", &self.name),
            ("description", &self.description),
            ("version", &self.version),
        ] {
            if value.trim().is_empty() {
                return Err(CardError::Missing(field));
            }
        }
        if let Some(provider) = &self.provider {
            if provider.organization.trim().is_empty() {
                return Err(CardError::Missing("provider.organization"));
            }
            validate_url("provider.url", &provider.url)?;
        }
        for (field, value) in [
            ("documentationUrl", &self.documentation_url),
            ("iconUrl", &self.icon_url),
        ] {
            if let Some(url) = value {
                validate_url(field, url)?;
            }
        }
        for (field, modes) in [
            ("defaultInputModes", &self.default_input_modes),
            ("defaultOutputModes", &self.default_output_modes),
        ] {
            if modes.iter().all(|mode| mode.trim().is_empty()) {
                return Err(CardError::EmptyList(field));
            }
        }
        if self.skills.is_empty() {
            return Err(CardError::EmptyList("skills"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (index, skill) in self.skills.iter().enumerate() {
            let problem = |problem: &str| CardError::Skill {
                index,
                id: skill.id.clone(),
                problem: problem.to_owned(),
            };
            if skill.id.trim().is_empty() {
                return Err(problem("`id` is required"));
            }
            if skill.name.trim().is_empty() {
                return Err(problem("`name` is required"));
            }
            if skill.description.trim().is_empty() {
                return Err(problem("`description` is required"));
            }
            if skill.tags.iter().all(|tag| tag.trim().is_empty()) {
                return Err(problem("`tags` must list at least one tag"));
            }
            if !seen.insert(skill.id.as_str()) {
                return Err(CardError::DuplicateSkill(skill.id.clone()));
            }
        }
        Ok(())
    }

    /// The v0.3 card for an agent served at `url`.
    pub fn render_v0_3(&self, url: &str) -> CardV0_3 {
        let security = self.security;
        CardV0_3 {
            protocol_version: PROTOCOL_VERSION_V0_3.to_owned(),
            name: self.name.clone(),
            description: self.description.clone(),
            url: url.to_owned(),
            preferred_transport: JSONRPC_BINDING.to_owned(),
            version: self.version.clone(),
            provider: self.provider_doc(),
            documentation_url: self.documentation_url.clone(),
            icon_url: self.icon_url.clone(),
            capabilities: CapabilitiesV0_3 {
                streaming: self.capabilities.streaming,
                push_notifications: self.capabilities.push_notifications,
                state_transition_history: false,
            },
            security_schemes: security.schemes(SecurityMechanism::scheme_v0_3),
            security: security.requirement_v0_3(),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self.skill_docs(),
            supports_authenticated_extended_card: self.capabilities.extended_card,
        }
    }

    /// The v1.0 card for an agent served at `url`: both versions are spoken there, 1.0
    /// preferred.
    pub fn render_v1_0(&self, url: &str) -> CardV1_0 {
        self.v1_0_document(url, SecurityMechanism::scheme_v1_0)
    }

    /// The hybrid card: the v1.0 document plus the v0.3 members, with security schemes
    /// carrying both versions' members (see [`SecurityMechanism::scheme_hybrid`]).
    pub fn render_hybrid(&self, url: &str) -> HybridCard {
        HybridCard {
            v1_0: self.v1_0_document(url, SecurityMechanism::scheme_hybrid),
            url: url.to_owned(),
            protocol_version: PROTOCOL_VERSION_V0_3.to_owned(),
            preferred_transport: JSONRPC_BINDING.to_owned(),
            security: self.security.requirement_v0_3(),
            supports_authenticated_extended_card: self.capabilities.extended_card,
        }
    }

    fn v1_0_document(
        &self,
        url: &str,
        project: fn(SecurityMechanism) -> Option<Value>,
    ) -> CardV1_0 {
        CardV1_0 {
            name: self.name.clone(),
            description: self.description.clone(),
            supported_interfaces: self.interfaces(url),
            provider: self.provider_doc(),
            version: self.version.clone(),
            documentation_url: self.documentation_url.clone(),
            capabilities: CapabilitiesV1_0 {
                streaming: self.capabilities.streaming,
                push_notifications: self.capabilities.push_notifications,
                extended_agent_card: self.capabilities.extended_card,
            },
            security_schemes: self.security.schemes(project),
            security_requirements: self.security.requirement_v1_0(),
            default_input_modes: self.default_input_modes.clone(),
            default_output_modes: self.default_output_modes.clone(),
            skills: self.skill_docs(),
            icon_url: self.icon_url.clone(),
        }
    }

    /// One interface per binding served, preferred first, all at v1.0; then JSON-RPC at
    /// v0.3. The HTTP+JSON interface's URL is the base its routes are appended to
    /// (`{url}/message:send`), so it is written without a trailing slash.
    fn interfaces(&self, url: &str) -> Vec<InterfaceDoc> {
        let interface = |binding: Binding, version: &str| InterfaceDoc {
            url: match binding {
                Binding::HttpJson => url.trim_end_matches('/').to_owned(),
                Binding::Grpc => self.bindings.grpc_url().unwrap_or(url).to_owned(),
                _ => url.to_owned(),
            },
            protocol_binding: binding.card_name().to_owned(),
            protocol_version: version.to_owned(),
        };
        let mut interfaces: Vec<InterfaceDoc> = self
            .bindings
            .iter()
            .map(|binding| interface(binding, "1.0"))
            .collect();
        if self.bindings.serves(Binding::JsonRpc) {
            interfaces.push(interface(Binding::JsonRpc, "0.3"));
        }
        interfaces
    }

    fn provider_doc(&self) -> Option<ProviderDoc> {
        self.provider.as_ref().map(|provider| ProviderDoc {
            organization: provider.organization.clone(),
            url: provider.url.clone(),
        })
    }

    fn skill_docs(&self) -> Vec<SkillDoc> {
        self.skills
            .iter()
            .map(|skill| SkillDoc {
                id: skill.id.clone(),
                name: skill.name.clone(),
                description: skill.description.clone(),
                tags: skill.tags.clone(),
                examples: skill.examples.clone(),
                input_modes: skill.input_modes.clone(),
                output_modes: skill.output_modes.clone(),
            })
            .collect()
    }
}

/// Checks that a URL is absolute http(s) with a host; hosts call it on the public URL
/// they will render cards with.
///
/// # Errors
/// [`CardError::Url`] naming the field.
pub fn validate_url(field: &'static str, value: &str) -> Result<(), CardError> {
    let rest = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"));
    let host = rest.map(|rest| rest.split(['/', '?', '#']).next().unwrap_or_default());
    match host {
        Some(host) if !host.is_empty() && !value.chars().any(char::is_whitespace) => Ok(()),
        _ => Err(CardError::Url {
            field,
            value: value.to_owned(),
        }),
    }
}
