//! The two wire versions: serde types exactly as each specification writes them, and
//! lossless conversion to and from [`crate::model`].
//!
//! Parsing reports the path of the offending member, rooted at `params`
//! (`params.message.parts[1]`), as a -32602 [`Error`].

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::error::Error;

pub mod v0_3;
pub mod v1_0;

/// Deserializes a method's `params` into `T`, naming the offending member on failure.
///
/// Absent params are refused with -32602 (every A2A method takes params).
pub fn parse_params<T: DeserializeOwned>(params: Option<&RawValue>) -> Result<T, Error> {
    let Some(raw) = params else {
        return Err(Error::invalid_params("params: required"));
    };
    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let location = if path == "." {
            "params".to_owned()
        } else {
            format!("params.{path}")
        };
        Error::invalid_params(format!(
            "{location}: {}",
            crate::jsonrpc::strip_position(&inner)
        ))
    })
}

/// Every item of a list, each written through its view (the versions' borrowed views of
/// tasks, messages and artifacts).
pub(crate) struct Each<'a, T, V>(pub(crate) &'a [T], pub(crate) fn(&'a T) -> V);

impl<T, V> Each<'_, T, V> {
    /// For `skip_serializing_if`: an empty list is not written.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a, T, V: serde::Serialize> serde::Serialize for Each<'a, T, V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(self.1))
    }
}
