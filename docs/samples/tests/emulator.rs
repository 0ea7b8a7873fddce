//! "Testing with the emulator": AgentCore's behaviours a client must cope with, from a
//! test: throttling retried, sessions kept apart, push notifications seen in a webhook
//! sink, and the inspector's journal read back.

use std::time::Duration;

use a2a_guide_samples::first_agent::Greeter;
use a2a_lambda_client::model::{PushNotificationConfig, SendResult, TaskState};
use a2a_lambda_client::{Client, RetryPolicy};
use a2a_lambda_emulator::{Emulator, FaultSpec, InvocationFilter};
use a2a_lambda_server::agents::EchoAgent;

// ANCHOR: faults
#[tokio::test]
async fn throttling_is_retried() -> Result<(), Box<dyn std::error::Error>> {
    // Half of all invocations are throttled (429, -32053), the same ones every run.
    let faults: FaultSpec = "throttle=0.5".parse()?;
    let emulator = Emulator::new(EchoAgent)
        .faults(faults)
        .seed(7)
        .start()
        .await?;
    let retry = RetryPolicy::default()
        .with_max_attempts(10)
        .with_initial_backoff(Duration::from_millis(5));
    let client = Client::builder(emulator.url())
        .retry(retry)
        .connect()
        .await?;
    for _ in 0..10 {
        client.send_text("hi").await?; // every send succeeds, some after retries
    }
    let journal = emulator.journal().ok_or("the inspector is on by default")?;
    let throttled = journal.invocations(&InvocationFilter::all().code(-32053));
    assert!(!throttled.is_empty(), "no invocation was throttled");
    Ok(())
}
// ANCHOR_END: faults

// ANCHOR: sessions
#[tokio::test]
async fn a_session_does_not_see_another_sessions_tasks() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(Greeter).start().await?;
    let alice = Client::connect(emulator.url()).await?; // each client: a session of its own
    let bob = Client::connect(emulator.url()).await?;
    let SendResult::Task(task) = alice.send_text("hi").await? else {
        panic!("no task")
    };

    let error = bob
        .get_task(&task.id, None)
        .await
        .err()
        .ok_or("bob found alice's task")?;
    assert_eq!(error.rpc().map(|rpc| rpc.code.code()), Some(-32001)); // task not found
    Ok(())
}
// ANCHOR_END: sessions

// ANCHOR: webhooks
#[tokio::test]
async fn push_notifications_reach_the_webhook_sink() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(Greeter).start().await?;
    let client = Client::connect(emulator.url()).await?;
    let SendResult::Task(task) = client.send_text("hi").await? else {
        panic!("no task")
    };

    let config = PushNotificationConfig {
        id: None,
        url: emulator.webhook_url("pushes"), // http://127.0.0.1:PORT/_emulator/webhooks/pushes
        token: Some("tok-1".to_owned()),
        authentication: None,
    };
    client.create_push_config(&task.id, &config).await?;
    client.reply(&task, "Ada").await?; // the task moves: working, then completed

    let arrived = emulator
        .wait_for_webhook("pushes", 1, Duration::from_secs(5))
        .await;
    let last = arrived.last().ok_or("no notification arrived")?;
    assert_eq!(
        last.header("x-a2a-notification-token").as_deref(),
        Some("tok-1")
    );
    let body = last.json().ok_or("not JSON")?;
    // The client speaks A2A 1.0 (the card offers it): a StreamResponse with the task.
    assert_eq!(body["task"]["id"], task.id.as_str());
    Ok(())
}
// ANCHOR_END: webhooks

// ANCHOR: per_session
#[tokio::test]
async fn each_session_gets_an_agent_of_its_own() -> Result<(), Box<dyn std::error::Error>> {
    // As AgentCore starts a microVM per session: nothing is shared between sessions.
    let emulator = Emulator::per_session(|| Greeter)
        .session_startup(Duration::from_millis(100)) // a new session is "starting" this long
        .start()
        .await?;
    let client = Client::connect(emulator.url()).await?; // retries -32054 while it starts
    let SendResult::Task(task) = client.send_text("hi").await? else {
        panic!("no task")
    };
    assert_eq!(task.status.state, TaskState::InputRequired);
    emulator.shutdown().await?;
    Ok(())
}
// ANCHOR_END: per_session

// ANCHOR: journal
#[tokio::test]
async fn the_journal_shows_what_the_client_sent() -> Result<(), Box<dyn std::error::Error>> {
    let emulator = Emulator::new(Greeter).start().await?;
    let client = Client::connect(emulator.url()).await?; // speaks A2A 1.0: the card offers it
    let SendResult::Task(task) = client.send_text("hi").await? else {
        panic!("no task")
    };
    client.reply(&task, "Ada").await?;

    let journal = emulator.journal().ok_or("the inspector is on by default")?;
    let sends = InvocationFilter::all().method("SendMessage");
    let sent = journal.wait_for(&sends, 2, Duration::from_secs(5)).await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0].request_header("a2a-version"), Some("1.0"));
    assert_eq!(
        sent[1].request_header("x-amzn-bedrock-agentcore-runtime-session-id"),
        Some(client.session_id().as_str())
    );
    Ok(())
}
// ANCHOR_END: journal
