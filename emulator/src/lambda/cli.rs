//! `a2a-emulator lambda`: the local Lambda from the command line.

use std::net::IpAddr;
use std::time::Duration;

use super::config::{EventShape, InvokeMode};
use super::{LambdaError, LocalLambda};

/// What `a2a-emulator lambda` prints (on stdout) once it accepts connections; the rest of
/// the line is the front's URL.
///
/// ```
/// let line = "a2a-emulator lambda listening on http://127.0.0.1:9000 (…)";
/// let url = line.strip_prefix(a2a_lambda_emulator::lambda::LISTENING_PREFIX).unwrap();
/// assert!(url.starts_with("http://127.0.0.1:9000"));
/// ```
pub const LISTENING_PREFIX: &str = "a2a-emulator lambda listening on ";

/// Run a Lambda function's binary as AWS Lambda runs it: the Runtime and Extensions
/// APIs, a Function URL (or API Gateway) front, the environment frozen between
/// invocations, the timeout, SIGTERM at shutdown.
///
/// The binary gets Lambda's reserved variables (AWS_LAMBDA_RUNTIME_API,
/// AWS_LAMBDA_FUNCTION_NAME, AWS_LAMBDA_FUNCTION_MEMORY_SIZE, AWS_REGION, _HANDLER,
/// LAMBDA_TASK_ROOT, …) and the --env ones, not this shell's environment (AWS
/// credentials excepted). It starts on the first request (a cold start) and is frozen
/// (SIGSTOP) once it and every extension it registered asked for their next event.
/// Ctrl-C shuts it down as Lambda does.
#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example: a2a-emulator lambda --invoke-mode response-stream \
    --env A2A_STREAMING=true --cmd target/lambda/a2a-agent/bootstrap"
)]
pub struct LambdaArgs {
    /// The function's binary and its arguments (a `bootstrap` from `cargo lambda build`,
    /// or `target/debug/NAME` from `cargo build`). Put it last.
    #[arg(long, required = true, num_args = 1.., value_name = "PATH [ARG]...")]
    pub cmd: Vec<String>,

    /// An external extension's binary (repeatable): started before the function, as a
    /// layer's /opt/extensions/NAME; it may register for SHUTDOWN.
    #[arg(long = "extension", value_name = "PATH")]
    pub extensions: Vec<std::path::PathBuf>,

    /// A function environment variable, `NAME=VALUE` (repeatable).
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_env)]
    pub env: Vec<(String, String)>,

    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,

    /// Port to bind (0 picks a free port).
    #[arg(long, default_value_t = 9000)]
    pub port: u16,

    /// The event the front hands the function: a Function URL's, an HTTP API's (v2) or
    /// a REST API's (v1).
    #[arg(long, value_enum, default_value_t = EventShape::FunctionUrl)]
    pub event: EventShape,

    /// The Function URL's invoke mode: `buffered` (BUFFERED) or `response-stream`
    /// (RESPONSE_STREAM: the body passed on as the function writes it).
    #[arg(long, value_enum, default_value_t = InvokeMode::Buffered)]
    pub invoke_mode: InvokeMode,

    /// The function timeout in seconds (1 to 900; Lambda's default is 3).
    #[arg(long, default_value_t = 3.0, value_name = "SECONDS")]
    pub timeout: f64,

    /// The memory size in MB (AWS_LAMBDA_FUNCTION_MEMORY_SIZE; 128 to 10240).
    #[arg(long, default_value_t = 128, value_name = "MB")]
    pub memory: u32,

    /// Lambda Managed Instances: AWS_LAMBDA_MAX_CONCURRENCY=N, N invocations in flight at
    /// once on the one environment, never frozen.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_concurrency: Option<u32>,

    /// The function's name (AWS_LAMBDA_FUNCTION_NAME); defaults to the binary's file name.
    #[arg(long)]
    pub function_name: Option<String>,

    /// The region (AWS_REGION).
    #[arg(long, default_value = "us-east-1")]
    pub region: String,

    /// The handler (_HANDLER).
    #[arg(long, default_value = "bootstrap")]
    pub handler: String,

    /// API Gateway's stage: requests then start with /STAGE (`$default`: no stage).
    #[arg(long, default_value = "$default")]
    pub stage: String,

    /// The inspector page and journal at /_emulator/ (`on` or `off`).
    #[arg(long, default_value = "on", value_parser = ["on", "off"])]
    pub inspector: String,
}

fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
        _ => Err(format!("{text:?} is not NAME=VALUE")),
    }
}

impl LambdaArgs {
    /// The local Lambda the flags describe.
    ///
    /// ```
    /// use a2a_lambda_emulator::auth_flags::Command;
    /// use a2a_lambda_emulator::cli::Args;
    ///
    /// let args = Args::try_parse_args_only([
    ///     "a2a-emulator", "lambda", "--port", "0", "--cmd", "target/debug/a2a-agent",
    /// ]).unwrap();
    /// let Some(Command::Lambda(lambda)) = args.command else { panic!("not lambda") };
    /// let local = lambda.build().unwrap();
    /// # drop(local);
    /// ```
    ///
    /// # Errors
    /// [`LambdaError::Config`] for a timeout that is not a number of seconds.
    pub fn build(&self) -> Result<LocalLambda, LambdaError> {
        let Some((command, args)) = self.cmd.split_first() else {
            return Err(LambdaError::Config(
                "--cmd needs the function's binary".into(),
            ));
        };
        if !self.timeout.is_finite() || self.timeout <= 0.0 {
            return Err(LambdaError::Config(format!(
                "--timeout {} is not a number of seconds",
                self.timeout
            )));
        }
        let mut lambda = LocalLambda::new(command)
            .host(self.host)
            .port(self.port)
            .event(self.event)
            .invoke_mode(self.invoke_mode)
            .timeout(Duration::from_secs_f64(self.timeout))
            .memory_mb(self.memory)
            .region(self.region.clone())
            .handler(self.handler.clone())
            .stage(self.stage.clone())
            .inspector(self.inspector == "on");
        for arg in args {
            lambda = lambda.arg(arg.clone());
        }
        for extension in &self.extensions {
            lambda = lambda.extension(extension.clone());
        }
        for (name, value) in &self.env {
            lambda = lambda.env(name.clone(), value.clone());
        }
        if let Some(name) = &self.function_name {
            lambda = lambda.function_name(name.clone());
        }
        if let Some(n) = self.max_concurrency {
            lambda = lambda.max_concurrency(n);
        }
        Ok(lambda)
    }
}

/// What the binary does with `a2a-emulator lambda`: starts the local Lambda, prints where
/// it listens, serves until SIGTERM or Ctrl-C, then shuts down as Lambda does.
///
/// ```no_run
/// # async fn example(args: a2a_lambda_emulator::lambda::LambdaArgs) {
/// a2a_lambda_emulator::lambda::run(&args).await.unwrap();
/// # }
/// ```
///
/// # Errors
/// As [`LocalLambda::start`].
pub async fn run(args: &LambdaArgs) -> Result<(), LambdaError> {
    let lambda = args.build()?.start().await?;
    let url = lambda.base_url().to_owned();
    println!(
        "{LISTENING_PREFIX}{url} (a {} front, {} mode; inspector: {})",
        args.event.as_str(),
        match args.invoke_mode {
            InvokeMode::Buffered => "BUFFERED",
            InvokeMode::ResponseStream => "RESPONSE_STREAM",
        },
        if args.inspector == "on" {
            format!("{url}/_emulator/")
        } else {
            "off".to_owned()
        }
    );
    a2a_lambda_server::host::graceful::shutdown_signal().await;
    let report = lambda.shutdown().await?;
    tracing::info!(
        sigterm = report.sigterm,
        exited_in_grace = report.exited_in_grace,
        shutdown_events = report.shutdown_events,
        "local Lambda stopped"
    );
    Ok(())
}
