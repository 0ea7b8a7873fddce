//! A [`CallAgent`] step: the next agent called with `a2a-lambda-client`, over the binding
//! the step names, and the texts of its answer.

use std::time::Duration;

use a2a_lambda_client::model::{
    Message, PartContent, PushNotificationConfig, Role, SendConfiguration, SendMessageParams,
    SendResult, StreamEvent, Task,
};
use a2a_lambda_client::{Binding, Client, Error};

use crate::instruction::{Behavior, CallAgent, FINISHED, Instruction};

/// How long one call may take, and a stream stay silent: a chain of hops answers within
/// seconds; a hop held for resubscription within about ten.
const CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// The token a push notification config carries (the kit's mock server ignores it).
const PUSH_TOKEN: &str = "itk-token";

/// Why a step failed: said in the task's failure message, so it reaches the kit's log.
#[derive(Debug)]
pub struct CallError(pub String);

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CallError {}

/// The binding a step's `transport` names: the kit writes `jsonrpc`, `http_json` and
/// `grpc`; the card names (`JSONRPC`, `HTTP+JSON`, `GRPC`) and `REST` are read too.
pub fn binding(transport: &str) -> Result<Binding, CallError> {
    match transport.to_ascii_uppercase().as_str() {
        "JSONRPC" | "JSON-RPC" => Ok(Binding::JsonRpc),
        "HTTP_JSON" | "HTTP+JSON" | "REST" => Ok(Binding::HttpJson),
        "GRPC" => Ok(Binding::Grpc),
        _ => Err(CallError(format!(
            "unknown transport {transport:?} (jsonrpc, http_json or grpc)"
        ))),
    }
}

/// Calls the agent `call` names, as `call.behavior` says, and returns the texts of its
/// answer.
pub async fn call_agent(call: &CallAgent) -> Result<Vec<String>, CallError> {
    let binding = binding(&call.transport)?;
    let failed = |error: Error| {
        CallError(format!(
            "calling {} over {}: {error}",
            call.agent_card_uri, call.transport
        ))
    };
    let client = Client::builder(call.agent_card_uri.as_str())
        .binding(binding)
        .timeout(Some(CALL_TIMEOUT))
        .stream_idle_timeout(Some(CALL_TIMEOUT))
        .connect()
        .await
        .map_err(failed)?;
    let instruction = call.instruction.as_deref().cloned().unwrap_or_default();
    let params = params(&instruction, call.behavior.as_ref());
    match call.behavior {
        Some(Behavior::Resubscribe(_)) => resubscribe(&client, &params).await.map_err(failed),
        _ if call.streaming => {
            let mut stream = client.stream(&params).await.map_err(failed)?;
            let mut texts = Vec::new();
            while let Some(event) = stream.next_event().await {
                texts.extend(event_texts(&event.map_err(failed)?));
            }
            Ok(texts)
        }
        _ => match client.send(&params).await.map_err(failed)? {
            SendResult::Task(task) => Ok(status_texts(&task)),
            SendResult::Message(message) => Ok(texts(&message)),
        },
    }
}

/// The send: the instruction as its message, and the push notification config for
/// `{url}/notifications` when the behavior asks for one.
fn params(instruction: &Instruction, behavior: Option<&Behavior>) -> SendMessageParams {
    let configuration = match behavior {
        Some(Behavior::PushNotification(push)) => {
            let base = if push.url.starts_with("http://") || push.url.starts_with("https://") {
                push.url.clone()
            } else {
                format!("http://{}", push.url)
            };
            Some(SendConfiguration {
                push_notification_config: Some(PushNotificationConfig {
                    id: None,
                    url: format!("{}/notifications", base.trim_end_matches('/')),
                    token: Some(PUSH_TOKEN.to_owned()),
                    authentication: None,
                }),
                ..SendConfiguration::default()
            })
        }
        _ => None,
    };
    SendMessageParams {
        message: instruction.to_message(),
        configuration,
        metadata: None,
    }
}

/// Streams the send, drops the stream at the first event naming the task, resubscribes
/// to the task and reads up to [`FINISHED`], then cancels the task (the kit's held tasks
/// would otherwise run on for a while).
async fn resubscribe(client: &Client, params: &SendMessageParams) -> Result<Vec<String>, Error> {
    let mut stream = client.stream(params).await?;
    let mut task_id = None;
    while task_id.is_none() {
        match stream.next_event().await {
            Some(event) => task_id = task_of(&event?),
            None => break,
        }
    }
    drop(stream);
    let Some(task_id) = task_id else {
        return Err(Error::Config(
            "the stream ended before any event named a task".to_owned(),
        ));
    };
    let mut subscription = client.resubscribe(&task_id).await?;
    let mut texts = Vec::new();
    let mut finished = false;
    while !finished {
        let Some(event) = subscription.next_event().await else {
            break;
        };
        let event = event?;
        let mut read = event_texts(&event);
        if let StreamEvent::Task(task) = &event {
            for message in task.history.iter().filter(|m| m.role == Role::Agent) {
                read.extend(self::texts(message));
            }
        }
        for text in read {
            finished |= text.contains(FINISHED);
            let text = text.replace(FINISHED, "");
            let text = text.trim();
            if !text.is_empty() && !texts.iter().any(|seen: &String| seen == text) {
                texts.push(text.to_owned());
            }
        }
    }
    drop(subscription);
    if let Err(error) = client.cancel_task(&task_id).await {
        // A held task may have ended by itself in the meantime: that is no failure.
        tracing::info!(%task_id, %error, "cancel after resubscribing refused");
    }
    Ok(texts)
}

/// The task an event is about.
fn task_of(event: &StreamEvent) -> Option<String> {
    match event {
        StreamEvent::Task(task) => Some(task.id.clone()),
        StreamEvent::StatusUpdate(update) => Some(update.task_id.clone()),
        StreamEvent::ArtifactUpdate(update) => Some(update.task_id.clone()),
        StreamEvent::Message(message) => message.task_id.clone(),
    }
}

/// The texts an event carries: a message's, or the status message's.
fn event_texts(event: &StreamEvent) -> Vec<String> {
    match event {
        StreamEvent::Message(message) => texts(message),
        StreamEvent::Task(task) => status_texts(task),
        StreamEvent::StatusUpdate(update) => update.status.message.iter().flat_map(texts).collect(),
        StreamEvent::ArtifactUpdate(_) => Vec::new(),
    }
}

/// The texts of a task's status message (where the kit's agents put their answer).
fn status_texts(task: &Task) -> Vec<String> {
    task.status.message.iter().flat_map(texts).collect()
}

/// A message's non-empty text parts.
fn texts(message: &Message) -> Vec<String> {
    message
        .parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) if !text.is_empty() => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::instruction::{PushNotificationBehavior, ResubscribeBehavior, SendMessageBehavior};

    #[test]
    fn the_kits_transport_names_and_the_cards_are_bindings() {
        for (name, expected) in [
            ("jsonrpc", Binding::JsonRpc),
            ("JSONRPC", Binding::JsonRpc),
            ("http_json", Binding::HttpJson),
            ("HTTP+JSON", Binding::HttpJson),
            ("rest", Binding::HttpJson),
            ("grpc", Binding::Grpc),
        ] {
            assert_eq!(binding(name).unwrap(), expected, "{name}");
        }
        assert_eq!(
            binding("websocket").unwrap_err().to_string(),
            "unknown transport \"websocket\" (jsonrpc, http_json or grpc)"
        );
    }

    #[test]
    fn a_push_behavior_asks_for_notifications_at_the_servers_path() {
        let instruction = Instruction::default();
        for (url, expected) in [
            (
                "http://127.0.0.1:5000",
                "http://127.0.0.1:5000/notifications",
            ),
            ("127.0.0.1:5000/", "http://127.0.0.1:5000/notifications"),
        ] {
            let push = Behavior::PushNotification(PushNotificationBehavior {
                url: url.to_owned(),
            });
            let config = params(&instruction, Some(&push))
                .configuration
                .unwrap()
                .push_notification_config
                .unwrap();
            assert_eq!(config.url, expected);
            assert_eq!(config.token.as_deref(), Some(PUSH_TOKEN));
        }
        for behavior in [
            None,
            Some(Behavior::SendMessage(SendMessageBehavior {})),
            Some(Behavior::Resubscribe(ResubscribeBehavior {})),
        ] {
            assert_eq!(params(&instruction, behavior.as_ref()).configuration, None);
        }
    }
}
