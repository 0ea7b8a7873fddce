//! The client: built from a base URL (card resolution) or a known endpoint, then one method
//! per A2A operation.

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_core::card::Binding;
use a2a_lambda_core::{Operation, ProtocolVersion, model};
use reqwest::Method;
use serde_json::Value;
use url::Url;

use crate::auth::Auth;
use crate::card::{self, Endpoint, FetchedCard};
use crate::error::Error;
use crate::protocol::{self, StreamKind};
use crate::retry::RetryPolicy;
use a2a_lambda_core::agentcore::SESSION_ID_LENGTH;

use crate::rpc::{self, Call, Outcome, Transport};
use crate::stream::{EventStream, Resume};

/// Default connect timeout.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default timeout of a non-streaming call: AgentCore's synchronous limit (15 minutes).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Default time a stream may stay silent (servers send keep-alive comments every 15 s or
/// so), and a stream's answer may take to begin.
pub const STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Configures a [`Client`].
#[derive(Debug, Clone)]
#[must_use]
pub struct ClientBuilder {
    base: String,
    version: Option<ProtocolVersion>,
    auth: Auth,
    retry: RetryPolicy,
    session: Option<String>,
    connect_timeout: Duration,
    timeout: Option<Duration>,
    stream_idle_timeout: Option<Duration>,
    http: Option<reqwest::Client>,
    binding: Option<Binding>,
}

impl ClientBuilder {
    /// Speak this version (the card must offer it, unless the endpoint is given directly);
    /// [`Client::version`] reads it back.
    pub fn version(mut self, version: ProtocolVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// Credentials for every request.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// How retryable refusals are retried.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The session id to start with (AgentCore: 33–256 characters). Without one, a new
    /// id is generated. Either way, an id the server returns replaces it.
    pub fn session_id(mut self, session: impl Into<String>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// Timeout of non-streaming calls (default [`REQUEST_TIMEOUT`]); `None` for none.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// How long a stream may stay silent, and its answer take to begin (default
    /// [`STREAM_IDLE_TIMEOUT`]); `None` for no limit.
    pub fn stream_idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }

    /// Connect timeout (default [`CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Use this HTTP client (its own timeouts and TLS settings apply).
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = Some(http);
        self
    }

    /// Speak this binding (the card must offer it in a version this client speaks; without
    /// a card, the endpoint is taken for one). By default the card decides: the binding
    /// of its first interface this client speaks, as the official SDK clients choose.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), a2a_lambda_client::Error> {
    /// use a2a_lambda_client::{Binding, Client};
    ///
    /// let client = Client::builder("http://127.0.0.1:8080/")
    ///     .binding(Binding::HttpJson)
    ///     .connect()
    ///     .await?;
    /// assert_eq!(client.binding(), Binding::HttpJson);
    /// client.send_text("hello").await?; // POST http://127.0.0.1:8080/message:send
    /// # Ok(())
    /// # }
    /// ```
    pub fn binding(mut self, binding: Binding) -> Self {
        self.binding = Some(binding);
        self
    }

    fn transport(self) -> Result<(Transport, String, Option<ProtocolVersion>), Error> {
        if let Some(session) = &self.session
            && (!SESSION_ID_LENGTH.contains(&session.len())
                || !session.bytes().all(|byte| byte.is_ascii_graphic()))
        {
            return Err(Error::Config(format!(
                "the session id must be 33 to 256 printable ASCII characters without spaces (got {} characters)",
                session.chars().count()
            )));
        }
        self.auth.validate()?;
        let http = match self.http {
            Some(http) => http,
            None => reqwest::Client::builder()
                .connect_timeout(self.connect_timeout)
                .user_agent(concat!("a2a-client/", env!("CARGO_PKG_VERSION")))
                .build()
                .map_err(|error| Error::Config(format!("building the HTTP client: {error}")))?,
        };
        let mut transport = Transport::new(http, self.auth, self.retry, self.timeout, self.session);
        transport.stream_idle = self.stream_idle_timeout;
        Ok((transport, self.base, self.version))
    }

    /// Reads the agent card under the base URL and picks the interface to use.
    ///
    /// # Errors
    /// [`Error::Config`] for bad settings; the card's errors ([`Error::Card`], an HTTP or
    /// JSON-RPC error, a transport error).
    pub async fn connect(self) -> Result<Client, Error> {
        let binding = self.binding;
        let (transport, base, version) = self.transport()?;
        let card = fetch_card(&transport, &card::card_url(&base)?).await?;
        let endpoint = card.select(version, binding)?;
        Ok(Client {
            #[cfg(feature = "grpc")]
            grpc: grpc_of(&endpoint, &transport.auth)?,
            transport: Arc::new(transport),
            endpoint,
            card: Some(card),
        })
    }

    /// A client for the base URL as a JSON-RPC endpoint (or the base of the HTTP+JSON
    /// routes, with [`ClientBuilder::binding`]), without reading a card; speaks the version
    /// set with [`ClientBuilder::version`] (default 1.0).
    ///
    /// # Errors
    /// [`Error::Config`] for bad settings (HTTP+JSON in 0.3 among them: this client speaks
    /// the binding in 1.0 only).
    pub fn build(self) -> Result<Client, Error> {
        let binding = self.binding.unwrap_or(Binding::JsonRpc);
        let (transport, base, version) = self.transport()?;
        let version = version.unwrap_or(ProtocolVersion::V1_0);
        if binding != Binding::JsonRpc && version != ProtocolVersion::V1_0 {
            return Err(Error::Config(format!(
                "{} is spoken in A2A 1.0 only (drop the 0.3 protocol or use JSON-RPC)",
                card::binding_label(binding)
            )));
        }
        let endpoint = Endpoint {
            url: card::parse_base(&base)?,
            version,
            binding,
        };
        Ok(Client {
            #[cfg(feature = "grpc")]
            grpc: grpc_of(&endpoint, &transport.auth)?,
            transport: Arc::new(transport),
            endpoint,
            card: None,
        })
    }
}

/// An A2A client bound to one agent interface and one session.
#[derive(Debug)]
pub struct Client {
    /// Shared with the streams it opens, which resubscribe through it.
    transport: Arc<Transport>,
    endpoint: Endpoint,
    card: Option<FetchedCard>,
    /// The gRPC connection, when the endpoint's binding is gRPC.
    #[cfg(feature = "grpc")]
    grpc: Option<Arc<crate::grpc::Grpc>>,
}

/// The gRPC connection an endpoint of the gRPC binding is called through.
#[cfg(feature = "grpc")]
fn grpc_of(
    endpoint: &Endpoint,
    auth: &crate::auth::Auth,
) -> Result<Option<Arc<crate::grpc::Grpc>>, Error> {
    if endpoint.binding != Binding::Grpc {
        return Ok(None);
    }
    let grpc = crate::grpc::Grpc::new(endpoint.url.as_str(), CONNECT_TIMEOUT, auth)?;
    Ok(Some(Arc::new(grpc)))
}

/// Reads and parses a card.
async fn fetch_card(transport: &Transport, url: &Url) -> Result<FetchedCard, Error> {
    let call = Call {
        method: Method::GET,
        url,
        body: None,
        version: None,
        accept: "application/json",
        id: None,
        rest: false,
        streaming: false,
        last_event_id: None,
    };
    match transport.execute(&call).await? {
        Outcome::Body(body) => FetchedCard::parse(url.clone(), &body),
        Outcome::Stream(_) => Err(Error::invalid(
            url.as_str(),
            "a stream where a card was expected",
        )),
    }
}

impl Client {
    /// Configures a client for the agent at `base` (its card is under
    /// `.well-known/agent-card.json` relative to it).
    pub fn builder(base: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base: base.into(),
            version: None,
            auth: Auth::None,
            retry: RetryPolicy::default(),
            session: None,
            connect_timeout: CONNECT_TIMEOUT,
            timeout: Some(REQUEST_TIMEOUT),
            stream_idle_timeout: Some(STREAM_IDLE_TIMEOUT),
            http: None,
            binding: None,
        }
    }

    /// Reads the card under `base` with default settings and connects.
    ///
    /// # Errors
    /// As [`ClientBuilder::connect`].
    pub async fn connect(base: impl Into<String>) -> Result<Self, Error> {
        Self::builder(base).connect().await
    }

    /// The card read when connecting (none when built with [`ClientBuilder::build`]).
    pub fn card(&self) -> Option<&FetchedCard> {
        self.card.as_ref()
    }

    /// Where requests go.
    pub fn endpoint_url(&self) -> &Url {
        &self.endpoint.url
    }

    /// The protocol version spoken.
    pub fn version(&self) -> ProtocolVersion {
        self.endpoint.version
    }

    /// The protocol binding spoken (JSON-RPC or HTTP+JSON).
    pub fn binding(&self) -> Binding {
        self.endpoint.binding
    }

    fn rest(&self) -> bool {
        self.endpoint.binding == Binding::HttpJson
    }

    /// The session id the next request carries.
    pub fn session_id(&self) -> String {
        self.transport.session_id()
    }

    /// Sends a message; the agent answers with a task or a message.
    ///
    /// # Errors
    /// A JSON-RPC error from the agent or the platform, after retries; a transport or
    /// HTTP error; an invalid response.
    pub async fn send(
        &self,
        params: &model::SendMessageParams,
    ) -> Result<model::SendResult, Error> {
        let raw = self
            .unary(
                Operation::Send,
                protocol::send_params(self.version(), params),
            )
            .await?;
        protocol::send_result(self.version(), &raw).map_err(|detail| self.invalid(detail))
    }

    /// Sends a user message of one text part (a new message id, no task, no context).
    ///
    /// # Errors
    /// As [`Client::send`].
    pub async fn send_text(&self, text: &str) -> Result<model::SendResult, Error> {
        self.send(&text_params(text)).await
    }

    /// Answers a task that waits for the client (`input-required`, `auth-required`) with a
    /// user message of one text part: the message carries the task's id and context id.
    ///
    /// ```no_run
    /// # async fn demo(client: a2a_lambda_client::Client) -> Result<(), a2a_lambda_client::Error> {
    /// use a2a_lambda_client::model::{SendResult, TaskState};
    ///
    /// if let SendResult::Task(task) = client.send_text("Greet me").await? {
    ///     if task.status.state == TaskState::InputRequired {
    ///         let answered = client.reply(&task, "Ada").await?;
    ///         # let _ = answered;
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Client::send`].
    pub async fn reply(&self, task: &model::Task, text: &str) -> Result<model::SendResult, Error> {
        self.send(&reply_params(task, text)).await
    }

    /// Sends a message and streams the agent's events.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the card says the agent cannot stream; otherwise as
    /// [`Client::send`], for the answer before the stream starts.
    pub async fn stream(&self, params: &model::SendMessageParams) -> Result<EventStream, Error> {
        self.require_streaming("stream")?;
        self.open_stream(
            StreamKind::Send,
            Operation::Stream,
            protocol::send_params(self.version(), params),
            None,
        )
        .await
    }

    /// Gets a task, with at most `history_length` messages of history.
    ///
    /// # Errors
    /// As [`Client::send`] (-32001 for an unknown task).
    pub async fn get_task(
        &self,
        id: &str,
        history_length: Option<u32>,
    ) -> Result<model::Task, Error> {
        let params = model::GetTaskParams {
            id: id.to_owned(),
            history_length,
            metadata: None,
        };
        let raw = self
            .unary(
                Operation::GetTask,
                protocol::get_params(self.version(), &params),
            )
            .await?;
        protocol::task(self.version(), &raw).map_err(|detail| self.invalid(detail))
    }

    /// Lists tasks (A2A 1.0 only).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when speaking 0.3; otherwise as [`Client::send`].
    pub async fn list_tasks(
        &self,
        params: &model::ListTasksParams,
    ) -> Result<model::ListTasksResult, Error> {
        if self.version() != ProtocolVersion::V1_0 {
            return Err(Error::Unsupported {
                operation: "list",
                reason: "A2A 0.3 has no method to list tasks (connect with protocol 1.0)"
                    .to_owned(),
            });
        }
        let raw = self
            .unary(Operation::ListTasks, protocol::list_params(params))
            .await?;
        protocol::list_result(&raw).map_err(|detail| self.invalid(detail))
    }

    /// Cancels a task; returns it as it stands after the cancel.
    ///
    /// # Errors
    /// As [`Client::send`] (-32002 for a task that already ended).
    pub async fn cancel_task(&self, id: &str) -> Result<model::Task, Error> {
        let params = task_id(id);
        let raw = self
            .unary(
                Operation::CancelTask,
                protocol::cancel_params(self.version(), &params),
            )
            .await?;
        protocol::task(self.version(), &raw).map_err(|detail| self.invalid(detail))
    }

    /// Streams a running task's events again (`tasks/resubscribe`, `SubscribeToTask`).
    ///
    /// # Errors
    /// As [`Client::stream`].
    pub async fn resubscribe(&self, id: &str) -> Result<EventStream, Error> {
        self.require_streaming("resubscribe")?;
        let params = task_id(id);
        self.open_stream(
            StreamKind::Subscription,
            Operation::Subscribe,
            protocol::subscribe_params(self.version(), &params),
            Some(id),
        )
        .await
    }

    fn require_streaming(&self, operation: &'static str) -> Result<(), Error> {
        match &self.card {
            Some(card) if !card.streaming => Err(Error::Unsupported {
                operation,
                reason: format!(
                    "the agent card of {:?} says capabilities.streaming is false",
                    card.name
                ),
            }),
            _ => Ok(()),
        }
    }

    fn method(&self, operation: Operation) -> Result<&'static str, Error> {
        protocol::method(self.version(), operation).ok_or_else(|| Error::Unsupported {
            operation: "this operation",
            reason: format!("A2A {} has no method for it", self.version().as_str()),
        })
    }

    pub(crate) fn invalid(&self, detail: String) -> Error {
        Error::invalid(self.endpoint.url.as_str(), detail)
    }

    /// Sends `operation`: a JSON-RPC request posted, or its HTTP+JSON route; returns the
    /// JSON-RPC id (0 over HTTP+JSON) and the outcome.
    async fn post(
        &self,
        operation: Operation,
        params: &Value,
        streaming: bool,
    ) -> Result<(u64, Outcome), Error> {
        if self.rest() {
            let outcome = crate::rest::exchange(
                &self.transport,
                &self.endpoint.url,
                operation,
                params,
                streaming,
                None,
            )
            .await?;
            return Ok((0, outcome));
        }
        let (id, body) = self.transport.request(self.method(operation)?, params);
        let call = Call {
            method: Method::POST,
            url: &self.endpoint.url,
            body: Some(body),
            version: Some(self.version()),
            accept: if streaming {
                "text/event-stream"
            } else {
                "application/json"
            },
            id: Some(id),
            rest: false,
            streaming,
            last_event_id: None,
        };
        Ok((id, self.transport.execute(&call).await?))
    }

    pub(crate) async fn unary(
        &self,
        operation: Operation,
        params: Value,
    ) -> Result<Box<serde_json::value::RawValue>, Error> {
        #[cfg(feature = "grpc")]
        if let Some(grpc) = &self.grpc {
            return grpc.unary(operation, &params, &self.session_id()).await;
        }
        match self.post(operation, &params, false).await? {
            (_, Outcome::Body(body)) if self.rest() => {
                crate::rest::result(self.endpoint.url.as_str(), &body)
            }
            (_, Outcome::Body(body)) => rpc::result(self.endpoint.url.as_str(), &body),
            (_, Outcome::Stream(_)) => {
                Err(self.invalid("a stream where one answer was expected".to_owned()))
            }
        }
    }

    /// Opens a stream; one cut short resubscribes once to its task (`subscribed_to`, or
    /// the task its events name).
    async fn open_stream(
        &self,
        kind: StreamKind,
        operation: Operation,
        params: Value,
        subscribed_to: Option<&str>,
    ) -> Result<EventStream, Error> {
        let url = self.endpoint.url.to_string();
        #[cfg(feature = "grpc")]
        if let Some(grpc) = &self.grpc {
            let body = grpc.stream(operation, &params, &self.session_id()).await?;
            return Ok(EventStream::from_body(
                url,
                (self.version(), kind),
                body,
                self.transport.stream_idle,
            ));
        }
        let resume = Resume::new(Arc::clone(&self.transport), self.endpoint.clone());
        match self.post(operation, &params, true).await? {
            (id, Outcome::Stream(response)) => Ok(EventStream::new(
                url,
                (self.version(), kind),
                id,
                response,
                self.transport.stream_idle,
            )
            .over(self.binding())
            .resuming(resume, subscribed_to)),
            (id, Outcome::Body(body)) => Ok(EventStream::single(
                url,
                (self.version(), kind),
                id,
                String::from_utf8_lossy(&body).into_owned(),
            )
            .over(self.binding())),
        }
    }
}

impl Client {
    /// Ends this client's session with AgentCore's StopRuntimeSession, next to the
    /// invocation URL (signed as every call is): its streams end, its container stops and
    /// its tasks are gone; the next call with the same session id starts a fresh session.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the endpoint is not an AgentCore invocation URL;
    /// [`Error::SessionNotFound`] when no session of this id is active; an HTTP, transport
    /// or signing error otherwise.
    ///
    /// ```no_run
    /// # async fn demo() -> Result<(), a2a_lambda_client::Error> {
    /// use a2a_lambda_client::Client;
    ///
    /// let url = "http://127.0.0.1:9000/runtimes/arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fmy_agent-abcdefghij/invocations/";
    /// let client = Client::builder(url).build()?;
    /// client.send_text("hello").await?;
    /// client.stop_session().await?; // the session's tasks are gone now
    /// # Ok(())
    /// # }
    /// ```
    pub async fn stop_session(&self) -> Result<(), Error> {
        crate::session_stop::stop(&self.transport, &self.endpoint.url).await
    }
}

/// Params of a send of one text part from the user, with a new message id.
pub fn text_params(text: &str) -> model::SendMessageParams {
    model::SendMessageParams {
        message: model::Message::text(model::Role::User, uuid::Uuid::new_v4().to_string(), text),
        configuration: None,
        metadata: None,
    }
}

/// Params of a send of one text part from the user continuing `task` (its task and context
/// ids set), with a new message id: to stream a reply with [`Client::stream`].
///
/// ```
/// use a2a_lambda_client::model::{Task, TaskState, TaskStatus};
///
/// let task = Task {
///     id: "t-1".into(),
///     context_id: "c-1".into(),
///     status: TaskStatus::new(TaskState::InputRequired),
///     artifacts: vec![],
///     history: vec![],
///     metadata: None,
/// };
/// let params = a2a_lambda_client::reply_params(&task, "Ada");
/// assert_eq!(params.message.task_id.as_deref(), Some("t-1"));
/// assert_eq!(params.message.context_id.as_deref(), Some("c-1"));
/// ```
pub fn reply_params(task: &model::Task, text: &str) -> model::SendMessageParams {
    let mut params = text_params(text);
    params.message.task_id = Some(task.id.clone());
    params.message.context_id = Some(task.context_id.clone());
    params
}

fn task_id(id: &str) -> model::TaskIdParams {
    model::TaskIdParams {
        id: id.to_owned(),
        metadata: None,
    }
}
