//! Deserialization helpers for the v1.0 wire: ProtoJSON's input tolerances (null means
//! unset, int32 as a number or a numeric string, base64 in either alphabet) and the
//! checks the specification asks for (required ids are not empty, lists are not empty).
//!
//! Every check here fails *inside* deserialization, so the error carries the path of the
//! offending member.

use std::fmt;

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::{DecodeError, Engine as _};
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde_json::Value;

/// A required identifier: a string that must not be empty.
pub(super) fn required_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    if text.is_empty() {
        return Err(de::Error::custom("must not be empty"));
    }
    Ok(text)
}

/// An optional string: absent, `null` and `""` all mean unset (ProtoJSON has no
/// difference between an empty string and an absent one).
pub(super) fn optional_string<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<String>, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.filter(|text| !text.is_empty()))
}

/// `null` means the type's default (ProtoJSON: lists, booleans, strings).
pub(super) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A member that is present, even when its value is `null` (a `google.protobuf.Value`).
pub(super) fn present_value<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// An optional non-negative int32 (`historyLength`, ...).
pub(super) fn int32<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    deserializer.deserialize_any(Int32Visitor)
}

/// A non-negative int32 that ProtoJSON omits when zero (`pageSize` of a list response).
pub(super) fn int32_or_zero<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    Ok(int32(deserializer)?.unwrap_or(0))
}

/// Most tasks one list request may ask for.
pub(super) const MAX_PAGE_SIZE: u32 = 100;

/// The `pageSize` of a list request: an int32 from 1 to [`MAX_PAGE_SIZE`].
pub(super) fn page_size<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u32>, D::Error> {
    let size = int32(deserializer)?;
    match size {
        Some(size) if !(1..=MAX_PAGE_SIZE).contains(&size) => Err(de::Error::custom(format!(
            "must be between 1 and {MAX_PAGE_SIZE}, got {size}"
        ))),
        _ => Ok(size),
    }
}

/// ProtoJSON int32: a JSON number (integral) or a string holding one; `null` is unset.
struct Int32Visitor;

impl Int32Visitor {
    fn check<E: de::Error>(value: i64) -> Result<Option<u32>, E> {
        if value < 0 {
            return Err(E::custom(format!(
                "must be a non-negative integer, got {value}"
            )));
        }
        u32::try_from(value)
            .ok()
            .filter(|value| i32::try_from(*value).is_ok())
            .map(Some)
            .ok_or_else(|| E::custom(format!("must be at most {}, got {value}", i32::MAX)))
    }
}

impl Visitor<'_> for Int32Visitor {
    type Value = Option<u32>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative integer (a JSON number or a numeric string)")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
        match i64::try_from(value) {
            Ok(value) => Self::check(value),
            Err(_) => Err(E::custom(format!(
                "must be at most {}, got {value}",
                i32::MAX
            ))),
        }
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
        Self::check(value)
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
        // ProtoJSON accepts `5.0` for an int32; anything with a fraction is refused.
        let whole = value as i64;
        let exact = value.is_finite() && whole as f64 == value;
        if exact {
            Self::check(whole)
        } else {
            Err(E::custom(format!(
                "must be a non-negative integer, got {value}"
            )))
        }
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
        match value.parse::<i64>() {
            Ok(number) => Self::check(number),
            Err(_) => Err(E::custom(format!(
                "must be a non-negative integer, got {value:?}"
            ))),
        }
    }
}

/// Decoding padding is optional; encoding is done elsewhere with the standard engine.
const DECODE_CONFIG: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_DECODER: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, DECODE_CONFIG);
const URL_SAFE_DECODER: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, DECODE_CONFIG);

/// Bytes carried as base64 (ProtoJSON `bytes`): standard or URL-safe alphabet, padded or not.
pub(super) struct Base64Bytes(pub(super) Vec<u8>);

impl<'de> Deserialize<'de> for Base64Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Base64Visitor)
    }
}

struct Base64Visitor;

impl Visitor<'_> for Base64Visitor {
    type Value = Base64Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a base64 string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        let url_safe = text.bytes().any(|byte| byte == b'-' || byte == b'_');
        let decoder = if url_safe {
            &URL_SAFE_DECODER
        } else {
            &STANDARD_DECODER
        };
        decoder
            .decode(text)
            .map(Base64Bytes)
            .map_err(|error| E::custom(describe_base64(&error)))
    }
}

fn describe_base64(error: &DecodeError) -> String {
    let symbol = |byte: u8| {
        if byte.is_ascii_graphic() {
            format!("'{}'", char::from(byte))
        } else {
            format!("byte 0x{byte:02X}")
        }
    };
    match *error {
        DecodeError::InvalidByte(offset, byte) => format!(
            "not valid base64: unexpected {} at offset {offset}",
            symbol(byte)
        ),
        DecodeError::InvalidLength(length) => {
            format!("not valid base64: {length} symbols cannot encode whole bytes")
        }
        DecodeError::InvalidLastSymbol(offset, byte) => format!(
            "not valid base64: the last symbol {} at offset {offset} has bits left over",
            symbol(byte)
        ),
        DecodeError::InvalidPadding => "not valid base64: wrong padding".to_owned(),
    }
}

/// `"a, b and c"`, or `"none"` for an empty list.
pub(super) fn list_found(found: &[&str]) -> String {
    match found {
        [] => "none".to_owned(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// For `skip_serializing_if`: ProtoJSON omits unset and empty strings.
pub(super) fn is_unset(value: &Option<String>) -> bool {
    value.as_deref().is_none_or(str::is_empty)
}

/// For `skip_serializing_if`: ProtoJSON omits `false`.
pub(super) fn is_false(value: &bool) -> bool {
    !*value
}
