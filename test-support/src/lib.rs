//! What the workspace's tests share (a dev-dependency only; `publish = false`).
//!
//! - [`sse`]: the one reader of server-sent events: events with their `id`, `event` and
//!   `data`, and a body's events as JSON.
//! - [`values`]: checks of generated values (UUIDs, timestamps).
//! - [`moto`]: moto's DynamoDB-compatible server, started once per test process.
//! - [`TempDir`]: a scratch directory, removed on drop.
//! - `agents` (feature `server`): the tests' own agents (`Ticker`, `Gated`, …).
//! - `conns` (feature `server`): HTTP/1.1 by hand over raw sockets.
//! - `lambda` (feature `server`): what the Lambda function's tests expect of the echo agent.
//! - `dynamo` (feature `dynamo`): tables and task stores on moto.
//! - `otlp` (feature `otlp`): an OTLP/HTTP receiver of spans, for the telemetry tests.
//! - `harness` (feature `harness`): the emulator in-process or as its real binary, spoken
//!   to over HTTP (JSON-RPC in either protocol version, SSE streams), with the helpers of
//!   the front's and the conformance tests, and the `a2a` CLI.
//!
//! Every wait is bounded: a test that would hang fails with what it was waiting for.
// A helper's panic is the test's failure, with its message.
#![allow(clippy::expect_used, clippy::unwrap_used)]

#[cfg(feature = "server")]
pub mod agents;
#[cfg(feature = "server")]
pub mod conns;
#[cfg(feature = "dynamo")]
pub mod dynamo;
#[cfg(feature = "harness")]
pub mod harness;
#[cfg(feature = "server")]
pub mod lambda;
pub mod moto;
#[cfg(feature = "otlp")]
pub mod otlp;
pub mod sse;
mod temp_dir;
pub mod values;

pub use temp_dir::TempDir;
