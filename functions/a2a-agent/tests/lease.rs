//! A task whose instance dies mid-task: two real function processes (two Lambda
//! instances) on one DynamoDB table (moto), instance A killed with SIGKILL while its agent
//! works, the task read from instance B.
//!
//! What a user notices: while A lives, B reads the task working (A renews its lease, past
//! the lease's length); once A is gone and the lease has run out, B answers the task
//! failed, "The agent's host stopped before the task finished.", and writes that once.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fake_lambda;

use std::time::{Duration, Instant};

use fake_lambda::{FAR, FakeApi, Function, get_task, non_blocking_send, task_id};
use serde_json::Value;

/// The lease both instances run with (`A2A_TASK_LEASE_SECONDS`): renewed after 1 s without
/// a write, honoured 0.5 s past its expiry.
const LEASE: Duration = Duration::from_secs(3);
const GRACE: Duration = Duration::from_millis(500);
const RENEW_AFTER: Duration = Duration::from_secs(1);

/// The status message of a task whose runner's lease expired.
const HOST_STOPPED: &str = "The agent's host stopped before the task finished.";

/// One instance of the function on the table: its Runtime API and its process.
struct Instance {
    api: FakeApi,
    function: Function,
    invocations: usize,
}

impl Instance {
    async fn start(endpoint: &str, table: &str) -> Self {
        let api = FakeApi::start(true).await;
        let lease = LEASE.as_secs().to_string();
        let function = Function::start(
            &api,
            &[
                ("A2A_TASK_TABLE", table),
                ("A2A_DYNAMODB_ENDPOINT", endpoint),
                ("A2A_TASK_LEASE_SECONDS", &lease),
                ("AWS_ACCESS_KEY_ID", "testing"),
                ("AWS_SECRET_ACCESS_KEY", "testing"),
            ],
        );
        let init = function.init_complete().await;
        assert_eq!(init["fields"]["task_store"], "dynamodb", "{init}");
        Self {
            api,
            function,
            invocations: 0,
        }
    }

    /// The JSON-RPC answer to one invocation carrying `event`.
    async fn call(&mut self, event: &str) -> Value {
        self.invocations += 1;
        let request_id = format!("inv-{}", self.invocations);
        self.api.invoke(&request_id, event, FAR);
        self.api.answer(&request_id).await.1
    }

    async fn state(&mut self, task_id: &str) -> (String, Value) {
        let answer = self.call(&get_task(task_id)).await;
        let state = answer["result"]["status"]["state"]
            .as_str()
            .unwrap_or_else(|| panic!("no task: {answer}"))
            .to_owned();
        (state, answer)
    }

    /// How many times this instance failed a task whose lease expired (its log).
    fn expiries(&self) -> usize {
        self.function
            .logs()
            .iter()
            .filter(|log| {
                log["fields"]["message"] == "task failed: the lease of its runner expired"
            })
            .count()
    }
}

#[tokio::test]
async fn the_task_of_a_killed_instance_is_failed_by_a_read_after_its_lease() {
    let settings = a2a_test_support::dynamo::create_table("lease-sigkill").await;
    let endpoint = settings.endpoint.clone().unwrap();
    let mut a = Instance::start(&endpoint, &settings.table).await;
    let mut b = Instance::start(&endpoint, &settings.table).await;

    // `slow-` works until canceled.
    let answer = a.call(&non_blocking_send("slow-1")).await;
    assert_eq!(answer["result"]["status"]["state"], "submitted", "{answer}");
    let task_id = task_id(&answer["result"]);
    let started = Instant::now();

    // While A lives, B reads the task working, past the lease and its grace.
    let mut reads = 0;
    while started.elapsed() < LEASE + GRACE + RENEW_AFTER {
        let (state, answer) = b.state(&task_id).await;
        assert_eq!(state, "working", "after {:?}: {answer}", started.elapsed());
        reads += 1;
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(reads >= 10, "{reads} reads");

    a.function.kill();
    let killed = Instant::now();
    // Its last renewal was at most a renewal interval ago: the lease still holds.
    let (state, answer) = b.state(&task_id).await;
    assert_eq!(state, "working", "at once after the kill: {answer}");

    let answer = loop {
        let (state, answer) = b.state(&task_id).await;
        if state != "working" {
            break answer;
        }
        assert!(
            killed.elapsed() < LEASE + GRACE + Duration::from_secs(3),
            "still working {:?} after the kill",
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let failed_after = killed.elapsed();
    let status = &answer["result"]["status"];
    assert_eq!(status["state"], "failed", "{answer}");
    assert_eq!(status["message"]["role"], "agent", "{answer}");
    assert_eq!(status["message"]["parts"][0]["text"], HOST_STOPPED);
    // The lease ran out: from its last renewal (at most RENEW_AFTER before the kill), the
    // lease and its grace.
    assert!(
        failed_after + RENEW_AFTER >= LEASE + GRACE,
        "failed {failed_after:?} after the kill: before the lease ran out"
    );

    // Written once: the next read answers it failed without writing again.
    let (state, _) = b.state(&task_id).await;
    assert_eq!(state, "failed");
    assert_eq!(b.expiries(), 1, "failed by one write");
    eprintln!(
        "lease {LEASE:?}: instance A killed {:?} after the send; B read the task failed \
         {failed_after:?} after the kill",
        killed - started
    );
}
