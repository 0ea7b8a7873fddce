//! The commands.

use std::time::Duration;

use a2a_lambda_client::model::{self, SendResult, TaskState};
use a2a_lambda_client::{
    Auth, Client, ClientBuilder, Error, ProtocolVersion, RetryPolicy, protocol,
};
use futures_util::StreamExt;

use crate::args::{Cli, Command, Global, Protocol, WebhookCommand};
use crate::exit;
use crate::print::{self, StreamPrinter};

/// Runs a command; `Ok` carries the exit code of a command that got an answer.
pub async fn run(cli: Cli) -> Result<u8, Error> {
    let global = &cli.global;
    match &cli.command {
        Command::Card { url } => card(global, url).await,
        Command::Send {
            url,
            text,
            stream,
            task,
            context,
            message_id,
            no_wait,
            push_url,
            push_token,
        } => {
            let client = connect(global, url).await?;
            let mut params = a2a_lambda_client::text_params(text);
            params.message.task_id.clone_from(task);
            params.message.context_id.clone_from(context);
            if let Some(id) = message_id {
                params.message.message_id.clone_from(id);
            }
            if *no_wait {
                params.configuration = Some(model::SendConfiguration {
                    return_immediately: true,
                    ..Default::default()
                });
            }
            if let Some(push) = crate::push::send_config(push_url, push_token) {
                let configuration = params.configuration.get_or_insert_with(Default::default);
                configuration.push_notification_config = Some(push);
            }
            let code = if *stream {
                let events = client.stream(&params).await?;
                follow(global, &client, events).await
            } else {
                send(global, &client, &params).await
            };
            report_session(global, url, &client);
            code
        }
        Command::Get { url, task, history } => {
            let client = connect(global, url).await?;
            let task = client.get_task(task, *history).await?;
            if global.json {
                println!("{}", protocol::task_json(client.version(), &task));
            } else {
                print::task(&task);
            }
            Ok(exit::OK)
        }
        Command::List {
            url,
            context,
            page_size,
            page_token,
        } => {
            let client = connect(global, url).await?;
            let params = model::ListTasksParams {
                context_id: context.clone(),
                page_size: *page_size,
                page_token: page_token.clone(),
                ..Default::default()
            };
            let listed = client.list_tasks(&params).await?;
            if global.json {
                println!("{}", protocol::list_result_json(&listed));
            } else {
                for task in &listed.tasks {
                    println!(
                        "{}\t{}\t{}",
                        task.id,
                        task.context_id,
                        print::state(task.status.state)
                    );
                }
                eprintln!("{} of {} tasks", listed.tasks.len(), listed.total_size);
                if !listed.next_page_token.is_empty() {
                    eprintln!("next page: --page-token {}", listed.next_page_token);
                }
            }
            Ok(exit::OK)
        }
        Command::Cancel { url, task } => {
            let client = connect(global, url).await?;
            let task = client.cancel_task(task).await?;
            if global.json {
                println!("{}", protocol::task_json(client.version(), &task));
            } else {
                print::status_line(&task);
            }
            Ok(exit::OK)
        }
        Command::Resubscribe { url, task } => {
            let client = connect(global, url).await?;
            let events = client.resubscribe(task).await?;
            follow(global, &client, events).await
        }
        Command::Push { command } => crate::push::run(global, command).await,
        Command::New(new) => Ok(crate::new::command(new)),
        Command::Webhook {
            command:
                WebhookCommand::Listen {
                    port,
                    host,
                    token,
                    count,
                },
        } => {
            let listen = crate::webhook::Listen {
                host: host.clone(),
                port: *port,
                token: token.clone(),
                count: *count,
                json: global.json,
            };
            crate::webhook::listen(listen).await
        }
        Command::StopSession { url } => {
            // Not an A2A call: no card is read.
            let client = builder(global, url).await?.build()?;
            client.stop_session().await?;
            let session = client.session_id();
            if global.json {
                println!("{}", serde_json::json!({ "stoppedSession": session }));
            } else {
                println!("stopped session {session}");
            }
            Ok(exit::OK)
        }
    }
}

async fn card(global: &Global, url: &str) -> Result<u8, Error> {
    let client = builder(global, url).await?.connect().await?;
    let Some(card) = client.card() else {
        return Ok(exit::OK);
    };
    if global.json {
        println!("{}", card.json);
    } else {
        print::card(
            card,
            Some((
                client.binding(),
                client.version(),
                client.endpoint_url().as_str(),
            )),
        );
    }
    Ok(exit::OK)
}

async fn send(
    global: &Global,
    client: &Client,
    params: &model::SendMessageParams,
) -> Result<u8, Error> {
    let result = client.send(params).await?;
    if global.json {
        println!("{}", protocol::send_result_json(client.version(), &result));
    }
    match &result {
        SendResult::Message(message) => {
            if !global.json {
                print::message(message);
            }
            Ok(exit::OK)
        }
        SendResult::Task(task) => {
            if !global.json {
                print::task(task);
            }
            Ok(outcome(Some(task.status.state)))
        }
    }
}

async fn follow(
    global: &Global,
    client: &Client,
    mut events: a2a_lambda_client::EventStream,
) -> Result<u8, Error> {
    let mut printer = StreamPrinter::new(global.json, client.version());
    while let Some(event) = events.next().await {
        match event {
            Ok(event) => printer.event(&event),
            Err(error) => {
                printer.close_line();
                return Err(error);
            }
        }
    }
    printer.close_line();
    Ok(outcome(printer.last_state))
}

/// Exit code for how a sent task ended.
fn outcome(state: Option<TaskState>) -> u8 {
    match state {
        Some(TaskState::Failed | TaskState::Rejected | TaskState::Canceled) => {
            exit::TASK_UNSUCCESSFUL
        }
        _ => exit::OK,
    }
}

pub(crate) async fn connect(global: &Global, url: &str) -> Result<Client, Error> {
    let builder = builder(global, url).await?;
    let client = if global.no_card {
        builder.build()?
    } else {
        builder.connect().await?
    };
    warn_if_credentials_leave(global, url, &client);
    Ok(client)
}

/// A bearer token or API key goes wherever the card says the agent is: say so when that is
/// another origin than the URL given.
fn warn_if_credentials_leave(global: &Global, url: &str, client: &Client) {
    if global.sigv4 || (global.bearer.is_none() && global.api_key.is_none()) {
        return;
    }
    let Ok(base) = a2a_lambda_client::card::parse_base(url) else {
        return;
    };
    let endpoint = client.endpoint_url();
    if base.origin() != endpoint.origin() {
        eprintln!(
            "warning: the agent card sends requests to {}; your credentials go there too",
            endpoint.origin().ascii_serialization()
        );
    }
}

/// Prints the session id when the user could not know it: a new one, or one the server
/// chose.
fn report_session(global: &Global, url: &str, client: &Client) {
    let sent = if global.new_session {
        None
    } else {
        Some(global.session.clone().unwrap_or_else(|| usual_session(url)))
    };
    let now = client.session_id();
    if sent.as_deref() != Some(now.as_str()) {
        eprintln!("session: {now} (pass --session {now} to come back to it)");
    }
}

async fn builder(global: &Global, url: &str) -> Result<ClientBuilder, Error> {
    let retry = RetryPolicy::default()
        .with_max_attempts(global.retries)
        .with_max_elapsed(Duration::from_secs(global.retry_max_seconds));
    let mut builder = Client::builder(url)
        .retry(retry)
        .timeout(Some(Duration::from_secs(global.timeout)))
        .stream_idle_timeout(
            (global.stream_idle_timeout > 0)
                .then(|| Duration::from_secs(global.stream_idle_timeout)),
        )
        .auth(auth(global, url).await?);
    if let Some(protocol) = global.protocol {
        builder = builder.version(match protocol {
            Protocol::V0_3 => ProtocolVersion::V0_3,
            Protocol::V1_0 => ProtocolVersion::V1_0,
        });
    }
    if let Some(binding) = global.binding {
        builder = builder.binding(binding.into());
    }
    if !global.new_session {
        let session = global.session.clone().unwrap_or_else(|| usual_session(url));
        builder = builder.session_id(session);
    }
    Ok(builder)
}

/// The session a user's runs against one URL share: `a2a-cli-` and two hashes of the user
/// and the URL (40 characters), stable from run to run.
fn usual_session(url: &str) -> String {
    use std::hash::{Hash, Hasher};
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_default();
    let url = url.trim_end_matches('/');
    let hash = |salt: u8| {
        let mut hasher = std::hash::DefaultHasher::new();
        (salt, &user, url).hash(&mut hasher);
        hasher.finish()
    };
    format!("a2a-cli-{:016x}{:016x}", hash(1), hash(2))
}

async fn auth(global: &Global, url: &str) -> Result<Auth, Error> {
    if !global.sigv4 {
        if let Some(token) = &global.bearer {
            return Ok(Auth::Bearer(token.clone()));
        }
        if let Some(key) = &global.api_key {
            return Ok(Auth::ApiKey {
                header: global.api_key_header.clone(),
                key: key.clone(),
            });
        }
    }
    let from_host = a2a_lambda_client::card::parse_base(url)
        .ok()
        .and_then(|url| {
            url.host_str()
                .and_then(a2a_lambda_client::sigv4::signing_for_host)
        });
    if global.sigv4 || (from_host.is_some() && !global.no_sigv4) {
        let (host_service, host_region) = from_host.unzip();
        let region = global.region.clone().or(host_region);
        let service = global
            .sigv4_service
            .clone()
            .or(host_service.map(str::to_owned))
            .unwrap_or_else(|| a2a_lambda_client::auth::AGENTCORE_SERVICE.to_owned());
        let signer = a2a_lambda_client::sigv4::SigV4::from_environment(region)
            .await?
            .with_service(service);
        return Ok(Auth::SigV4(signer));
    }
    Ok(Auth::None)
}
