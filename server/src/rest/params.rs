//! The v1.0 request object of an operation, gathered from the path, the query and the
//! body: what the JSON-RPC binding would carry as `params`, so one parser checks both.
//!
//! - send and stream: the body is the `SendMessageRequest`, as it is.
//! - get, list (tasks, push configurations), the extended card: the query's parameters
//!   ([`a2a_lambda_core::rest::query`]), with the path's ids.
//! - cancel and subscribe: the path's id, with the body's other members when there is a
//!   body (the official clients send `{"id": …}` or nothing).
//! - create a push configuration: the body is the `TaskPushNotificationConfig`, its
//!   `taskId` the path's.
//!
//! A member of the body that names something the path names too must agree with it.

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use a2a_lambda_core::error::Error;
use a2a_lambda_core::rest::routes::RouteMatch;
use a2a_lambda_core::rest::{body, query};
use a2a_lambda_core::version::Operation;

/// The request object for `matched`, or `None` for an operation with nothing to say.
///
/// # Errors
/// The body or the query is refused ([`body::parse`], [`query::params`]), or contradicts
/// the path.
pub(super) fn build(
    matched: &RouteMatch,
    query_text: Option<&str>,
    bytes: &[u8],
) -> Result<Option<Box<RawValue>>, Error> {
    let body = body::parse(bytes)?;
    let task_id = matched.task_id.as_deref().unwrap_or_default();
    let members = match matched.operation {
        Operation::Send | Operation::Stream => {
            no_query(matched.operation, query_text)?;
            return match body {
                Some(raw) => Ok(Some(raw.to_owned())),
                None => Err(Error::invalid_params(
                    "the body is required: a SendMessageRequest ({\"message\": {…}})",
                )),
            };
        }
        Operation::CancelTask => {
            no_query(matched.operation, query_text)?;
            body::with_path(body, &[("id", task_id)])?
        }
        Operation::Subscribe => {
            let mut members = query::params(matched.operation, query_text)?;
            members.extend(body::with_path(body, &[("id", task_id)])?);
            members
        }
        Operation::SetPushConfig => {
            no_query(matched.operation, query_text)?;
            if body.is_none() {
                return Err(Error::invalid_params(
                    "the body is required: a TaskPushNotificationConfig ({\"url\": …})",
                ));
            }
            body::with_path(body, &[("taskId", task_id)])?
        }
        Operation::GetPushConfig | Operation::DeletePushConfig => {
            let config_id = matched.config_id.as_deref().unwrap_or_default();
            let mut members = query::params(matched.operation, query_text)?;
            members.insert("taskId".to_owned(), Value::from(task_id));
            members.insert("id".to_owned(), Value::from(config_id));
            members
        }
        Operation::ListPushConfigs => {
            let mut members = query::params(matched.operation, query_text)?;
            members.insert("taskId".to_owned(), Value::from(task_id));
            members
        }
        Operation::GetTask => {
            let mut members = query::params(matched.operation, query_text)?;
            members.insert("id".to_owned(), Value::from(task_id));
            members
        }
        // ListTasks, the extended card.
        operation => query::params(operation, query_text)?,
    };
    let mut members: Map<String, Value> = members;
    // The path's tenant wins over one in the query or body (the model has no tenant; the
    // wire parser reads and drops it).
    if let Some(tenant) = &matched.tenant {
        members.insert("tenant".to_owned(), Value::from(tenant.as_str()));
    }
    let text = serde_json::to_string(&members)
        .map_err(|error| Error::invalid_params(error.to_string()))?;
    RawValue::from_string(text)
        .map(Some)
        .map_err(|error| Error::invalid_params(error.to_string()))
}

/// Routes whose parameters travel in the body take no query (but the version).
fn no_query(operation: Operation, query_text: Option<&str>) -> Result<(), Error> {
    query::params(operation, query_text).map(drop)
}
