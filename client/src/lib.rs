#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! ## In detail
//!
//! - **Bindings**: the card's interfaces are walked in the card's order and the first
//!   binding spoken is used, in 1.0 if offered ([`card`]), as the official SDK clients
//!   choose; [`ClientBuilder::binding`] forces one ([`Binding`]). Every operation goes over
//!   either, with the same results and the same error codes (an HTTP+JSON
//!   `google.rpc.Status` is read back to its JSON-RPC code). With the `grpc` feature, gRPC
//!   too: chosen when forced, or from a card that offers no HTTP binding (it is served on
//!   a port of its own); its status details read as HTTP+JSON's.
//! - **Cards**: the card is read from `.well-known/agent-card.json` relative to the base URL
//!   (so `…/runtimes/{arn}/invocations/` works); v0.3, v1.0 and hybrid cards are read, and
//!   the interface is chosen as under **Bindings** above ([`card`]).
//! - **Errors on any status**: a JSON-RPC error body is read whatever the HTTP status
//!   (AgentCore sends 409, 429, 424… with one) and surfaces as [`Error::Rpc`] with the code,
//!   message, status and AWS's exception name; a body that is not JSON-RPC (an HTML 413, a
//!   plain 403) is [`Error::Http`], never a parse panic.
//! - **Retries**: AgentCore's throttling (-32053) and "Session operation in progress"
//!   (-32054) are retried with exponential backoff and jitter ([`RetryPolicy`]); the same
//!   request body is re-sent, so a retried send keeps its `messageId`. Nothing else is
//!   retried.
//! - **Sessions**: `X-Amzn-Bedrock-AgentCore-Runtime-Session-Id` is sent on every request
//!   (given or generated), and an id the server returns is kept for the next one.
//! - **Auth**: bearer token, API key header, or SigV4 for `bedrock-agentcore` ([`Auth`]).
//! - **Streams**: SSE decoded as it arrives into typed events ([`EventStream`]); a send
//!   stream ends when the task ends or waits for the client, a subscription when it ends; a
//!   stream cut short resubscribes once to its task with `Last-Event-ID` and goes on
//!   without repeating an event; cut again, or silent past [`STREAM_IDLE_TIMEOUT`], it
//!   says so.

pub mod auth;
pub mod card;
mod client;
pub mod error;
#[cfg(feature = "grpc")]
mod grpc;
pub mod protocol;
pub mod push;
mod refusal;
mod rest;
pub mod retry;
mod rpc;
mod session_stop;
#[cfg(feature = "sigv4")]
pub mod sigv4;
mod sse;
mod stream;
#[cfg(feature = "otel")]
mod trace_context;

pub use a2a_lambda_core::card::Binding;
pub use a2a_lambda_core::{ProtocolVersion, model};
pub use auth::Auth;
pub use card::FetchedCard;
pub use client::{
    CONNECT_TIMEOUT, Client, ClientBuilder, REQUEST_TIMEOUT, STREAM_IDLE_TIMEOUT, reply_params,
    text_params,
};
pub use error::{Error, RpcError};
pub use retry::RetryPolicy;
pub use rpc::new_session_id;
pub use stream::EventStream;
