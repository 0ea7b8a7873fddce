//! Deserialization helpers shared by the v0.3 types: `kind` markers, non-empty ids,
//! non-negative counts, base64 bytes and the `kind` dispatch of result unions.
//!
//! Every refusal here is a serde error raised while deserializing, so the caller's
//! `serde_path_to_error` names the member it concerns.

use std::fmt;
use std::marker::PhantomData;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serializer};
use serde_json::Value;

/// The value a `kind` member must hold for one wire type.
pub(super) trait KindName {
    /// The exact string.
    const NAME: &'static str;
}

/// `"kind": "message"`.
pub(super) struct MessageKind;
impl KindName for MessageKind {
    const NAME: &'static str = "message";
}

/// `"kind": "task"`.
pub(super) struct TaskKind;
impl KindName for TaskKind {
    const NAME: &'static str = "task";
}

/// `"kind": "status-update"`.
pub(super) struct StatusUpdateKind;
impl KindName for StatusUpdateKind {
    const NAME: &'static str = "status-update";
}

/// `"kind": "artifact-update"`.
pub(super) struct ArtifactUpdateKind;
impl KindName for ArtifactUpdateKind {
    const NAME: &'static str = "artifact-update";
}

/// A `kind` member that must equal `K::NAME`; any other string is refused.
pub(super) struct Kind<K>(PhantomData<K>);

impl<'de, K: KindName> Deserialize<'de> for Kind<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KindVisitor<K>(PhantomData<K>);

        impl<K: KindName> Visitor<'_> for KindVisitor<K> {
            type Value = Kind<K>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "the string \"{}\"", K::NAME)
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Kind<K>, E> {
                if value == K::NAME {
                    Ok(Kind(PhantomData))
                } else {
                    Err(E::custom(format!(
                        "must be \"{}\", found {value:?}",
                        K::NAME
                    )))
                }
            }
        }

        deserializer.deserialize_str(KindVisitor(PhantomData))
    }
}

/// A required id: a string that must not be empty.
pub(super) fn non_empty<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let value = String::deserialize(deserializer)?;
    if value.is_empty() {
        Err(de::Error::custom("must not be empty"))
    } else {
        Ok(value)
    }
}

/// A `historyLength`: absent, `null` or a non-negative integer that fits in 32 bits.
pub(super) fn history_length<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    Option::<Count>::deserialize(deserializer).map(|count| count.map(|Count(value)| value))
}

/// A non-negative integer that fits in a `u32`, refused with a message that says so.
struct Count(u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor;

        impl Visitor<'_> for CountVisitor {
            type Value = Count;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-negative integer")
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Count, E> {
                u32::try_from(value)
                    .map(Count)
                    .map_err(|_| E::custom(format!("must be at most {}, found {value}", u32::MAX)))
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Count, E> {
                match u64::try_from(value) {
                    Ok(value) => self.visit_u64(value),
                    Err(_) => Err(E::custom(format!(
                        "must be a non-negative integer, found {value}"
                    ))),
                }
            }

            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Count, E> {
                Err(E::custom(format!(
                    "must be a non-negative integer, found {value}"
                )))
            }
        }

        deserializer.deserialize_u64(CountVisitor)
    }
}

/// Decoding configuration: padding optional, trailing bits tolerated (as most decoders do).
const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(true);
const STANDARD_LENIENT: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
const URL_SAFE_LENIENT: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);

/// Writes bytes as standard, padded base64.
pub(super) fn serialize_base64<S: Serializer>(
    bytes: &[u8],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Base64 text decoded to bytes: standard or URL-safe alphabet, padded or not.
pub(super) struct Base64Bytes(pub(super) Vec<u8>);

impl<'de> Deserialize<'de> for Base64Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Base64Visitor;

        impl Visitor<'_> for Base64Visitor {
            type Value = Base64Bytes;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Base64Bytes, E> {
                decode_base64(text).map(Base64Bytes).map_err(E::custom)
            }
        }

        deserializer.deserialize_str(Base64Visitor)
    }
}

fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let url_safe = text.bytes().any(|byte| byte == b'-' || byte == b'_');
    let engine = if url_safe {
        &URL_SAFE_LENIENT
    } else {
        &STANDARD_LENIENT
    };
    engine.decode(text).map_err(|error| {
        let reason = match error {
            base64::DecodeError::InvalidByte(offset, byte)
            | base64::DecodeError::InvalidLastSymbol(offset, byte) => {
                format!("unexpected {} at offset {offset}", describe_byte(byte))
            }
            base64::DecodeError::InvalidLength(_) => {
                "its length cannot be that of base64 text".to_owned()
            }
            base64::DecodeError::InvalidPadding => "its padding is wrong".to_owned(),
        };
        format!("not valid base64: {reason}")
    })
}

fn describe_byte(byte: u8) -> String {
    if byte.is_ascii_graphic() {
        format!("character '{}'", char::from(byte))
    } else {
        format!("byte 0x{byte:02x}")
    }
}

/// What a JSON value is, for messages: "a string", "an array", ….
pub(super) fn describe_value(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads a union member (a result or a stream event) as a JSON value and returns it with
/// its `kind`, refusing values that are not objects or carry no string `kind`.
///
/// `expected` lists the kinds the union accepts, for the message.
pub(super) fn read_tagged<'de, D: Deserializer<'de>>(
    deserializer: D,
    expected: &str,
) -> Result<(String, Value), D::Error> {
    let value = Value::deserialize(deserializer)?;
    let kind = match &value {
        Value::Object(object) => match object.get("kind") {
            Some(Value::String(kind)) => kind.clone(),
            Some(other) => {
                return Err(de::Error::custom(format!(
                    "`kind` must be a string ({expected}), found {}",
                    describe_value(other)
                )));
            }
            None => {
                return Err(de::Error::custom(format!(
                    "missing field `kind` (expected {expected})"
                )));
            }
        },
        other => {
            return Err(de::Error::custom(format!(
                "expected an object with a `kind` of {expected}, found {}",
                describe_value(other)
            )));
        }
    };
    Ok((kind, value))
}

/// The refusal of an unknown `kind` in a union.
pub(super) fn unknown_kind<E: de::Error>(kind: &str, expected: &str) -> E {
    E::custom(format!("unknown kind {kind:?} (expected {expected})"))
}

/// Deserializes a union member from the value [`read_tagged`] returned, keeping the path
/// of the offending member inside it in the message.
pub(super) fn from_tagged<T: DeserializeOwned, E: de::Error>(value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." {
            E::custom(inner)
        } else {
            E::custom(format!("{path}: {inner}"))
        }
    })
}
