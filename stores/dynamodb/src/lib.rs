#![doc = include_str!("../README.md")]
//!
//! [`DynamoTaskStore`] keeps the tasks, [`DynamoPushConfigStore`] their push-notification
//! configurations, both configured by [`DynamoSettings`].
//!
//! ## The table
//!
//! | attribute | type | what |
//! |---|---|---|
//! | `id` | S | the task id: the partition key |
//! | `owner` | S | who the task belongs to ([`Owner::key`](a2a_lambda_server::owner::Owner::key), or `anonymous`) |
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
//! ## The event log
//!
//! Every write of a task that applies events (status and artifact updates) also puts one
//! log item, in the same `TransactWriteItems`: `id` is `{taskId}#log#{version}` (the
//! version the write made), `events` the write's events as a JSON array of A2A v1.0
//! `StreamResponse`s, `expiresAt` the task's. A subscription on an instance where the task
//! does not run follows it by reading the task's item and, when its version moved, the
//! log items of the versions since ([`TaskStore::since`](a2a_lambda_server::tasks::TaskStore::since)): every event in order, on any
//! instance, and a client that resumes a cut stream (`Last-Event-ID`) gets the events it
//! missed. Log items have no `owner` and no `statusTimestamp`, so they are in no index, and
//! `GetTask` never answers one. A new task that is over at its first write (an agent that
//! answers at once) is written with a plain `PutItem` and no log: nobody can follow it yet.
//! A transaction's puts need only `dynamodb:PutItem` (DynamoDB Developer Guide, "Using IAM
//! with DynamoDB transactions"); each costs twice the write capacity of a plain put.
//!
//! ## Push-notification configurations
//!
//! A task's push-notification configurations live in a sibling item of the task's, `id`
//! `push#{taskId}`, with no `owner` (so in no index): [`DynamoPushConfigStore`], made by
//! [`DynamoTaskStore::push_configs`]; its module, [`push`], describes the item.
//!
//! ## Writes
//!
//! Every write is a `PutItem` conditional on the version read (`attribute_not_exists(id)`
//! for a new task): a writer that lost the race gets [`StoreError::Conflict`](a2a_lambda_server::tasks::StoreError::Conflict), so two
//! instances never lose each other's update. Reads are strongly consistent.
//!
//! ## Leases
//!
//! A task at work carries its runner's lease ([`a2a_lambda_server::tasks::lease`]), written with
//! the task by the same `PutItem` (a task that is over or waits for input carries none: its
//! `PutItem` drops the attributes). A runner quiet for a third of the lease renews it with
//! an `UpdateItem` of the lease attributes and the version (conditional on the version, as
//! every write), so a reader that found the lease expired cannot fail a task whose runner
//! renewed meanwhile: its write names the older version and loses. The lease lasts
//! [`DEFAULT_LEASE`] unless configured (`A2A_TASK_LEASE_SECONDS`).
//!
//! ## Listing, and the scale it suits
//!
//! `ListTasks` reads the small index entries (id, timestamp, state, expiry) of the caller's
//! tasks — a `Query` of [`OWNER_INDEX`] for the caller's owner key, newest first, filtered
//! to the context when one is given — filters and sorts them in memory exactly as the
//! in-memory store does (newest status first, then by id), and then reads the one page's
//! tasks with a `BatchGetItem`. Page tokens are the in-memory store's
//! ([`tasks::page_token`](a2a_lambda_server::tasks::page_token), base64 of the offset). No listing scans the table; one reads all
//! of one owner's live tasks' index entries, which suits owners of up to some tens of
//! thousands of live tasks (expiring after the retention). All anonymous tasks share one
//! index partition, as do one owner's: DynamoDB writes about 1,000 index entries a second
//! to one partition key, so an owner (or an unauthenticated function) starting several
//! hundred tasks a second needs its callers told apart.
//!
//! ## Timeouts and retries
//!
//! Every call has explicit timeouts ([`CONNECT_TIMEOUT`], [`READ_TIMEOUT`],
//! [`OPERATION_ATTEMPT_TIMEOUT`], [`OPERATION_TIMEOUT`]) and the standard retry mode with
//! [`MAX_ATTEMPTS`] attempts, so a throttled, failing or silent DynamoDB costs a caller at
//! most a few seconds and a clear -32603, never a hung invocation.
//!
//! Nothing here probes the environment: the region is given, and credentials come from the
//! environment (what Lambda sets), the shared profile files, or a container endpoint,
//! looked up at the first call. Instance metadata is never asked.

mod item;
mod lease;
mod log;
pub mod push;
mod settings;
mod store;

pub use item::ANONYMOUS_OWNER;
pub use push::DynamoPushConfigStore;
pub use settings::{
    CONNECT_TIMEOUT, DEFAULT_LEASE, DEFAULT_RETENTION, DynamoSettings, MAX_ATTEMPTS,
    OPERATION_ATTEMPT_TIMEOUT, OPERATION_TIMEOUT, READ_TIMEOUT, retry_config, timeout_config,
};
pub use store::{DynamoTaskStore, OWNER_INDEX};
