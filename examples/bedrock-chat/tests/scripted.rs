//! The agent's logic with a scripted model, no AWS: through the AgentCore emulator (as a
//! client of AgentCore sees it), through the container host (with the task store the
//! agent replays earlier turns from), and called directly where time is the point.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_lambda_client::model::{PartContent, SendResult, StreamEvent, Task, TaskState};
use a2a_lambda_client::{Client, ProtocolVersion, text_params};
use a2a_lambda_emulator::Emulator;
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use a2a_lambda_server::{AgentEvent, RequestContext, testing};
use bedrock_chat::agent::{ChatAgent, usage_of};
use bedrock_chat::config::ChatConfig;
use bedrock_chat::model::{ChatModel, ModelError, ReplyEvent, ReplyStream, Speaker, Turn, Usage};
use serde_json::{Value, json};
use tokio::sync::oneshot;

const MODEL_ID: &str = "secret-model-id-0123";
const SYSTEM_PROMPT: &str = "You are Zorblax, keeper of the hidden prompt.";

/// What the scripted model does for one call.
enum Script {
    /// Answers with these events, in order.
    Reply(Vec<Result<ReplyEvent, ModelError>>),
    /// Refuses the call.
    Refuse(ModelError),
    /// Sends these events, then waits forever; `dropped` fires when the stream is dropped.
    Hang(Vec<ReplyEvent>, oneshot::Sender<()>),
}

/// A model that plays its scripts in order and records the conversations it was sent.
#[derive(Default)]
struct Scripted {
    scripts: Mutex<VecDeque<Script>>,
    seen: Mutex<Vec<Vec<Turn>>>,
}

impl Scripted {
    fn new(scripts: impl IntoIterator<Item = Script>) -> Arc<Self> {
        Arc::new(Self {
            scripts: Mutex::new(scripts.into_iter().collect()),
            seen: Mutex::default(),
        })
    }
}

struct Playing {
    events: VecDeque<Result<ReplyEvent, ModelError>>,
    /// Held while hanging; dropped with the stream.
    hang: Option<oneshot::Sender<()>>,
}

#[a2a_lambda_server::async_trait]
impl ReplyStream for Playing {
    async fn next(&mut self) -> Option<Result<ReplyEvent, ModelError>> {
        if let Some(event) = self.events.pop_front() {
            return Some(event);
        }
        if self.hang.is_some() {
            std::future::pending::<()>().await;
        }
        None
    }
}

#[a2a_lambda_server::async_trait]
impl ChatModel for Scripted {
    async fn answer(&self, turns: Vec<Turn>) -> Result<Box<dyn ReplyStream>, ModelError> {
        self.seen.lock().unwrap().push(turns);
        let script = self.scripts.lock().unwrap().pop_front().expect("a script");
        let (events, hang) = match script {
            Script::Reply(events) => (events.into(), None),
            Script::Refuse(error) => return Err(error),
            Script::Hang(events, dropped) => (events.into_iter().map(Ok).collect(), Some(dropped)),
        };
        Ok(Box::new(Playing { events, hang }))
    }
}

fn config(extra: &[(&str, &str)]) -> ChatConfig {
    let mut variables = vec![
        ("BEDROCK_MODEL_ID", MODEL_ID),
        ("BEDROCK_REGION", "eu-west-1"),
        ("BEDROCK_SYSTEM_PROMPT", SYSTEM_PROMPT),
    ];
    variables.extend_from_slice(extra);
    ChatConfig::from_lookup(|name| {
        variables
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    })
    .unwrap()
}

fn agent(model: &Arc<Scripted>) -> ChatAgent {
    ChatAgent::new(Arc::clone(model) as Arc<dyn ChatModel>, &config(&[]))
}

fn hello_script() -> Script {
    Script::Reply(vec![
        Ok(ReplyEvent::Text("Hel".into())),
        Ok(ReplyEvent::Text("lo".into())),
        Ok(ReplyEvent::Text("!".into())),
        Ok(ReplyEvent::Stopped("end_turn".into())),
        Ok(ReplyEvent::Usage(Usage {
            input_tokens: 12,
            output_tokens: 3,
            total_tokens: 15,
        })),
    ])
}

fn task(result: SendResult) -> Task {
    match result {
        SendResult::Task(task) => task,
        SendResult::Message(message) => panic!("expected a task, got {message:?}"),
    }
}

fn text(parts: &[a2a_lambda_client::model::Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match &part.content {
            PartContent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_answer_streams_in_chunks_then_completes_with_its_usage() {
    let model = Scripted::new([hello_script()]);
    let emulator = Emulator::new(agent(&model)).start().await.unwrap();
    let client = Client::connect(emulator.url()).await.unwrap();

    let mut stream = client.stream(&text_params("Say hello")).await.unwrap();
    let mut seen = Vec::new();
    let mut stream_task_id = None;
    while let Some(event) = stream.next_event().await {
        seen.push(match event.unwrap() {
            StreamEvent::Task(task) => {
                stream_task_id = Some(task.id);
                json!({"task": format!("{:?}", task.status.state)})
            }
            StreamEvent::StatusUpdate(update) => json!({
                "status": format!("{:?}", update.status.state),
                "message": update.status.message.as_ref().map(|m| m.joined_text()),
                "messageMetadata": update.status.message.and_then(|m| m.metadata),
                "metadata": update.metadata,
            }),
            StreamEvent::ArtifactUpdate(update) => json!({
                "artifact": update.artifact.artifact_id,
                "text": text(&update.artifact.parts),
                "append": update.append,
                "lastChunk": update.last_chunk,
            }),
            StreamEvent::Message(message) => panic!("unexpected message {message:?}"),
        });
    }
    assert_eq!(
        Value::Array(seen),
        json!([
            {"task": "Submitted"},
            {"status": "Working", "message": null, "messageMetadata": null, "metadata": null},
            {"artifact": "answer", "text": "Hel", "append": false, "lastChunk": false},
            {"artifact": "answer", "text": "lo", "append": true, "lastChunk": false},
            {"artifact": "answer", "text": "!", "append": true, "lastChunk": true},
            // The usage is the task's: the final event carries it as its own metadata.
            {"status": "Completed", "message": "Hello!", "messageMetadata": null, "metadata":
                {"usage": {"inputTokens": 12, "outputTokens": 3, "totalTokens": 15}}},
        ])
    );
    // And the stored task has it in its metadata.
    let task_id = stream_task_id.unwrap();
    let stored = client.get_task(&task_id, None).await.unwrap();
    assert_eq!(
        stored.metadata.clone().map(Value::Object),
        Some(json!({"usage": {"inputTokens": 12, "outputTokens": 3, "totalTokens": 15}}))
    );
    assert_eq!(
        usage_of(&stored),
        stored.metadata.as_ref().unwrap().get("usage")
    );
    assert!(stored.status.message.unwrap().metadata.is_none());
    assert_eq!(
        model.seen.lock().unwrap().as_slice(),
        [vec![Turn::new(Speaker::User, "Say hello")]]
    );
    emulator.shutdown().await.unwrap();
}

#[tokio::test]
async fn model_errors_fail_the_task_with_a_message_for_the_user() {
    let model = Scripted::new([
        Script::Refuse(ModelError::Throttled(
            "ThrottlingException: Too many tokens".into(),
        )),
        Script::Refuse(ModelError::AccessDenied("AccessDeniedException: no".into())),
        // Mid-answer: the chunk already sent stays, the task fails.
        Script::Reply(vec![
            Ok(ReplyEvent::Text("Partial".into())),
            Err(ModelError::Unavailable(
                "ModelStreamErrorException: boom".into(),
            )),
        ]),
    ]);
    let emulator = Emulator::new(agent(&model)).start().await.unwrap();
    let client = Client::connect(emulator.url()).await.unwrap();

    let mut answers = Vec::new();
    for _ in 0..3 {
        let failed = task(client.send_text("Hi").await.unwrap());
        let message = failed.status.message.as_ref().unwrap().joined_text();
        answers.push((failed.status.state, message, failed.artifacts.len()));
    }
    assert_eq!(
        answers,
        [
            (
                TaskState::Failed,
                "The model is busy right now (too many requests). Please try again in a moment."
                    .to_owned(),
                0
            ),
            (
                TaskState::Failed,
                "This agent is not allowed to use its model. Please tell its operator.".to_owned(),
                0
            ),
            (
                TaskState::Failed,
                "The model is unavailable right now. Please try again in a moment.".to_owned(),
                1
            ),
        ]
    );
    emulator.shutdown().await.unwrap();
}

#[tokio::test]
async fn canceling_the_task_closes_the_model_stream() {
    let (dropped_sender, dropped) = oneshot::channel();
    let model = Scripted::new([Script::Hang(
        vec![
            ReplyEvent::Text("Once upon".into()),
            ReplyEvent::Text(" a time".into()),
        ],
        dropped_sender,
    )]);
    let emulator = Emulator::new(agent(&model)).start().await.unwrap();
    let client = Client::connect(emulator.url()).await.unwrap();

    let mut stream = client
        .stream(&text_params("Tell a long story"))
        .await
        .unwrap();
    let task_id = loop {
        match stream.next_event().await.unwrap().unwrap() {
            StreamEvent::ArtifactUpdate(update) => break update.task_id,
            _ => continue,
        }
    };
    let canceled = client.cancel_task(&task_id).await.unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled);
    // The model's stream is dropped: a real model stops generating.
    tokio::time::timeout(Duration::from_secs(10), dropped)
        .await
        .expect("the model stream was not closed within 10 s")
        .unwrap_err();
    let after = client.get_task(&task_id, None).await.unwrap();
    assert_eq!(after.status.state, TaskState::Canceled);
    emulator.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_card_says_what_is_configured_and_never_the_model_or_its_prompt() {
    let skills = r#"[{"id": "recipes", "name": "Recipes", "description": "Suggests dishes.",
                      "tags": ["cooking"], "examples": ["What can I cook with leeks?"]}]"#;
    let config = config(&[
        ("CHAT_NAME", "Chef"),
        ("CHAT_DESCRIPTION", "Talks food."),
        ("CHAT_SKILLS", skills),
    ]);
    let agent = ChatAgent::new(Scripted::new([]), &config);
    let emulator = Emulator::new(agent).start().await.unwrap();
    let card: Value = get_json(emulator.address(), "/.well-known/agent-card.json").await;
    assert_eq!(card["name"], "Chef");
    assert_eq!(card["description"], "Talks food.");
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(
        card["skills"],
        json!([{"id": "recipes", "name": "Recipes", "description": "Suggests dishes.",
                "tags": ["cooking"], "examples": ["What can I cook with leeks?"]}])
    );
    let served = card.to_string();
    for secret in [MODEL_ID, "Zorblax", "hidden prompt"] {
        assert!(
            !served.contains(secret),
            "the card shows {secret:?}: {served}"
        );
    }
    emulator.shutdown().await.unwrap();
}

/// A GET's JSON body, over a plain TCP connection (no HTTP client crate needed).
async fn get_json(address: std::net::SocketAddr, path: &str) -> Value {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    socket.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8(response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let (_, body) = response.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap()
}

#[tokio::test]
async fn a_second_message_in_the_context_replays_the_first_exchange() {
    let model = Scripted::new([]);
    let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
    let agent = agent(&model).with_history(Arc::clone(&store));
    let container = a2a_lambda_server::serve::Container::new(agent)
        .address("127.0.0.1:0".parse().unwrap())
        .task_store(store)
        .bind()
        .await
        .unwrap();
    let url = container.url().to_owned();
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        model.seen.lock().unwrap().clear();
        model.scripts.lock().unwrap().extend([
            hello_script(),
            Script::Reply(vec![Ok(ReplyEvent::Text("You said hello.".into()))]),
        ]);
        let client = Client::builder(&url)
            .version(version)
            .connect()
            .await
            .unwrap();
        let first = task(client.send_text("Say hello").await.unwrap());
        assert_eq!(first.status.state, TaskState::Completed, "{version}");
        let mut follow_up = text_params("What did you say?");
        follow_up.message.context_id = Some(first.context_id.clone());
        let second = task(client.send(&follow_up).await.unwrap());
        assert_eq!(second.context_id, first.context_id);
        assert_eq!(text(&second.artifacts[0].parts), "You said hello.");
        assert_eq!(
            model.seen.lock().unwrap()[1],
            [
                Turn::new(Speaker::User, "Say hello"),
                Turn::new(Speaker::Assistant, "Hello!"),
                Turn::new(Speaker::User, "What did you say?"),
            ],
            "{version}"
        );
    }
    container.shutdown().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_model_that_stalls_fails_the_task_after_the_idle_timeout() {
    let (dropped_sender, _dropped) = oneshot::channel();
    let model = Scripted::new([Script::Hang(
        vec![ReplyEvent::Text("Hm".into())],
        dropped_sender,
    )]);
    let config = config(&[("BEDROCK_IDLE_TIMEOUT_SECONDS", "30")]);
    let agent = ChatAgent::new(Arc::clone(&model) as Arc<dyn ChatModel>, &config);
    let started = tokio::time::Instant::now();
    let run = testing::run(&agent, RequestContext::text("Hi")).await;
    assert_eq!(started.elapsed(), Duration::from_secs(30));
    assert!(run.outcome.is_ok());
    // What was written before the stall stays, and the task fails.
    assert_eq!(run.artifact_text("answer"), "Hm");
    let Some(AgentEvent::Status { state, message, .. }) = run.events.last() else {
        panic!("no final status: {:?}", run.events);
    };
    assert_eq!(
        (*state, message.as_ref().unwrap().joined_text()),
        (
            TaskState::Failed,
            "The model is unavailable right now. Please try again in a moment.".to_owned()
        )
    );
}
