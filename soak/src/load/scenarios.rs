//! The actions: a send or a stream of either version, a get of a task of the worker's, a
//! bad input, and the cancel of a working task with a resubscribe open on it.

use serde_json::{Value, json};

use super::caller::Caller;
use super::checks::{a2a_id, answer, expect_state, preview, state_of, stream_results};
use super::stats::Action;

/// How an action that went as due ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// As planned.
    Done,
    /// A resubscribe found the task canceled already (the cancel came first).
    Raced,
    /// A get found its task evicted.
    Evicted,
}

/// Does one action.
pub(super) async fn act(
    caller: &mut Caller,
    action: Action,
    tasks: &mut Vec<String>,
    seed: u64,
    n: u64,
    rng: &mut fastrand::Rng,
) -> Result<Outcome, String> {
    let message_id = |prefix: &str| format!("{prefix}-{seed}-{n}");
    match action {
        Action::SendV03 => {
            let params = json!({"message": message_v03(&message_id("tck-complete-task"))});
            let (id, reply) = caller.call("message/send", params, false).await?;
            let result = answer(&reply, &id)?.map_err(|code| format!("error {code}"))?;
            expect_state(&result, "completed")?;
            remember(tasks, &result);
            Ok(Outcome::Done)
        }
        Action::SendV10 => {
            let params = json!({"message": message_v10(&message_id("tck-complete-task"))});
            let (id, reply) = caller.call("SendMessage", params, true).await?;
            let result = answer(&reply, &id)?.map_err(|code| format!("error {code}"))?;
            expect_state(&result, "TASK_STATE_COMPLETED")?;
            remember(tasks, &result);
            Ok(Outcome::Done)
        }
        Action::StreamV03 => {
            let params = json!({"message": message_v03(&message_id("tck-stream"))});
            let (id, reply) = caller.call("message/stream", params, false).await?;
            let results = stream_results(&reply, &id)?;
            let last = results.last().ok_or("an empty stream")?;
            if last["final"] != true || state_of(last) != "completed" {
                return Err(format!("the stream ended with {last}"));
            }
            Ok(Outcome::Done)
        }
        Action::StreamV10 => {
            let params = json!({"message": message_v10(&message_id("tck-stream"))});
            let (id, reply) = caller.call("SendStreamingMessage", params, true).await?;
            let results = stream_results(&reply, &id)?;
            let last = results.last().ok_or("an empty stream")?;
            expect_state(last, "TASK_STATE_COMPLETED")?;
            Ok(Outcome::Done)
        }
        Action::Get => {
            // This worker's newest task: the likeliest to be kept still.
            let task = tasks.last().cloned().unwrap_or_default();
            let (id, reply) = caller.call("tasks/get", json!({"id": task}), false).await?;
            let result = match answer(&reply, &id)? {
                Ok(result) => result,
                Err(-32001) => return Ok(Outcome::Evicted),
                Err(code) => return Err(format!("error {code}")),
            };
            if result["id"] != task.as_str() {
                return Err(format!("got another task: {result}"));
            }
            Ok(Outcome::Done)
        }
        Action::CancelResubscribe => {
            cancel_resubscribe(caller, &message_id("slow"), rng.bool()).await
        }
        Action::Bad => {
            // Bad JSON; an unknown method; a v1.0 method without `A2A-Version: 1.0`.
            let (body, due): (&[u8], _) = match rng.u8(..3) {
                0 => (br#"{"jsonrpc":"2.0","id":1,"method":"#, None),
                1 => (
                    br#"{"jsonrpc":"2.0","id":7,"method":"tasks/nothing","params":{}}"#,
                    Some(-32601),
                ),
                _ => (
                    br#"{"jsonrpc":"2.0","id":8,"method":"GetTask","params":{"id":"t"}}"#,
                    Some(-32009),
                ),
            };
            let reply = caller.raw(body.to_vec(), false, "application/json").await?;
            if reply.status >= 500 {
                return Err(format!("HTTP {} for a bad input", reply.status));
            }
            let id = a2a_id(body);
            match (answer(&reply, &id)?, due) {
                (Err(code), Some(due)) if code == due => Ok(Outcome::Done),
                // Bad JSON: -32700 from the container; the front refuses the payload itself.
                (Err(-32700 | -32052), None) => Ok(Outcome::Done),
                (other, _) => Err(format!("a bad input answered {other:?}")),
            }
        }
    }
}

fn remember(tasks: &mut Vec<String>, result: &Value) {
    let task = result.get("task").unwrap_or(result);
    if let Some(id) = task["id"].as_str() {
        if tasks.len() >= 32 {
            tasks.remove(0);
        }
        tasks.push(id.to_owned());
    }
}

/// A `slow-` task (working until canceled), a resubscribe to it, its cancel; the
/// resubscribe must end with the canceled state (or find it canceled, when the cancel
/// came first).
async fn cancel_resubscribe(
    caller: &mut Caller,
    message_id: &str,
    v1: bool,
) -> Result<Outcome, String> {
    let (send, params) = if v1 {
        (
            "SendMessage",
            json!({"message": message_v10(message_id), "configuration": {"returnImmediately": true}}),
        )
    } else {
        (
            "message/send",
            json!({"message": message_v03(message_id), "configuration": {"blocking": false}}),
        )
    };
    let (id, reply) = caller.call(send, params, v1).await?;
    let result = answer(&reply, &id)?.map_err(|code| format!("send: error {code}"))?;
    let task = result.get("task").unwrap_or(&result)["id"]
        .as_str()
        .ok_or_else(|| format!("no task: {result}"))?
        .to_owned();
    let (subscribe, cancel, canceled) = if v1 {
        ("SubscribeToTask", "CancelTask", "TASK_STATE_CANCELED")
    } else {
        ("tasks/resubscribe", "tasks/cancel", "canceled")
    };
    let mut subscriber = Caller {
        client: caller.client.clone(),
        url: caller.url.clone(),
        session: caller.session.clone(),
        next: 1_000_000 + caller.next,
    };
    let task_for_stream = task.clone();
    let stream = tokio::spawn(async move {
        subscriber
            .call(subscribe, json!({"id": task_for_stream}), v1)
            .await
    });
    let (id, reply) = caller.call(cancel, json!({"id": task}), v1).await?;
    let result = answer(&reply, &id)?.map_err(|code| format!("cancel: error {code}"))?;
    expect_state(&result, canceled)?;
    let (id, reply) = stream
        .await
        .map_err(|error| format!("resubscribe: {error}"))??;
    if !reply.sse {
        // The cancel came first: the task is terminal, which a resubscribe refuses.
        return match answer(&reply, &id)? {
            Err(_) => Ok(Outcome::Raced),
            Ok(result) => Err(format!("resubscribe answered {result} without a stream")),
        };
    }
    let results = match stream_results(&reply, &id) {
        // v0.3 sends the refusal of a resubscription to a task already finished as the
        // stream's one event (as the official v0.3 servers do); v1.0 as JSON, above.
        Err(error) if !v1 && error == "stream event error -32004" => return Ok(Outcome::Raced),
        // Canceled, then evicted before the resubscription was read: the store keeps
        // the newest 1,000 finished tasks, all sessions together.
        Err(error) if !v1 && error == "stream event error -32001" => {
            return Ok(Outcome::Evicted);
        }
        other => other?,
    };
    match results.last() {
        Some(last) if state_of(last) == canceled => Ok(Outcome::Done),
        Some(last) => Err(format!(
            "resubscribe ended with {}",
            preview(&last.to_string())
        )),
        None => Ok(Outcome::Raced),
    }
}

fn message_v03(id: &str) -> Value {
    json!({"kind": "message", "role": "user", "messageId": id,
        "parts": [{"kind": "text", "text": "soak"}]})
}

fn message_v10(id: &str) -> Value {
    json!({"role": "ROLE_USER", "messageId": id, "parts": [{"text": "soak"}]})
}
