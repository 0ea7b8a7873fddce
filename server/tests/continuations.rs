//! Continuing a task that waits for input: the new runner's state is the one callers
//! see, and a continued task always settles.

#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::card::AgentCard;
use a2a_lambda_server::agent::{Agent, AgentError, EventSink, RequestContext};
use a2a_lambda_server::host::engine::{CallContext, Engine, Reply};
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use a2a_test_support::agents::Gated;
use common::CountingStore;
use futures_util::FutureExt as _;
use serde_json::{Value, json};
use tokio::sync::Notify;

fn engine(agent: impl a2a_lambda_server::IntoAgent) -> Engine {
    common::engine(
        agent,
        Arc::new(InMemoryTaskStore::new()) as Arc<dyn TaskStore>,
    )
}

/// The JSON answer, within five seconds (a send that never settles fails the test).
async fn answer(engine: &Engine, body: &Value) -> Value {
    let reply = tokio::time::timeout(
        Duration::from_secs(5),
        engine.handle(body.to_string().as_bytes(), &CallContext::default()),
    )
    .await
    .expect("the engine answers");
    match reply {
        Reply::Json { body, .. } => serde_json::from_slice(&body).unwrap(),
        // A v0.3 stream refused once its request was found valid.
        stream => common::refusal(stream).await,
    }
}

fn send(text: &str, task_id: Option<&str>) -> Value {
    let mut message = json!({"kind": "message", "messageId": format!("m-{text}"),
                             "role": "user", "parts": [{"kind": "text", "text": text}]});
    if let Some(task_id) = task_id {
        message["taskId"] = json!(task_id);
    }
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}})
}

/// Asks for input and lingers until the gate opens; answered, completes at once.
struct AsksThenAnswers(Arc<Notify>);

impl Agent for AsksThenAnswers {
    fn card(&self) -> AgentCard {
        Gated(Arc::clone(&self.0)).card()
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        if context.previous.is_none() {
            events.ask("which one?").await?;
            self.0.notified().await;
        } else {
            events.complete_with("thanks").await?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn a_quick_answer_replaces_the_runner_it_continues() {
    let gate = Arc::new(Notify::new());
    let engine = engine(Arc::new(AsksThenAnswers(Arc::clone(&gate))));

    let asked = answer(&engine, &send("start", None)).await;
    assert_eq!(asked["result"]["status"]["state"], "input-required");
    let task_id = asked["result"]["id"].as_str().unwrap().to_owned();
    // The first runner lingers: the task is still registered under it.
    assert_eq!(engine.running_tasks(), 1);

    let answered = answer(&engine, &send("that one", Some(&task_id))).await;
    assert_eq!(answered["result"]["status"]["state"], "completed");

    // A subscription sees the completed task, not the lingering runner's input-required.
    let resubscribe = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/resubscribe",
                             "params": {"id": task_id}});
    let refused = answer(&engine, &resubscribe).await;
    assert_eq!(refused["error"]["code"], -32004, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("completed"),
        "{refused}"
    );
    gate.notify_one();
}

/// Asks for input; answered, returns without a word.
struct AsksThenSaysNothing;

impl Agent for AsksThenSaysNothing {
    fn card(&self) -> AgentCard {
        Gated(Arc::new(Notify::new())).card()
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        if context.previous.is_none() {
            events.ask("which one?").await?;
        }
        Ok(())
    }
}

#[tokio::test]
async fn an_answer_the_agent_takes_silently_completes_the_task() {
    let engine = engine(Arc::new(AsksThenSaysNothing));
    let asked = answer(&engine, &send("start", None)).await;
    assert_eq!(asked["result"]["status"]["state"], "input-required");
    let task_id = asked["result"]["id"].as_str().unwrap();

    let answered = answer(&engine, &send("that one", Some(task_id))).await;
    assert_eq!(
        answered["result"]["status"]["state"], "completed",
        "{answered}"
    );
    let history = answered["result"]["history"].as_array().unwrap();
    assert_eq!(history.last().unwrap()["messageId"], "m-that one");
}

#[tokio::test]
async fn a_subscription_to_a_task_that_ends_while_it_is_made_is_refused_not_left_open() {
    let store = Arc::new(CountingStore::default());
    let engine = common::engine(
        Arc::new(AsksThenSaysNothing),
        Arc::clone(&store) as Arc<dyn TaskStore>,
    );
    let asked = answer(&engine, &send("start", None)).await;
    assert_eq!(asked["result"]["status"]["state"], "input-required");
    let task_id = asked["result"]["id"].as_str().unwrap();

    // The subscription reads the task waiting for input, and is held there ...
    let gate = store.hold_next_read();
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/resubscribe",
                      "params": {"id": task_id}})
    .to_string();
    let call = CallContext::default();
    let subscribing = engine.handle(body.as_bytes(), &call);
    tokio::pin!(subscribing);
    assert!(
        (&mut subscribing).now_or_never().is_none(),
        "held at its read"
    );
    // ... while an answer completes the task.
    let answered = answer(&engine, &send("that one", Some(task_id))).await;
    assert_eq!(answered["result"]["status"]["state"], "completed");
    gate.notify_one();

    let reply = tokio::time::timeout(Duration::from_secs(5), subscribing)
        .await
        .expect("the subscription is answered");
    // Refused (v0.3: a stream of one error event, which then ends), not a stream that
    // never ends.
    let refused = common::refusal(reply).await;
    assert_eq!(refused["error"]["code"], -32004, "{refused}");
}

/// Panics in `execute` itself, before it returns its future, when told `boom`; otherwise
/// completes at once.
struct PanicsEarly;

impl Agent for PanicsEarly {
    fn card(&self) -> AgentCard {
        Gated(Arc::new(Notify::new())).card()
    }

    fn execute(
        &self,
        context: RequestContext,
        events: EventSink,
    ) -> impl Future<Output = Result<(), AgentError>> + Send {
        assert!(context.message.joined_text() != "boom", "boom");
        async move {
            events.complete().await?;
            Ok(())
        }
    }
}

#[tokio::test]
async fn an_agent_that_panics_before_its_future_gets_an_internal_error() {
    let engine = engine(Arc::new(PanicsEarly));
    let refused = answer(&engine, &send("boom", None)).await;
    assert_eq!(refused["id"], 1, "{refused}");
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    // The engine goes on serving.
    let served = answer(&engine, &send("fine", None)).await;
    assert_eq!(served["result"]["status"]["state"], "completed", "{served}");
}
