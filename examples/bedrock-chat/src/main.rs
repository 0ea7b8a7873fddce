//! The chat agent, from one binary: on AWS Lambda (`cargo lambda deploy` from this folder)
//! it serves Lambda invocations; anywhere else it is an AWS Bedrock AgentCore Runtime
//! container on 0.0.0.0:9000 (`PORT` to change it).
//!
//! Not the one call `a2a_lambda::run(agent)`: the agent is given the host's task store, so
//! each turn replays the context's earlier tasks.

use std::sync::Arc;

use a2a_lambda_server::serve::{Container, ContainerConfig};
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use bedrock_chat::agent::ChatAgent;
use bedrock_chat::bedrock::BedrockModel;
use bedrock_chat::config::{ChatConfig, ConfigError};

#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    if a2a_lambda::on_lambda() {
        a2a_lambda::logging::init();
        let config = a2a_lambda::Config::from_env()?;
        // The function's task store: DynamoDB with A2A_TASK_TABLE, else the instance's memory.
        let (store, push_store) = a2a_lambda::stores(&config);
        let agent = chat_agent().await?.with_history(Arc::clone(&store));
        a2a_lambda::Lambda::new(agent)
            .config(config)
            .task_store(store)
            .push_store(push_store)
            .run()
            .await
    } else {
        let config = ContainerConfig::from_env()?;
        let _logs = a2a_lambda_server::serve::init_logging(config.log_format);
        let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
        let agent = chat_agent().await?.with_history(Arc::clone(&store));
        Ok(Container::with_config(agent, config)
            .task_store(store)
            .serve()
            .await?)
    }
}

/// The model and agent the environment configures; the reason it cannot start, logged.
async fn chat_agent() -> Result<ChatAgent, ConfigError> {
    let config = ChatConfig::from_env()
        .inspect_err(|error| tracing::error!(%error, "bedrock-chat configuration"))?;
    let model = BedrockModel::from_settings(&config.model).await;
    tracing::info!(
        model_id = config.model.model_id,
        region = config.model.region,
        max_tokens = config.model.max_tokens,
        "bedrock-chat configured"
    );
    Ok(ChatAgent::new(Arc::new(model), &config))
}
