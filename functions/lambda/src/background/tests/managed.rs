//! Lambda Managed Instances, in process: an agent run ends at the deadline of the
//! invocation that started it, one started outside an invocation runs on, the runtime
//! layer counts the invocations in flight, and the router's responses pass through the
//! `Sync` wrappers unchanged.

use axum::body::Body;
use http_body_util::BodyExt as _;
use lambda_http::IntoResponse as _;
use tower::Service;

use super::*;
use crate::background::managed::{DeadlineLayer, Deadlined};
use crate::background::shareable::{Answer, AnswerBody};

/// An engine whose agent is `Worker` bounded by its invocations' deadlines.
fn deadlined(work: Option<Duration>, store: Arc<Counting>) -> Arc<Engine> {
    let engine = Engine::new(
        Deadlined::new(Worker { work }),
        store,
        EngineConfig {
            public_url: "https://localhost/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: false,
            security: Some(SecurityMechanism::None),
            background_work: true,
        },
    );
    Arc::new(engine.expect("a valid engine"))
}

/// An invocation with `request_id` whose deadline is `within` from now.
fn invocation(request_id: &str, within: Duration) -> LambdaInvocation {
    let mut context = Context::default();
    context.request_id = request_id.to_owned();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis();
    context.deadline = u64::try_from(now_ms + within.as_millis()).expect("fits");
    LambdaInvocation {
        parts: http_parts(),
        body: axum::body::Bytes::new(),
        context,
    }
}

/// The runtime's service on `engine`: each invocation is a non-blocking send, its task
/// sent back on `tasks`; `release` lets the invocations end.
fn runtime_service(
    engine: Arc<Engine>,
    tasks: tokio::sync::mpsc::UnboundedSender<Value>,
    release: Arc<tokio::sync::Semaphore>,
) -> impl Service<LambdaInvocation, Response = (), Error = lambda_http::Error, Future: Send + 'static>
+ Clone {
    tower::service_fn(move |_: LambdaInvocation| {
        let engine = Arc::clone(&engine);
        let tasks = tasks.clone();
        let release = Arc::clone(&release);
        async move {
            let task = send_non_blocking(&engine).await;
            let _ = tasks.send(task);
            let _permit = release.acquire().await;
            Ok::<(), lambda_http::Error>(())
        }
    })
}

#[tokio::test]
async fn a_run_ends_at_its_invocations_deadline_and_one_outside_an_invocation_runs_on() {
    let store = Arc::new(Counting::default());
    let engine = deadlined(None, Arc::clone(&store));
    let (tasks, mut told) = tokio::sync::mpsc::unbounded_channel();
    let release = Arc::new(tokio::sync::Semaphore::new(0));
    let layer = DeadlineLayer::default();
    let mut service = layer.layer(runtime_service(
        Arc::clone(&engine),
        tasks,
        Arc::clone(&release),
    ));

    // A task started outside any invocation: no deadline.
    let outside = send_non_blocking(&engine).await;
    // One started by an invocation with 1.3 s left: failed 1 s before it.
    let started = Instant::now();
    let call = tokio::spawn(
        service
            .ready()
            .await
            .expect("ready")
            .call(invocation("inv-1", Duration::from_millis(1_300))),
    );
    let task = timeout(STEP, told.recv())
        .await
        .expect("answered")
        .expect("a task");
    assert_eq!(task["status"]["state"], "submitted", "{task}");
    let deadline = Instant::now() + STEP;
    let failed = loop {
        let stored = stored(&store, &task).await;
        if stored.status.state.v0_3_name() == "failed" {
            break stored;
        }
        assert!(Instant::now() < deadline, "never failed: {stored:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert!(
        started.elapsed() < Duration::from_millis(1_300),
        "failed before the deadline"
    );
    let message = failed.status.message.expect("a status message");
    assert_eq!(message.joined_text(), OUT_OF_TIME);
    assert_eq!(message.role, a2a_lambda_core::model::Role::Agent);
    // The other task works on, its agent never stopped.
    assert_eq!(
        stored(&store, &outside).await.status.state.v0_3_name(),
        "working"
    );
    assert_eq!(engine.running_tasks(), 1);

    // The invocation is in flight until its service is done.
    let mut served = Box::pin(layer.served());
    assert!(
        timeout(Duration::from_millis(50), &mut served)
            .await
            .is_err(),
        "an invocation is in flight"
    );
    release.add_permits(1);
    timeout(STEP, call)
        .await
        .expect("the call ends")
        .expect("no panic")
        .expect("no error");
    timeout(STEP, served).await.expect("none in flight");
}

#[tokio::test]
async fn the_sync_wrappers_leave_the_routers_responses_as_they_are() {
    let response = axum::http::Response::builder()
        .status(201)
        .header("content-type", "application/json")
        .body(Body::from(r#"{"ok":true}"#))
        .expect("a response");
    let buffered = Answer::new(response).into_response().await;
    assert_eq!(buffered.status(), 201);
    assert_eq!(buffered.headers()["content-type"], "application/json");
    assert_eq!(
        buffered.body(),
        &lambda_http::Body::Text(r#"{"ok":true}"#.to_owned())
    );

    let response = axum::http::Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from("data: 1\n\n"))
        .expect("a response");
    let streamed = AnswerBody::response(response);
    assert_eq!(streamed.headers()["content-type"], "text/event-stream");
    let body = streamed
        .into_body()
        .collect()
        .await
        .expect("the body")
        .to_bytes();
    assert_eq!(&body[..], b"data: 1\n\n");
}
