//! What push notifications cost an engine: `cargo bench -p a2a-lambda-server --bench push_engine`.
//!
//! - `send`: one `SendMessage` to the echo agent on an engine that delivers push
//!   notifications, without and with a `taskPushNotificationConfig` (a loopback receiver):
//!   the config's checks, its store write and the deliveries it starts, which run on the
//!   same thread, so their CPU counts here too.
//! - `deliveries`: sends with a config, timed until the receiver has every notification:
//!   the notifications per second one engine sustains to a local receiver.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::host::engine::{CallContext, Engine, EngineConfig};
use a2a_lambda_server::push::delivery::{DeliveryPolicy, Webhooks};
use a2a_lambda_server::push::target::TargetPolicy;
use a2a_lambda_server::push::{InMemoryPushConfigs, Push};
use a2a_lambda_server::tasks::InMemoryTaskStore;
use axum::routing::post;
use criterion::{Criterion, criterion_group, criterion_main};

const PLAIN: &str = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"load-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}"#;

fn with_config(url: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{{"message":{{"messageId":"load-1","role":"ROLE_USER","parts":[{{"text":"hello"}}]}},"configuration":{{"taskPushNotificationConfig":{{"url":"{url}","token":"t"}}}}}}}}"#
    )
}

fn engine() -> Arc<Engine> {
    let config = EngineConfig {
        public_url: "http://127.0.0.1:9000/".to_owned(),
        error_profile: ErrorProfile::Spec,
        host_can_stream: true,
        security: None,
        background_work: true,
    };
    let engine = match Engine::new(
        Arc::new(EchoAgent),
        Arc::new(InMemoryTaskStore::new()),
        config,
    ) {
        Ok(engine) => engine,
        Err(error) => panic!("the echo engine must build: {error}"),
    };
    let webhooks = match Webhooks::new(TargetPolicy::Loopback, DeliveryPolicy::default()) {
        Ok(webhooks) => webhooks,
        Err(error) => panic!("the webhook client must build: {error}"),
    };
    Arc::new(engine.with_push(Push::new(Arc::new(InMemoryPushConfigs::new()), webhooks)))
}

/// A receiver on loopback that counts what it got; its URL.
async fn receiver(count: Arc<AtomicU64>) -> String {
    let app = axum::Router::new().route(
        "/hook",
        post(move || {
            let count = Arc::clone(&count);
            async move {
                count.fetch_add(1, Ordering::Relaxed);
                ""
            }
        }),
    );
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(error) => panic!("a loopback port must bind: {error}"),
    };
    let url = match listener.local_addr() {
        Ok(address) => format!("http://{address}/hook"),
        Err(error) => panic!("a bound port has an address: {error}"),
    };
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url
}

fn push(c: &mut Criterion) {
    // One thread, as each worker is under load: the deliveries' CPU is the send's thread's.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("a runtime must start: {error}"),
    };
    let engine = engine();
    let count = Arc::new(AtomicU64::new(0));
    let url = runtime.block_on(receiver(Arc::clone(&count)));
    let configured = with_config(&url);
    let call = CallContext {
        version_header: Some("1.0".to_owned()),
        request_id: "bench".to_owned(),
        ..CallContext::default()
    };
    c.bench_function("push engine: send without a config", |b| {
        b.iter(|| runtime.block_on(engine.handle(black_box(PLAIN.as_bytes()), &call)))
    });
    c.bench_function("push engine: send with a config", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let reply = engine.handle(black_box(configured.as_bytes()), &call).await;
                // Let the deliveries this send started run, as they would between requests.
                tokio::task::yield_now().await;
                reply
            })
        })
    });
    runtime.block_on(engine.idle());
    let mut group = c.benchmark_group("push engine");
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("deliveries (one a send: the echo task completed)", |b| {
        b.iter_custom(|sends| {
            runtime.block_on(async {
                let before = count.load(Ordering::Relaxed);
                let started = Instant::now();
                for _ in 0..sends {
                    let _ = engine.handle(configured.as_bytes(), &call).await;
                }
                engine.idle().await;
                let elapsed = started.elapsed();
                let delivered = count.load(Ordering::Relaxed) - before;
                // Time per send; the figure per delivery is this over delivered / sends.
                if sends >= 1000 {
                    eprintln!(
                        "{delivered} notifications for {sends} sends in {elapsed:?}: {:.0} deliveries/s",
                        delivered as f64 / elapsed.as_secs_f64()
                    );
                }
                elapsed
            })
        })
    });
    group.finish();
}

criterion_group!(benches, push);
criterion_main!(benches);
