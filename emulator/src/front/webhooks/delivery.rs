//! One delivery a webhook sink received, and how `GET /_emulator/webhooks/{name}` shows it:
//! the caller's secrets masked.

use std::time::SystemTime;

use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::macros::format_description;

/// One POST a webhook sink received, as it arrived (nothing masked: the test that reads it
/// owns the secrets). Read through [`Running::webhook`](crate::Running::webhook).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WebhookDelivery {
    /// When it arrived.
    pub received_at: SystemTime,
    /// Its headers in arrival order, names in lowercase (as HTTP/1.1 and HTTP/2 treat
    /// them: case-insensitive), values as sent (lossy UTF-8).
    pub headers: Vec<(String, String)>,
    /// Its `Content-Type`, when it had one.
    pub content_type: Option<String>,
    /// Its body, byte for byte.
    pub body: Vec<u8>,
}

impl WebhookDelivery {
    /// The value of header `name` (any case); repeated headers joined with `", "`, as
    /// RFC 9110 §5.3 allows for a list-valued field.
    pub fn header(&self, name: &str) -> Option<String> {
        let values: Vec<&str> = self
            .headers
            .iter()
            .filter(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
            .collect();
        (!values.is_empty()).then(|| values.join(", "))
    }

    /// The body as JSON, when it parses as JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// How `GET` shows it: `receivedAt` (RFC 3339, milliseconds, UTC), `headers` (an object
    /// of lowercase names, secrets masked), `contentType` (or null) and `body` (the JSON when
    /// it parses, else the text).
    pub(super) fn shown(&self) -> Value {
        let mut headers = Map::new();
        for (name, _) in &self.headers {
            if headers.contains_key(name) {
                continue;
            }
            if let Some(value) = self.header(name) {
                headers.insert(name.clone(), Value::String(mask(name, &value)));
            }
        }
        let body = self
            .json()
            .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&self.body).into_owned()));
        json!({
            "receivedAt": rfc3339_millis(self.received_at),
            "headers": headers,
            "contentType": self.content_type,
            "body": body,
        })
    }
}

/// What the sink shows in place of a secret.
pub(super) const MASK: &str = "****";

/// `value` as `GET` shows header `name`: `Authorization` keeps its scheme (`Bearer ****`),
/// `X-A2A-Notification-Token` is masked whole (the header A2A 0.3's push example carries
/// the config's `token` in, specification v0.3.0 §9.5; 1.0 names no header for it and
/// authenticates with `Authorization`, §4.3.3); any other header as it came.
fn mask(name: &str, value: &str) -> String {
    if name.eq_ignore_ascii_case("authorization") {
        match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} {MASK}"),
            None => MASK.to_owned(),
        }
    } else if name.eq_ignore_ascii_case("x-a2a-notification-token") {
        MASK.to_owned()
    } else {
        value.to_owned()
    }
}

/// `at` in RFC 3339, UTC, with milliseconds: `2026-12-01T18:30:00.123Z`.
pub(crate) fn rfc3339_millis(at: SystemTime) -> String {
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    OffsetDateTime::from(at)
        .format(&format)
        .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn secrets_are_masked_and_the_scheme_kept() {
        assert_eq!(mask("Authorization", "Bearer abc.def"), "Bearer ****");
        assert_eq!(mask("authorization", "opaque"), "****");
        assert_eq!(mask("X-A2A-Notification-Token", "tok"), "****");
        assert_eq!(mask("content-type", "application/json"), "application/json");
    }

    #[test]
    fn arrival_times_have_milliseconds() {
        let at = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        assert_eq!(rfc3339_millis(at), "2023-11-14T22:13:20.123Z");
    }

    #[test]
    fn a_body_that_is_not_json_is_shown_as_text() {
        let delivery = WebhookDelivery {
            received_at: UNIX_EPOCH,
            headers: vec![("a".into(), "1".into()), ("a".into(), "2".into())],
            content_type: None,
            body: b"not json".to_vec(),
        };
        let shown = delivery.shown();
        assert_eq!(shown["body"], "not json");
        assert_eq!(shown["headers"], json!({"a": "1, 2"}));
        assert_eq!(shown["contentType"], Value::Null);
    }
}
