//! The gRPC binding of A2A v1.0 (A2A specification §10): the messages and the
//! `A2AService` of the specification's `a2a.proto` (package `lf.a2a.v1`), and refusals as
//! a `google.rpc.Status` with its `ErrorInfo` ([`status`]).
//!
//! The messages ([`v1`]) are prost types with ProtoJSON serde impls (pbjson): a message
//! serialized with `serde_json` is the v1.0 JSON object the other two bindings carry, so a
//! server hands a request to the engine as JSON, and reads the engine's JSON reply back
//! into a message, with one parser for all three bindings.
//!
//! ```
//! use a2a_lambda_core::grpc::v1;
//!
//! let request = v1::GetTaskRequest { id: "t-1".into(), history_length: Some(2), ..Default::default() };
//! let json = serde_json::to_value(&request).unwrap();
//! assert_eq!(json, serde_json::json!({"id": "t-1", "historyLength": 2}));
//! let back: v1::GetTaskRequest = serde_json::from_value(json).unwrap();
//! assert_eq!(back, request);
//! ```

pub mod status;

/// The messages, enums and service stubs of `lf.a2a.v1`, generated from `a2a.proto`:
/// [`a2a_service_server`](v1::a2a_service_server) for a server,
/// [`a2a_service_client`](v1::a2a_service_client) for a client.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    clippy::unwrap_used,
    clippy::expect_used,
    rustdoc::broken_intra_doc_links,
    rustdoc::bare_urls,
    rustdoc::invalid_html_tags
)]
pub mod v1 {
    include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/lf.a2a.v1.serde.rs"));
}

/// The gRPC service's full name, as a request's path names it (`/lf.a2a.v1.A2AService/…`).
pub const SERVICE_NAME: &str = "lf.a2a.v1.A2AService";

/// The card's `protocolBinding` of the gRPC binding (§8.2).
pub const BINDING_NAME: &str = crate::card::GRPC_BINDING;

/// `google.protobuf.Empty`, what `DeleteTaskPushNotificationConfig` answers.
pub use pbjson_types::Empty;
