//! The extension's wait, in process: it holds an invocation until the runtime finished it
//! and the agent is done, fails what still runs at the deadline, and costs no store call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use a2a_lambda_core::card::{AgentCard, SecurityMechanism, Skill};
use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_core::model::{ListTasksParams, ListTasksResult, Task};
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::host::engine::{CallContext, Engine, EngineConfig, Reply};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{InMemoryTaskStore, SharedStored, StoreError, Stored, TaskStore};
use lambda_http::lambda_runtime::{Context, LambdaInvocation};
use serde_json::{Value, json};
use tokio::time::{Instant, timeout};
use tower::{Layer as _, ServiceExt as _};

use super::*;

/// Any single step of these tests.
const STEP: Duration = Duration::from_secs(10);

/// Works for `work` (or until cancelled, when `None`), then completes.
struct Worker {
    work: Option<Duration>,
}

impl Agent for Worker {
    fn card(&self) -> AgentCard {
        AgentCard::new("Worker", "Takes its time.", "1.0.0").with_skill(Skill::new(
            "work",
            "Work",
            "Works for a while.",
            ["test"],
        ))
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        events.working().await?;
        let Some(work) = self.work else {
            context.cancellation.cancelled().await;
            return Ok(());
        };
        tokio::select! {
            () = tokio::time::sleep(work) => events.complete_with("done").await?,
            () = context.cancellation.cancelled() => {}
        }
        Ok(())
    }
}

/// The in-memory store, counting the calls made to it.
#[derive(Default)]
struct Counting {
    inner: InMemoryTaskStore,
    gets: AtomicUsize,
    puts: AtomicUsize,
}

impl Counting {
    fn calls(&self) -> (usize, usize) {
        (
            self.gets.load(Ordering::SeqCst),
            self.puts.load(Ordering::SeqCst),
        )
    }
}

#[async_trait::async_trait]
impl TaskStore for Counting {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        self.inner.get(id).await
    }
    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.puts.fetch_add(1, Ordering::SeqCst);
        self.inner.put(task, owner, expected).await
    }
    async fn list(
        &self,
        params: &ListTasksParams,
        owner: &Owner,
    ) -> Result<ListTasksResult, StoreError> {
        self.inner.list(params, owner).await
    }
    async fn get_shared(&self, id: &str) -> Result<Option<SharedStored>, StoreError> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        self.inner.get_shared(id).await
    }
    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.puts.fetch_add(1, Ordering::SeqCst);
        self.inner.put_shared(task, owner, expected).await
    }
}

fn engine(work: Option<Duration>, store: Arc<Counting>, background_work: bool) -> Arc<Engine> {
    let engine = Engine::new(
        Arc::new(Worker { work }),
        store,
        EngineConfig {
            public_url: "https://localhost/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: false,
            security: Some(SecurityMechanism::None),
            background_work,
        },
    );
    Arc::new(engine.expect("a valid engine"))
}

/// A v0.3 `message/send` with `blocking: false`; the task it answers with.
async fn send_non_blocking(engine: &Engine) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m-1", "role": "user",
                    "parts": [{"kind": "text", "text": "work"}]},
        "configuration": {"blocking": false},
    }});
    let call = CallContext {
        request_id: "test".to_owned(),
        ..CallContext::default()
    };
    match engine.handle(request.to_string().as_bytes(), &call).await {
        Reply::Json { body, .. } => {
            let answer: Value = serde_json::from_slice(&body).expect("JSON");
            answer["result"].clone()
        }
        other => panic!("not a JSON reply: {other:?}"),
    }
}

async fn stored(store: &Counting, task: &Value) -> Task {
    let id = task["id"].as_str().expect("a task id");
    store
        .inner
        .get(id)
        .await
        .expect("the store answers")
        .expect("the task is stored")
        .task
}

fn background_for(engine: &Arc<Engine>) -> Arc<Background> {
    let background = Arc::new(Background::default());
    background.set_engine(Arc::clone(engine));
    background
}

#[tokio::test]
async fn an_invocation_is_held_until_the_runtime_finished_it_and_the_agent_is_done() {
    let store = Arc::new(Counting::default());
    let engine = engine(Some(Duration::from_millis(300)), Arc::clone(&store), true);
    let background = background_for(&engine);
    let far = Instant::now() + Duration::from_secs(900);
    // The extension hears of the invocation first.
    let mut held = Box::pin(background.hold("inv-1", far));
    assert!(
        timeout(Duration::from_millis(50), &mut held).await.is_err(),
        "nothing ran yet, but the runtime has not finished the invocation"
    );

    let task = send_non_blocking(&engine).await;
    assert_eq!(
        task["status"]["state"], "submitted",
        "answered at once: {task}"
    );
    background.invocations().finish("inv-1".to_owned());
    assert!(
        timeout(Duration::from_millis(50), &mut held).await.is_err(),
        "the invocation is finished, but its agent still works"
    );
    assert_eq!(timeout(STEP, held).await.expect("held"), Held::Settled);
    let task = stored(&store, &task).await;
    assert_eq!(task.status.state.v0_3_name(), "completed");
    // The runner's two writes (opened working, then completed); the wait itself reads and
    // writes nothing.
    assert_eq!(store.calls(), (0, 2));
}

#[tokio::test]
async fn an_invocation_with_no_background_work_is_let_go_once_finished() {
    let store = Arc::new(Counting::default());
    let engine = engine(Some(Duration::from_millis(300)), Arc::clone(&store), true);
    let background = background_for(&engine);
    background.invocations().finish("inv-1".to_owned());
    let held = background.hold("inv-1", Instant::now() + Duration::from_secs(900));
    assert_eq!(timeout(STEP, held).await.expect("at once"), Held::Settled);
    assert_eq!(store.calls(), (0, 0));
}

#[tokio::test]
async fn at_the_deadline_running_tasks_are_failed_in_the_store() {
    let store = Arc::new(Counting::default());
    let engine = engine(None, Arc::clone(&store), true);
    let background = background_for(&engine);
    let task = send_non_blocking(&engine).await;
    background.invocations().finish("inv-1".to_owned());
    let started = Instant::now();
    let deadline = started + DEADLINE_MARGIN + Duration::from_millis(300);
    let held = timeout(STEP, background.hold("inv-1", deadline))
        .await
        .expect("held until the margin");
    let done = Instant::now();
    assert_eq!(held, Held::OutOfTime { failed: 1 });
    assert!(
        done >= deadline - DEADLINE_MARGIN,
        "held until the margin: {:?}",
        done - started
    );
    assert!(
        done < deadline - NEXT_EVENT_SLACK,
        "let go before the deadline"
    );
    let task = stored(&store, &task).await;
    assert_eq!(task.status.state.v0_3_name(), "failed");
    let message = task.status.message.expect("a status message");
    assert_eq!(message.joined_text(), OUT_OF_TIME);
    // The agent was told to stop, and its runner is gone.
    assert_eq!(engine.running_tasks(), 0);
    // Opened, then failed.
    assert_eq!(store.calls(), (0, 2));
}

#[tokio::test]
async fn without_background_work_a_non_blocking_send_is_answered_when_done() {
    let store = Arc::new(Counting::default());
    let engine = engine(Some(Duration::from_millis(100)), Arc::clone(&store), false);
    let task = timeout(STEP, send_non_blocking(&engine))
        .await
        .expect("answered");
    assert_eq!(task["status"]["state"], "completed", "{task}");
    assert_eq!(engine.running_tasks(), 0);
    // The same writes as with the extension.
    assert_eq!(store.calls(), (0, 2));
}

#[tokio::test]
async fn the_runtime_layer_records_each_invocation_once_answered() {
    let invocations = Arc::new(Invocations::default());
    // Stands for the runtime's posting of the response.
    let posted = Arc::new(tokio::sync::Notify::new());
    let inner = tower::service_fn({
        let posted = Arc::clone(&posted);
        move |_: LambdaInvocation| {
            let posted = Arc::clone(&posted);
            async move {
                posted.notified().await;
                Ok::<(), lambda_http::Error>(())
            }
        }
    });
    let service = TrackLayer::new(Arc::clone(&invocations)).layer(inner);
    let mut context = Context::default();
    context.request_id = "inv-7".to_owned();
    let invocation = LambdaInvocation {
        parts: http_parts(),
        body: axum::body::Bytes::new(),
        context,
    };
    let call = tokio::spawn(service.oneshot(invocation));
    let mut finished = Box::pin(invocations.finished("inv-7"));
    assert!(
        timeout(Duration::from_millis(50), &mut finished)
            .await
            .is_err(),
        "the response is not posted yet"
    );
    posted.notify_one();
    timeout(STEP, finished)
        .await
        .expect("finished once answered");
    timeout(STEP, call)
        .await
        .expect("the call ends")
        .expect("no panic")
        .expect("no error");
    // Another id is not taken for it.
    let other = invocations.finished("inv-8");
    assert!(timeout(Duration::from_millis(50), other).await.is_err());
}

fn http_parts() -> axum::http::response::Parts {
    axum::http::Response::new(()).into_parts().0
}

mod managed;
mod shutdown;
