//! What a local Lambda runs and how: the function's settings ([`FunctionConfig`]), the event
//! shape its front builds ([`EventShape`]) and the Function URL's invoke mode
//! ([`InvokeMode`]).

use std::path::PathBuf;
use std::time::Duration;

/// Lambda's default function timeout: 3 seconds ("Configure Lambda function timeout",
/// <https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html>).
///
/// ```
/// # use std::time::Duration;
/// assert_eq!(a2a_lambda_emulator::lambda::DEFAULT_TIMEOUT, Duration::from_secs(3));
/// ```
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// Lambda's default memory size, in MB (128; "Configure Lambda function memory",
/// <https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html>).
///
/// ```
/// # use std::time::Duration;
/// assert_eq!(a2a_lambda_emulator::lambda::DEFAULT_MEMORY_MB, 128);
/// ```
pub const DEFAULT_MEMORY_MB: u32 = 128;

/// How long the init phase may take: 10 seconds for an on-demand function ("Init phase",
/// <https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-ib>).
///
/// ```
/// # use std::time::Duration;
/// assert_eq!(a2a_lambda_emulator::lambda::INIT_TIMEOUT, Duration::from_secs(10));
/// ```
pub const INIT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the runtime has between SIGTERM and SIGKILL at shutdown when an extension is
/// registered: Lambda sends SIGTERM and waits 500 ms for a function with an internal
/// extension (2,000 ms in all with external ones:
/// [`EXTENSIONS_SHUTDOWN_GRACE`](crate::lambda::EXTENSIONS_SHUTDOWN_GRACE))
/// ("Shutdown phase",
/// <https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html#runtimes-lifecycle-shutdown>).
///
/// ```
/// # use std::time::Duration;
/// assert_eq!(a2a_lambda_emulator::lambda::SHUTDOWN_GRACE, Duration::from_millis(500));
/// ```
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// How long the shutdown may take with an external extension registered: 2,000 ms
/// (same page); the runtime is killed after [`SHUTDOWN_GRACE`] all the same.
///
/// ```
/// # use std::time::Duration;
/// assert_eq!(a2a_lambda_emulator::lambda::EXTENSIONS_SHUTDOWN_GRACE, Duration::from_millis(2000));
/// ```
pub const EXTENSIONS_SHUTDOWN_GRACE: Duration = Duration::from_millis(2000);

/// What event the front hands the function for an HTTP request.
///
/// ```
/// use a2a_lambda_emulator::lambda::EventShape;
/// assert_eq!(EventShape::default(), EventShape::FunctionUrl);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
#[non_exhaustive]
pub enum EventShape {
    /// A Lambda Function URL's event (payload format 2.0, `requestContext.http`, account
    /// `anonymous` without auth): "Invoking Lambda function URLs",
    /// <https://docs.aws.amazon.com/lambda/latest/dg/urls-invocation.html#urls-payloads>.
    #[default]
    #[value(help = "a Function URL's event (payload format 2.0)")]
    FunctionUrl,
    /// An API Gateway HTTP API's Lambda proxy event, payload format 2.0: "Create AWS
    /// Lambda proxy integrations for HTTP APIs",
    /// <https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html>.
    #[value(help = "an API Gateway HTTP API's event (payload format 2.0)")]
    ApigwV2,
    /// An API Gateway REST API's Lambda proxy event (`httpMethod`, `multiValueHeaders`,
    /// `{proxy+}` resource): "Lambda proxy integrations in API Gateway",
    /// <https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#api-gateway-simple-proxy-for-lambda-input-format>.
    #[value(help = "an API Gateway REST API's proxy event (payload format 1.0)")]
    ApigwV1,
}

impl EventShape {
    /// `function-url`, `apigw-v2` or `apigw-v1`, as the flag spells it.
    ///
    /// ```
    /// use a2a_lambda_emulator::lambda::EventShape;
    /// assert_eq!(EventShape::ApigwV1.as_str(), "apigw-v1");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FunctionUrl => "function-url",
            Self::ApigwV2 => "apigw-v2",
            Self::ApigwV1 => "apigw-v1",
        }
    }
}

/// How a Function URL hands the function's response to its caller ("Invoke mode",
/// <https://docs.aws.amazon.com/lambda/latest/dg/urls-configuration.html#urls-invoke-mode>).
///
/// ```
/// use a2a_lambda_emulator::lambda::InvokeMode;
/// assert_eq!(InvokeMode::default(), InvokeMode::Buffered);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
#[non_exhaustive]
pub enum InvokeMode {
    /// `BUFFERED`: the whole response, once the function has returned it.
    #[default]
    #[value(help = "BUFFERED: the whole response once the function has returned it")]
    Buffered,
    /// `RESPONSE_STREAM`: the response's bytes as the function writes them
    /// ("Response streaming for Lambda functions",
    /// <https://docs.aws.amazon.com/lambda/latest/dg/configuration-response-streaming.html>).
    #[value(help = "RESPONSE_STREAM: the response's bytes as the function writes them")]
    ResponseStream,
}

/// The function a local Lambda runs: its binary and the settings Lambda would give it.
#[derive(Debug, Clone)]
pub(crate) struct FunctionConfig {
    /// The binary (a `bootstrap`, or any executable).
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// External extensions' binaries (what a layer puts under `/opt/extensions`).
    pub extensions: Vec<PathBuf>,
    /// The function's environment variables (`--env K=V`).
    pub env: Vec<(String, String)>,
    /// `AWS_LAMBDA_FUNCTION_NAME`.
    pub name: String,
    /// `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`, in MB.
    pub memory_mb: u32,
    /// The function timeout.
    pub timeout: Duration,
    /// `AWS_REGION`.
    pub region: String,
    /// `_HANDLER`.
    pub handler: String,
    /// The event shape the front builds.
    pub event: EventShape,
    /// The Function URL's invoke mode.
    pub invoke_mode: InvokeMode,
    /// The stage of an API Gateway front (`$default`: no stage in the path).
    pub stage: String,
    /// `AWS_LAMBDA_MAX_CONCURRENCY`: invocations in flight at once on the one execution
    /// environment (Lambda Managed Instances); `None` is Lambda's default of one.
    pub max_concurrency: Option<u32>,
}

impl FunctionConfig {
    /// How many invocations may be in flight at once.
    pub fn concurrency(&self) -> usize {
        self.max_concurrency
            .map_or(1, |n| usize::try_from(n.max(1)).unwrap_or(1))
    }

    /// Whether it runs as a Lambda Managed Instances environment: many invocations at
    /// once, never frozen.
    pub fn managed_instances(&self) -> bool {
        self.max_concurrency.is_some()
    }

    /// The function's ARN as the Runtime API names it.
    pub fn arn(&self) -> String {
        format!(
            "arn:aws:lambda:{}:123456789012:function:{}",
            self.region, self.name
        )
    }
}
