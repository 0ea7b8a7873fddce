//! A task store traced: each call a client span `task_store {operation}` (the database
//! client spans' `db.operation.name`), a conflicting write marked `error.type`
//! `conflict`. The engine wraps its store in it only while telemetry is on, and only a
//! store other processes share ([`TaskStore::is_shared`]: DynamoDB), whose calls are round
//! trips; the in-memory store's are map lookups, not worth a span each.

use std::future::Future;
use std::sync::Arc;

use tracing::Instrument as _;
use tracing::field::Empty;

use crate::owner::Owner;
use crate::tasks::{Lease, LeaseTerms, Leased, SharedStored, Since, StoreError, Stored, TaskStore};
use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, StreamEvent, Task};

/// `store`, each call in a span of its own.
pub(crate) struct TracedStore(pub(crate) Arc<dyn TaskStore>);

async fn traced<T>(
    operation: &'static str,
    id: Option<&str>,
    call: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let span = tracing::info_span!(
        target: super::TARGET,
        "task_store",
        otel.name = format!("task_store {operation}"),
        otel.kind = "client",
        otel.status_code = Empty,
        db.operation.name = operation,
        a2a.task.id = id,
        error.type = Empty,
    );
    let outcome = call.instrument(span.clone()).await;
    if let Err(error) = &outcome {
        let kind = match error {
            StoreError::Conflict(_) => "conflict",
            StoreError::BadPageToken(_) => "bad_page_token",
            StoreError::Backend(_) => "backend",
        };
        span.record("error.type", kind);
        // A conflict is the optimistic write doing its job (the caller reads again and
        // retries), not a failure of the store.
        if kind != "conflict" {
            span.record("otel.status_code", "error");
        }
    }
    outcome
}

#[async_trait::async_trait]
impl TaskStore for TracedStore {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        traced("get", Some(id), self.0.get(id)).await
    }

    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        traced("put", Some(&task.id), self.0.put(task, owner, expected)).await
    }

    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError> {
        traced("list", None, self.0.list(params, owner)).await
    }

    async fn get_shared(&self, id: &str) -> Result<Option<SharedStored>, StoreError> {
        traced("get", Some(id), self.0.get_shared(id)).await
    }

    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        traced(
            "put",
            Some(&task.id),
            self.0.put_shared(task, owner, expected),
        )
        .await
    }

    fn lease_terms(&self) -> Option<LeaseTerms> {
        self.0.lease_terms()
    }

    async fn put_logged(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
        events: &[StreamEvent],
        lease: Option<&Lease>,
    ) -> Result<u64, StoreError> {
        traced(
            "put_logged",
            Some(&task.id),
            self.0.put_logged(task, owner, expected, events, lease),
        )
        .await
    }

    async fn renew_lease(&self, id: &str, expected: u64, lease: &Lease) -> Result<u64, StoreError> {
        traced(
            "renew_lease",
            Some(id),
            self.0.renew_lease(id, expected, lease),
        )
        .await
    }

    async fn get_leased(&self, id: &str) -> Result<Option<Leased>, StoreError> {
        traced("get_leased", Some(id), self.0.get_leased(id)).await
    }

    async fn since(&self, id: &str, version: u64) -> Result<Option<Since>, StoreError> {
        traced("since", Some(id), self.0.since(id, version)).await
    }

    fn is_shared(&self) -> bool {
        self.0.is_shared()
    }
}
