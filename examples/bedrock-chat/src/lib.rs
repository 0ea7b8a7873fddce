//! # bedrock-chat
//!
//! A chat agent on Amazon Bedrock, served over A2A: each message goes to the model with
//! the conversation so far (ConverseStream), and the answer streams back as artifact
//! chunks. The starting point for a real, model-backed agent; copy this crate.
//!
//! - [`config`]: the settings, from the environment, checked at startup.
//! - [`model`]: the [`ChatModel`](model::ChatModel) trait the agent calls (scripted in
//!   tests).
//! - [`bedrock`]: the real model, Bedrock's ConverseStream.
//! - [`conversation`]: which earlier messages are replayed, and how.
//! - [`agent`]: the [`ChatAgent`](agent::ChatAgent), the model's answer as A2A events.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_lambda_server::Agent as _;
//! use bedrock_chat::{agent::ChatAgent, bedrock::BedrockModel, config::ChatConfig};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let config = ChatConfig::from_lookup(|name| match name {
//!     "BEDROCK_MODEL_ID" => Some("amazon.nova-micro-v1:0".to_owned()),
//!     "BEDROCK_REGION" => Some("us-east-1".to_owned()),
//!     "CHAT_NAME" => Some("Helper".to_owned()),
//!     _ => None,
//! })
//! .unwrap();
//! // Makes no network call: credentials are looked up at the first answer.
//! let model = BedrockModel::from_settings(&config.model).await;
//! let agent = ChatAgent::new(Arc::new(model), &config);
//! assert_eq!(agent.card().name, "Helper");
//! # }
//! ```

pub mod agent;
pub mod bedrock;
pub mod config;
pub mod conversation;
pub mod model;
