//! The [`Agent`] trait: what a user implements to put an agent on A2A.
//!
//! An agent receives a [`RequestContext`] (the message, the task and context ids, the
//! session and request ids, what the platform passed, and a cancellation signal) and
//! reports through an [`EventSink`] as it works: either one direct [`Message`] reply, or
//! task status and artifact updates. The engine turns those events into tasks, stored and
//! streamed in whichever protocol version the client speaks; an agent never sees the
//! protocol.
//!
//! ```
//! use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext};
//! use a2a_lambda_server::card::{AgentCard, Skill};
//! use a2a_lambda_server::model::Artifact;
//!
//! struct Shout;
//!
//! impl Agent for Shout {
//!     fn card(&self) -> AgentCard {
//!         AgentCard::new("Shout", "Answers in capitals.", "1.0.0")
//!             .with_skill(Skill::new("shout", "Shout", "Upper-cases the input.", ["text"]))
//!     }
//!
//!     async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
//!         let text = context.message.joined_text().to_uppercase();
//!         events.artifact(Artifact::text("answer", text)).await?;
//!         events.complete().await?;
//!         Ok(())
//!     }
//! }
//! ```

mod artifact;
mod context;
mod sink;

use std::pin::Pin;
use std::sync::Arc;

use a2a_lambda_core::card::AgentCard;
#[cfg(doc)]
use a2a_lambda_core::model::Message;

pub use artifact::ArtifactWriter;
pub use context::RequestContext;
pub use sink::{AgentEvent, EventReceiver, EventSink, SinkClosed, StatusNote};

/// What an agent returns when it fails. The detail is logged, never sent to the caller.
pub type AgentError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An A2A agent. Implement this; the hosts do the protocol.
///
/// `execute` is a plain `async fn` in your impl (no macro); its future must be `Send`,
/// as a host runs it on a multi-threaded runtime.
pub trait Agent: Send + Sync + 'static {
    /// The agent's card configuration. Hosts render it for the client's version and may
    /// lower capabilities they cannot honour.
    fn card(&self) -> AgentCard;

    /// Serves one message. Report through `events`; return when done.
    ///
    /// Returning `Ok` without a final state completes the task. An `Err` fails it: the
    /// error is logged with the request id and the caller sees a generic message. When
    /// the client cancels the task, [`RequestContext::cancellation`] fires: return soon
    /// after (the engine ignores what the agent sends once the task is canceled).
    fn execute(
        &self,
        context: RequestContext,
        events: EventSink,
    ) -> impl Future<Output = Result<(), AgentError>> + Send;
}

/// An agent shared behind an `Arc` is an agent.
impl<A: Agent> Agent for Arc<A> {
    fn card(&self) -> AgentCard {
        A::card(self)
    }

    fn execute(
        &self,
        context: RequestContext,
        events: EventSink,
    ) -> impl Future<Output = Result<(), AgentError>> + Send {
        A::execute(self, context, events)
    }
}

/// The future of one execution, its type erased.
type Execution<'a> = Pin<Box<dyn Future<Output = Result<(), AgentError>> + Send + 'a>>;

/// [`Agent`] as a trait object: what [`SharedAgent`] holds.
trait ErasedAgent: Send + Sync + 'static {
    fn card(&self) -> AgentCard;
    fn execute(&self, context: RequestContext, events: EventSink) -> Execution<'_>;
}

impl<A: Agent> ErasedAgent for A {
    fn card(&self) -> AgentCard {
        Agent::card(self)
    }

    fn execute(&self, context: RequestContext, events: EventSink) -> Execution<'_> {
        Box::pin(Agent::execute(self, context, events))
    }
}

/// Any [`Agent`], shared and with its type erased: what hosts hold, and what a factory
/// that picks an agent at run time returns. Cheap to clone.
///
/// ```
/// use a2a_lambda_server::SharedAgent;
/// use a2a_lambda_server::agents::EchoAgent;
///
/// let agent = SharedAgent::new(EchoAgent);
/// assert_eq!(agent.card().name, "Echo Agent");
/// ```
#[derive(Clone)]
pub struct SharedAgent(Arc<dyn ErasedAgent>);

impl SharedAgent {
    /// Shares `agent`.
    pub fn new(agent: impl Agent) -> Self {
        Self(Arc::new(agent))
    }

    /// The agent's card configuration.
    pub fn card(&self) -> AgentCard {
        self.0.card()
    }

    /// Runs the agent on one message (its future boxed).
    pub fn execute(
        &self,
        context: RequestContext,
        events: EventSink,
    ) -> impl Future<Output = Result<(), AgentError>> + Send + '_ {
        self.0.execute(context, events)
    }
}

impl std::fmt::Debug for SharedAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedAgent")
            .field(&self.card().name)
            .finish()
    }
}

/// What a host takes as its agent: any [`Agent`], or a [`SharedAgent`].
pub trait IntoAgent {
    /// The agent, shared.
    fn into_agent(self) -> SharedAgent;
}

impl<A: Agent> IntoAgent for A {
    fn into_agent(self) -> SharedAgent {
        SharedAgent::new(self)
    }
}

impl IntoAgent for SharedAgent {
    fn into_agent(self) -> SharedAgent {
        self
    }
}
