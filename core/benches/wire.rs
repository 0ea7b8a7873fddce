//! Parse + convert benchmarks for the wire: `cargo bench -p a2a-lambda-core`.
//!
//! Each case goes from the request bytes to the canonical model, as the engine does:
//! JSON-RPC envelope, version negotiation, method resolution, then params → model.

use std::hint::black_box;

use a2a_lambda_core::model::SendMessageParams;
use a2a_lambda_core::version::{self, ProtocolVersion};
use a2a_lambda_core::wire::{v0_3, v1_0};
use a2a_lambda_core::{Error, jsonrpc};
use criterion::{Criterion, criterion_group, criterion_main};

/// The AgentCore contract's `message/send` example (v0.3).
const V0_3_SEND: &str = include_str!("../tests/fixtures/v0_3/agentcore_send_request.json");
/// A `message/send` with configuration and metadata (v0.3).
const V0_3_SEND_FULL: &str = include_str!("../tests/fixtures/v0_3/send_request.json");
/// The specification's `SendMessage` params example (v1.0), put in an envelope below.
const V1_0_SEND_PARAMS: &str =
    include_str!("../tests/fixtures/v1_0/spec_send_message_request.json");
/// A `SendMessage` with configuration, push config and metadata (v1.0).
const V1_0_SEND_FULL: &str = include_str!("../tests/fixtures/v1_0/send_message_request.json");

fn parse_send(body: &str, header: Option<&str>) -> Result<SendMessageParams, Error> {
    let request = jsonrpc::parse_request(body.as_bytes()).map_err(|rejection| rejection.error)?;
    let requested = version::negotiate(header, None)?;
    let (speaks, _) = version::resolve_method(&request.method, requested)?;
    match speaks {
        ProtocolVersion::V0_3 => v0_3::parse_send_params(request.params),
        ProtocolVersion::V1_0 => v1_0::parse_send_params(request.params),
    }
}

fn send(c: &mut Criterion) {
    let v1_0_send =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{V1_0_SEND_PARAMS}}}"#);
    for (name, body, header) in [
        ("v0.3 message/send (AgentCore example)", V0_3_SEND, None),
        ("v0.3 message/send (full)", V0_3_SEND_FULL, None),
        (
            "v1.0 SendMessage (spec example)",
            v1_0_send.as_str(),
            Some("1.0"),
        ),
        ("v1.0 SendMessage (full)", V1_0_SEND_FULL, Some("1.0")),
    ] {
        assert!(parse_send(body, header).is_ok(), "{name} must parse");
        c.bench_function(&format!("parse+convert {name}"), |b| {
            b.iter(|| parse_send(black_box(body), black_box(header)))
        });
    }
}

criterion_group!(benches, send);
criterion_main!(benches);
