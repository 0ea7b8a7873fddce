//! The lease attributes of a task at work ([`a2a_lambda_server::tasks::lease`]): written with the
//! task by the runner's `PutItem`s, renewed alone by an `UpdateItem`.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_lambda_server::tasks::{Lease, StoreError};
use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::attr;
use crate::store::DynamoTaskStore;

/// Adds `lease`'s attributes to an item.
pub(super) fn insert(item: &mut HashMap<String, AttributeValue>, lease: &Lease) {
    item.insert(
        attr::LEASE_HOLDER.to_owned(),
        AttributeValue::S(lease.holder.to_string()),
    );
    item.insert(
        attr::LEASE_EXPIRES_AT.to_owned(),
        AttributeValue::N(lease.expires_at_ms.to_string()),
    );
}

/// The lease an item carries, if any (both attributes, readable).
pub(super) fn read(item: &HashMap<String, AttributeValue>) -> Option<Lease> {
    let holder = item.get(attr::LEASE_HOLDER)?.as_s().ok()?;
    let expires_at_ms = item
        .get(attr::LEASE_EXPIRES_AT)?
        .as_n()
        .ok()?
        .parse()
        .ok()?;
    Some(Lease {
        holder: Arc::from(holder.as_str()),
        expires_at_ms,
    })
}

impl DynamoTaskStore {
    /// Sets the lease attributes and the next version of the item at version `expected`,
    /// leaving the task as it is: one small `UpdateItem`.
    pub(super) async fn renew(
        &self,
        id: &str,
        expected: u64,
        lease: &Lease,
    ) -> Result<u64, StoreError> {
        let version = expected.saturating_add(1);
        let outcome = self
            .client
            .update_item()
            .table_name(&self.table)
            .key(attr::ID, AttributeValue::S(id.to_owned()))
            .update_expression("SET #holder = :holder, #lease = :lease, #version = :next")
            .condition_expression("#version = :expected")
            .expression_attribute_names("#holder", attr::LEASE_HOLDER)
            .expression_attribute_names("#lease", attr::LEASE_EXPIRES_AT)
            .expression_attribute_names("#version", attr::VERSION)
            .expression_attribute_values(":holder", AttributeValue::S(lease.holder.to_string()))
            .expression_attribute_values(
                ":lease",
                AttributeValue::N(lease.expires_at_ms.to_string()),
            )
            .expression_attribute_values(":next", AttributeValue::N(version.to_string()))
            .expression_attribute_values(":expected", AttributeValue::N(expected.to_string()))
            .send()
            .await;
        match outcome {
            Ok(_) => Ok(version),
            Err(error)
                if error
                    .as_service_error()
                    .is_some_and(|service| service.is_conditional_check_failed_exception()) =>
            {
                Err(StoreError::Conflict(id.to_owned()))
            }
            Err(error) => Err(self.backend("UpdateItem", &error)),
        }
    }
}
