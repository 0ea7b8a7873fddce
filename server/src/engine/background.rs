//! What a host that freezes between requests needs from the engine: to wait until no
//! task runs, and to fail the tasks still at work when its time is up.
//!
//! An AWS Lambda environment is frozen once it asks for its next event; the agent of a
//! non-blocking send would stall there. The Lambda host keeps it thawed until
//! [`Engine::idle`], and calls [`Engine::fail_running`] before its deadline.

use futures_util::future::join_all;

use super::{Engine, live};

impl Engine {
    /// Waits until no task runs here and no push notification is on its way (at once when
    /// none is).
    pub async fn idle(&self) {
        self.deps.health.idle().await;
        if let Some(push) = &self.deps.push {
            push.idle().await;
        }
    }

    /// Whether a non-blocking send answers at once and leaves its agent running
    /// ([`EngineConfig::background_work`](super::EngineConfig::background_work)).
    pub fn background_work(&self) -> bool {
        self.background_work
    }

    /// Fails every task still at work here (submitted or working) with `reason` as its
    /// status message, saved to the store, and tells its agent to stop; how many it
    /// failed. Tasks waiting for input, or already over, are left as they are.
    /// `request_id` is the host's id of the request on whose behalf this happens, for
    /// the log.
    pub async fn fail_running(&self, request_id: &str, reason: &str) -> usize {
        let live_tasks = self.deps.registry.live_tasks();
        let failures = live_tasks.iter().map(|(task_id, live)| async move {
            let failed = live::fail_live(&self.deps, live, request_id, reason).await;
            if failed {
                tracing::warn!(request_id, task_id, reason, "running task failed");
            }
            failed
        });
        join_all(failures)
            .await
            .into_iter()
            .filter(|failed| *failed)
            .count()
    }
}
