//! `Part`: exactly one of `text`, `raw`, `url`, `data`, with optional `mediaType`,
//! `filename` and `metadata`.

use base64::display::Base64Display;
use base64::engine::general_purpose::STANDARD;
use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::de::{self as helpers, Base64Bytes};
use crate::model::{self, Metadata};

/// One piece of content of a message or artifact.
///
/// Reading refuses a part with no content member or with several, naming the members
/// found: `a part must carry exactly one of text, raw, url, data (found text and url)`.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(try_from = "PartFields")]
pub struct Part {
    /// The content member.
    pub content: PartContent,
    /// `mediaType`: the content's media type (any kind of part may carry one).
    pub media_type: Option<String>,
    /// `filename`: a file name for the content.
    pub filename: Option<String>,
    /// `metadata`: free-form metadata.
    pub metadata: Option<Metadata>,
}

/// The one content member of a [`Part`].
#[derive(Debug, Clone, PartialEq)]
pub enum PartContent {
    /// `text`: plain text.
    Text(String),
    /// `raw`: bytes, base64 on the wire (read in either alphabet, written standard and padded).
    Raw(Vec<u8>),
    /// `url`: content referenced by URL.
    Url(String),
    /// `data`: any JSON value (a `google.protobuf.Value`, so `null` and arrays too).
    Data(Value),
}

/// Every member a part may carry, each optional; [`Part`] checks that exactly one of the
/// content members is there.
#[derive(serde::Deserialize)]
struct PartFields {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    raw: Option<Base64Bytes>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default, deserialize_with = "helpers::present_value")]
    data: Option<Value>,
    #[serde(
        default,
        rename = "mediaType",
        alias = "media_type",
        deserialize_with = "helpers::optional_string"
    )]
    media_type: Option<String>,
    #[serde(default, deserialize_with = "helpers::optional_string")]
    filename: Option<String>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

impl TryFrom<PartFields> for Part {
    type Error = String;

    fn try_from(fields: PartFields) -> Result<Self, String> {
        let PartFields {
            text,
            raw,
            url,
            data,
            media_type,
            filename,
            metadata,
        } = fields;
        let content = match (text, raw, url, data) {
            (Some(text), None, None, None) => PartContent::Text(text),
            (None, Some(raw), None, None) => PartContent::Raw(raw.0),
            (None, None, Some(url), None) => PartContent::Url(url),
            (None, None, None, Some(data)) => PartContent::Data(data),
            (text, raw, url, data) => {
                let found: Vec<&str> = [
                    text.is_some().then_some("text"),
                    raw.is_some().then_some("raw"),
                    url.is_some().then_some("url"),
                    data.is_some().then_some("data"),
                ]
                .into_iter()
                .flatten()
                .collect();
                return Err(format!(
                    "a part must carry exactly one of text, raw, url, data (found {})",
                    helpers::list_found(&found)
                ));
            }
        };
        Ok(Self {
            content,
            media_type,
            filename,
            metadata,
        })
    }
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match &self.content {
            PartContent::Text(text) => map.serialize_entry("text", text)?,
            PartContent::Raw(bytes) => {
                map.serialize_entry("raw", &Base64Text(bytes))?;
            }
            PartContent::Url(url) => map.serialize_entry("url", url)?,
            PartContent::Data(data) => map.serialize_entry("data", data)?,
        }
        if let Some(metadata) = &self.metadata {
            map.serialize_entry("metadata", metadata)?;
        }
        if !helpers::is_unset(&self.filename) {
            map.serialize_entry("filename", &self.filename)?;
        }
        if !helpers::is_unset(&self.media_type) {
            map.serialize_entry("mediaType", &self.media_type)?;
        }
        map.end()
    }
}

/// Writes bytes as standard padded base64 without an intermediate string.
pub(super) struct Base64Text<'a>(pub(super) &'a [u8]);

impl Serialize for Base64Text<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&Base64Display::new(self.0, &STANDARD))
    }
}

/// A required, non-empty list of parts (`parts` of a message or an artifact).
pub(super) fn non_empty_parts<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Part>, D::Error> {
    let parts = Vec::<Part>::deserialize(deserializer)?;
    if parts.is_empty() {
        return Err(de::Error::custom("must contain at least one part"));
    }
    Ok(parts)
}

impl From<Part> for model::Part {
    fn from(part: Part) -> Self {
        Self {
            content: match part.content {
                PartContent::Text(text) => model::PartContent::Text(text),
                PartContent::Raw(bytes) => model::PartContent::Bytes(bytes),
                PartContent::Url(url) => model::PartContent::Url(url),
                PartContent::Data(data) => model::PartContent::Data(data),
            },
            media_type: part.media_type,
            filename: part.filename,
            metadata: part.metadata,
        }
    }
}

impl From<&model::Part> for Part {
    fn from(part: &model::Part) -> Self {
        Self {
            content: match &part.content {
                model::PartContent::Text(text) => PartContent::Text(text.clone()),
                model::PartContent::Bytes(bytes) => PartContent::Raw(bytes.clone()),
                model::PartContent::Url(url) => PartContent::Url(url.clone()),
                model::PartContent::Data(data) => PartContent::Data(data.clone()),
            },
            media_type: part.media_type.clone(),
            filename: part.filename.clone(),
            metadata: part.metadata.clone(),
        }
    }
}
