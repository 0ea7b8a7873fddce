//! The chat agent, from one binary: on AWS Lambda (the runtime sets
//! `AWS_LAMBDA_RUNTIME_API`; `cargo lambda deploy` from this folder) it serves Lambda
//! invocations, anywhere else it is an AWS Bedrock AgentCore Runtime container on
//! 0.0.0.0:9000 (`PORT` to change it).
//!
//! The agent is given the host's task store, so each turn replays the context's earlier
//! tasks.

use std::process::ExitCode;
use std::sync::Arc;

use a2a_server::serve::{Container, ContainerConfig};
use a2a_server::tasks::{InMemoryTaskStore, TaskStore};
use bedrock_chat::agent::ChatAgent;
use bedrock_chat::bedrock::BedrockModel;
use bedrock_chat::config::ChatConfig;

#[tokio::main]
async fn main() -> ExitCode {
    let on_lambda = std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some();
    let served = if on_lambda {
        lambda().await.map_err(|error| error.to_string())
    } else {
        container().await.map_err(|error| error.to_string())
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "bedrock-chat failed");
            ExitCode::FAILURE
        }
    }
}

/// The model and agent the environment configures; the reason it cannot start, logged.
async fn agent() -> Result<ChatAgent, bedrock_chat::config::ConfigError> {
    let config = ChatConfig::from_env().inspect_err(|error| {
        tracing::error!(%error, "configuration");
    })?;
    let model = BedrockModel::from_settings(&config.model).await;
    tracing::info!(
        model_id = config.model.model_id,
        region = config.model.region,
        max_tokens = config.model.max_tokens,
        "bedrock-chat configured"
    );
    Ok(ChatAgent::new(Arc::new(model), &config))
}

async fn lambda() -> Result<(), a2a_lambda::Error> {
    a2a_lambda::logging::init();
    let config = a2a_lambda::Config::from_env()?;
    // The function's task store (DynamoDB with A2A_TASK_TABLE, else the instance's
    // memory), shared by the host and the agent.
    let (store, push_store) = a2a_lambda::stores(&config);
    let agent = agent().await?.with_history(Arc::clone(&store));
    a2a_lambda::Lambda::new(agent)
        .config(config)
        .task_store(store)
        .push_store(push_store)
        .run()
        .await
}

async fn container() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = ContainerConfig::from_env();
    let _logs = a2a_server::serve::init_logging(
        config
            .as_ref()
            .map_or(a2a_server::serve::LogFormat::Text, |config| {
                config.log_format
            }),
    );
    let config = config?;
    let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
    let agent = agent().await?.with_history(Arc::clone(&store));
    Container::with_config(agent, config)
        .task_store(store)
        .serve()
        .await?;
    Ok(())
}
