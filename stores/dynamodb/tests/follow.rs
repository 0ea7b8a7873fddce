//! A task followed across instances through the DynamoDB event log (moto): a subscription
//! on instance B sees every event of the agent running on instance A, in order, with a
//! bounded number of DynamoDB calls; a stream cut on B resumes there with `Last-Event-ID`;
//! an agent that answers at once still costs one `PutItem` and no log.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::sync::Arc;

use std::time::{Duration, Instant};

use a2a_lambda_core::error::ErrorProfile;
use a2a_lambda_dynamodb::{DynamoSettings, DynamoTaskStore};
use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::host::engine::{CallContext, Engine, EngineConfig, Reply, StreamItem};
use a2a_lambda_server::tasks::TaskStore;
use a2a_test_support::agents::Ticker;
use a2a_test_support::dynamo::{Calls, counting_client, create_table};
use futures_util::StreamExt as _;
use serde_json::{Value, json};

const CHUNKS: usize = 4;

/// Works, then sends four chunks 150 ms apart, then completes.
const TICKER: Ticker = Ticker {
    chunks: CHUNKS,
    gap: Duration::from_millis(150),
    done: None,
};

/// An instance: an engine for `agent` on the table, its DynamoDB calls logged.
fn instance(
    agent: impl a2a_lambda_server::IntoAgent,
    settings: &DynamoSettings,
) -> (Engine, Calls) {
    let (client, calls) = counting_client(settings);
    let store: Arc<dyn TaskStore> = Arc::new(DynamoTaskStore::with_client(client, settings));
    let engine = Engine::new(
        agent,
        store,
        EngineConfig {
            public_url: "https://localhost/".to_owned(),
            error_profile: ErrorProfile::Spec,
            host_can_stream: true,
            security: None,
            background_work: true,
        },
    )
    .unwrap();
    (engine, calls)
}

fn call(last_event_id: Option<String>) -> CallContext {
    CallContext {
        version_header: Some("1.0".to_owned()),
        request_id: "test".to_owned(),
        last_event_id,
        ..CallContext::default()
    }
}

fn send(stream: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": 1,
        "method": if stream { "SendStreamingMessage" } else { "SendMessage" },
        "params": {
            "message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "go"}]},
            "configuration": {"returnImmediately": true}}})
}

fn subscribe(task_id: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": {"id": task_id}})
        .to_string()
        .into_bytes()
}

fn result(item: &StreamItem) -> Value {
    serde_json::from_slice::<Value>(&item.json).unwrap()["result"].clone()
}

/// Kind and state or chunk of each event.
fn told(items: &[StreamItem]) -> Vec<String> {
    items
        .iter()
        .map(|item| {
            let result = result(item);
            if let Some(task) = result.get("task") {
                format!("task {}", task["status"]["state"].as_str().unwrap())
            } else if let Some(status) = result.get("statusUpdate") {
                format!("status {}", status["status"]["state"].as_str().unwrap())
            } else {
                let artifact = &result["artifactUpdate"];
                format!(
                    "chunk {}",
                    artifact["artifact"]["parts"][0]["text"].as_str().unwrap()
                )
            }
        })
        .collect()
}

async fn rest(reply: Reply, limit: Option<usize>) -> Vec<StreamItem> {
    let Reply::Stream(mut stream) = reply else {
        panic!("expected a stream, got {reply:?}");
    };
    let mut read = Vec::new();
    while limit.is_none_or(|limit| read.len() < limit) {
        match tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("the stream goes on")
        {
            Some(item) => read.push(item),
            None => break,
        }
    }
    read
}

fn updates() -> Vec<String> {
    let mut told = vec!["status TASK_STATE_WORKING".to_owned()];
    told.extend((0..CHUNKS).map(|index| format!("chunk tick {index} ")));
    told.push("status TASK_STATE_COMPLETED".to_owned());
    told
}

#[tokio::test]
async fn a_subscription_on_instance_b_sees_every_event_of_instance_a() {
    let settings = create_table("follow-b").await;
    let (a, a_calls) = instance(Arc::new(TICKER), &settings);
    let (b, calls) = instance(Arc::new(TICKER), &settings);

    let sent = a
        .handle(send(false).to_string().as_bytes(), &call(None))
        .await;
    let Reply::Json { body, .. } = sent else {
        panic!("expected JSON");
    };
    let sent: Value = serde_json::from_slice(&body).unwrap();
    let task_id = sent["result"]["task"]["id"].as_str().unwrap().to_owned();

    calls.take();
    let started = Instant::now();
    let read = rest(b.handle(&subscribe(&task_id), &call(None)).await, None).await;
    let elapsed = started.elapsed();
    let told = told(&read);
    assert!(told[0].starts_with("task "), "{told:?}");
    assert!(
        updates().ends_with(&told[1..]) && told.len() > CHUNKS,
        "every event after B's first read, in order, chunks apart: {told:?}"
    );
    assert!(read.iter().all(|item| item.id.is_some()));

    // B read the task and, when it moved, its log: a GetItem per read, a BatchGetItem
    // when there was news; a few reads a second at most.
    let made = calls.take();
    let reads = made.iter().filter(|call| *call == "GetItem").count();
    let bound = (elapsed.as_secs_f64() * 4.0).ceil() as usize + 3;
    assert!(reads <= bound, "{reads} reads in {elapsed:?}: {made:?}");
    assert!(
        made.iter()
            .all(|call| call == "GetItem" || call == "BatchGetItem"),
        "{made:?}"
    );
    // The figures, for the record (`--nocapture`).
    let writes = a_calls.take();
    println!(
        "follower on B: {} calls ({reads} GetItem) in {elapsed:?}; the agent on A: {writes:?}",
        made.len()
    );
    assert!(
        writes.iter().all(|call| call == "TransactWriteItems"),
        "{writes:?}"
    );
}

#[tokio::test]
async fn a_stream_cut_on_b_resumes_there_with_last_event_id() {
    let settings = create_table("follow-resume").await;
    let (a, _) = instance(Arc::new(TICKER), &settings);
    let (b, _) = instance(Arc::new(TICKER), &settings);

    // The client streams from A, which runs the task, and is cut after three events.
    let first = rest(
        a.handle(send(true).to_string().as_bytes(), &call(None))
            .await,
        Some(3),
    )
    .await;
    let task_id = result(&first[0])["task"]["id"].as_str().unwrap().to_owned();
    let last = first[2].id.clone().unwrap();

    // It resumes on B (another instance took the connection): the rest, from the log.
    let resumed = rest(
        b.handle(&subscribe(&task_id), &call(Some(last))).await,
        None,
    )
    .await;
    let mut all = told(&first);
    all.extend(told(&resumed));
    let mut expected = vec!["task TASK_STATE_SUBMITTED".to_owned()];
    expected.extend(updates());
    assert_eq!(all, expected);
}

#[tokio::test]
async fn an_agent_that_answers_at_once_costs_one_put_and_no_log() {
    let settings = create_table("follow-once").await;
    let (engine, calls) = instance(BuiltIn::Echo.agent(), &settings);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "m-1", "role": "user",
                    "parts": [{"kind": "text", "text": "hi"}]}}});
    let Reply::Json { body, .. } = engine
        .handle(body.to_string().as_bytes(), &CallContext::default())
        .await
    else {
        panic!("expected JSON");
    };
    let answer: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    assert_eq!(calls.take(), ["PutItem"]);
}

#[tokio::test]
async fn a_subscription_ends_when_the_instance_running_the_task_dies() {
    let mut settings = create_table("follow-dead").await;
    settings.lease = Duration::from_secs(3);
    let (b, _) = instance(Arc::new(TICKER), &settings);
    // Instance A wrote the task working, leased for one more second, and died.
    let (client, _) = counting_client(&settings);
    let store = DynamoTaskStore::with_client(client, &settings);
    let task = a2a_lambda_core::model::Task {
        id: "t-dead".to_owned(),
        context_id: "c-dead".to_owned(),
        status: a2a_lambda_core::model::TaskStatus {
            state: a2a_lambda_core::model::TaskState::Working,
            message: None,
            timestamp: Some(a2a_lambda_server::tasks::now_rfc3339()),
        },
        artifacts: Vec::new(),
        history: Vec::new(),
        metadata: None,
    };
    let lease = a2a_lambda_server::tasks::Lease {
        holder: Arc::from("a-dead-instance"),
        expires_at_ms: a2a_lambda_server::tasks::lease::unix_millis() + 1_000,
    };
    store
        .put_logged(
            &Arc::new(task),
            &a2a_lambda_server::owner::Owner::anonymous(),
            None,
            &[],
            Some(&lease),
        )
        .await
        .unwrap();

    let started = Instant::now();
    let read = rest(b.handle(&subscribe("t-dead"), &call(None)).await, None).await;
    let told = told(&read);
    assert_eq!(
        told,
        ["task TASK_STATE_WORKING", "status TASK_STATE_FAILED"],
        "the follower checks the lease when nothing comes, and tells the end"
    );
    let last = result(&read[1]);
    assert_eq!(
        last["statusUpdate"]["status"]["message"]["parts"][0]["text"],
        "The agent's host stopped before the task finished."
    );
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}
