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
