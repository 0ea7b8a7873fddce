//! The DynamoDB task store: tasks that survive across invocations and instances.
//!
//! # The table
//!
//! | attribute | type | what |
//! |---|---|---|
//! | `id` | S | the task id: the partition key |
//! | `owner` | S | who the task belongs to ([`Owner::key`], or `anonymous`) |
//! | `contextId` | S | the task's context (left out when empty) |
//! | `statusTimestamp` | S | the status timestamp, RFC 3339 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`) |
//! | `state` | S | the state's A2A v1.0 name (`TASK_STATE_COMPLETED`) |
//! | `version` | N | bumped by every write; writes are conditional on it |
//! | `task` | S | the task as A2A v1.0 JSON (what `tasks/get` answers in v1.0) |
//! | `expiresAt` | N | Unix seconds: the table's TTL attribute, now + the retention at every write |
//! | `leaseHolder` | S | a task at work (`submitted`, `working`) only: the id of the engine instance running it |
//! | `leaseExpiresAt` | N | with `leaseHolder`: Unix milliseconds when the runner's lease runs out unless renewed |
//!
//! The global secondary index [`OWNER_INDEX`] (partition `owner`, sort `statusTimestamp`)
//! serves `ListTasks`; it must project `contextId`, `state` and `expiresAt` (`INCLUDE`
//! them, or `ALL`). Time to live must be enabled on `expiresAt`.
//!
//! Items written before tasks had owners have no `owner`: they are read as anonymous
//! callers' tasks (by id), and are in no owner's listing.
//!
//! # The event log
//!
//! Every write of a task that applies events (status and artifact updates) also puts one
//! log item, in the same `TransactWriteItems`: `id` is `{taskId}#log#{version}` (the
//! version the write made), `events` the write's events as a JSON array of A2A v1.0
//! `StreamResponse`s, `expiresAt` the task's. A subscription on an instance where the task
//! does not run follows it by reading the task's item and, when its version moved, the
//! log items of the versions since ([`TaskStore::since`]): every event in order, on any
//! instance, and a client that resumes a cut stream (`Last-Event-ID`) gets the events it
//! missed. Log items have no `owner` and no `statusTimestamp`, so they are in no index, and
//! `GetTask` never answers one. A new task that is over at its first write (an agent that
//! answers at once) is written with a plain `PutItem` and no log: nobody can follow it yet.
//! A transaction's puts need only `dynamodb:PutItem` (DynamoDB Developer Guide, "Using IAM
//! with DynamoDB transactions"); each costs twice the write capacity of a plain put.
//!
//! # Push-notification configurations
//!
//! A task's push-notification configurations live in a sibling item of the task's, `id`
//! `push#{taskId}`, with no `owner` (so in no index): [`DynamoPushConfigStore`], made by
//! [`DynamoTaskStore::push_configs`]; its module, [`push`], describes the item.
//!
//! # Writes
//!
//! Every write is a `PutItem` conditional on the version read (`attribute_not_exists(id)`
//! for a new task): a writer that lost the race gets [`StoreError::Conflict`], so two
//! instances never lose each other's update. Reads are strongly consistent.
//!
//! # Leases
//!
//! A task at work carries its runner's lease ([`a2a_server::tasks::lease`]), written with
//! the task by the same `PutItem` (a task that is over or waits for input carries none: its
//! `PutItem` drops the attributes). A runner quiet for a third of the lease renews it with
//! an `UpdateItem` of the lease attributes and the version (conditional on the version, as
//! every write), so a reader that found the lease expired cannot fail a task whose runner
//! renewed meanwhile: its write names the older version and loses. The lease lasts
//! [`DEFAULT_LEASE`] unless configured (`A2A_TASK_LEASE_SECONDS`).
//!
//! # Listing, and the scale it suits
//!
//! `ListTasks` reads the small index entries (id, timestamp, state, expiry) of the caller's
//! tasks — a `Query` of [`OWNER_INDEX`] for the caller's owner key, newest first, filtered
//! to the context when one is given — filters and sorts them in memory exactly as the
//! in-memory store does (newest status first, then by id), and then reads the one page's
//! tasks with a `BatchGetItem`. Page tokens are the in-memory store's
//! ([`tasks::page_token`], base64 of the offset). No listing scans the table; one reads all
//! of one owner's live tasks' index entries, which suits owners of up to some tens of
//! thousands of live tasks (expiring after the retention). All anonymous tasks share one
//! index partition, as do one owner's: DynamoDB writes about 1,000 index entries a second
//! to one partition key, so an owner (or an unauthenticated function) starting several
//! hundred tasks a second needs its callers told apart.
//!
//! # Timeouts and retries
//!
//! Every call has explicit timeouts ([`CONNECT_TIMEOUT`], [`READ_TIMEOUT`],
//! [`OPERATION_ATTEMPT_TIMEOUT`], [`OPERATION_TIMEOUT`]) and the standard retry mode with
//! [`MAX_ATTEMPTS`] attempts, so a throttled, failing or silent DynamoDB costs a caller at
//! most a few seconds and a clear -32603, never a hung invocation.
//!
//! Nothing here probes the environment: the region is given, and credentials come from the
//! environment (what Lambda sets), the shared profile files, or a container endpoint,
//! looked up at the first call. Instance metadata is never asked.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::model::{ListTasksParams, ListTasksResult, StreamEvent, Task, TaskState};
use a2a_core::wire::v1_0;
use a2a_server::owner::Owner;
use a2a_server::tasks::{
    self, Lease, LeaseTerms, Leased, SharedStored, Since, StoreError, Stored, TaskStore, page_token,
};
use aws_config::ecs::EcsCredentialsProvider;
use aws_config::environment::EnvironmentVariableCredentialsProvider;
use aws_config::meta::credentials::CredentialsProviderChain;
use aws_config::profile::ProfileFileCredentialsProvider;
use aws_config::provider_config::ProviderConfig;
use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use aws_sdk_dynamodb::error::DisplayErrorContext;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes};
use time::OffsetDateTime;

/// The global secondary index `ListTasks` queries: partition key `owner`, sort key
/// `statusTimestamp`.
pub const OWNER_INDEX: &str = "owner-statusTimestamp-index";

/// The `owner` of an anonymous caller's task (every other owner key has a `source:`
/// prefix, so none is this).
pub const ANONYMOUS_OWNER: &str = "anonymous";

/// How long a task is kept after its last change, unless configured otherwise: 7 days.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// How long the lease of a running task lasts from its last write, unless configured
/// otherwise: 30 s (renewed after 10 s without a write; honoured 5 s past its expiry).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// Longest wait for a connection to DynamoDB.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// Longest wait for the first byte of an answer.
pub const READ_TIMEOUT: Duration = Duration::from_secs(3);
/// Longest one attempt of a call may take.
pub const OPERATION_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(2);
/// Longest a call may take, retries included.
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(5);
/// Attempts per call (the first one included), in the standard retry mode.
pub const MAX_ATTEMPTS: u32 = 3;

/// The names of the item's attributes.
mod attr {
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

mod lease;
mod log;
pub mod push;

pub use push::DynamoPushConfigStore;

/// `statusTimestamp` of a task without a status timestamp: the index needs a value, and
/// this one sorts before every real timestamp (so such tasks are listed last, as in memory).
const NO_TIMESTAMP: &str = "0000-00-00T00:00:00.000Z";

/// How many rounds `BatchGetItem` gets to return keys DynamoDB left unprocessed.
const BATCH_ROUNDS: u32 = 4;

/// Where the tasks live and how long they are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamoSettings {
    /// The table's name (`A2A_TASK_TABLE`).
    pub table: String,
    /// The table's region (`AWS_REGION`).
    pub region: String,
    /// Another endpoint than AWS's (`A2A_DYNAMODB_ENDPOINT`): a local DynamoDB or moto.
    pub endpoint: Option<String>,
    /// How long a task is kept after its last change (`A2A_TASK_RETENTION_DAYS`).
    pub retention: Duration,
    /// How long the lease of a running task lasts from its last write
    /// (`A2A_TASK_LEASE_SECONDS`).
    pub lease: Duration,
}

impl DynamoSettings {
    /// Settings for `table` in `region`, on AWS, with the default retention.
    pub fn new(table: impl Into<String>, region: impl Into<String>) -> Self {
        Self {
            table: table.into(),
            region: region.into(),
            endpoint: None,
            retention: DEFAULT_RETENTION,
            lease: DEFAULT_LEASE,
        }
    }

    /// The DynamoDB client configuration: region, endpoint, timeouts, retries and the
    /// credentials chain (environment, profile files, container endpoint; never instance
    /// metadata). Building it does no I/O.
    ///
    /// Tests add their own credentials to it before building the client.
    pub fn client_config(&self) -> aws_sdk_dynamodb::config::Builder {
        let region = Region::new(self.region.clone());
        let mut builder = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(region.clone())
            .timeout_config(timeout_config())
            .retry_config(retry_config())
            .credentials_provider(credentials_chain(region));
        if let Some(endpoint) = &self.endpoint {
            builder = builder.endpoint_url(endpoint);
        }
        builder
    }
}

/// The timeouts of every call: [`CONNECT_TIMEOUT`], [`READ_TIMEOUT`],
/// [`OPERATION_ATTEMPT_TIMEOUT`] and [`OPERATION_TIMEOUT`].
pub fn timeout_config() -> TimeoutConfig {
    TimeoutConfig::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_TIMEOUT)
        .operation_attempt_timeout(OPERATION_ATTEMPT_TIMEOUT)
        .operation_timeout(OPERATION_TIMEOUT)
        .build()
}

/// The standard retry mode with [`MAX_ATTEMPTS`] attempts and short backoffs (50 ms
/// initial, 1 s at most): throttling, 5xx answers and timeouts are retried.
pub fn retry_config() -> RetryConfig {
    RetryConfig::standard()
        .with_max_attempts(MAX_ATTEMPTS)
        .with_initial_backoff(Duration::from_millis(50))
        .with_max_backoff(Duration::from_secs(1))
}

/// Environment variables first (Lambda sets them), then the shared profile files (a
/// developer's machine), then a container credentials endpoint. Each is asked only at the
/// first call, and instance metadata never is.
fn credentials_chain(region: Region) -> CredentialsProviderChain {
    let providers = ProviderConfig::default().with_region(Some(region));
    CredentialsProviderChain::first_try(
        "Environment",
        EnvironmentVariableCredentialsProvider::new(),
    )
    .or_else(
        "Profile",
        ProfileFileCredentialsProvider::builder()
            .configure(&providers)
            .build(),
    )
    .or_else(
        "EcsContainer",
        EcsCredentialsProvider::builder()
            .configure(&providers)
            .build(),
    )
}

/// Tasks in a DynamoDB table, shared by every instance of the function (see the module
/// documentation for the table it needs).
#[derive(Debug, Clone)]
pub struct DynamoTaskStore {
    client: Client,
    table: String,
    retention: Duration,
    lease: LeaseTerms,
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

    /// The item for `task` of `owner` at `version`.
    fn item(
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
    async fn batch_get(
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

    fn backend<E, R>(
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

/// A task's index entry, as `ListTasks` reads it.
struct Entry {
    id: String,
    /// The status time (`None`: none, or not readable).
    at: Option<OffsetDateTime>,
    /// The task has a status timestamp.
    has_timestamp: bool,
    state: Option<String>,
    expires_at: Option<i64>,
}

impl Entry {
    fn read(item: &HashMap<String, AttributeValue>) -> Option<Self> {
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
fn owner_key(owner: &Owner) -> &str {
    owner.key().unwrap_or(ANONYMOUS_OWNER)
}

/// The task an item holds.
fn decode_task(item: &HashMap<String, AttributeValue>) -> Result<Task, StoreError> {
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

fn expires_at(item: &HashMap<String, AttributeValue>) -> Option<i64> {
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

fn format_millis(at: OffsetDateTime) -> String {
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

fn parse_time(value: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(value, &time::format_description::well_known::Rfc3339).ok()
}

fn unix_now() -> i64 {
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

    #[test]
    fn every_call_has_timeouts_and_few_retries() {
        let config = timeout_config();
        assert_eq!(config.connect_timeout(), Some(CONNECT_TIMEOUT));
        assert_eq!(config.read_timeout(), Some(READ_TIMEOUT));
        assert_eq!(config.operation_timeout(), Some(OPERATION_TIMEOUT));
        assert_eq!(
            config.operation_attempt_timeout(),
            Some(OPERATION_ATTEMPT_TIMEOUT)
        );
        assert_eq!(retry_config().max_attempts(), MAX_ATTEMPTS);
    }
}
