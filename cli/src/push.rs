//! `a2a push …` (a task's push-notification configs) and `a2a send --push-url`.

use a2a_lambda_client::model::{self, PushAuthentication, PushNotificationConfig};
use a2a_lambda_client::{Client, Error, push};
use serde_json::json;

use crate::args::{Global, PushCommand};
use crate::exit;
use crate::run::connect;

/// The push config `a2a send --push-url URL [--push-token T]` sends with the message.
pub fn send_config(url: &Option<String>, token: &Option<String>) -> Option<PushNotificationConfig> {
    url.as_ref().map(|url| PushNotificationConfig {
        id: None,
        url: url.clone(),
        token: token.clone(),
        authentication: None,
    })
}

/// Runs `a2a push …`.
pub async fn run(global: &Global, command: &PushCommand) -> Result<u8, Error> {
    match command {
        PushCommand::Create {
            agent,
            task,
            webhook,
            token,
            auth_scheme,
            auth_credentials,
            id,
        } => {
            let client = connect(global, agent).await?;
            let config = PushNotificationConfig {
                id: id.clone(),
                url: webhook.clone(),
                token: token.clone(),
                authentication: auth_scheme.as_ref().map(|scheme| PushAuthentication {
                    schemes: vec![scheme.clone()],
                    credentials: auth_credentials.clone(),
                }),
            };
            let created = client.create_push_config(task, &config).await?;
            print_one(global, &client, &created);
        }
        PushCommand::Get {
            agent,
            task,
            config,
        } => {
            let client = connect(global, agent).await?;
            let config = client.get_push_config(task, config).await?;
            print_one(global, &client, &config);
        }
        PushCommand::List { agent, task } => {
            let client = connect(global, agent).await?;
            let configs = client.list_push_configs(task).await?;
            if global.json {
                println!("{}", push::list_json(client.version(), &configs));
            } else {
                for config in &configs {
                    println!("{}", line(config));
                }
                eprintln!("{} push configs of task {task}", configs.len());
            }
        }
        PushCommand::Delete {
            agent,
            task,
            config,
        } => {
            let client = connect(global, agent).await?;
            client.delete_push_config(task, config).await?;
            if global.json {
                println!("{}", json!({"deleted": {"taskId": task, "id": config}}));
            } else {
                println!("deleted push config {config} of task {task}");
            }
        }
    }
    Ok(exit::OK)
}

/// `id  taskId  url` (the token and credentials are not printed; `--json` shows the config
/// as the agent returned it).
fn line(config: &model::TaskPushNotificationConfig) -> String {
    format!(
        "{}\t{}\t{}",
        config.config.id.as_deref().unwrap_or("-"),
        config.task_id,
        config.config.url
    )
}

fn print_one(global: &Global, client: &Client, config: &model::TaskPushNotificationConfig) {
    if global.json {
        println!("{}", push::config_json(client.version(), config));
    } else {
        println!("{}", line(config));
    }
}
