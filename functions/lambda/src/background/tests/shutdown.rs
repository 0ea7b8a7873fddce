//! The environment's shutdown, in process: a task still at work is failed in the store
//! with the shutdown's message, a finished one is left as it is, and a store that does
//! not answer is given up within Lambda's budget.

use a2a_lambda_core::model::Role;
use a2a_lambda_server::tasks::{StoreError, Stored, TaskStore};

use super::*;
use crate::background::shutdown::{DRAIN_WITHIN, SETTLE_WITHIN, SHUT_DOWN, SHUTDOWN_BUDGET};

/// What a shutdown with nothing left to settle reports.
const NOTHING: Settled = Settled {
    running: 0,
    failed: 0,
    written: true,
    drained: true,
    undelivered: 0,
};

/// Waits until the stored task is `state` (the runner writes its states as it goes).
async fn until_stored(store: &dyn TaskStore, task: &Value, state: &str) -> Task {
    let id = task["id"].as_str().expect("a task id");
    let deadline = Instant::now() + STEP;
    loop {
        let stored = store
            .get(id)
            .await
            .expect("the store answers")
            .expect("the task is stored")
            .task;
        if stored.status.state.v0_3_name() == state {
            return stored;
        }
        assert!(Instant::now() < deadline, "never {state}: {stored:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn on_shutdown_a_running_task_is_failed_in_the_store() {
    let store = Arc::new(Counting::default());
    // Works until told to stop.
    let engine = engine(None, Arc::clone(&store), true);
    let background = background_for(&engine);
    let task = send_non_blocking(&engine).await;
    until_stored(&store.inner, &task, "working").await;

    let signaled = Instant::now();
    let settled = timeout(STEP, background.shut_down(signaled))
        .await
        .expect("settled");
    assert_eq!(
        settled,
        Settled {
            running: 1,
            failed: 1,
            written: true,
            drained: true,
            undelivered: 0,
        }
    );
    assert!(
        signaled.elapsed() < SETTLE_WITHIN,
        "{:?}",
        signaled.elapsed()
    );
    let task = stored(&store, &task).await;
    assert_eq!(task.status.state.v0_3_name(), "failed");
    let message = task.status.message.expect("a status message");
    assert_eq!(message.role, Role::Agent);
    assert_eq!(message.joined_text(), SHUT_DOWN);
    assert_eq!(
        SHUT_DOWN,
        "The agent's Lambda execution environment was shut down before the task finished."
    );
    // The agent was told to stop, and its runner is gone.
    assert_eq!(engine.running_tasks(), 0);
    // Opened working, then failed: one write for the shutdown.
    assert_eq!(store.calls(), (0, 2));
}

#[tokio::test]
async fn on_shutdown_a_finished_task_is_left_alone() {
    let store = Arc::new(Counting::default());
    let engine = engine(Some(Duration::from_millis(10)), Arc::clone(&store), true);
    let background = background_for(&engine);
    let task = send_non_blocking(&engine).await;
    timeout(STEP, engine.idle())
        .await
        .expect("the agent is done");
    let before = store.calls();

    let settled = timeout(STEP, background.shut_down(Instant::now()))
        .await
        .expect("settled");
    assert_eq!(settled, NOTHING);
    let task = stored(&store, &task).await;
    assert_eq!(task.status.state.v0_3_name(), "completed");
    assert_eq!(
        task.status.message.expect("a status message").joined_text(),
        "done"
    );
    assert_eq!(store.calls(), before, "nothing read or written");
}

#[tokio::test]
async fn a_shutdown_before_the_engine_is_built_settles_nothing() {
    let background = Background::default();
    let settled = timeout(STEP, background.shut_down(Instant::now()))
        .await
        .expect("at once");
    assert_eq!(settled, NOTHING);
}

/// A store whose writes never end once `stalled` is set.
#[derive(Default)]
struct Stalling {
    inner: InMemoryTaskStore,
    stalled: std::sync::atomic::AtomicBool,
}

impl Stalling {
    async fn stall_if_set(&self) {
        if self.stalled.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
    }
}

#[async_trait::async_trait]
impl TaskStore for Stalling {
    async fn get(&self, id: &str) -> Result<Option<Stored>, StoreError> {
        self.inner.get(id).await
    }
    async fn put(
        &self,
        task: &Task,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.stall_if_set().await;
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
        self.inner.get_shared(id).await
    }
    async fn put_shared(
        &self,
        task: &Arc<Task>,
        owner: &Owner,
        expected: Option<u64>,
    ) -> Result<u64, StoreError> {
        self.stall_if_set().await;
        self.inner.put_shared(task, owner, expected).await
    }
}

#[tokio::test]
async fn a_store_that_does_not_answer_is_given_up_within_the_budget() {
    let store = Arc::new(Stalling::default());
    let engine = Arc::new(
        Engine::new(
            Arc::new(Worker { work: None }),
            Arc::clone(&store) as Arc<dyn TaskStore>,
            EngineConfig {
                public_url: "https://localhost/".to_owned(),
                error_profile: ErrorProfile::Spec,
                host_can_stream: false,
                security: Some(SecurityMechanism::None),
                background_work: true,
            },
        )
        .expect("a valid engine"),
    );
    let background = background_for(&engine);
    let task = send_non_blocking(&engine).await;
    until_stored(&store.inner, &task, "working").await;
    store.stalled.store(true, Ordering::SeqCst);

    let signaled = Instant::now();
    let settled = timeout(STEP, background.shut_down(signaled))
        .await
        .expect("given up");
    let took = signaled.elapsed();
    assert_eq!(
        settled,
        Settled {
            running: 1,
            failed: 0,
            written: false,
            drained: false,
            undelivered: 0,
        }
    );
    // The writes were waited for until their bound, the runners until theirs, and the
    // whole is inside Lambda's budget.
    assert!(took >= DRAIN_WITHIN, "{took:?}");
    assert!(took < SHUTDOWN_BUDGET, "{took:?}");
    // The task keeps the state it last saved.
    let task = until_stored(&store.inner, &task, "working").await;
    assert!(task.status.message.is_none(), "{task:?}");
}
