#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! ## Modules
//!
//! JSON-RPC 2.0 envelopes ([`jsonrpc`]), the canonical model ([`model`]), the v0.3 and
//! v1.0 serde types ([`wire`]), version negotiation ([`version`]), percent-encoding
//! ([`percent`]), the agent card ([`card`]), the error tables ([`error`]), AgentCore's
//! platform headers ([`agentcore`]) and the rules of which request headers AgentCore passes
//! ([`agentcore_headers`]), and the HTTP+JSON binding's routes, query parameters and error
//! bodies ([`rest`]). With the `grpc` feature, the gRPC binding's messages, service stubs
//! and status details (`grpc`).

pub mod agentcore;
pub mod agentcore_headers;
pub mod card;
pub mod error;
#[cfg(feature = "grpc")]
#[cfg_attr(docsrs, doc(cfg(feature = "grpc")))]
pub mod grpc;
pub mod jsonrpc;
pub mod model;
pub mod percent;
pub mod rest;
pub mod version;
pub mod wire;

pub use error::{Error, ErrorCode, ErrorProfile, Refusal};
pub use version::{Operation, ProtocolVersion};
