//! Request bodies of the binding: a JSON object (the v1.0 request message), refused with
//! the same precision as a JSON-RPC body, and merged with the path's parameters.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::error::{Error, Refusal};
use crate::jsonrpc;

/// The body as a JSON object, or `None` when it is empty (only whitespace): `:cancel` and
/// `:subscribe` are sent without one.
///
/// ```
/// use a2a_lambda_core::rest::body;
///
/// assert!(body::parse(b"  ").unwrap().is_none());
/// assert_eq!(body::parse(br#"{"id":"t-1"}"#).unwrap().unwrap().get(), r#"{"id":"t-1"}"#);
/// assert!(body::parse(b"[1]").is_err());
/// ```
///
/// # Errors
/// -32700 when the body is not JSON (or not UTF-8), -32600 when it nests deeper than
/// [`jsonrpc::MAX_DEPTH`] or is JSON but not an object.
pub fn parse(body: &[u8]) -> Result<Option<&RawValue>, Error> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    jsonrpc::check_depth(body)?;
    let text = std::str::from_utf8(body)
        .map_err(|_| Error::new(Refusal::Parse, "the body is not valid UTF-8"))?;
    let raw: &RawValue =
        serde_json::from_str(text).map_err(|error| jsonrpc::parse_error(&error))?;
    if !raw.get().starts_with('{') {
        return Err(Error::invalid_request(
            "the body must be a JSON object (the operation's request message)",
        ));
    }
    Ok(Some(raw))
}

/// The body's members with the path's parameters set: a member the body also has must
/// name the same thing (`{"id": "t-1"}` on `/tasks/t-1:cancel`).
///
/// # Errors
/// -32602 naming the member whose body value differs from the path's.
pub fn with_path(
    body: Option<&RawValue>,
    path: &[(&'static str, &str)],
) -> Result<Map<String, Value>, Error> {
    let mut members: Map<String, Value> = match body {
        Some(raw) => serde_json::from_str(raw.get())
            .map_err(|error| Error::invalid_params(jsonrpc::strip_position(&error)))?,
        None => Map::new(),
    };
    for (name, value) in path {
        match members.get(*name) {
            Some(Value::String(given)) if given == value => {}
            Some(Value::Null) | None => {}
            Some(given) => {
                return Err(Error::invalid_params(format!(
                    "{name}: the body says {given} but the path names {value:?}"
                )));
            }
        }
        members.insert((*name).to_owned(), Value::String((*value).to_owned()));
    }
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_say_what_is_wrong() {
        assert_eq!(parse(b"{").unwrap_err().refusal(), Refusal::Parse);
        assert_eq!(parse(&[0xFF]).unwrap_err().refusal(), Refusal::Parse);
        assert_eq!(
            parse(b"\"x\"").unwrap_err().refusal(),
            Refusal::InvalidRequest
        );
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(
            parse(deep.as_bytes()).unwrap_err().refusal(),
            Refusal::InvalidRequest
        );
    }

    #[test]
    fn the_path_is_merged_and_a_contradiction_refused() {
        let body = parse(br#"{"id":"t-1","metadata":{"k":1}}"#).unwrap();
        let merged = with_path(body, &[("id", "t-1")]).unwrap();
        assert_eq!(merged["metadata"]["k"], 1);
        let error = with_path(body, &[("id", "t-2")]).unwrap_err();
        assert_eq!(error.refusal(), Refusal::InvalidParams);
        assert!(error.detail().unwrap_or_default().contains("\"t-2\""));
        assert_eq!(with_path(None, &[("taskId", "t")]).unwrap()["taskId"], "t");
    }
}
