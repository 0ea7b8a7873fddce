//! The environment's shutdown, over the real function binary against the fake Lambda
//! Runtime and Extensions APIs (`fake_lambda`): Lambda sends the runtime process `SIGTERM`
//! when it shuts an environment down (the function's internal extension is what makes it
//! do so) and `SIGKILL` 500 ms later.
//!
//! What a user notices: a task still at work is failed in the DynamoDB table (moto) with
//! a clear status message, a finished task is not touched, the webhook of a task at work
//! hears of its failure, and the process exits with code 0 within the 500 ms.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fake_lambda;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use a2a_lambda_server::tasks::TaskStore as _;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use fake_lambda::{FAR, FakeApi, Function, STEP, event, non_blocking_send, task_id};
use serde_json::{Value, json};

/// The status message of a task failed by the shutdown.
const SHUT_DOWN: &str =
    "The agent's Lambda execution environment was shut down before the task finished.";
/// From `SIGTERM` to `SIGKILL` with an internal extension.
const BUDGET: Duration = Duration::from_millis(500);

/// The log line whose message is `message`, waiting for it (the process's last lines may
/// still be on their way from its pipes).
async fn log_line(function: &Function, message: &str) -> Value {
    let deadline = Instant::now() + STEP;
    loop {
        let logs = function.logs();
        if let Some(log) = logs.iter().find(|log| log["fields"]["message"] == message) {
            return log.clone();
        }
        assert!(Instant::now() < deadline, "no {message:?}: {logs:#?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn a_task_at_work_is_failed_in_the_table_when_the_environment_shuts_down() {
    let settings = a2a_test_support::dynamo::create_table("shutdown-sigterm").await;
    let endpoint = settings.endpoint.clone().unwrap();
    let mut api = FakeApi::start(true).await;
    let mut function = Function::start(
        &api,
        &[
            ("A2A_TASK_TABLE", &settings.table),
            ("A2A_DYNAMODB_ENDPOINT", &endpoint),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
        ],
    );
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["task_store"], "dynamodb", "{init}");
    let table = a2a_test_support::dynamo::store(&settings);

    // A task that is over before the shutdown.
    let send = json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
        "message": {"kind": "message", "messageId": "tck-complete-task-1", "role": "user",
                    "parts": [{"kind": "text", "text": "done at once"}]},
    }});
    api.invoke("inv-done", &event(&send), FAR);
    let (_, answer, _) = api.answer("inv-done").await;
    assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    let done_id = task_id(&answer["result"]);
    let done = table.get(&done_id).await.unwrap().unwrap();

    // A task at work (`slow-` works until told to stop), its invocation still held by
    // the extension when the signal comes.
    api.invoke("inv-slow", &non_blocking_send("slow-1"), FAR);
    let (_, answer, _) = api.answer("inv-slow").await;
    assert_eq!(answer["result"]["status"]["state"], "submitted", "{answer}");
    let slow_id = task_id(&answer["result"]);
    let deadline = Instant::now() + STEP;
    while table
        .get(&slow_id)
        .await
        .unwrap()
        .unwrap()
        .task
        .status
        .state
        .v0_3_name()
        != "working"
    {
        assert!(Instant::now() < deadline, "never working");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let (status, took) = function.terminate().await;
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(took < BUDGET, "exited {took:?} after SIGTERM");

    let stored = table.get(&slow_id).await.unwrap().unwrap();
    let status = &stored.task.status;
    assert_eq!(status.state.v0_3_name(), "failed", "{stored:?}");
    let message = status.message.as_ref().expect("a status message");
    assert_eq!(message.joined_text(), SHUT_DOWN);
    assert_eq!(message.role, a2a_lambda_core::model::Role::Agent);
    // The finished task is as it was: same version, same state.
    let after = table.get(&done_id).await.unwrap().unwrap();
    assert_eq!(after.version, done.version);
    assert_eq!(after.task.status.state.v0_3_name(), "completed");

    let log = log_line(
        &function,
        "environment shutting down: the tasks still at work were failed in the store",
    )
    .await;
    assert_eq!(log["level"], "WARN", "{log}");
    assert_eq!(log["fields"]["running"], 1, "{log}");
    assert_eq!(log["fields"]["failed"], 1, "{log}");
    assert_eq!(log["fields"]["drained"], true, "{log}");
    assert_eq!(log["fields"]["undelivered"], 0, "{log}");
    let failed = log_line(&function, "running task failed").await;
    assert_eq!(failed["fields"]["task_id"], slow_id.as_str(), "{failed}");
    assert_eq!(failed["fields"]["reason"], SHUT_DOWN, "{failed}");
    eprintln!("SIGTERM with one task at work (DynamoDB on moto): exited 0 after {took:?}");
}

#[tokio::test]
async fn with_nothing_at_work_the_function_exits_at_once_on_sigterm() {
    let mut api = FakeApi::start(true).await;
    let mut function = Function::start(&api, &[]);
    function.init_complete().await;
    api.invoke("inv-quick", &non_blocking_send("tck-complete-task-2"), FAR);
    let (handed, _) = api.handed("inv-quick").await;
    api.answer("inv-quick").await;
    // The extension let the invocation go: the environment is idle, as Lambda finds it
    // when it spins it down.
    api.extension_next(handed).await;

    let (status, took) = function.terminate().await;
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(took < BUDGET, "exited {took:?} after SIGTERM");
    let log = log_line(&function, "environment shutting down: no task at work").await;
    assert_eq!(log["level"], "INFO", "{log}");
    eprintln!("SIGTERM with nothing at work: exited 0 after {took:?}");
}

/// The notifications a webhook on 127.0.0.1 received (answered 200 at once).
type Received = Arc<Mutex<Vec<Value>>>;

async fn receive(State(seen): State<Received>, body: Bytes) -> StatusCode {
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    seen.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(body);
    StatusCode::OK
}

#[tokio::test]
async fn the_webhook_of_a_task_at_work_hears_of_its_failure_on_shutdown() {
    let seen = Received::default();
    let app = axum::Router::new()
        .route("/hook", post(receive))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let states = || -> Vec<String> {
        seen.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|body| {
                body["task"]["status"]["state"]
                    .as_str()
                    .unwrap_or("?")
                    .to_owned()
            })
            .collect()
    };

    let mut api = FakeApi::start(true).await;
    let mut function = Function::start(&api, &[("A2A_PUSH_ALLOW_PRIVATE", "true")]);
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["push_notifications"], true, "{init}");
    let send = json!({"jsonrpc": "2.0", "id": "push-1", "method": "SendMessage", "params": {
        "message": {"messageId": "slow-push", "role": "ROLE_USER",
                    "parts": [{"text": "work until stopped"}]},
        "configuration": {
            "returnImmediately": true,
            "taskPushNotificationConfig": {"url": url, "token": "tok-shutdown"},
        },
    }});
    let mut event: Value = serde_json::from_str(&event(&send)).unwrap();
    event["headers"]["a2a-version"] = json!("1.0");
    api.invoke("inv-send", &event.to_string(), FAR);
    let (_, answer, _) = api.answer("inv-send").await;
    let task_id = task_id(&answer["result"]["task"]);
    let deadline = Instant::now() + STEP;
    while !states().contains(&"TASK_STATE_WORKING".to_owned()) {
        assert!(
            Instant::now() < deadline,
            "never told working: {:?}",
            states()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let (status, took) = function.terminate().await;
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(took < BUDGET, "exited {took:?} after SIGTERM");
    // Told before the process went.
    assert_eq!(
        states(),
        ["TASK_STATE_WORKING", "TASK_STATE_FAILED"],
        "{:#?}",
        function.logs()
    );
    let last = seen
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .last()
        .cloned()
        .unwrap();
    assert_eq!(last["task"]["id"], task_id.as_str(), "{last:#}");
    assert_eq!(
        last["task"]["status"]["message"]["parts"][0]["text"], SHUT_DOWN,
        "{last:#}"
    );
    assert_eq!(
        last["task"]["status"]["message"]["role"], "ROLE_AGENT",
        "{last:#}"
    );
    eprintln!("SIGTERM with a webhook to tell: exited 0 after {took:?}");
}
