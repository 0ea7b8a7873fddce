//! The v0.3 message: `{"kind":"message","messageId","role","parts",…}`.

use serde::{Deserialize, Deserializer, Serialize};

use super::de::{Kind, MessageKind, non_empty};
use super::parts::Part;
use crate::model::{self, Metadata};

/// Who sent a message: `"user"` or `"agent"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"user"`.
    User,
    /// `"agent"`.
    Agent,
}

/// One message of a conversation.
///
/// Always emitted with `"kind":"message"`. On input `kind` may be missing (many clients,
/// and the specification's own example, omit it inside params), but any other value than
/// `"message"` is refused. `messageId` must not be empty and `parts` must hold at least
/// one part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename = "message",
    rename_all = "camelCase",
    from = "RawMessage"
)]
pub struct Message {
    /// Unique id chosen by the sender.
    pub message_id: String,
    /// Sender.
    pub role: Role,
    /// Content.
    pub parts: Vec<Part>,
    /// Conversation the message belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// Task the message belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// URIs of the extensions this message uses (omitted when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Other tasks this message refers to (omitted when empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMessage {
    #[serde(rename = "kind")]
    _kind: Option<Kind<MessageKind>>,
    #[serde(deserialize_with = "non_empty")]
    message_id: String,
    role: Role,
    #[serde(deserialize_with = "at_least_one_part")]
    parts: Vec<Part>,
    context_id: Option<String>,
    task_id: Option<String>,
    metadata: Option<Metadata>,
    #[serde(default)]
    extensions: Vec<String>,
    #[serde(default)]
    reference_task_ids: Vec<String>,
}

fn at_least_one_part<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Part>, D::Error> {
    let parts = Vec::<Part>::deserialize(deserializer)?;
    if parts.is_empty() {
        Err(serde::de::Error::custom("must contain at least one part"))
    } else {
        Ok(parts)
    }
}

impl From<RawMessage> for Message {
    fn from(raw: RawMessage) -> Self {
        Self {
            message_id: raw.message_id,
            role: raw.role,
            parts: raw.parts,
            context_id: raw.context_id,
            task_id: raw.task_id,
            metadata: raw.metadata,
            extensions: raw.extensions,
            reference_task_ids: raw.reference_task_ids,
        }
    }
}

impl From<Role> for model::Role {
    fn from(role: Role) -> Self {
        match role {
            Role::User => Self::User,
            Role::Agent => Self::Agent,
        }
    }
}

impl From<model::Role> for Role {
    fn from(role: model::Role) -> Self {
        match role {
            model::Role::User => Self::User,
            model::Role::Agent => Self::Agent,
        }
    }
}

impl From<Message> for model::Message {
    fn from(message: Message) -> Self {
        Self {
            message_id: message.message_id,
            context_id: message.context_id,
            task_id: message.task_id,
            role: message.role.into(),
            parts: message.parts.into_iter().map(Into::into).collect(),
            metadata: message.metadata,
            extensions: message.extensions,
            reference_task_ids: message.reference_task_ids,
        }
    }
}

impl From<&model::Message> for Message {
    fn from(message: &model::Message) -> Self {
        Self {
            message_id: message.message_id.clone(),
            role: message.role.into(),
            parts: message.parts.iter().map(Into::into).collect(),
            context_id: message.context_id.clone(),
            task_id: message.task_id.clone(),
            metadata: message.metadata.clone(),
            extensions: message.extensions.clone(),
            reference_task_ids: message.reference_task_ids.clone(),
        }
    }
}
