//! The `a2a-emulator` binary's command line as a library: [`Args`] (every flag, each with
//! an environment fallback and its AgentCore meaning) and [`Args::build`], which turns the
//! flags into the [`Server`] the binary runs, so a test can start exactly what the binary
//! would, in-process.
//!
//! ```
//! use a2a_lambda_emulator::cli::Args;
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let args = Args::try_parse_args_only(["a2a-emulator", "--port", "0", "--rate-limit", "0"])?;
//! let started = args.build_with_env(|_| None)?.start().await?;
//! assert!(started.listening_line().starts_with("a2a-emulator listening on http://127.0.0.1:"));
//! started.shutdown().await?;
//! # Ok(())
//! # }
//! # tokio::runtime::Runtime::new().unwrap().block_on(example()).unwrap();
//! ```

mod args;
mod build;
mod server;

pub use args::Args;
pub use server::{Server, Started};

/// What the binary prints (on stdout) once it accepts connections; the rest of the line
/// is the base URL and, in parentheses, what is served and the card's URL.
pub const LISTENING_PREFIX: &str = "a2a-emulator listening on ";
