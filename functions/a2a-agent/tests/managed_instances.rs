//! Lambda Managed Instances, over the real function binary against the fake Runtime and
//! Extensions APIs serving as Managed Instances do (`FakeApi::start_managed`): one
//! environment gets up to `AWS_LAMBDA_MAX_CONCURRENCY` invocations at once and is never
//! frozen; an internal extension may register for no event.
//!
//! What a user notices: eight sends at once on one environment are all answered (and
//! eight streams), the tasks of non-blocking ones finish while other invocations are
//! served, and their webhooks hear of it; a shutdown fails every task still at work; a
//! bad `AWS_LAMBDA_MAX_CONCURRENCY` stops the init with a clear log line. A task ending
//! at its own invocation's deadline is shown on the local Lambda (the emulator's
//! `local_lambda_deadline.rs`).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fake_lambda;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use a2a_lambda_core::model::{ListTasksParams, TaskState};
use a2a_lambda_server::owner::Owner;
use a2a_lambda_server::tasks::TaskStore as _;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use fake_lambda::{
    FAR, FakeApi, Function, Record, STEP, event, get_task, non_blocking_send, task_id,
};
use serde_json::{Value, json};

/// The concurrency Lambda is said to have configured.
const CONCURRENCY: usize = 8;

/// The status message of a task failed by the shutdown.
const SHUT_DOWN: &str =
    "The agent's Lambda execution environment was shut down before the task finished.";
/// From `SIGTERM` to `SIGKILL` with an internal extension.
const BUDGET: Duration = Duration::from_millis(500);

/// The function on Managed Instances with `CONCURRENCY` workers, `vars` on top, its init
/// done.
async fn managed(api: &FakeApi, vars: &[(&str, &str)]) -> Function {
    let concurrency = CONCURRENCY.to_string();
    let mut all = vec![("AWS_LAMBDA_MAX_CONCURRENCY", concurrency.as_str())];
    all.extend_from_slice(vars);
    let function = Function::start(api, &all);
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["managed_instances"], true, "{init}");
    assert_eq!(init["fields"]["max_concurrency"], CONCURRENCY, "{init}");
    assert_eq!(init["fields"]["background_work"], true, "{init}");
    function
}

/// A v0.3 `message/send` (blocking unless `blocking` is false) of the conformance agent's
/// `message_id`.
fn send(message_id: &str, blocking: bool) -> String {
    event(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {
            "message": {"kind": "message", "messageId": message_id, "role": "user",
                        "parts": [{"kind": "text", "text": "at once"}]},
            "configuration": {"blocking": blocking},
        }}),
    )
}

/// The task `task_id` as a `tasks/get` invocation `request_id` answers.
async fn task(api: &mut FakeApi, request_id: &str, task_id: &str) -> Value {
    api.invoke(request_id, &get_task(task_id), FAR);
    let (_, answer, _) = api.answer(request_id).await;
    answer["result"].clone()
}

#[tokio::test]
async fn eight_sends_at_once_on_one_environment_complete_background_work_included() {
    let mut api = FakeApi::start_managed().await;
    let _function = managed(&api, &[]).await;
    // The extension registered for no event (the only registration Managed Instances
    // take from an internal extension).
    let (_, registered) = api
        .find("the registration", 0, |record| {
            matches!(record, Record::Registered { .. })
        })
        .await;
    let Record::Registered { name, body } = registered else {
        unreachable!()
    };
    assert_eq!(name, "a2a-background");
    assert_eq!(body, json!({"events": []}));

    // Eight blocking sends whose agent takes two seconds: all eight in flight at once.
    for i in 0..CONCURRENCY {
        api.invoke(
            &format!("inv-blocking-{i}"),
            &send(&format!("tck-delayed-complete-{i}"), true),
            FAR,
        );
    }
    for i in 0..CONCURRENCY {
        let (_, answer, _) = api.answer(&format!("inv-blocking-{i}")).await;
        assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
        assert_eq!(
            answer["result"]["status"]["message"]["parts"][0]["text"],
            "Done after delay"
        );
    }
    assert_eq!(api.peak_in_flight(), CONCURRENCY);

    // Eight non-blocking ones: answered at once, their agents working on after.
    for i in 0..CONCURRENCY {
        api.invoke(
            &format!("inv-background-{i}"),
            &send(&format!("tck-delayed-complete-bg-{i}"), false),
            FAR,
        );
    }
    let mut tasks = Vec::new();
    for i in 0..CONCURRENCY {
        let (_, answer, _) = api.answer(&format!("inv-background-{i}")).await;
        let state = &answer["result"]["status"]["state"];
        assert!(state == "submitted" || state == "working", "{answer}");
        tasks.push(task_id(&answer["result"]));
    }
    // Another invocation is served while that work goes on: nothing holds the
    // environment for it.
    let first = task(&mut api, "inv-get-early", &tasks[0]).await;
    assert_eq!(first["status"]["state"], "working", "{first}");
    // And the work finishes, with no invocation to thaw the environment.
    let mut gets = 0;
    for id in &tasks {
        let deadline = Instant::now() + STEP;
        loop {
            gets += 1;
            let got = task(&mut api, &format!("inv-get-{gets}"), id).await;
            if got["status"]["state"] == "completed" {
                break;
            }
            assert_eq!(got["status"]["state"], "working", "{got}");
            assert!(Instant::now() < deadline, "never completed: {got}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    // The extension asked for its next event once, at init, and was never told of an
    // invocation.
    let nexts = api
        .records()
        .iter()
        .filter(|record| matches!(record, Record::ExtensionNext { .. }))
        .count();
    assert_eq!(nexts, 1);
}

#[tokio::test]
async fn eight_streams_at_once_on_one_environment_each_end_with_their_task_completed() {
    let mut api = FakeApi::start_managed().await;
    let _function = managed(&api, &[("A2A_STREAMING", "true")]).await;
    for i in 0..CONCURRENCY {
        let stream = event(
            &json!({"jsonrpc": "2.0", "id": i, "method": "message/stream",
            "params": {"message": {"kind": "message", "messageId":
                format!("tck-delayed-complete-stream-{i}"), "role": "user",
                "parts": [{"kind": "text", "text": "stream"}]}}}),
        );
        api.invoke(&format!("inv-stream-{i}"), &stream, FAR);
    }
    for i in 0..CONCURRENCY {
        let (prelude, body) = api.streamed(&format!("inv-stream-{i}")).await;
        assert_eq!(prelude["statusCode"], 200, "{prelude}");
        assert_eq!(
            prelude["headers"]["content-type"], "text/event-stream",
            "{prelude}"
        );
        let events: Vec<Value> = body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).unwrap())
            .collect();
        let last = events.last().expect("events");
        assert_eq!(last["id"], i, "{body}");
        assert_eq!(last["result"]["kind"], "status-update", "{body}");
        assert_eq!(last["result"]["status"]["state"], "completed", "{body}");
        assert_eq!(last["result"]["final"], true, "{body}");
    }
    assert_eq!(api.peak_in_flight(), CONCURRENCY);
}

/// The notifications a webhook got: each one's token and body.
type Heard = Arc<Mutex<Vec<(String, Value)>>>;

/// A webhook on 127.0.0.1 keeping each notification's token and body.
async fn webhook() -> (String, Heard) {
    let seen: Heard = Arc::default();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(
                |State(seen): State<Heard>,
                 headers: HeaderMap,
                 body: axum::body::Bytes| async move {
                    let token = headers
                        .get("x-a2a-notification-token")
                        .and_then(|token| token.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    seen.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push((token, body));
                    StatusCode::OK
                },
            ),
        )
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

#[tokio::test]
async fn eight_webhooks_hear_of_their_tasks_end_after_every_invocation_was_answered() {
    let (url, seen) = webhook().await;
    let mut api = FakeApi::start_managed().await;
    let function = managed(
        &api,
        &[
            ("TCK_STREAMING_TIMEOUT", "0.5"),
            ("A2A_PUSH_ALLOW_PRIVATE", "true"),
        ],
    )
    .await;
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["push_notifications"], true, "{init}");
    for i in 0..CONCURRENCY {
        let send = event(&json!({"jsonrpc": "2.0", "id": i, "method": "message/send",
        "params": {
            "message": {"kind": "message", "messageId": format!("tck-delayed-complete-push-{i}"),
                        "role": "user", "parts": [{"kind": "text", "text": "tell me"}]},
            "configuration": {"blocking": false, "pushNotificationConfig":
                {"url": url, "token": format!("tok-{i}")}},
        }}));
        api.invoke(&format!("inv-push-{i}"), &send, FAR);
    }
    let mut tasks = Vec::new();
    for i in 0..CONCURRENCY {
        let (_, answer, _) = api.answer(&format!("inv-push-{i}")).await;
        tasks.push(task_id(&answer["result"]));
    }
    // Every invocation was answered before any task ended (each takes 0.5 s): the
    // deliveries come after, while nothing holds the environment.
    let early = seen.lock().unwrap_or_else(PoisonError::into_inner).clone();
    assert!(
        early
            .iter()
            .all(|(_, body)| body["status"]["state"] != "completed"),
        "{early:#?}"
    );
    let deadline = Instant::now() + STEP;
    loop {
        let completed: Vec<(String, Value)> = seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|(_, body)| body["status"]["state"] == "completed")
            .cloned()
            .collect();
        if completed.len() == CONCURRENCY {
            for (i, id) in tasks.iter().enumerate() {
                let (token, body) = completed
                    .iter()
                    .find(|(_, body)| body["id"] == id.as_str())
                    .unwrap_or_else(|| panic!("no notification of {id}: {completed:#?}"));
                assert_eq!(token, &format!("tok-{i}"), "{body}");
            }
            break;
        }
        assert!(Instant::now() < deadline, "not all told: {completed:#?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_shutdown_fails_every_task_at_work_whichever_invocation_started_it() {
    let settings = a2a_test_support::dynamo::create_table("managed-shutdown").await;
    let endpoint = settings.endpoint.clone().unwrap();
    let mut api = FakeApi::start_managed().await;
    let mut function = managed(
        &api,
        &[
            ("A2A_TASK_TABLE", &settings.table),
            ("A2A_DYNAMODB_ENDPOINT", &endpoint),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
        ],
    )
    .await;
    let table = a2a_test_support::dynamo::store(&settings);
    // Four tasks at work, started by four invocations, and a blocking send still in
    // flight.
    let mut ids = Vec::new();
    for i in 0..4 {
        api.invoke(
            &format!("inv-slow-{i}"),
            &non_blocking_send(&format!("slow-{i}")),
            FAR,
        );
        let (_, answer, _) = api.answer(&format!("inv-slow-{i}")).await;
        ids.push(task_id(&answer["result"]));
    }
    api.invoke("inv-blocking", &send("slow-blocking", true), FAR);
    // All five working in the table (the blocking send's task included).
    let working = ListTasksParams {
        status: Some(TaskState::Working),
        ..ListTasksParams::default()
    };
    let deadline = Instant::now() + STEP;
    loop {
        let listed = table.list(&working, &Owner::anonymous()).await.unwrap();
        if listed.tasks.len() == 5 {
            break;
        }
        assert!(Instant::now() < deadline, "not all working: {listed:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    let (status, took) = function.terminate().await;
    assert_eq!(status.code(), Some(0), "{status}");
    assert!(took < BUDGET, "exited {took:?} after SIGTERM");
    for id in &ids {
        let stored = table.get(id).await.unwrap().unwrap();
        assert_eq!(stored.task.status.state.v0_3_name(), "failed", "{stored:?}");
        let message = stored
            .task
            .status
            .message
            .as_ref()
            .expect("a status message");
        assert_eq!(message.joined_text(), SHUT_DOWN);
    }
    // The blocking send was answered with its failed task before the process went.
    let (_, answer, _) = api.answer("inv-blocking").await;
    assert_eq!(answer["result"]["status"]["state"], "failed", "{answer}");
    assert_eq!(
        answer["result"]["status"]["message"]["parts"][0]["text"], SHUT_DOWN,
        "{answer}"
    );
    let settled = function
        .logs()
        .into_iter()
        .find(|log| {
            log["fields"]["message"]
                == "environment shutting down: the tasks still at work were failed in the store"
        })
        .expect("the shutdown is logged");
    assert_eq!(settled["fields"]["running"], 5, "{settled}");
    assert_eq!(settled["fields"]["failed"], 5, "{settled}");
}

#[tokio::test]
async fn a_bad_max_concurrency_fails_the_init_with_a_clear_log_line() {
    let api = FakeApi::start_managed().await;
    let mut function = Function::start(&api, &[("AWS_LAMBDA_MAX_CONCURRENCY", "eight")]);
    let status = function.exited().await;
    assert!(!status.success(), "{status}");
    // The JSON log lines (`main` prints its error after them), once read from the pipe.
    let deadline = Instant::now() + STEP;
    let failed = loop {
        let logs = function.json_logs();
        if let Some(log) = logs
            .iter()
            .find(|log| log["fields"]["message"] == "init failed")
        {
            break log.clone();
        }
        assert!(Instant::now() < deadline, "no `init failed`: {logs:#?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(failed["level"], "ERROR", "{failed}");
    assert_eq!(
        failed["fields"]["error"],
        "configuration: AWS_LAMBDA_MAX_CONCURRENCY=\"eight\" is not valid: a whole number \
         of concurrent invocations, 1 or more (Lambda sets it on Managed Instances)"
    );
}
