//! The protocol engine: one JSON-RPC body in, one reply out, for every method of both
//! versions.
//!
//! The engine knows nothing of HTTP: a host hands it the body and the request's
//! [`CallContext`] and writes the [`Reply`] — JSON with a status, an SSE stream of JSON
//! documents, or nothing (for a notification).

mod at_rest;
mod background;
mod cursor;
mod failure;
mod follow;
mod idless;
mod lease;
mod live;
mod media;
mod push_config;
mod registry;
mod respond;
mod subscribe;
mod topic;

use std::borrow::Cow;
use std::pin::Pin;
use std::sync::Arc;

use axum::http::StatusCode;
use futures_util::Stream;
use futures_util::TryFutureExt as _;
use futures_util::stream;
use serde_json::value::RawValue;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, RequestContext};
use crate::health::Health;
use crate::owner::Owner;
use crate::tasks::{self, SharedStored, StoreError, TaskStore};
use a2a_core::card::{self, AgentCard, CardError};
use a2a_core::error::{Error, ErrorProfile, Refusal};
use a2a_core::jsonrpc::{self, Id};
use a2a_core::model::{
    Message, Role, SendMessageParams, SendResult, StreamEvent, StreamKind, Task, TaskState,
    TaskStatus,
};
use a2a_core::version::{self, Operation, ProtocolVersion};
use a2a_core::wire::{v0_3, v1_0};

use cursor::{Cursor, Sequenced};
use failure::Failure;
use follow::Source;
use live::{LiveTask, RunnerDeps, Settled, Started};
use registry::Registry;
pub use respond::Frame;

/// A stream of JSON documents, each one JSON-RPC response: the body of an SSE reply.
pub type EventStream = Pin<Box<dyn Stream<Item = StreamItem> + Send + 'static>>;

/// One event of a stream: a JSON-RPC response (or the HTTP+JSON binding's bare event), and
/// the SSE id that names its place in the
/// task's history (`{taskId}:{version}` or `{taskId}:{version}.{n}`), which a client sends
/// back as `Last-Event-ID` to resume the stream after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamItem {
    /// The SSE `id:`, when the event has a place to resume from.
    pub id: Option<String>,
    /// The JSON-RPC response (on the HTTP+JSON binding: the `StreamResponse`, or the
    /// `google.rpc.Status` of an error).
    pub json: Vec<u8>,
    /// The event reports an error that ends the stream (the HTTP+JSON binding sends it as
    /// SSE `event: error`).
    pub error: bool,
}

impl AsRef<[u8]> for StreamItem {
    fn as_ref(&self) -> &[u8] {
        &self.json
    }
}

impl std::ops::Deref for StreamItem {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.json
    }
}

/// What the host sends back.
pub enum Reply {
    /// A JSON-RPC response with its HTTP status.
    Json {
        /// HTTP status (200 under the spec profile).
        status: StatusCode,
        /// The JSON-RPC response.
        body: Vec<u8>,
    },
    /// A stream of JSON-RPC responses, for SSE.
    Stream(EventStream),
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Json { status, body } => f
                .debug_struct("Json")
                .field("status", status)
                .field("body", &String::from_utf8_lossy(body))
                .finish(),
            Self::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// What the host knows about one request.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// The `A2A-Version` header, if sent.
    pub version_header: Option<String>,
    /// The raw query string, if any.
    pub query: Option<String>,
    /// The platform session id, if any.
    pub session_id: Option<String>,
    /// The host's id for this request.
    pub request_id: String,
    /// Who is calling, as the platform vouches for it: the only tasks it may see.
    pub owner: Owner,
    /// The SSE `Last-Event-ID` header, if sent: a subscription resumes after that event.
    pub last_event_id: Option<String>,
    /// What the platform passed with the request, if anything (shared: a message's agent
    /// gets a copy).
    pub platform: Option<Arc<crate::platform::Platform>>,
}

/// How a host configures the engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The URL the card advertises.
    pub public_url: String,
    /// How refusals are reported.
    pub error_profile: ErrorProfile,
    /// The host can stream responses; if not, the card says `streaming: false`.
    pub host_can_stream: bool,
    /// How the host authenticates callers, when it decides (the card publishes it);
    /// `None` keeps the agent card's.
    pub security: Option<a2a_core::card::SecurityMechanism>,
    /// A non-blocking send (`returnImmediately`, v0.3 `blocking: false`) answers at once
    /// and leaves its agent running. `false` for a host that would stop that work once it
    /// answers (an AWS Lambda environment without its extension): such a send is then
    /// served as a blocking one.
    pub background_work: bool,
}

/// The engine: an agent, a task store and the protocol between them.
pub struct Engine {
    deps: RunnerDeps,
    card: AgentCard,
    public_url: String,
    profile: ErrorProfile,
    background_work: bool,
    instance_id: Arc<str>,
}

impl Engine {
    /// An engine for `agent`, storing tasks in `store`.
    ///
    /// # Errors
    /// The agent's card or the public URL is invalid.
    pub fn new(
        agent: Arc<dyn Agent>,
        store: Arc<dyn TaskStore>,
        config: EngineConfig,
    ) -> Result<Self, CardError> {
        let mut card = agent.card();
        card.capabilities.streaming &= config.host_can_stream;
        if let Some(security) = config.security {
            card.security = security;
        }
        // Extended cards are not served by this engine, and push notifications only once
        // the host says how to deliver them (`with_push`): never advertise them before,
        // whatever the agent says.
        card.capabilities.push_notifications = false;
        card.capabilities.extended_card = false;
        // The host decides the bindings (`with_bindings`).
        card.bindings = a2a_core::card::Bindings::default();
        card.validate()?;
        card::validate_url("url", &config.public_url)?;
        let instance_id: Arc<str> = Arc::from(a2a_core::model::new_id());
        Ok(Self {
            deps: RunnerDeps {
                agent,
                store: Arc::clone(&store),
                registry: Arc::new(Registry::default()),
                health: Arc::new(Health::new()),
                leasing: store.lease_terms().map(|terms| {
                    Arc::new(lease::Leasing {
                        holder: Arc::clone(&instance_id),
                        terms,
                    })
                }),
                push: None,
            },
            instance_id,
            card,
            public_url: config.public_url,
            profile: config.error_profile,
            background_work: config.background_work,
        })
    }

    /// Delivers push notifications with `push`: the push configuration methods of both
    /// versions are served, a send may carry a configuration, and the card says
    /// `pushNotifications: true`. Without it they answer -32003.
    #[must_use]
    pub fn with_push(mut self, push: crate::push::Push) -> Self {
        self.card.capabilities.push_notifications = true;
        self.deps.push = Some(push);
        self
    }

    /// Serves `bindings` (the card lists one interface per binding, preferred first; the
    /// router serves each). JSON-RPC only unless told.
    #[must_use]
    pub fn with_bindings(mut self, bindings: a2a_core::card::Bindings) -> Self {
        self.card.bindings = bindings;
        self
    }

    /// The push notifications this engine delivers, if it does.
    pub fn push(&self) -> Option<&crate::push::Push> {
        self.deps.push.as_ref()
    }

    /// The card configuration, with capabilities lowered to what the host honours.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// The URL the card advertises.
    pub fn public_url(&self) -> &str {
        &self.public_url
    }

    /// The `/ping` status.
    pub fn health(&self) -> &Health {
        &self.deps.health
    }

    /// How refusals are reported.
    pub fn error_profile(&self) -> ErrorProfile {
        self.profile
    }

    /// This engine's random id: the holder of the leases of the tasks it runs, on a store
    /// shared with other processes. Not secret; hosts log it at start.
    pub fn instance_id(&self) -> &str {
        &self.instance_id
    }

    /// How many tasks are running now.
    pub fn running_tasks(&self) -> usize {
        self.deps.registry.len()
    }

    /// The reply for an error that happened outside a method (bad content type, say).
    pub fn refuse(&self, id: Id, error: &Error) -> Reply {
        self.refuse_framed(&Frame::Rpc(id), error)
    }

    fn refuse_framed(&self, frame: &Frame, error: &Error) -> Reply {
        let (status, body) = respond::error_body(frame, error, self.profile);
        Reply::Json { status, body }
    }

    /// Serves one operation of A2A v1.0 for the HTTP+JSON binding: `params` is the v1.0
    /// request object the JSON-RPC binding would carry as `params` (the binding's front
    /// builds it from the path, the query and the body). The reply's JSON is the bare
    /// result, a stream's events the bare `StreamResponse`s, and a refusal a
    /// `google.rpc.Status` with the HTTP+JSON binding's status.
    ///
    /// The same task store, owner rules and agent as [`Engine::handle`].
    pub async fn handle_operation(
        &self,
        operation: Operation,
        params: Option<&RawValue>,
        call: &CallContext,
    ) -> Reply {
        let method = version::METHODS
            .iter()
            .find(|(_, version, candidate)| {
                *version == ProtocolVersion::V1_0 && *candidate == operation
            })
            .map_or("", |(name, _, _)| *name);
        let started = std::time::Instant::now();
        let outcome = self
            .operate(
                ProtocolVersion::V1_0,
                operation,
                method,
                params,
                &Frame::Bare,
                call,
            )
            .await;
        let status = match &outcome {
            Ok(_) => StatusCode::OK,
            Err(error) => a2a_core::rest::status::row(error.refusal()).http_status,
        };
        tracing::info!(
            request_id = call.request_id,
            session_id = call.session_id.as_deref().unwrap_or(""),
            method,
            binding = "http+json",
            outcome = if outcome.is_ok() {
                "ok".to_owned()
            } else {
                status.as_u16().to_string()
            },
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "rest"
        );
        outcome.unwrap_or_else(|error| {
            if error.refusal() == Refusal::Internal {
                tracing::error!(request_id = call.request_id, %error, "request failed");
            }
            self.refuse_framed(&Frame::Bare, &error)
        })
    }

    /// Handles one JSON-RPC request body.
    pub async fn handle(&self, body: &[u8], call: &CallContext) -> Reply {
        let request = match jsonrpc::parse_request(body) {
            Ok(request) => request,
            Err(rejection) => return self.refuse(rejection.id, &rejection.error),
        };
        let frame = Frame::Rpc(request.response_id());
        let started = std::time::Instant::now();
        let outcome = self.dispatch(&request, &frame, call).await;
        let code = outcome
            .as_ref()
            .err()
            .map(|failure| failure.error.to_wire(self.profile).1.code);
        tracing::info!(
            request_id = call.request_id,
            session_id = call.session_id.as_deref().unwrap_or(""),
            method = request.method,
            version = call.version_header.as_deref().unwrap_or("0.3"),
            outcome = code.map_or_else(|| "ok".to_owned(), |code| code.to_string()),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "rpc"
        );
        match outcome {
            Ok(reply) => reply,
            Err(Failure { error, in_stream }) => {
                if error.refusal() == Refusal::Internal {
                    tracing::error!(request_id = call.request_id, %error, "request failed");
                }
                if in_stream {
                    self.error_stream(&frame, &error)
                } else {
                    self.refuse_framed(&frame, &error)
                }
            }
        }
    }

    async fn dispatch(
        &self,
        request: &jsonrpc::Request<'_>,
        frame: &Frame,
        call: &CallContext,
    ) -> Result<Reply, Failure> {
        let requested = version::negotiate(call.version_header.as_deref(), call.query.as_deref())?;
        let (version, operation) = version::resolve_method(&request.method, requested)?;
        if request.id.is_none() {
            self.precheck(version, operation, &request.method, request.params)?;
            return Err(idless::refusal(&request.method).into());
        }
        let in_stream = failure::in_stream(self.profile, version, operation);
        if in_stream {
            // The envelope's refusals come before the stream opens.
            self.precheck(version, operation, &request.method, request.params)?;
        }
        self.operate(
            version,
            operation,
            &request.method,
            request.params,
            frame,
            call,
        )
        .await
        .map_err(|error| Failure { error, in_stream })
    }

    /// Serves one operation in `version`, its reply framed by `frame`.
    async fn operate(
        &self,
        version: ProtocolVersion,
        operation: Operation,
        method: &str,
        params: Option<&RawValue>,
        frame: &Frame,
        call: &CallContext,
    ) -> Result<Reply, Error> {
        let id = frame;
        let json = |body: Vec<u8>| Reply::Json {
            status: StatusCode::OK,
            body,
        };
        match operation {
            Operation::Send => {
                let params = parse_send(version, params)?;
                self.send(version, id, params, call).await.map(json)
            }
            Operation::Stream => {
                self.require_streaming(method)?;
                let params = parse_send(version, params)?;
                // Boxed, as cancel below: the largest futures of the rarer methods would
                // otherwise size every request's future (a send's included).
                Box::pin(self.stream(version, id, params, call)).await
            }
            Operation::GetTask => {
                let params = match version {
                    ProtocolVersion::V0_3 => v0_3::parse_get_task_params(params)?,
                    ProtocolVersion::V1_0 => v1_0::parse_get_task_params(params)?,
                };
                let task = self.load(&params.id, &call.owner).await?;
                let task = trimmed(&task, params.history_length);
                Ok(json(respond::task(version, id, &task)))
            }
            Operation::ListTasks => {
                // Every ListTasks field is optional, so params may be left out.
                let params = match params {
                    None => a2a_core::model::ListTasksParams::default(),
                    Some(_) => v1_0::parse_list_tasks_params(params)?,
                };
                let page =
                    self.deps.store.list(&params, &call.owner).await.map_err(
                        |error| match error {
                            StoreError::BadPageToken(token) => Error::invalid_params(format!(
                                "params.pageToken: {token:?} is not a token this agent issued"
                            )),
                            other => internal(&other),
                        },
                    )?;
                Ok(json(respond::list(id, &page)))
            }
            Operation::CancelTask => {
                let params = parse_task_id(version, params)?;
                let task = Box::pin(self.cancel(&params.id, call)).await?;
                Ok(json(respond::task(version, id, &task)))
            }
            Operation::Subscribe => {
                self.require_streaming(method)?;
                let params = parse_task_id(version, params)?;
                self.subscribe(version, id, &params.id, call).await
            }
            Operation::GetExtendedCard => Err(no_extended_card(method)),
            Operation::SetPushConfig
            | Operation::GetPushConfig
            | Operation::ListPushConfigs
            | Operation::DeletePushConfig => {
                Box::pin(self.push_config(version, operation, method, params, id, call)).await
            }
            _ => Err(not_served(method)),
        }
    }

    fn require_streaming(&self, method: &str) -> Result<(), Error> {
        if self.card.capabilities.streaming {
            Ok(())
        } else {
            Err(Error::new(
                Refusal::UnsupportedOperation,
                format!("{method}: this agent does not stream (capabilities.streaming is false)"),
            ))
        }
    }

    async fn load(&self, task_id: &str, owner: &Owner) -> Result<Arc<Task>, Error> {
        self.load_stored(task_id, owner)
            .await
            .map(|stored| stored.task)
    }

    /// The stored task, when it is `owner`'s: another owner's task is not found, as one
    /// that does not exist. A task at work whose runner's lease expired (its process is
    /// gone) is failed first ([`lease`]).
    async fn load_stored(&self, task_id: &str, owner: &Owner) -> Result<SharedStored, Error> {
        let stored = lease::load(&self.deps, task_id, owner)
            .await
            .map_err(|error| internal(&error))?
            .ok_or_else(|| task_not_found(task_id))?;
        if let Some(push) = &self.deps.push
            && self.deps.store.is_shared()
            && self.deps.registry.get(task_id).is_none()
        {
            push.touch(&stored);
        }
        Ok(stored)
    }

    /// Checks the message and prepares the start (or continuation) of its task: what the
    /// agent will be told, and the stored task it continues.
    ///
    /// The checks that need no waiting run before the future is made.
    fn prepare<'a>(
        &'a self,
        message: Message,
        call: &'a CallContext,
    ) -> impl Future<Output = Result<(RequestContext, Option<SharedStored>), Error>> + Send + 'a
    {
        let checked = self.check_message(&message);
        async move {
            checked?;
            let previous = match &message.task_id {
                None => None,
                // Boxed: only continuations wait here, and a new task's future stays small.
                Some(task_id) => {
                    Some(Box::pin(self.continuable(task_id, &message, &call.owner)).await?)
                }
            };
            let task_id = previous
                .as_ref()
                .map_or_else(a2a_core::model::new_id, |stored| stored.task.id.clone());
            let context_id = previous
                .as_ref()
                .map(|stored| stored.task.context_id.clone())
                .or_else(|| message.context_id.clone())
                .unwrap_or_else(a2a_core::model::new_id);
            let context = RequestContext {
                message,
                task_id,
                context_id,
                previous: previous.as_ref().map(|stored| Arc::clone(&stored.task)),
                session_id: call.session_id.clone(),
                request_id: call.request_id.clone(),
                owner: call.owner.clone(),
                cancellation: CancellationToken::new(),
                platform: call.platform.as_deref().cloned().unwrap_or_default(),
            };
            Ok((context, previous))
        }
    }

    /// A client's message must have the user role and parts the agent accepts.
    fn check_message(&self, message: &Message) -> Result<(), Error> {
        if message.role != Role::User {
            return Err(Error::invalid_params(
                "params.message.role: a client's message must have the user role",
            ));
        }
        media::check(&self.card, message)
    }

    /// The task a follow-up message continues, if the rules allow it.
    ///
    /// A task whose agent is still running but that already reached an interrupted state
    /// (the agent asked for input and is returning) is continued from its live state.
    async fn continuable(
        &self,
        task_id: &str,
        message: &Message,
        owner: &Owner,
    ) -> Result<SharedStored, Error> {
        let stored = match self.deps.registry.get(task_id) {
            Some(live) => {
                let stored = live.state.lock().await.clone();
                if stored.owner != *owner {
                    return Err(task_not_found(task_id));
                }
                if !stored.task.status.state.ends_stream() {
                    return Err(Error::new(
                        Refusal::UnsupportedOperation,
                        format!(
                            "task {task_id} is still working; wait for it to finish or cancel it"
                        ),
                    )
                    .with_metadata("taskId", task_id));
                }
                stored
            }
            None => self.load_stored(task_id, owner).await?,
        };
        let task = &stored.task;
        if let Some(context_id) = &message.context_id
            && *context_id != task.context_id
        {
            return Err(Error::invalid_params(format!(
                "params.message.contextId: {context_id:?} does not match the context \
                 {:?} of task {task_id}",
                task.context_id
            )));
        }
        if task.status.state.is_terminal() {
            return Err(Error::new(
                Refusal::UnsupportedOperation,
                format!(
                    "task {task_id} is {} and takes no more messages; start a new task",
                    task.status.state.v0_3_name()
                ),
            )
            .with_metadata("taskId", task_id));
        }
        Ok(stored)
    }

    /// A blocking or non-blocking send: the task as the client asked to see it.
    ///
    /// The parameters are taken apart before the future is made, so that it holds only
    /// what it waits with (an `async fn` would hold the parameters twice over).
    fn send<'a>(
        &'a self,
        version: ProtocolVersion,
        id: &'a Frame,
        params: SendMessageParams,
        call: &'a CallContext,
    ) -> impl Future<Output = Result<Vec<u8>, Error>> + Send + 'a {
        let configuration = params.configuration.unwrap_or_default();
        let return_immediately = configuration.return_immediately && self.background_work;
        let history_length = configuration.history_length;
        let push = configuration.push_notification_config;
        // Chained rather than awaited inside one block, which would keep the preparation's
        // future twice (captured, and moved to be awaited).
        self.prepare(params.message, call)
            .and_then(move |prepared| self.attach_push(version, push, prepared))
            .and_then(move |(context, previous)| {
                let started = live::start(self.deps.clone(), context, previous, return_immediately);
                async move {
                    // Taken apart before waiting again, so the start's outcome is not kept.
                    let (live, initial, settled) = match started.await {
                        Started::Failed(error) => return Err(error),
                        Started::Message(message) => {
                            let result = SendResult::Message(message);
                            return Ok(respond::send_result(version, id, &result));
                        }
                        Started::Task {
                            live,
                            initial,
                            settled,
                            ..
                        } => (live, initial, settled),
                    };
                    let task = if return_immediately {
                        initial
                    } else {
                        wait_for_rest(&live, settled).await?
                    };
                    let task = trimmed(&task, history_length);
                    Ok(respond::send_task(version, id, &task))
                }
            })
    }

    async fn stream(
        &self,
        version: ProtocolVersion,
        id: &Frame,
        params: SendMessageParams,
        call: &CallContext,
    ) -> Result<Reply, Error> {
        let push = params
            .configuration
            .and_then(|configuration| configuration.push_notification_config);
        let prepared = self.prepare(params.message, call).await?;
        let (context, previous) = self.attach_push(version, push, prepared).await?;
        // Follow the task before it can change.
        let updates = self.deps.registry.follow(&context.task_id);
        let started = live::start(self.deps.clone(), context, previous, true).await;
        match started {
            Started::Failed(error) => Err(error),
            Started::Message(message) => {
                let json = respond::stream_event(version, id, &StreamEvent::Message(message));
                Ok(Reply::Stream(Box::pin(stream::iter([StreamItem {
                    id: None,
                    json,
                    error: false,
                }]))))
            }
            Started::Task {
                initial, opened_at, ..
            } => {
                let opening = Sequenced {
                    event: StreamEvent::Task(Arc::unwrap_or_clone(initial)),
                    at: Some(Cursor::at(opened_at, 0)),
                };
                Ok(self.event_stream(
                    version,
                    id.clone(),
                    vec![opening],
                    Source::Local(updates),
                    StreamKind::Send,
                ))
            }
        }
    }

    /// Cancels a task: through its runner when it runs here, else by a conditional write
    /// (retried when another writer, perhaps another instance, changed it meanwhile),
    /// which the task's followers are told of ([`at_rest::end`]).
    async fn cancel(&self, task_id: &str, call: &CallContext) -> Result<Arc<Task>, Error> {
        for _ in 0..3 {
            // Looked up on every try: the writer that won may be a runner started here.
            if let Some(live) = self.deps.registry.get(task_id) {
                if live.state.lock().await.owner != call.owner {
                    return Err(task_not_found(task_id));
                }
                return live::cancel_live(&self.deps, &live, &call.request_id).await;
            }
            let SharedStored {
                task,
                version,
                owner,
            } = self.load_stored(task_id, &call.owner).await?;
            if task.status.state.is_terminal() {
                return Err(live::not_cancelable(&task));
            }
            let mut task = Task::clone(&task);
            task.status = TaskStatus {
                state: TaskState::Canceled,
                message: None,
                timestamp: Some(tasks::now_rfc3339()),
            };
            let task = Arc::new(task);
            match at_rest::end(&self.deps, &task, &owner, version).await {
                Ok(_) => return Ok(task),
                Err(StoreError::Conflict(_)) => continue,
                Err(error) => return Err(internal(&error)),
            }
        }
        Err(Error::new(
            Refusal::Internal,
            format!("task {task_id} kept changing; cancel it again"),
        ))
    }
}

/// Waits until the task ends or is interrupted; an agent failure is -32603.
async fn wait_for_rest(
    live: &LiveTask,
    mut settled: watch::Receiver<Settled>,
) -> Result<Arc<Task>, Error> {
    let outcome = settled
        .wait_for(|settled| *settled != Settled::Running)
        .await
        .map(|settled| settled.clone());
    match outcome {
        Ok(Settled::Failed(error)) => Err(error),
        // Ended, or the runner is gone (it settles before it goes): the task as it is.
        _ => Ok(Arc::clone(&live.state.lock().await.task)),
    }
}

/// The task as a client asked to see it: its last `history_length` messages (`None`: all);
/// a copy only when some are left out.
fn trimmed(task: &Task, history_length: Option<u32>) -> Cow<'_, Task> {
    match history_length {
        Some(keep) if task.history.len() > keep as usize => {
            Cow::Owned(tasks::view(task, history_length, true))
        }
        _ => Cow::Borrowed(task),
    }
}

fn parse_send(
    version: ProtocolVersion,
    params: Option<&RawValue>,
) -> Result<SendMessageParams, Error> {
    match version {
        ProtocolVersion::V0_3 => v0_3::parse_send_params(params),
        ProtocolVersion::V1_0 => v1_0::parse_send_params(params),
    }
}

fn parse_task_id(
    version: ProtocolVersion,
    params: Option<&RawValue>,
) -> Result<a2a_core::model::TaskIdParams, Error> {
    match version {
        ProtocolVersion::V0_3 => v0_3::parse_task_id_params(params),
        ProtocolVersion::V1_0 => v1_0::parse_task_id_params(params),
    }
}

fn no_extended_card(method: &str) -> Error {
    Error::new(
        Refusal::UnsupportedOperation,
        format!(
            "{method}: this agent has no extended card (capabilities.extendedAgentCard is false)"
        ),
    )
}

fn not_served(method: &str) -> Error {
    Error::new(
        Refusal::UnsupportedOperation,
        format!("{method}: this agent does not serve this method"),
    )
}

fn task_not_found(task_id: &str) -> Error {
    Error::new(
        Refusal::TaskNotFound,
        format!("no task with id {task_id:?}"),
    )
    .with_metadata("taskId", task_id)
}

fn internal(error: &StoreError) -> Error {
    tracing::error!(%error, "task store failed");
    Error::new(
        Refusal::Internal,
        "the task store is unavailable; retry later",
    )
}
