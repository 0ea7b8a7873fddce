//! Leases of running tasks in the DynamoDB store, against moto: what they cost (the calls a
//! send makes, counted at the client), that a live runner keeps its task, and that a task
//! whose runner is gone is answered failed, written once.
//!
//! Two engines on one table are two instances of the function. A runner that dies with its
//! process is the real-process test of the `a2a-agent` crate (`tests/lease.rs`); here an
//! abandoned task is one written with a lease that has run out.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::model::{Message, Role, Task, TaskState, TaskStatus};
use a2a_lambda_dynamodb::{DynamoSettings, DynamoTaskStore};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::Engine;
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::{Lease, StoreError, TaskStore};
use a2a_test_support::dynamo::{Calls, client, counting_client, create_table};
use a2a_test_support::lambda::{engine_on, rpc};
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Value, json};

/// The lease the tests run with: renewed after 1 s without a write, honoured 0.5 s past
/// its expiry.
const LEASE: Duration = Duration::from_secs(3);

/// The status message of a task whose runner's lease expired.
const HOST_STOPPED: &str = "The agent's host stopped before the task finished.";

async fn table(name: &str) -> DynamoSettings {
    DynamoSettings {
        lease: LEASE,
        ..create_table(name).await
    }
}

/// An engine on the table, as one instance of the function, and the calls its store makes.
fn instance(settings: &DynamoSettings) -> (Engine, Calls) {
    let (client, calls) = counting_client(settings);
    let store = Arc::new(DynamoTaskStore::with_client(client, settings));
    (engine_on(BuiltIn::Conformance, store), calls)
}

fn send(message_id: &str, blocking: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": message_id, "role": "user",
                    "parts": [{"kind": "text", "text": "hello"}]},
        "configuration": {"blocking": blocking},
    }})
}

fn get(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task_id}})
}

async fn attributes(settings: &DynamoSettings, id: &str) -> Vec<String> {
    let item = client(settings)
        .get_item()
        .table_name(&settings.table)
        .key("id", AttributeValue::S(id.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .expect("the item exists");
    let mut names: Vec<String> = item.into_keys().collect();
    names.sort();
    names
}

#[tokio::test]
async fn an_agent_that_answers_at_once_costs_one_write_and_no_lease() {
    let settings = table("lease-one-write").await;
    let (engine, calls) = instance(&settings);
    let answer = rpc(&engine, None, send("tck-complete-task-1", true)).await;
    assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    assert_eq!(calls.take(), ["PutItem"], "one write per blocking send");
    let id = answer["result"]["id"].as_str().unwrap();
    let names = attributes(&settings, id).await;
    assert!(
        !names.iter().any(|name| name.starts_with("lease")),
        "a task over at its first write carries no lease: {names:?}"
    );
    let answer = rpc(&engine, None, get(id)).await;
    assert_eq!(answer["result"]["status"]["state"], "completed");
    assert_eq!(calls.take(), ["GetItem"], "one read per get");
}

#[tokio::test]
async fn a_live_runner_keeps_its_task_past_the_lease_with_a_renewal_a_second() {
    let settings = table("lease-live-runner").await;
    let (a, a_calls) = instance(&settings);
    let (b, b_calls) = instance(&settings);
    let answer = rpc(&a, None, send("slow-1", false)).await;
    assert_eq!(answer["result"]["status"]["state"], "submitted", "{answer}");
    let id = answer["result"]["id"].as_str().unwrap().to_owned();
    let names = attributes(&settings, &id).await;
    assert!(
        names.contains(&"leaseHolder".to_owned()) && names.contains(&"leaseExpiresAt".to_owned()),
        "a task at work carries its runner's lease: {names:?}"
    );

    // Twice the lease, quiet: the runner renews, and the other instance never fails it.
    let quiet = LEASE * 2;
    let started = std::time::Instant::now();
    while started.elapsed() < quiet {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let answer = rpc(&b, None, get(&id)).await;
        assert_eq!(
            answer["result"]["status"]["state"],
            "working",
            "after {:?}: {answer}",
            started.elapsed()
        );
    }
    let a_made = a_calls.take();
    let renewals = a_made.iter().filter(|call| *call == "UpdateItem").count();
    eprintln!(
        "lease {LEASE:?}, quiet runner for {quiet:?}: instance A made {a_made:?}; \
         B made {} reads and no write",
        b_calls.take().len()
    );
    // The opening write (the task working, with its event logged: one transaction) carries
    // the lease; then one renewal a third of the lease (a second here), never more.
    assert_eq!(a_made[0], "TransactWriteItems", "{a_made:?}");
    assert!(
        (4..=6).contains(&renewals),
        "{renewals} renewals in {quiet:?}: {a_made:?}"
    );
    assert_eq!(renewals, a_made.len() - 1, "{a_made:?}");

    // A cancel from the other instance ends the task and the quiet runner adopts it at
    // its next renewal.
    let cancel = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel", "params": {"id": id}});
    let answer = rpc(&b, None, cancel).await;
    assert_eq!(answer["result"]["status"]["state"], "canceled", "{answer}");
    let deadline = std::time::Instant::now() + LEASE;
    while a.running_tasks() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the runner never learnt of the cancel"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let names = attributes(&settings, &id).await;
    assert!(
        !names.iter().any(|name| name.starts_with("lease")),
        "{names:?}"
    );
}

fn working(id: &str) -> Task {
    Task {
        id: id.to_owned(),
        context_id: "ctx-1".to_owned(),
        status: TaskStatus {
            state: TaskState::Working,
            message: None,
            timestamp: Some(a2a_lambda_server::tasks::now_rfc3339()),
        },
        artifacts: Vec::new(),
        history: vec![Message::text(Role::User, "m-1", "hello")],
        metadata: None,
    }
}

fn expired_lease() -> Lease {
    Lease {
        holder: Arc::from("a-dead-instance"),
        expires_at_ms: a2a_lambda_server::tasks::lease::unix_millis() - 60_000,
    }
}

#[tokio::test]
async fn a_task_whose_lease_expired_is_answered_failed_and_written_once() {
    let settings = table("lease-expired").await;
    let (b, calls) = instance(&settings);
    let store = DynamoTaskStore::with_client(client(&settings), &settings);
    let task = Arc::new(working("t-abandoned"));
    store
        .put_logged(
            &task,
            &Owner::anonymous(),
            None,
            &[],
            Some(&expired_lease()),
        )
        .await
        .unwrap();

    let answer = rpc(&b, None, get("t-abandoned")).await;
    let status = &answer["result"]["status"];
    assert_eq!(status["state"], "failed", "{answer}");
    assert_eq!(status["message"]["role"], "agent");
    assert_eq!(status["message"]["parts"][0]["text"], HOST_STOPPED);
    // One write: the failed task and its status in the log, in one transaction.
    assert_eq!(
        calls.take(),
        ["GetItem", "TransactWriteItems"],
        "failed by one write"
    );

    // Written: later reads (this instance's or any other's) read it failed, and write no more.
    let answer = rpc(&b, None, get("t-abandoned")).await;
    assert_eq!(answer["result"]["status"]["state"], "failed");
    assert_eq!(calls.take(), ["GetItem"]);
    let stored = store.get("t-abandoned").await.unwrap().unwrap();
    assert_eq!(stored.task.status.state, TaskState::Failed);
    assert_eq!(stored.version, 2);
    let names = attributes(&settings, "t-abandoned").await;
    assert!(
        !names.iter().any(|name| name.starts_with("lease")),
        "{names:?}"
    );

    // Another owner's read neither sees it nor writes it.
    let other = Arc::new(working("t-someone-elses"));
    store
        .put_logged(
            &other,
            &Owner::from_key("iam:someone"),
            None,
            &[],
            Some(&expired_lease()),
        )
        .await
        .unwrap();
    let answer = rpc(&b, None, get("t-someone-elses")).await;
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    assert_eq!(calls.take(), ["GetItem"]);
}

#[tokio::test]
async fn a_task_waiting_for_input_is_never_failed_and_a_renewal_beats_a_stale_failure() {
    let settings = table("lease-renewal-race").await;
    let (b, calls) = instance(&settings);
    let store = DynamoTaskStore::with_client(client(&settings), &settings);

    // No lease, nobody runs it: it waits for its user.
    let mut waiting = working("t-waiting");
    waiting.status.state = TaskState::InputRequired;
    store
        .put(&waiting, &Owner::anonymous(), None)
        .await
        .unwrap();
    let answer = rpc(&b, None, get("t-waiting")).await;
    assert_eq!(answer["result"]["status"]["state"], "input-required");
    assert_eq!(calls.take(), ["GetItem"]);

    // A renewal is a write: a failure written on what was read before it loses.
    let task = Arc::new(working("t-renewed"));
    let first = store
        .put_logged(
            &task,
            &Owner::anonymous(),
            None,
            &[],
            Some(&expired_lease()),
        )
        .await
        .unwrap();
    let fresh = Lease::from_now(&Arc::from("a-live-instance"), LEASE);
    let renewed = store.renew_lease("t-renewed", first, &fresh).await.unwrap();
    assert_eq!(renewed, first + 1);
    let mut failed = working("t-renewed");
    failed.status.state = TaskState::Failed;
    assert!(matches!(
        store.put(&failed, &Owner::anonymous(), Some(first)).await,
        Err(StoreError::Conflict(_))
    ));
    let leased = store.get_leased("t-renewed").await.unwrap().unwrap();
    assert_eq!(leased.lease, Some(fresh));
    assert_eq!(leased.stored.task.status.state, TaskState::Working);
    // And a renewal of a version that is gone is refused.
    assert!(matches!(
        store
            .renew_lease("t-renewed", first, &expired_lease())
            .await,
        Err(StoreError::Conflict(_))
    ));
    // Read through the engine, the renewed task is still at work.
    let answer = rpc(&b, None, get("t-renewed")).await;
    assert_eq!(answer["result"]["status"]["state"], "working");
}
