//! The push-notification commands' arguments: `a2a webhook …` and `a2a push …`.

use clap::Subcommand;

/// `a2a webhook …`.
#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Receive push notifications here: answer 200 to POSTs on any path and print each
    /// delivery as it arrives (`time  path  taskId  state`; one JSON document a line with
    /// --json, secrets masked). Says where it listens on stderr. Exits 0 after --count
    /// deliveries or at Ctrl-C.
    Listen {
        /// The port (0: a free one, printed).
        #[arg(long)]
        port: u16,
        /// The address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Refuse (401) deliveries whose X-A2A-Notification-Token is not this.
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
        /// Exit after this many deliveries.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        count: Option<u64>,
    },
}

/// `a2a push …`: a task's push-notification configurations (A2A 0.3
/// `tasks/pushNotificationConfig/*`, 1.0 `*TaskPushNotificationConfig*`).
#[derive(Debug, Subcommand)]
pub enum PushCommand {
    /// Ask the agent to push the task's updates to a webhook; prints the config it keeps.
    Create {
        /// The agent's base URL.
        #[arg(value_name = "URL")]
        agent: String,
        /// The task id.
        task: String,
        /// The webhook the agent POSTs each update to (`a2a webhook listen`, or the
        /// emulator's `/_emulator/webhooks/NAME`).
        #[arg(long = "url", value_name = "WEBHOOK_URL")]
        webhook: String,
        /// A token the agent sends back in X-A2A-Notification-Token.
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
        /// How the agent authenticates to the webhook (an HTTP scheme, e.g. Bearer).
        #[arg(long, value_name = "SCHEME")]
        auth_scheme: Option<String>,
        /// The credentials for --auth-scheme.
        #[arg(long, value_name = "CREDENTIALS", requires = "auth_scheme")]
        auth_credentials: Option<String>,
        /// The config's id (default: the agent chooses).
        #[arg(long, value_name = "ID")]
        id: Option<String>,
    },
    /// Print one of the task's push-notification configs.
    Get {
        /// The agent's base URL.
        #[arg(value_name = "URL")]
        agent: String,
        /// The task id.
        task: String,
        /// The config's id.
        config: String,
    },
    /// List the task's push-notification configs (every page).
    List {
        /// The agent's base URL.
        #[arg(value_name = "URL")]
        agent: String,
        /// The task id.
        task: String,
    },
    /// Delete one of the task's push-notification configs.
    Delete {
        /// The agent's base URL.
        #[arg(value_name = "URL")]
        agent: String,
        /// The task id.
        task: String,
        /// The config's id.
        config: String,
    },
}
