//! The event log of a task ([`TaskStore::since`](a2a_lambda_server::tasks::TaskStore::since)):
//! one log item per write that applied events, written with the task's item in one
//! `TransactWriteItems`, read by the versions a follower has not seen.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_lambda_core::model::{StreamEvent, Task};
use a2a_lambda_core::wire::v1_0;
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{Lease, Logged, Since, StoreError, TaskStore as _};
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};

use crate::item::attr;
use crate::lease;
use crate::store::DynamoTaskStore;

/// The id of the log item of a task's write.
fn log_id(task_id: &str, version: u64) -> String {
    format!("{task_id}#log#{version}")
}

/// Most versions a follower reads the log of at once (`BatchGetItem` takes 100 keys); one
/// further behind gets the task as it stands.
const LOG_READ: u64 = 100;

impl DynamoTaskStore {
    /// The task's item and its write's log item, in one `TransactWriteItems`.
    pub(super) async fn write_logged(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
        events: &[StreamEvent],
        lease: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        let version = expected.map_or(1, |version| version.saturating_add(1));
        let mut item = self.item(task, owner, version)?;
        if let Some(lease) = lease {
            lease::insert(&mut item, lease);
        }
        let wire: Vec<_> = events.iter().map(v1_0::stream_event).collect();
        let body = serde_json::to_string(&wire).map_err(|error| {
            StoreError::Backend(format!(
                "the events of task {} cannot be written as JSON: {error}",
                task.id
            ))
        })?;
        let expires_at = item
            .get(attr::EXPIRES_AT)
            .cloned()
            .unwrap_or_else(|| AttributeValue::N("0".to_owned()));
        let task_put = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .expression_attribute_names("#id", attr::ID);
        let task_put = match expected {
            None => task_put.condition_expression("attribute_not_exists(#id)"),
            Some(expected) => task_put
                .condition_expression("attribute_exists(#id) AND #version = :expected")
                .expression_attribute_names("#version", attr::VERSION)
                .expression_attribute_values(":expected", AttributeValue::N(expected.to_string())),
        };
        let log_put = Put::builder()
            .table_name(&self.table)
            .item(attr::ID, AttributeValue::S(log_id(&task.id, version)))
            .item(attr::EVENTS, AttributeValue::S(body))
            .item(attr::EXPIRES_AT, expires_at);
        let request = |put: aws_sdk_dynamodb::types::builders::PutBuilder| {
            put.build()
                .map(|put| TransactWriteItem::builder().put(put).build())
                .map_err(|error| {
                    StoreError::Backend(format!("TransactWriteItems request: {error}"))
                })
        };
        let outcome = self
            .client
            .transact_write_items()
            .transact_items(request(task_put)?)
            .transact_items(request(log_put)?)
            .send()
            .await;
        match outcome {
            Ok(_) => Ok(version),
            Err(error)
                if error.as_service_error().is_some_and(|service| {
                    service.is_transaction_canceled_exception() && conditional_check_failed(service)
                }) =>
            {
                Err(StoreError::Conflict(task.id.clone()))
            }
            Err(error) => Err(self.backend("TransactWriteItems", &error)),
        }
    }

    /// The task and its log items after `version` (none read when it has not moved; too
    /// far behind, [`LOG_READ`], the log is not read).
    pub(super) async fn read_since(
        &self,
        id: &str,
        version: u64,
    ) -> Result<Option<Since>, StoreError> {
        let Some(stored) = self.get(id).await? else {
            return Ok(None);
        };
        let now = stored.version;
        let logged = if now <= version {
            Some(Vec::new())
        } else if now - version > LOG_READ {
            None
        } else {
            Some(self.logged(id, version, now).await?)
        };
        Ok(Some(Since {
            stored: stored.into(),
            logged,
        }))
    }

    /// The log items of `id`'s writes after `after` up to `to`, oldest first (a write that
    /// logged nothing has none).
    async fn logged(&self, id: &str, after: u64, to: u64) -> Result<Vec<Logged>, StoreError> {
        let keys = (after + 1..=to)
            .map(|version| log_id(id, version))
            .collect();
        let mut found = self
            .batch_get(keys, attr::EVENTS)
            .await?
            .iter()
            .map(|item| decode_log(id, item))
            .collect::<Result<Vec<_>, _>>()?;
        found.sort_by_key(|logged| logged.version);
        Ok(found)
    }
}

/// Whether a cancelled transaction failed on a condition (a write that lost a race).
fn conditional_check_failed(
    error: &aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError,
) -> bool {
    match error {
        aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(
            canceled,
        ) => canceled
            .cancellation_reasons()
            .iter()
            .any(|reason| reason.code() == Some("ConditionalCheckFailed")),
        _ => false,
    }
}

/// The write a log item holds.
fn decode_log(task_id: &str, item: &HashMap<String, AttributeValue>) -> Result<Logged, StoreError> {
    let id = item
        .get(attr::ID)
        .and_then(|value| value.as_s().ok())
        .map_or("", String::as_str);
    let version = id
        .rsplit_once("#log#")
        .and_then(|(_, version)| version.parse().ok())
        .ok_or_else(|| {
            StoreError::Backend(format!("log item {id:?} of task {task_id} has no version"))
        })?;
    let body = item
        .get(attr::EVENTS)
        .and_then(|value| value.as_s().ok())
        .ok_or_else(|| StoreError::Backend(format!("log item {id:?} has no events")))?;
    let events: Vec<v1_0::StreamResponse> = serde_json::from_str(body).map_err(|error| {
        StoreError::Backend(format!("log item {id:?} holds no A2A v1.0 events: {error}"))
    })?;
    Ok(Logged {
        version,
        events: events.into_iter().map(Into::into).collect(),
    })
}
