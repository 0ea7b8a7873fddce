//! The gRPC binding of A2A v1.0 (feature `grpc`): each operation's v1.0 request object,
//! as the other bindings send it, read into its `a2a.proto` message (the prost types'
//! ProtoJSON serde impls, [`a2a_lambda_core::grpc`]) and sent with tonic; the answer
//! written back as JSON for the same readers. A refusal (`google.rpc.Status` with its
//! `ErrorInfo`) is read as the HTTP+JSON binding's, and a stream's responses become that
//! binding's SSE events, so one parser reads both.
//!
//! The calls carry the session id, `A2A-Version: 1.0` and the credentials (a bearer token
//! or an API key) as metadata; SigV4 is refused: it signs AgentCore's HTTP requests, and
//! AgentCore cannot carry gRPC.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt as _;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::OnceCell;
use tonic::metadata::{Ascii, MetadataKey, MetadataValue};
use tonic::transport::{Channel, Endpoint};

use a2a_lambda_core::Operation;
use a2a_lambda_core::grpc::v1::a2a_service_client::A2aServiceClient;
use a2a_lambda_core::grpc::{status, v1};

use crate::auth::Auth;
use crate::error::Error;
use crate::stream::Body;

/// A gRPC connection to one interface, opened at the first call.
#[derive(Debug)]
pub(crate) struct Grpc {
    url: String,
    credentials: Option<(MetadataKey<Ascii>, MetadataValue<Ascii>)>,
    connect_timeout: Duration,
    channel: OnceCell<Channel>,
}

impl Grpc {
    /// A connection to `url`, with `auth`'s credentials on every call.
    ///
    /// # Errors
    /// SigV4 ([`Error::Unsupported`]), or credentials that are not valid metadata.
    pub(crate) fn new(url: &str, connect_timeout: Duration, auth: &Auth) -> Result<Self, Error> {
        let credentials = match auth.grpc_metadata()? {
            Some((name, value)) => {
                let key = MetadataKey::from_bytes(name.as_bytes())
                    .map_err(|_| Error::Config(format!("{name:?} is not valid gRPC metadata")))?;
                let mut value = MetadataValue::try_from(value.as_str()).map_err(|_| {
                    Error::Config(format!("the value of {name:?} is not valid gRPC metadata"))
                })?;
                value.set_sensitive(true);
                Some((key, value))
            }
            None => None,
        };
        Ok(Self {
            url: url.to_owned(),
            credentials,
            connect_timeout,
            channel: OnceCell::new(),
        })
    }

    async fn client(&self) -> Result<A2aServiceClient<Channel>, Error> {
        let channel = self
            .channel
            .get_or_try_init(|| async {
                let endpoint = Endpoint::from_shared(self.url.clone())
                    .map_err(|error| Error::Config(format!("gRPC URL {:?}: {error}", self.url)))?
                    .connect_timeout(self.connect_timeout);
                endpoint
                    .connect()
                    .await
                    .map_err(|error| self.transport(&error))
            })
            .await?;
        Ok(A2aServiceClient::new(channel.clone()))
    }

    fn transport(&self, error: &dyn std::error::Error) -> Error {
        let mut detail = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            detail.push_str(": ");
            detail.push_str(&cause.to_string());
            source = cause.source();
        }
        Error::GrpcTransport {
            url: self.url.clone(),
            detail,
        }
    }

    /// The refusal a status stands for; a status without A2A details (a connection that
    /// failed) as a transport error.
    fn refusal(&self, grpc: &tonic::Status) -> Error {
        if grpc.code() == tonic::Code::Unavailable && grpc.details().is_empty() {
            return self.transport(grpc);
        }
        let (http_status, body) = status::to_json(grpc);
        crate::rest::error(
            &self.url,
            http_status.as_u16(),
            Some("application/json"),
            &body,
        )
    }

    fn request<T>(&self, message: T, session_id: &str) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let metadata = request.metadata_mut();
        for (name, value) in [
            (a2a_lambda_core::agentcore::SESSION_HEADER, session_id),
            (a2a_lambda_core::version::VERSION_HEADER, "1.0"),
        ] {
            let key = MetadataKey::from_bytes(name.to_ascii_lowercase().as_bytes());
            if let (Ok(key), Ok(value)) = (key, MetadataValue::try_from(value)) {
                metadata.insert(key, value);
            }
        }
        if let Some((key, value)) = &self.credentials {
            metadata.insert(key.clone(), value.clone());
        }
        #[cfg(feature = "otel")]
        {
            let mut context = reqwest::header::HeaderMap::new();
            crate::trace_context::inject(&mut context);
            for (name, value) in &context {
                let key = MetadataKey::from_bytes(name.as_str().as_bytes());
                if let (Ok(key), Ok(value)) = (key, MetadataValue::try_from(value.as_bytes())) {
                    metadata.insert(key, value);
                }
            }
        }
        request
    }

    fn message<T: DeserializeOwned>(&self, params: &Value) -> Result<T, Error> {
        serde_json::from_value(params.clone()).map_err(|error| {
            Error::Config(format!(
                "the request does not fit its gRPC message: {error}"
            ))
        })
    }

    fn json<T: Serialize>(&self, message: &T) -> Result<Box<RawValue>, Error> {
        serde_json::value::to_raw_value(message)
            .map_err(|error| Error::invalid(&self.url, error.to_string()))
    }

    /// One unary call: the result as the HTTP+JSON binding's body would carry it.
    pub(crate) async fn unary(
        &self,
        operation: Operation,
        params: &Value,
        session_id: &str,
    ) -> Result<Box<RawValue>, Error> {
        let mut client = self.client().await?;
        let answer = match operation {
            Operation::Send => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .send_message(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::GetTask => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .get_task(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::ListTasks => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .list_tasks(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::CancelTask => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .cancel_task(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::SetPushConfig => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .create_task_push_notification_config(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::GetPushConfig => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .get_task_push_notification_config(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::ListPushConfigs => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .list_task_push_notification_configs(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::DeletePushConfig => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .delete_task_push_notification_config(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            Operation::GetExtendedCard => {
                let request = self.request(self.message(params)?, session_id);
                client
                    .get_extended_agent_card(request)
                    .await
                    .map(|r| self.json(r.get_ref()))
            }
            _ => {
                return Err(Error::Unsupported {
                    operation: "this operation",
                    reason: "the gRPC binding has no unary RPC for it".to_owned(),
                });
            }
        };
        answer.map_err(|grpc| self.refusal(&grpc))?
    }

    /// A server-streaming call (send or subscribe): its responses as the HTTP+JSON
    /// binding's SSE body (`data:` a `StreamResponse`; a final status that is not OK as
    /// `event: error` with its `google.rpc.Status`).
    pub(crate) async fn stream(
        &self,
        operation: Operation,
        params: &Value,
        session_id: &str,
    ) -> Result<Body, Error> {
        let mut client = self.client().await?;
        let responses = match operation {
            Operation::Stream => {
                let request =
                    self.request(self.message::<v1::SendMessageRequest>(params)?, session_id);
                client.send_streaming_message(request).await
            }
            Operation::Subscribe => {
                let request = self.request(
                    self.message::<v1::SubscribeToTaskRequest>(params)?,
                    session_id,
                );
                client.subscribe_to_task(request).await
            }
            _ => {
                return Err(Error::Unsupported {
                    operation: "this operation",
                    reason: "the gRPC binding has no streaming RPC for it".to_owned(),
                });
            }
        }
        .map_err(|grpc| self.refusal(&grpc))?
        .into_inner();
        let events = responses.map(|item| {
            let event = match item {
                Ok(response) => {
                    let json = serde_json::to_string(&response).unwrap_or_default();
                    format!("data: {json}\n\n")
                }
                Err(grpc) => {
                    let (_, body) = status::to_json(&grpc);
                    format!("event: error\ndata: {}\n\n", String::from_utf8_lossy(&body))
                }
            };
            Ok(Bytes::from(event))
        });
        Ok(Box::pin(events))
    }
}
