//! `ListTasks` (v1.0): a page of the caller's tasks, filtered as it asks.

use a2a_lambda_core::error::Error;
use a2a_lambda_core::model::ListTasksParams;
use a2a_lambda_core::wire::v1_0;

use crate::engine::request::Request;
use crate::engine::{Engine, Reply, respond};
use crate::tasks::StoreError;

/// Every ListTasks field is optional, so params may be left out.
pub(in crate::engine) fn parse(req: &Request<'_>) -> Result<ListTasksParams, Error> {
    match req.params {
        None => Ok(ListTasksParams::default()),
        Some(_) => v1_0::parse_list_tasks_params(req.params),
    }
}

pub(in crate::engine) async fn run(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    let params = parse(&req)?;
    let page = engine
        .deps
        .store
        .list(&params, &req.call.owner)
        .await
        .map_err(|error| match error {
            StoreError::BadPageToken(token) => Error::invalid_params(format!(
                "params.pageToken: {token:?} is not a token this agent issued"
            )),
            other => super::internal(&other),
        })?;
    Ok(req.json(respond::list(req.frame, &page)))
}
