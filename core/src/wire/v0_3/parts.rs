//! v0.3 parts: `{"kind":"text"}`, `{"kind":"file"}` and `{"kind":"data"}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::de::{Base64Bytes, describe_value, serialize_base64};
use crate::model::{self, Metadata};

/// One piece of content, tagged by `kind`.
///
/// On input `kind` is required and decides which members are read; members that belong to
/// another kind are ignored (they must still be well-formed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", try_from = "RawPart")]
pub enum Part {
    /// `{"kind":"text","text":…}`.
    #[serde(rename = "text")]
    Text(TextPart),
    /// `{"kind":"file","file":{…}}`.
    #[serde(rename = "file")]
    File(FilePart),
    /// `{"kind":"data","data":{…}}`.
    #[serde(rename = "data")]
    Data(DataPart),
}

/// The members of a text part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The members of a file part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FilePart {
    /// The file, inline or by URI.
    pub file: File,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// The members of a data part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataPart {
    /// The data: a JSON object on input. A model value that is not an object is emitted
    /// as it is (see the [module notes](super)).
    pub data: Value,
    /// Free-form metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A file part's `file`: exactly one of `bytes` and `uri`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, try_from = "RawFile")]
pub enum File {
    /// `{"bytes":…}`: the content inline.
    Bytes(FileWithBytes),
    /// `{"uri":…}`: the content by reference.
    Uri(FileWithUri),
}

/// A file carried inline.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileWithBytes {
    /// The content, decoded (base64 on the wire: standard or URL-safe, padded or not, on
    /// input; standard and padded on output).
    #[serde(serialize_with = "serialize_base64")]
    pub bytes: Vec<u8>,
    /// Media type of the content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// File name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A file referenced by URI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileWithUri {
    /// Where the content is.
    pub uri: String,
    /// Media type of the content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// File name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum PartKind {
    Text,
    File,
    Data,
}

/// Every member any part kind has; validated into a [`Part`].
#[derive(Deserialize)]
struct RawPart {
    kind: PartKind,
    text: Option<String>,
    file: Option<File>,
    data: Option<Value>,
    metadata: Option<Metadata>,
}

impl TryFrom<RawPart> for Part {
    type Error = String;

    fn try_from(raw: RawPart) -> Result<Self, String> {
        let metadata = raw.metadata;
        match raw.kind {
            PartKind::Text => match raw.text {
                Some(text) => Ok(Self::Text(TextPart { text, metadata })),
                None => Err("a text part must carry `text`".to_owned()),
            },
            PartKind::File => match raw.file {
                Some(file) => Ok(Self::File(FilePart { file, metadata })),
                None => Err("a file part must carry `file`".to_owned()),
            },
            PartKind::Data => match raw.data {
                Some(data @ Value::Object(_)) => Ok(Self::Data(DataPart { data, metadata })),
                Some(other) => Err(format!(
                    "a data part's `data` must be a JSON object, found {}",
                    describe_value(&other)
                )),
                None => Err("a data part must carry `data`".to_owned()),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawFile {
    bytes: Option<Base64Bytes>,
    uri: Option<String>,
    mime_type: Option<String>,
    name: Option<String>,
}

impl TryFrom<RawFile> for File {
    type Error = &'static str;

    fn try_from(raw: RawFile) -> Result<Self, &'static str> {
        let RawFile {
            bytes,
            uri,
            mime_type,
            name,
        } = raw;
        match (bytes, uri) {
            (Some(Base64Bytes(bytes)), None) => Ok(Self::Bytes(FileWithBytes {
                bytes,
                mime_type,
                name,
            })),
            (None, Some(uri)) => Ok(Self::Uri(FileWithUri {
                uri,
                mime_type,
                name,
            })),
            (Some(_), Some(_)) => Err("must carry exactly one of `bytes` and `uri`, found both"),
            (None, None) => Err("must carry exactly one of `bytes` and `uri`, found neither"),
        }
    }
}

impl From<Part> for model::Part {
    fn from(part: Part) -> Self {
        match part {
            Part::Text(TextPart { text, metadata }) => Self {
                content: model::PartContent::Text(text),
                media_type: None,
                filename: None,
                metadata,
            },
            Part::File(FilePart { file, metadata }) => {
                let (content, media_type, filename) = match file {
                    File::Bytes(file) => (
                        model::PartContent::Bytes(file.bytes),
                        file.mime_type,
                        file.name,
                    ),
                    File::Uri(file) => {
                        (model::PartContent::Url(file.uri), file.mime_type, file.name)
                    }
                };
                Self {
                    content,
                    media_type,
                    filename,
                    metadata,
                }
            }
            Part::Data(DataPart { data, metadata }) => Self {
                content: model::PartContent::Data(data),
                media_type: None,
                filename: None,
                metadata,
            },
        }
    }
}

/// Text and data parts drop the model's `media_type` and `filename`: v0.3 has no place
/// for them.
impl From<&model::Part> for Part {
    fn from(part: &model::Part) -> Self {
        let metadata = part.metadata.clone();
        let mime_type = || part.media_type.clone();
        let name = || part.filename.clone();
        match &part.content {
            model::PartContent::Text(text) => Self::Text(TextPart {
                text: text.clone(),
                metadata,
            }),
            model::PartContent::Bytes(bytes) => Self::File(FilePart {
                file: File::Bytes(FileWithBytes {
                    bytes: bytes.clone(),
                    mime_type: mime_type(),
                    name: name(),
                }),
                metadata,
            }),
            model::PartContent::Url(uri) => Self::File(FilePart {
                file: File::Uri(FileWithUri {
                    uri: uri.clone(),
                    mime_type: mime_type(),
                    name: name(),
                }),
                metadata,
            }),
            model::PartContent::Data(data) => Self::Data(DataPart {
                data: data.clone(),
                metadata,
            }),
        }
    }
}
