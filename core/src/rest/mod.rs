//! The HTTP+JSON (REST) binding of A2A v1.0 as plain data: which path and verb name which
//! operation ([`routes`]), how GET parameters travel in the query ([`query`]), and how a
//! refusal becomes an HTTP status with a `google.rpc.Status` body ([`status`]).
//!
//! The binding is specified in the A2A specification §11 (v1.0.1), with paths and verbs
//! from the `google.api.http` annotations of `specification/a2a.proto`, which are
//! normative. Request and response bodies are the v1.0 ProtoJSON objects the JSON-RPC
//! binding carries as `params` and `result` ([`crate::wire::v1_0`]); only the envelope
//! differs.
//!
//! ```
//! use a2a_lambda_core::rest::routes::{self, RouteMatch};
//! use a2a_lambda_core::version::Operation;
//! use http::Method;
//!
//! let found = routes::resolve(&Method::POST, "/tasks/task-1:cancel").unwrap();
//! assert_eq!(found.operation, Operation::CancelTask);
//! assert_eq!(found.task_id.as_deref(), Some("task-1"));
//! assert_eq!(routes::path(Operation::CancelTask, "task-1", None), "/tasks/task-1:cancel");
//! # let _: RouteMatch = found;
//! ```

pub mod body;
pub mod query;
pub mod routes;
pub mod status;

/// The media type of the binding's requests and responses (§11.1); `application/json` is
/// accepted too, as the official SDKs send it.
pub const MEDIA_TYPE: &str = "application/a2a+json";

/// The card's `protocolBinding` for this binding.
pub const BINDING_NAME: &str = "HTTP+JSON";
