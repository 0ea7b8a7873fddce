//! [`DynamoTaskStore`]: the calls it makes (`GetItem`, conditional `PutItem`s, the owner
//! index's `Query`, `BatchGetItem`) and its [`TaskStore`] implementation.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, StreamEvent, Task, TaskState};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{
    self, Lease, LeaseTerms, Leased, SharedStored, Since, StoreError, Stored, TaskStore, page_token,
};
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};

use crate::item::{
    ANONYMOUS_OWNER, Entry, attr, decode_task, expires_at, format_millis, owner_key, parse_time,
    unix_now,
};
use crate::settings::DynamoSettings;
use crate::{lease, push};

/// The global secondary index `ListTasks` queries: partition key `owner`, sort key
/// `statusTimestamp`.
pub const OWNER_INDEX: &str = "owner-statusTimestamp-index";

/// How many rounds `BatchGetItem` gets to return keys DynamoDB left unprocessed.
const BATCH_ROUNDS: u32 = 4;

/// Tasks in a DynamoDB table, shared by every instance of the function (see the module
/// documentation for the table it needs).
#[derive(Debug, Clone)]
pub struct DynamoTaskStore {
    pub(crate) client: Client,
    pub(crate) table: String,
    pub(crate) retention: Duration,
    pub(crate) lease: LeaseTerms,
}

impl DynamoTaskStore {
    /// A store on the table the settings name. No network call is made until the first
    /// request; building the client reads the system's root certificates (a few ms).
    pub fn new(settings: &DynamoSettings) -> Self {
        Self::with_client(
            Client::from_conf(settings.client_config().build()),
            settings,
        )
    }

    /// A store using `client` (built from [`DynamoSettings::client_config`], perhaps with
    /// other credentials) on the table the settings name.
    pub fn with_client(client: Client, settings: &DynamoSettings) -> Self {
        Self {
            client,
            table: settings.table.clone(),
            retention: settings.retention,
            lease: LeaseTerms {
                duration: settings.lease,
            },
        }
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Every index entry of `owner`'s tasks matching the context and time filters,
    /// unsorted.
    async fn entries(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<Vec<Entry>, StoreError> {
        let mut entries = Vec::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let mut condition = "#owner = :owner".to_owned();
            let mut request = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(OWNER_INDEX)
                .scan_index_forward(false)
                .projection_expression("#id, #ts, #st, #exp")
                .expression_attribute_names("#id", attr::ID)
                .expression_attribute_names("#ts", attr::STATUS_TIMESTAMP)
                .expression_attribute_names("#st", attr::STATE)
                .expression_attribute_names("#exp", attr::EXPIRES_AT)
                .expression_attribute_names("#owner", attr::OWNER)
                .expression_attribute_values(
                    ":owner",
                    AttributeValue::S(owner_key(owner).to_owned()),
                )
                .set_exclusive_start_key(start.take());
            // A coarse bound in the index (to the millisecond below); the exact comparison
            // is made in memory.
            if let Some(after) = params
                .status_timestamp_after
                .as_deref()
                .and_then(parse_time)
            {
                condition.push_str(" AND #ts >= :after");
                request = request
                    .expression_attribute_values(":after", AttributeValue::S(format_millis(after)));
            }
            if let Some(context) = &params.context_id {
                request = request
                    .filter_expression("#ctx = :ctx")
                    .expression_attribute_names("#ctx", attr::CONTEXT_ID)
                    .expression_attribute_values(":ctx", AttributeValue::S(context.clone()));
            }
            let output = request
                .key_condition_expression(condition)
                .send()
                .await
                .map_err(|error| self.backend("Query", &error))?;
            entries.extend(
                output
                    .items
                    .unwrap_or_default()
                    .iter()
                    .filter_map(Entry::read),
            );
            match output.last_evaluated_key {
                Some(key) if !key.is_empty() => start = Some(key),
                _ => return Ok(entries),
            }
        }
    }

    /// The tasks with these ids, in this order (a task gone meanwhile is left out).
    async fn fetch(&self, ids: &[&str]) -> Result<Vec<Task>, StoreError> {
        let keys = ids.iter().map(|id| (*id).to_owned()).collect();
        let mut found: HashMap<String, Task> = HashMap::new();
        for item in self.batch_get(keys, attr::TASK).await? {
            match decode_task(&item) {
                Ok(task) => {
                    found.insert(task.id.clone(), task);
                }
                Err(error) => {
                    tracing::warn!(table = self.table, %error, "a stored task was left out of a list");
                }
            }
        }
        Ok(ids.iter().filter_map(|id| found.remove(*id)).collect())
    }

    /// The items with these ids (`id` and `attribute` of each; a missing one is left out),
    /// in any order: `BatchGetItem`, strongly consistent, with the keys DynamoDB left
    /// unprocessed asked again, [`BATCH_ROUNDS`] rounds at most.
    pub(crate) async fn batch_get(
        &self,
        ids: Vec<String>,
        attribute: &str,
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys = ids
            .into_iter()
            .map(|id| HashMap::from([(attr::ID.to_owned(), AttributeValue::S(id))]))
            .collect();
        let mut pending = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(true)
            .projection_expression("#id, #attribute")
            .expression_attribute_names("#id", attr::ID)
            .expression_attribute_names("#attribute", attribute)
            .build()
            .map_err(|error| StoreError::Backend(format!("BatchGetItem request: {error}")))?;
        let mut found = Vec::new();
        for round in 0..BATCH_ROUNDS {
            if round > 0 {
                tokio::time::sleep(Duration::from_millis(25 << round)).await;
            }
            let output = self
                .client
                .batch_get_item()
                .request_items(&self.table, pending)
                .send()
                .await
                .map_err(|error| self.backend("BatchGetItem", &error))?;
            found.extend(
                output
                    .responses
                    .and_then(|mut responses| responses.remove(&self.table))
                    .unwrap_or_default(),
            );
            match output
                .unprocessed_keys
                .and_then(|mut unprocessed| unprocessed.remove(&self.table))
            {
                Some(rest) if !rest.keys.is_empty() => pending = rest,
                _ => return Ok(found),
            }
        }
        Err(StoreError::Backend(format!(
            "BatchGetItem on table {}: keys still unprocessed after {BATCH_ROUNDS} rounds \
             (the table is throttled)",
            self.table
        )))
    }

    pub(crate) fn backend<E, R>(
        &self,
        operation: &str,
        error: &aws_sdk_dynamodb::error::SdkError<E, R>,
    ) -> StoreError
    where
        E: std::error::Error + 'static,
        R: std::fmt::Debug,
    {
        StoreError::Backend(format!(
            "{operation} on table {}: {}",
            self.table,
            DisplayErrorContext(error)
        ))
    }
}

impl DynamoTaskStore {
    /// The task with this id, its version, owner and lease, if any.
    async fn read(&self, id: &str) -> Result<Option<(Stored, Option<Lease>)>, StoreError> {
        let output = self
            .client
            .get_item()
            .table_name(&self.table)
            .key(attr::ID, AttributeValue::S(id.to_owned()))
            .consistent_read(true)
            .send()
            .await
            .map_err(|error| self.backend("GetItem", &error))?;
        let Some(item) = output.item else {
            return Ok(None);
        };
        // A log item or a push-configuration item is not a task.
        if !item.contains_key(attr::TASK)
            && (item.contains_key(attr::EVENTS) || push::is_push_item(&item))
        {
            return Ok(None);
        }
        // Time to live deletes expired items within days, not at once: an expired task
        // is gone already.
        if expires_at(&item).is_some_and(|at| at <= unix_now()) {
            return Ok(None);
        }
        let task = decode_task(&item)?;
        let version = item
            .get(attr::VERSION)
            .and_then(|value| value.as_n().ok())
            .and_then(|number| number.parse::<u64>().ok())
            .ok_or_else(|| {
                StoreError::Backend(format!(
                    "the item of task {id} in table {} has no numeric version",
                    self.table
                ))
            })?;
        let owner = match item.get(attr::OWNER).and_then(|value| value.as_s().ok()) {
            None => Owner::anonymous(),
            Some(key) if key == ANONYMOUS_OWNER => Owner::anonymous(),
            Some(key) => Owner::from_key(key),
        };
        let stored = Stored {
            task,
            version,
            owner,
        };
        Ok(Some((stored, lease::read(&item))))
    }

    /// Writes the whole item (with `lease` when given) if the stored version is `expected`.
    async fn write(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
        lease: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        let version = expected.map_or(1, |version| version.saturating_add(1));
        let mut item = self.item(task, owner, version)?;
        if let Some(lease) = lease {
            lease::insert(&mut item, lease);
        }
        let request = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item));
        let request = match expected {
            None => request
                .condition_expression("attribute_not_exists(#id)")
                .expression_attribute_names("#id", attr::ID),
            Some(expected) => request
                .condition_expression("#version = :expected")
                .expression_attribute_names("#version", attr::VERSION)
                .expression_attribute_values(":expected", AttributeValue::N(expected.to_string())),
        };
        match request.send().await {
            Ok(_) => Ok(version),
            Err(error)
                if error
                    .as_service_error()
                    .is_some_and(|service| service.is_conditional_check_failed_exception()) =>
            {
                Err(StoreError::Conflict(task.id.clone()))
            }
            Err(error) => Err(self.backend("PutItem", &error)),
        }
    }
}

#[async_trait::async_trait]
impl TaskStore for DynamoTaskStore {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        Ok(self.read(id).await?.map(|(stored, _)| stored))
    }

    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.write(task, owner, expected, None).await
    }

    fn lease_terms(&self) -> Option<LeaseTerms> {
        Some(self.lease)
    }

    async fn renew_lease(&self, id: &str, expected: u64, lease: &Lease) -> Result<u64, StoreError> {
        self.renew(id, expected, lease).await
    }

    async fn get_leased(&self, id: &str) -> Result<Option<Leased>, StoreError> {
        Ok(self.read(id).await?.map(|(stored, lease)| Leased {
            stored: SharedStored::from(stored),
            lease,
        }))
    }

    async fn put_logged(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
        events: &[StreamEvent],
        lease: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        if events.is_empty() {
            return self.write(task, owner, expected, lease).await;
        }
        self.write_logged(task, owner, expected, events, lease)
            .await
    }

    async fn since(&self, id: &str, version: u64) -> Result<Option<Since>, StoreError> {
        self.read_since(id, version).await
    }

    fn is_shared(&self) -> bool {
        true
    }

    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError> {
        let paging = page_token::Paging::of(params)?;
        let after = params.status_timestamp_after.as_deref().map(parse_time);
        let wanted_state = params.status.map(TaskState::v1_0_name);
        let now = unix_now();
        let mut entries: Vec<Entry> = self
            .entries(params, owner)
            .await?
            .into_iter()
            .filter(|entry| entry.expires_at.is_none_or(|at| at > now))
            .filter(|entry| wanted_state.is_none_or(|state| entry.state.as_deref() == Some(state)))
            .filter(|entry| match after {
                None => true,
                // As in memory: a task without a timestamp never passes the filter.
                Some(after) => entry.has_timestamp && entry.at >= after,
            })
            .collect();
        entries.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.id.cmp(&b.id)));
        let total = entries.len();
        let ids: Vec<&str> = entries
            .get(paging.range(total))
            .unwrap_or_default()
            .iter()
            .map(|entry| entry.id.as_str())
            .collect();
        let tasks = self
            .fetch(&ids)
            .await?
            .iter()
            .map(|task| tasks::view(task, params.history_length, params.include_artifacts))
            .collect();
        Ok(paging.result(tasks, total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn building_the_client_makes_no_call() {
        let started = std::time::Instant::now();
        let store = DynamoTaskStore::new(&DynamoSettings::new("tasks", "eu-west-1"));
        assert_eq!(store.table(), "tasks");
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "{:?}",
            started.elapsed()
        );
    }
}
