//! GET parameters in the query string (A2A specification §11.5): camelCase names, strings
//! as they are, numbers as decimal text, booleans as `true`/`false`, enums by name,
//! timestamps in ISO 8601.
//!
//! [`params`] turns a query into the v1.0 request object the JSON-RPC binding would carry
//! in `params`, so one parser ([`crate::wire::v1_0`]) checks both bindings' values; only
//! what a query alone can get wrong (an unknown name, a name given twice, a boolean that
//! is not `true` or `false`) is refused here. Every GET route also takes `tenant` (which
//! the official clients may send beside the path's). [`encode`] writes a query for a
//! client.

use serde_json::{Map, Value};

use crate::error::Error;
use crate::percent;
use crate::version::{Operation, VERSION_HEADER};

/// How a query parameter's text becomes a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A JSON string (ids, tokens, enum names, timestamps). Numbers are passed as strings
    /// too: ProtoJSON reads an int32 from a string, and the wire parser checks the range.
    Text,
    /// `true` or `false`.
    Bool,
}

/// The query parameters each GET operation takes.
fn fields(operation: Operation) -> &'static [(&'static str, Kind)] {
    match operation {
        Operation::GetTask => &[("historyLength", Kind::Text), ("tenant", Kind::Text)],
        Operation::ListTasks => &[
            ("tenant", Kind::Text),
            ("contextId", Kind::Text),
            ("status", Kind::Text),
            ("pageSize", Kind::Text),
            ("pageToken", Kind::Text),
            ("historyLength", Kind::Text),
            ("statusTimestampAfter", Kind::Text),
            ("includeArtifacts", Kind::Bool),
        ],
        Operation::ListPushConfigs => &[
            ("pageSize", Kind::Text),
            ("pageToken", Kind::Text),
            ("tenant", Kind::Text),
        ],
        Operation::Subscribe | Operation::GetPushConfig | Operation::GetExtendedCard => {
            &[("tenant", Kind::Text)]
        }
        _ => &[],
    }
}

/// The request object a query stands for, for `operation`.
///
/// The `A2A-Version` parameter (the version may travel in the query, §3.2.6) is left to
/// version negotiation; an empty value counts as absent.
///
/// ```
/// use a2a_lambda_core::rest::query;
/// use a2a_lambda_core::version::Operation;
///
/// let params = query::params(Operation::ListTasks, Some("pageSize=5&includeArtifacts=true")).unwrap();
/// assert_eq!(
///     serde_json::Value::Object(params).to_string(),
///     r#"{"includeArtifacts":true,"pageSize":"5"}"#
/// );
/// assert!(query::params(Operation::ListTasks, Some("page_size=5")).is_err());
/// ```
///
/// # Errors
/// -32602 naming the parameter: unknown for this operation, given twice, or a boolean
/// that is neither `true` nor `false`.
pub fn params(operation: Operation, query: Option<&str>) -> Result<Map<String, Value>, Error> {
    let accepted = fields(operation);
    let mut out = Map::new();
    for pair in query.unwrap_or_default().split('&') {
        if pair.is_empty() {
            continue;
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = percent::decode_query(name);
        let value = percent::decode_query(value);
        if name.eq_ignore_ascii_case(VERSION_HEADER) || value.is_empty() {
            continue;
        }
        let Some((name, kind)) = accepted.iter().find(|(known, _)| *known == name) else {
            return Err(Error::invalid_params(unknown(&name, accepted)));
        };
        let value = match kind {
            Kind::Text => Value::String(value),
            Kind::Bool => match value.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => {
                    return Err(Error::invalid_params(format!(
                        "query parameter {name}: expected true or false, got {value:?}"
                    )));
                }
            },
        };
        if out.insert((*name).to_owned(), value).is_some() {
            return Err(Error::invalid_params(format!(
                "query parameter {name} is given more than once"
            )));
        }
    }
    Ok(out)
}

fn unknown(name: &str, accepted: &[(&str, Kind)]) -> String {
    if accepted.is_empty() {
        return format!("query parameter {name:?} is not accepted: this route takes none");
    }
    let names: Vec<&str> = accepted.iter().map(|(known, _)| *known).collect();
    format!(
        "query parameter {name:?} is not accepted here; accepted: {}",
        names.join(", ")
    )
}

/// A query string (without `?`) from name and value pairs, each percent-encoded; pairs
/// whose value is `None` are left out. Empty when none is left.
///
/// ```
/// use a2a_lambda_core::rest::query::encode;
///
/// assert_eq!(encode(&[("contextId", Some("c 1")), ("pageToken", None)]), "contextId=c%201");
/// ```
pub fn encode(pairs: &[(&str, Option<&str>)]) -> String {
    pairs
        .iter()
        .filter_map(|(name, value)| {
            value.map(|value| format!("{name}={}", percent::encode_component(value)))
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Refusal;

    #[test]
    fn every_list_field_is_read_by_its_camel_case_name() {
        let query = "contextId=c%2F1&status=TASK_STATE_WORKING&pageSize=50&pageToken=t+1\
                     &historyLength=2&statusTimestampAfter=2025-11-09T10%3A30%3A00Z&includeArtifacts=false";
        let params = params(Operation::ListTasks, Some(query)).unwrap();
        assert_eq!(
            Value::Object(params),
            serde_json::json!({
                "contextId": "c/1", "status": "TASK_STATE_WORKING", "pageSize": "50",
                "pageToken": "t 1", "historyLength": "2",
                "statusTimestampAfter": "2025-11-09T10:30:00Z", "includeArtifacts": false,
            })
        );
    }

    #[test]
    fn refusals_name_the_parameter() {
        let refused = |operation, query| {
            let error = params(operation, Some(query)).unwrap_err();
            assert_eq!(error.refusal(), Refusal::InvalidParams);
            error.detail().unwrap_or_default().to_owned()
        };
        assert!(
            refused(Operation::GetTask, "pageSize=1").contains("accepted: historyLength, tenant")
        );
        assert!(refused(Operation::ListTasks, "includeArtifacts=yes").contains("true or false"));
        assert!(refused(Operation::ListTasks, "pageSize=1&pageSize=2").contains("more than once"));
        assert!(refused(Operation::CancelTask, "x=1").contains("takes none"));
    }

    #[test]
    fn the_version_and_empty_values_are_not_params() {
        let params = params(Operation::GetTask, Some("A2A-Version=1.0&historyLength=&&")).unwrap();
        assert!(params.is_empty());
    }
}
