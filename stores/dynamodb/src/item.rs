//! The item codec: a task as a DynamoDB item (its attributes, listed in the crate
//! documentation), and back; the index entries `ListTasks` reads.

use std::collections::HashMap;

use a2a_lambda_core::model::Task;
use a2a_lambda_core::wire::v1_0;
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::StoreError;
use aws_sdk_dynamodb::types::AttributeValue;
use time::OffsetDateTime;

use crate::store::DynamoTaskStore;

/// The `owner` of an anonymous caller's task (every other owner key has a `source:`
/// prefix, so none is this).
pub const ANONYMOUS_OWNER: &str = "anonymous";

/// The names of the item's attributes.
pub(crate) mod attr {
    pub const ID: &str = "id";
    pub const OWNER: &str = "owner";
    pub const CONTEXT_ID: &str = "contextId";
    pub const STATUS_TIMESTAMP: &str = "statusTimestamp";
    pub const STATE: &str = "state";
    pub const VERSION: &str = "version";
    pub const TASK: &str = "task";
    pub const EXPIRES_AT: &str = "expiresAt";
    pub const LEASE_HOLDER: &str = "leaseHolder";
    pub const LEASE_EXPIRES_AT: &str = "leaseExpiresAt";
    pub const EVENTS: &str = "events";
}

/// `statusTimestamp` of a task without a status timestamp: the index needs a value, and
/// this one sorts before every real timestamp (so such tasks are listed last, as in memory).
const NO_TIMESTAMP: &str = "0000-00-00T00:00:00.000Z";

impl DynamoTaskStore {
    /// The item for `task` of `owner` at `version`.
    pub(crate) fn item(
        &self,
        task: &Task,
        owner: &Owner,
        version: u64,
    ) -> Result<HashMap<String, AttributeValue>, StoreError> {
        let body = serde_json::to_string(&v1_0::task(task)).map_err(|error| {
            StoreError::Backend(format!(
                "task {} cannot be written as JSON: {error}",
                task.id
            ))
        })?;
        let expires_at =
            unix_now().saturating_add(i64::try_from(self.retention.as_secs()).unwrap_or(i64::MAX));
        let mut item = HashMap::from([
            (attr::ID.to_owned(), AttributeValue::S(task.id.clone())),
            (
                attr::OWNER.to_owned(),
                AttributeValue::S(owner_key(owner).to_owned()),
            ),
            (
                attr::STATUS_TIMESTAMP.to_owned(),
                AttributeValue::S(index_timestamp(task.status.timestamp.as_deref())),
            ),
            (
                attr::STATE.to_owned(),
                AttributeValue::S(task.status.state.v1_0_name().to_owned()),
            ),
            (
                attr::VERSION.to_owned(),
                AttributeValue::N(version.to_string()),
            ),
            (attr::TASK.to_owned(), AttributeValue::S(body)),
            (
                attr::EXPIRES_AT.to_owned(),
                AttributeValue::N(expires_at.to_string()),
            ),
        ]);
        // An index key cannot be empty: a task without a context stays out of the index.
        if !task.context_id.is_empty() {
            item.insert(
                attr::CONTEXT_ID.to_owned(),
                AttributeValue::S(task.context_id.clone()),
            );
        }
        Ok(item)
    }
}

/// A task's index entry, as `ListTasks` reads it.
pub(crate) struct Entry {
    pub(crate) id: String,
    /// The status time (`None`: none, or not readable).
    pub(crate) at: Option<OffsetDateTime>,
    /// The task has a status timestamp.
    pub(crate) has_timestamp: bool,
    pub(crate) state: Option<String>,
    pub(crate) expires_at: Option<i64>,
}

impl Entry {
    pub(crate) fn read(item: &HashMap<String, AttributeValue>) -> Option<Self> {
        let id = item.get(attr::ID)?.as_s().ok()?.clone();
        let timestamp = item
            .get(attr::STATUS_TIMESTAMP)
            .and_then(|value| value.as_s().ok())
            .filter(|text| text.as_str() != NO_TIMESTAMP);
        Some(Self {
            id,
            at: timestamp.and_then(|text| parse_time(text)),
            has_timestamp: timestamp.is_some(),
            state: item
                .get(attr::STATE)
                .and_then(|value| value.as_s().ok())
                .cloned(),
            expires_at: expires_at(item),
        })
    }
}

/// The `owner` attribute of `owner`'s tasks.
pub(crate) fn owner_key(owner: &Owner) -> &str {
    owner.key().unwrap_or(ANONYMOUS_OWNER)
}

/// The task an item holds.
pub(crate) fn decode_task(item: &HashMap<String, AttributeValue>) -> Result<Task, StoreError> {
    let id = item
        .get(attr::ID)
        .and_then(|value| value.as_s().ok())
        .map_or("?", String::as_str);
    let body = item
        .get(attr::TASK)
        .and_then(|value| value.as_s().ok())
        .ok_or_else(|| {
            StoreError::Backend(format!("the item of task {id} has no task attribute"))
        })?;
    let wire: v1_0::Task = serde_json::from_str(body).map_err(|error| {
        StoreError::Backend(format!(
            "the item of task {id} holds no A2A v1.0 task: {error}"
        ))
    })?;
    Ok(wire.into())
}

pub(crate) fn expires_at(item: &HashMap<String, AttributeValue>) -> Option<i64> {
    item.get(attr::EXPIRES_AT)
        .and_then(|value| value.as_n().ok())
        .and_then(|number| number.parse().ok())
}

/// `statusTimestamp` for a task's status timestamp: UTC with milliseconds, so that the
/// index sorts the strings in time order.
fn index_timestamp(timestamp: Option<&str>) -> String {
    timestamp
        .and_then(parse_time)
        .map_or_else(|| NO_TIMESTAMP.to_owned(), format_millis)
}

pub(crate) fn format_millis(at: OffsetDateTime) -> String {
    let utc = at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        utc.year(),
        u8::from(utc.month()),
        utc.day(),
        utc.hour(),
        utc.minute(),
        utc.second(),
        utc.millisecond()
    )
}

pub(crate) fn parse_time(value: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(value, &time::format_description::well_known::Rfc3339).ok()
}

pub(crate) fn unix_now() -> i64 {
    OffsetDateTime::now_utc().unix_timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_timestamps_sort_as_times() {
        assert_eq!(
            index_timestamp(Some("2026-01-02T05:04:05.5+02:00")),
            "2026-01-02T03:04:05.500Z"
        );
        assert_eq!(
            index_timestamp(Some("2026-01-02T03:04:05Z")),
            "2026-01-02T03:04:05.000Z"
        );
        assert_eq!(index_timestamp(None), NO_TIMESTAMP);
        assert_eq!(index_timestamp(Some("yesterday")), NO_TIMESTAMP);
        assert!(NO_TIMESTAMP < "0001-01-01T00:00:00.000Z");
        assert_eq!(parse_time(NO_TIMESTAMP), None);
    }
}
