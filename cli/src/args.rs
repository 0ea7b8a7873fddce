//! The command line.

use clap::{Args, Parser, Subcommand, ValueEnum};

mod push;
pub use push::{PushCommand, WebhookCommand};

/// Call an A2A agent (A2A 0.3 or 1.0 over JSON-RPC, 1.0 over HTTP+JSON): read its card, send it messages, stream
/// its answers, get, list and cancel its tasks and their push-notification configs, and
/// receive push notifications (`a2a webhook listen`). Knows AWS Bedrock AgentCore Runtime:
/// the session header, SigV4, and retries of its throttling and busy-session refusals.
///
/// URL is the agent's base URL; its card is read from `.well-known/agent-card.json` under
/// it (an AgentCore invocation URL `…/runtimes/{ARN}/invocations/` works as it is, the ARN
/// escaped or not). The binding is the card's first one this client speaks (JSON-RPC or
/// HTTP+JSON, or gRPC), unless --binding says which.
///
/// Exit codes: 0 success; 1 the agent or platform answered with an error (JSON-RPC, or an
/// HTTP+JSON google.rpc.Status), or cannot do what was asked; 2 bad usage or
/// configuration; 3 no usable answer (cannot connect, an HTTP error without a JSON-RPC or
/// google.rpc.Status body, an invalid response or card, a stream
/// cut short, signing failed); 4 throttled or session busy, after every retry; 5 the task
/// ended failed, rejected or canceled (`send`, `resubscribe`).
#[derive(Debug, Parser)]
#[command(name = "a2a", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: Global,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the agent's card (and the interface this client would use).
    Card {
        /// The agent's base URL.
        url: String,
    },
    /// Send a text message; print the agent's answer (streamed as it arrives with --stream).
    Send {
        /// The agent's base URL.
        url: String,
        /// The message text.
        text: String,
        /// Stream the answer (message/stream, SendStreamingMessage).
        #[arg(long)]
        stream: bool,
        /// Continue this task (a follow-up message).
        #[arg(long, value_name = "TASK_ID")]
        task: Option<String>,
        /// Send in this context.
        #[arg(long, value_name = "CONTEXT_ID")]
        context: Option<String>,
        /// The message's id (default: a new UUID). Sending the same id again lets an agent
        /// recognise a repeated message.
        #[arg(long, value_name = "ID")]
        message_id: Option<String>,
        /// Return as soon as the task exists instead of waiting for it to finish.
        #[arg(long, conflicts_with = "stream")]
        no_wait: bool,
        /// Ask the agent to push the task's updates to this webhook.
        #[arg(long, value_name = "WEBHOOK_URL")]
        push_url: Option<String>,
        /// The token the agent sends back in X-A2A-Notification-Token (with --push-url).
        #[arg(long, value_name = "TOKEN", requires = "push_url")]
        push_token: Option<String>,
    },
    /// Get a task.
    Get {
        /// The agent's base URL.
        url: String,
        /// The task id.
        task: String,
        /// At most this many messages of history.
        #[arg(long, value_name = "N")]
        history: Option<u32>,
    },
    /// List tasks (A2A 1.0).
    List {
        /// The agent's base URL.
        url: String,
        /// Only tasks in this context.
        #[arg(long, value_name = "CONTEXT_ID")]
        context: Option<String>,
        /// Tasks per page (1-100).
        #[arg(long, value_name = "N")]
        page_size: Option<u32>,
        /// The page to read (from a previous listing's next page token).
        #[arg(long, value_name = "TOKEN")]
        page_token: Option<String>,
    },
    /// Cancel a task.
    Cancel {
        /// The agent's base URL.
        url: String,
        /// The task id.
        task: String,
    },
    /// Stream a running task's events again.
    Resubscribe {
        /// The agent's base URL.
        url: String,
        /// The task id.
        task: String,
    },
    /// End the session (--session, or the URL's usual one) with AgentCore's
    /// StopRuntimeSession: its streams end, its container stops and its tasks are gone; the
    /// next call starts a fresh session. URL is the runtime's invocation URL.
    StopSession {
        /// The AgentCore invocation URL (`…/runtimes/{ARN}/invocations/`).
        url: String,
    },
    /// A task's push-notification configs: create, get, list, delete.
    Push {
        #[command(subcommand)]
        command: PushCommand,
    },
    /// A local receiver for push notifications.
    Webhook {
        #[command(subcommand)]
        command: WebhookCommand,
    },
    /// Write a new agent crate in ./NAME/, ready to test and deploy.
    ///
    /// The crate has the agent (src/lib.rs), one main that serves it on AWS Lambda or as an
    /// AgentCore container, its tests (alone, on the Lambda host, behind the AgentCore
    /// emulator), and what deploys it (template.yaml for SAM, deploy-lambda.sh for cargo
    /// lambda, a Dockerfile for AgentCore). It depends on the published a2a-lambda crates of
    /// this CLI's version, or on a local checkout's with --crates-path. Refuses a NAME that
    /// is not a valid package name and Rust identifier, and a folder that already exists.
    New(NewArgs),
}

/// `a2a new`'s arguments.
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The crate's name: lowercase ASCII letters, digits, `-` and `_`, starting with a
    /// letter, at most 48 characters; also the folder, the binary and the Lambda function.
    pub name: String,
    /// Depend on the a2a-lambda crates of a local checkout of the a2a-lambda repository
    /// (path dependencies) instead of their published versions.
    #[arg(long, value_name = "DIR")]
    pub crates_path: Option<std::path::PathBuf>,
}

/// Protocol versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Protocol {
    /// A2A 0.3 (`message/send`, kind-tagged JSON).
    #[value(name = "0.3")]
    V0_3,
    /// A2A 1.0 (`SendMessage`, ProtoJSON).
    #[value(name = "1.0")]
    V1_0,
}

/// Protocol bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BindingArg {
    /// JSON-RPC 2.0 (A2A 0.3 and 1.0).
    #[value(name = "jsonrpc")]
    JsonRpc,
    /// HTTP+JSON, the REST binding (A2A 1.0).
    #[value(name = "http+json")]
    HttpJson,
    /// gRPC (A2A 1.0): the interface the card lists as GRPC; with --no-card, URL is the
    /// gRPC server's (`http://host:50051`).
    #[cfg(feature = "grpc")]
    #[value(name = "grpc")]
    Grpc,
}

impl From<BindingArg> for a2a_lambda_client::Binding {
    fn from(binding: BindingArg) -> Self {
        match binding {
            BindingArg::JsonRpc => Self::JsonRpc,
            BindingArg::HttpJson => Self::HttpJson,
            #[cfg(feature = "grpc")]
            BindingArg::Grpc => Self::Grpc,
        }
    }
}

#[derive(Debug, Args)]
pub struct Global {
    /// Speak this version (default: 1.0 if the card offers it, else 0.3).
    #[arg(long, global = true, value_enum)]
    pub protocol: Option<Protocol>,

    /// Post JSON-RPC to URL itself without reading a card (speaks --protocol, default 1.0;
    /// with --binding http+json, URL is the base of the HTTP+JSON routes).
    #[arg(long, global = true)]
    pub no_card: bool,

    /// Speak this binding (default: the card's first interface this client speaks, in 1.0
    /// if offered).
    #[arg(long, global = true, value_enum, value_name = "BINDING")]
    pub binding: Option<BindingArg>,

    /// AgentCore session id (33-256 characters). Default: one id per agent URL and user,
    /// the same on every run, so a `send` and a later `get` reach the same session (tasks
    /// live in their session's microVM on AgentCore, and in its container in the emulator).
    #[arg(long, global = true, env = "A2A_SESSION_ID", value_name = "ID")]
    pub session: Option<String>,

    /// Start a new session (a random id, printed) instead of the URL's usual one; wins
    /// over --session and A2A_SESSION_ID.
    #[arg(long, global = true)]
    pub new_session: bool,

    /// Bearer token (`Authorization: Bearer …`), e.g. for an AgentCore JWT authorizer.
    #[arg(
        long,
        global = true,
        env = "A2A_BEARER_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub bearer: Option<String>,

    /// API key, sent in --api-key-header (the Lambda function's A2A_AUTH=api-key).
    #[arg(
        long,
        global = true,
        env = "A2A_API_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    pub api_key: Option<String>,

    /// Header that carries --api-key.
    #[arg(long, global = true, default_value = "X-API-Key", value_name = "NAME")]
    pub api_key_header: String,

    /// Sign requests with AWS SigV4, credentials from the AWS environment (variables,
    /// ~/.aws files, web identity, container or instance roles). On by default, without
    /// other credentials, for AgentCore URLs (bedrock-agentcore.REGION.amazonaws.com,
    /// service bedrock-agentcore) and Lambda function URLs (*.lambda-url.REGION.on.aws,
    /// service lambda). Wins over --bearer and --api-key (and their variables).
    #[arg(long, global = true)]
    pub sigv4: bool,

    /// The service to sign for (default: from the URL, else bedrock-agentcore).
    #[arg(long, global = true, value_name = "NAME")]
    pub sigv4_service: Option<String>,

    /// Never sign with SigV4, even for AgentCore URLs.
    #[arg(long, global = true, conflicts_with = "sigv4")]
    pub no_sigv4: bool,

    /// AWS region to sign for (default: from the URL, else the AWS environment).
    #[arg(long, global = true, value_name = "REGION")]
    pub region: Option<String>,

    /// Attempts in all for throttled (-32053) or busy-session (-32054) refusals; 1 disables retries.
    #[arg(long, global = true, default_value_t = 5, value_name = "N")]
    pub retries: u32,

    /// Stop retrying after this many seconds.
    #[arg(long, global = true, default_value_t = 30, value_name = "SECONDS")]
    pub retry_max_seconds: u64,

    /// Timeout of a non-streaming call, in seconds.
    #[arg(long, global = true, default_value_t = 900, value_name = "SECONDS")]
    pub timeout: u64,

    /// Give up on a stream that sends nothing (not even a keep-alive) for this many
    /// seconds; 0 waits forever.
    #[arg(long, global = true, default_value_t = 300, value_name = "SECONDS")]
    pub stream_idle_timeout: u64,

    /// Print results as JSON (JSON Lines for streams), as the protocol version spells them.
    #[arg(long, global = true)]
    pub json: bool,

    /// Log requests and retries to stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,
}
