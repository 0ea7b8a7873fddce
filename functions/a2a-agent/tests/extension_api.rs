//! The real function binary against a fake Lambda Runtime API that also serves the
//! Extensions API, as Lambda does: the runtime gets its next invocation only once every
//! registered extension has asked for its next event (`/2020-01-01/extension/event/next`)
//! after the previous one — until then the environment is not frozen, and Lambda bills.
//!
//! What a user notices: a non-blocking send is answered before its agent is done, the
//! agent still finishes (the next invocation sees the task completed), and without the
//! Extensions API a non-blocking send is served as a blocking one (one warning at init).
//!
//! The fake APIs and the function process are in `fake_lambda`. A task that outlives its
//! invocation's time is failed before the deadline: that is shown on the local Lambda
//! (the emulator's `local_lambda_deadline.rs`), whose real deadline would time the
//! invocation out if the host let it pass.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod fake_lambda;

use std::time::Duration;

use fake_lambda::{FAR, FakeApi, Function, Record, get_task, non_blocking_send, task_id};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// The tests.

#[tokio::test]
async fn a_non_blocking_send_finishes_before_the_environment_is_frozen() {
    let mut api = FakeApi::start(true).await;
    // `tck-delayed-complete` works for TCK_STREAMING_TIMEOUT seconds, then completes.
    let function = Function::start(&api, &[("TCK_STREAMING_TIMEOUT", "1")]);
    let agent_works = Duration::from_secs(1);
    let (_, registered) = api
        .find("the registration", 0, |record| {
            matches!(record, Record::Registered { .. })
        })
        .await;
    let Record::Registered { name, body } = registered else {
        unreachable!()
    };
    assert_eq!(name, "a2a-background");
    // Internal extensions get INVOKE only (SHUTDOWN is for external ones).
    assert_eq!(body, json!({"events": ["INVOKE"]}));
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["background_work"], true, "{init}");

    api.invoke(
        "inv-send",
        &non_blocking_send("tck-delayed-complete-1"),
        FAR,
    );
    let (handed_index, handed) = api.handed("inv-send").await;
    let (_, answer, responded) = api.answer("inv-send").await;
    let task = &answer["result"];
    // Answered at once, before the agent is done.
    assert_eq!(task["status"]["state"], "submitted", "{answer}");
    assert!(
        responded - handed < agent_works,
        "answered after {:?}",
        responded - handed
    );
    let task_id = task_id(task);

    // The next invocation is queued at once; the environment takes it only once the
    // extension lets the previous one go, which it does once the agent is done.
    api.invoke("inv-get", &get_task(&task_id), FAR);
    let (_, runtime_next) = api
        .find("the runtime's next /next", handed_index, |record| {
            matches!(record, Record::RuntimeNext { .. })
        })
        .await;
    let Record::RuntimeNext { at: runtime_asked } = runtime_next else {
        unreachable!()
    };
    let extension_next = api.extension_next(handed_index).await;
    let (_, get_handed) = api.handed("inv-get").await;
    assert!(
        runtime_asked < extension_next,
        "the runtime asked for its next invocation first, and was held"
    );
    assert!(
        get_handed >= extension_next,
        "the next invocation waits for the extension"
    );
    let extra = extension_next - responded;
    assert!(
        extra + (responded - handed) >= agent_works,
        "held while the agent worked: {extra:?}"
    );
    let (_, answer, _) = api.answer("inv-get").await;
    let task = &answer["result"];
    assert_eq!(task["id"], task_id.as_str());
    assert_eq!(task["status"]["state"], "completed", "{answer}");
    assert_eq!(
        task["status"]["message"]["parts"][0]["text"],
        "Done after delay"
    );
    eprintln!(
        "non-blocking send, agent working {agent_works:?}: answered after {:?}; \
         extra billed time (response → extension's /event/next) {extra:?}",
        responded - handed
    );
}

#[tokio::test]
async fn without_the_extensions_api_a_non_blocking_send_is_served_blocking() {
    let mut api = FakeApi::start(false).await;
    let function = Function::start(&api, &[("TCK_STREAMING_TIMEOUT", "0.3")]);
    let init = function.init_complete().await;
    assert_eq!(init["fields"]["background_work"], false, "{init}");
    for round in 0..2 {
        let request_id = format!("inv-send-{round}");
        api.invoke(
            &request_id,
            &non_blocking_send("tck-delayed-complete-1"),
            FAR,
        );
        let (_, handed) = api.handed(&request_id).await;
        let (_, answer, responded) = api.answer(&request_id).await;
        // The answer waited for the agent: the task is done.
        assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
        assert!(responded - handed >= Duration::from_millis(300));
    }
    let warnings: Vec<Value> = function
        .logs()
        .into_iter()
        .filter(|log| log["level"] == "WARN")
        .collect();
    assert_eq!(warnings.len(), 1, "one warning, at init: {warnings:#?}");
    let message = warnings[0]["fields"]["message"].as_str().unwrap();
    assert!(
        message.contains("non-blocking sends are served as blocking ones"),
        "{message}"
    );
    let error = warnings[0]["fields"]["error"].as_str().unwrap();
    assert!(error.contains("Extensions API"), "{error}");
}
