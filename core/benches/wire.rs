//! Parse + convert benchmarks for the wire: `cargo bench -p a2a-core`.

use std::hint::black_box;

use a2a_core::jsonrpc;
use criterion::{Criterion, criterion_group, criterion_main};

const V0_3_SEND: &str = include_str!("../tests/fixtures/v0_3/send_request.json");

fn envelope(c: &mut Criterion) {
    c.bench_function("jsonrpc envelope (v0.3 message/send)", |b| {
        b.iter(|| jsonrpc::parse_request(black_box(V0_3_SEND.as_bytes())).map(|r| r.method))
    });
}

criterion_group!(benches, envelope);
criterion_main!(benches);
