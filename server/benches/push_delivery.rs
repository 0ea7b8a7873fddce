//! How many push notifications one `Webhooks` delivers per second to a local receiver:
//! `cargo bench -p a2a-lambda-server --bench push_delivery`.
//!
//! The receiver (an axum route answering 200) runs on the same one-thread runtime as the
//! client, so the figure is the CPU cost of both ends over loopback, pooled keep-alive
//! connections; a remote webhook adds its round trip. Two shapes: one notification at a
//! time, and 32 in flight together.

use std::hint::black_box;

use a2a_lambda_server::push::delivery::{DeliveryPolicy, Notification, Outcome, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use axum::routing::post;
use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const BODY: &str = r#"{"statusUpdate":{"taskId":"43667960-d455-4453-b0cf-1bae4955270d","contextId":"c295ea44-7543-4f78-b524-7a38915ad6e4","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2024-03-15T18:30:00Z"}}}"#;

const IN_FLIGHT: usize = 32;

async fn deliver(webhooks: &Webhooks, notification: &Notification) {
    match webhooks.deliver(notification).await {
        Outcome::Delivered { .. } => {}
        other => panic!("the local receiver must take it: {other:?}"),
    }
}

fn delivery(c: &mut Criterion) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("a runtime must start: {error}"),
    };
    let addr = runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
            Ok(listener) => listener,
            Err(error) => panic!("a local port must bind: {error}"),
        };
        let addr = listener.local_addr().ok();
        let app = axum::Router::new().route("/hook", post(|_: Bytes| async { "" }));
        tokio::spawn(async move { axum::serve(listener, app).await });
        addr
    });
    let Some(addr) = addr else {
        panic!("the receiver has an address");
    };
    let webhooks = match Webhooks::new(TargetPolicy::Loopback, DeliveryPolicy::default()) {
        Ok(webhooks) => webhooks,
        Err(error) => panic!("the client must build: {error}"),
    };
    let notification = Notification {
        url: format!("http://{addr}/hook?tenant=bench"),
        token: Some("bench-token".to_owned()),
        authorization: Some("Bearer bench".to_owned()),
        content_type: "application/a2a+json",
        body: Bytes::from_static(BODY.as_bytes()),
    };

    let mut group = c.benchmark_group("push delivery");
    group.throughput(Throughput::Elements(1));
    group.bench_function("one at a time", |b| {
        b.iter(|| runtime.block_on(deliver(&webhooks, black_box(&notification))))
    });
    group.throughput(Throughput::Elements(IN_FLIGHT as u64));
    group.bench_function(format!("{IN_FLIGHT} in flight"), |b| {
        b.iter(|| {
            runtime.block_on(futures_util::future::join_all(
                (0..IN_FLIGHT).map(|_| deliver(&webhooks, &notification)),
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, delivery);
criterion_main!(benches);
