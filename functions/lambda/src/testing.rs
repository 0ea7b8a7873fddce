//! Testing a function in-process, without AWS: Lambda events as the platform sends them
//! ([`FunctionUrlEvent`], and [`FunctionUrlEvent::api_gateway`] for an API Gateway HTTP
//! API or REST stage), and the function's service to invoke with them ([`TestFunction`]).
//!
//! The events are parsed by the same `lambda_http` the function runs on (re-exported as
//! [`lambda_http`]), so a test cannot drift from it.
//!
//! ```
//! use a2a_lambda::testing::{FunctionUrlEvent, TestFunction};
//! use a2a_lambda_server::agents::EchoAgent;
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let function = TestFunction::new(a2a_lambda::Lambda::new(EchoAgent))?;
//! let answer = function
//!     .invoke(FunctionUrlEvent::post("/", json!({
//!         "jsonrpc": "2.0", "id": 1, "method": "message/send",
//!         "params": {"message": {"kind": "message", "role": "user", "messageId": "m-1",
//!             "parts": [{"kind": "text", "text": "hi"}]}}
//!     })))
//!     .await?;
//! assert_eq!(answer.status, 200);
//! assert_eq!(answer.json()?["result"]["status"]["state"], "completed");
//! # Ok(()) }
//! ```

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::BodyExt as _;
use serde_json::{Map, Value, json};
use tower::{Service, ServiceExt as _};

pub use lambda_http;

use crate::app::App;
use crate::config::Config;
use crate::{InitError, Lambda};

/// The function's service, invoked in-process with events. Cheap to clone; invocations
/// may run at once.
#[derive(Clone)]
pub struct TestFunction {
    app: Arc<tokio::sync::Mutex<App>>,
    config: Arc<Config>,
}

impl std::fmt::Debug for TestFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestFunction").finish_non_exhaustive()
    }
}

/// Why an invocation gave no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InvokeError {
    /// The event is not one `lambda_http` reads.
    #[error("the event is not a Lambda HTTP event: {0}")]
    Event(String),
    /// The service or the body failed.
    #[error("the function failed: {0}")]
    Function(String),
}

/// What the function answered.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Invoked {
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: http::HeaderMap,
    /// The body, whole (an SSE body with every event).
    pub body: Bytes,
}

impl Invoked {
    /// The body as JSON.
    ///
    /// # Errors
    /// The body is not JSON.
    pub fn json(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl TestFunction {
    /// The function `lambda` builds. Without [`Lambda::config`], the configuration is the
    /// defaults, not the test process's environment.
    ///
    /// # Errors
    /// The configuration or the agent's card is invalid.
    pub fn new(lambda: Lambda) -> Result<Self, InitError> {
        let lambda = if lambda.has_config() {
            lambda
        } else {
            lambda.config(Config::from_lookup(|_| None)?)
        };
        let (app, config) = lambda.into_app()?;
        Ok(Self {
            app: Arc::new(tokio::sync::Mutex::new(app)),
            config: Arc::new(config),
        })
    }

    /// The configuration the function runs with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Invokes the function with `event` and reads its whole answer.
    ///
    /// # Errors
    /// The event cannot be read, or the function failed.
    pub async fn invoke(&self, event: impl Into<Event>) -> Result<Invoked, InvokeError> {
        let event = event.into();
        let request = lambda_http::request::from_str(&event.0.to_string())
            .map_err(|error| InvokeError::Event(error.to_string()))?;
        let answer = {
            let mut app = self.app.lock().await;
            let ready = app
                .ready()
                .await
                .map_err(|error| InvokeError::Function(error.to_string()))?;
            ready.call(request)
        };
        let response = answer
            .await
            .map_err(|error| InvokeError::Function(error.to_string()))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|error| InvokeError::Function(error.to_string()))?
            .to_bytes();
        Ok(Invoked {
            status,
            headers,
            body,
        })
    }
}

/// A Lambda event, as JSON: what [`TestFunction::invoke`] takes. Made by
/// [`FunctionUrlEvent`], or from any event document (a fixture captured from AWS).
#[derive(Debug, Clone)]
pub struct Event(Value);

impl From<Value> for Event {
    fn from(event: Value) -> Self {
        Self(event)
    }
}

impl From<FunctionUrlEvent> for Event {
    fn from(event: FunctionUrlEvent) -> Self {
        event.into_event()
    }
}

/// A request to the function as a Function URL (payload format 2.0) delivers it; or,
/// with [`api_gateway`](Self::api_gateway), as an API Gateway REST API stage does
/// (payload format 1.0). The body is JSON unless set with [`raw_body`](Self::raw_body).
#[derive(Debug, Clone)]
#[must_use]
pub struct FunctionUrlEvent {
    method: String,
    path: String,
    query: String,
    headers: Map<String, Value>,
    body: Option<String>,
    stage: Option<String>,
    authorizer: Option<Value>,
}

impl FunctionUrlEvent {
    /// A request of `method` to `path` (its query after `?`).
    pub fn new(method: &str, path: &str) -> Self {
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let mut headers = Map::new();
        headers.insert("host".into(), json!("function.lambda-url.us-east-1.on.aws"));
        headers.insert("x-forwarded-proto".into(), json!("https"));
        Self {
            method: method.to_ascii_uppercase(),
            path: path.to_owned(),
            query: query.to_owned(),
            headers,
            body: None,
            stage: None,
            authorizer: None,
        }
    }

    /// A `GET` of `path`.
    pub fn get(path: &str) -> Self {
        Self::new("GET", path)
    }

    /// A `POST` of `body` as JSON to `path`.
    pub fn post(path: &str, body: Value) -> Self {
        Self::new("POST", path)
            .header("content-type", "application/json")
            .raw_body(body.to_string())
    }

    /// Sets a header (lower-cased, as the platform sends them).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers
            .insert(name.to_ascii_lowercase(), Value::String(value.to_owned()));
        self
    }

    /// The body, as given.
    pub fn raw_body(mut self, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self
    }

    /// Delivered by an API Gateway REST API's `stage` (the path then starts with it, as
    /// API Gateway sends it), in payload format 1.0.
    pub fn api_gateway(mut self, stage: &str) -> Self {
        self.stage = Some(stage.to_owned());
        self
    }

    /// The authorizer's context the platform adds (IAM, Cognito, a Lambda authorizer),
    /// which names the caller: the owner of the tasks it makes.
    pub fn authorizer(mut self, authorizer: Value) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    fn into_event(self) -> Event {
        let host = self
            .headers
            .get("host")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match self.stage {
            None => {
                let mut context = json!({
                    "accountId": "anonymous",
                    "apiId": "function",
                    "domainName": host,
                    "domainPrefix": "function",
                    "http": {"method": self.method, "path": self.path, "protocol": "HTTP/1.1",
                        "sourceIp": "203.0.113.7", "userAgent": "a2a-lambda-testing"},
                    "requestId": a2a_lambda_core::model::new_id(),
                    "routeKey": "$default",
                    "stage": "$default",
                    "time": "01/Dec/2026:09:00:00 +0000",
                    "timeEpoch": 1_796_029_200_000_u64,
                });
                if let (Some(authorizer), Some(context)) =
                    (self.authorizer, context.as_object_mut())
                {
                    context.insert("authorizer".into(), authorizer);
                }
                Event(json!({
                    "version": "2.0",
                    "routeKey": "$default",
                    "rawPath": self.path,
                    "rawQueryString": self.query,
                    "headers": self.headers,
                    "requestContext": context,
                    "body": self.body,
                    "isBase64Encoded": false,
                }))
            }
            Some(stage) => {
                let path = format!("/{stage}{}", self.path);
                let query: Map<String, Value> = url_query(&self.query);
                let mut context = json!({
                    "accountId": "123456789012",
                    "apiId": "api",
                    "domainName": host,
                    "httpMethod": self.method,
                    "path": path,
                    "protocol": "HTTP/1.1",
                    "requestId": a2a_lambda_core::model::new_id(),
                    "resourcePath": "/{proxy+}",
                    "stage": stage,
                    "identity": {"sourceIp": "203.0.113.7"},
                });
                if let (Some(authorizer), Some(context)) =
                    (self.authorizer, context.as_object_mut())
                {
                    context.insert("authorizer".into(), authorizer);
                }
                Event(json!({
                    "resource": "/{proxy+}",
                    "path": self.path,
                    "httpMethod": self.method,
                    "headers": self.headers,
                    "queryStringParameters": if query.is_empty() { Value::Null } else { Value::Object(query) },
                    "requestContext": context,
                    "body": self.body,
                    "isBase64Encoded": false,
                }))
            }
        }
    }
}

/// A query string's parameters, the last value of each name.
fn url_query(query: &str) -> Map<String, Value> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (name.to_owned(), Value::String(value.to_owned()))
        })
        .collect()
}
