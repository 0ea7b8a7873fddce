//! # a2a-lambda-core
//!
//! The A2A wire, with no I/O of its own: JSON-RPC 2.0 envelopes ([`jsonrpc`]), the
//! canonical model ([`model`]), the v0.3 and v1.0 serde types ([`wire`]), version
//! negotiation ([`version`]), percent-encoding ([`percent`]), the agent card ([`card`]),
//! the error tables ([`error`]), AgentCore's platform headers ([`agentcore`]) and the
//! rules of which request headers AgentCore passes ([`agentcore_headers`]), and the
//! HTTP+JSON binding's routes, query parameters and error bodies ([`rest`]). No async
//! runtime, no web framework: a client and a server share it.
//!
//! ```
//! use a2a_lambda_core::{jsonrpc, version};
//!
//! let body = br#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}"#;
//! let request = jsonrpc::parse_request(body).unwrap();
//! let requested = version::negotiate(None, None).unwrap();
//! let (speaks, operation) = version::resolve_method(&request.method, requested).unwrap();
//! assert_eq!(speaks, version::ProtocolVersion::V0_3);
//! assert_eq!(operation, version::Operation::Send);
//! ```

pub mod agentcore;
pub mod agentcore_headers;
pub mod card;
pub mod error;
pub mod jsonrpc;
pub mod model;
pub mod percent;
pub mod rest;
pub mod version;
pub mod wire;

pub use error::{Error, ErrorCode, ErrorProfile, Refusal};
pub use version::{Operation, ProtocolVersion};
