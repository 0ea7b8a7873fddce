//! An echo agent on the official A2A Rust SDK's server (`a2a-server-lf`): JSON-RPC under
//! `/jsonrpc`, HTTP+JSON under `/rest`, the card at `/.well-known/agent-card.json`, push
//! notifications on (to loopback webhooks, as a test needs). A message whose first text
//! starts with `wait` leaves its task working until it is canceled; any other is answered
//! `Echo: TEXT` and completed. It listens on 127.0.0.1 (`PORT`, default a free one) and
//! prints `lf-echo-server listening on http://127.0.0.1:PORT`.

use std::sync::Arc;

use a2a::event::StreamResponse;
use a2a::*;
use a2a_server::*;
use futures::stream::{self, BoxStream};

/// Echoes, or works until canceled.
struct Echo;

impl AgentExecutor for Echo {
    fn execute(
        &self,
        ctx: ExecutorContext,
    ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        let text = ctx
            .message
            .as_ref()
            .and_then(|message| message.parts.first())
            .and_then(|part| match &part.content {
                PartContent::Text(text) => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let working = status(&ctx, TaskState::Working, None);
        if text.starts_with("wait") {
            let (sender, receiver) = tokio::sync::mpsc::channel(1);
            tokio::spawn(async move {
                let _ = sender.send(Ok(working)).await;
                sender.closed().await;
            });
            return Box::pin(tokio_stream::wrappers::ReceiverStream::new(receiver));
        }
        let reply = Message {
            role: Role::Agent,
            message_id: new_message_id(),
            task_id: Some(ctx.task_id.clone()),
            context_id: Some(ctx.context_id.clone()),
            parts: vec![Part::text(format!("Echo: {text}"))],
            metadata: None,
            extensions: None,
            reference_task_ids: None,
        };
        let done = status(&ctx, TaskState::Completed, Some(reply));
        Box::pin(stream::iter([Ok(working), Ok(done)]))
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
        Box::pin(stream::iter([Ok(status(&ctx, TaskState::Canceled, None))]))
    }
}

fn status(ctx: &ExecutorContext, state: TaskState, message: Option<Message>) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: ctx.task_id.clone(),
        context_id: ctx.context_id.clone(),
        status: TaskStatus {
            state,
            message,
            timestamp: Some(chrono::Utc::now()),
        },
        metadata: None,
    })
}

#[tokio::main]
async fn main() {
    let port = std::env::var("PORT").unwrap_or_else(|_| "0".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}"))
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    let card: AgentCard = serde_json::from_value(serde_json::json!({
        "name": "lf echo",
        "description": "An echo agent on the official A2A Rust SDK",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": format!("{base}/jsonrpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
        ],
        "capabilities": {"streaming": true, "pushNotifications": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echoes the message", "tags": ["echo"]}],
    }))
    .expect("card");
    let sender = HttpPushSender::new(Some(HttpPushSenderConfig {
        validate_urls: false,
        ..HttpPushSenderConfig::default()
    }));
    let handler = Arc::new(
        DefaultRequestHandler::new(Echo, InMemoryTaskStore::new())
            .with_push_notifications(InMemoryPushConfigStore::new(), sender),
    );
    let app = axum::Router::new()
        .nest(
            "/jsonrpc",
            a2a_server::jsonrpc::jsonrpc_router(Arc::clone(&handler)),
        )
        .nest("/rest", a2a_server::rest::rest_router(handler))
        .merge(a2a_server::agent_card::agent_card_router(Arc::new(
            StaticAgentCard::new(card),
        )));
    println!("lf-echo-server listening on {base}");
    axum::serve(listener, app).await.expect("serve");
}
