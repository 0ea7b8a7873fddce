//! `tasks/get` / `GetTask`: a task of the caller's, with as much history as it asks for.

use a2a_lambda_core::error::Error;
use a2a_lambda_core::model::GetTaskParams;
use a2a_lambda_core::wire::{v0_3, v1_0};

use crate::engine::request::Request;
use crate::engine::{Engine, Reply, respond};

pub(in crate::engine) fn parse(req: &Request<'_>) -> Result<GetTaskParams, Error> {
    req.parse(v0_3::parse_get_task_params, v1_0::parse_get_task_params)
}

pub(in crate::engine) async fn run(engine: &Engine, req: Request<'_>) -> Result<Reply, Error> {
    let params = parse(&req)?;
    let task = super::load(engine, &params.id, &req.call.owner).await?;
    let task = super::trimmed(&task, params.history_length);
    Ok(req.json(respond::task(req.version, req.frame, &task)))
}
