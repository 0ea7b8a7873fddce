//! The gRPC binding of A2A v1.0 (A2A specification §10): the `A2AService` of the
//! specification's `a2a.proto`, over the same engine, task store, owner rules, streams and
//! push notifications as JSON-RPC and HTTP+JSON.
//!
//! Each RPC hands its request to [`Engine::handle_operation`], the HTTP+JSON binding's
//! entry point, as the v1.0 JSON object it is in ProtoJSON (the prost messages' pbjson
//! serde impls; see [`a2a_lambda_core::grpc`]), and reads the reply back the same way: one
//! parser, one place per operation, for the three bindings. A refusal is the HTTP+JSON
//! binding's `google.rpc.Status` sent as a gRPC status with its `ErrorInfo`
//! ([`a2a_lambda_core::grpc::status`]); the two streaming RPCs are server streams of
//! `StreamResponse`, an error that ends one its final status.
//!
//! The caller is the one the host's identity step puts in the request's extensions (the
//! same [`Owner`](crate::owner::Owner) rules as the other bindings); the metadata carries
//! what the HTTP headers do (`x-amzn-bedrock-agentcore-runtime-session-id`,
//! `x-request-id`).

use std::pin::Pin;
use std::sync::Arc;

use futures_util::{Stream, StreamExt as _};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tonic::{Request, Response, Status};

use crate::engine::{CallContext, Engine, Reply};
use a2a_lambda_core::grpc::status;
use a2a_lambda_core::grpc::v1;
use a2a_lambda_core::grpc::v1::a2a_service_server::{A2aService, A2aServiceServer};
use a2a_lambda_core::version::Operation;

/// A server stream of `StreamResponse`s.
pub(crate) type ResponseStream =
    Pin<Box<dyn Stream<Item = Result<v1::StreamResponse, Status>> + Send>>;

/// The `A2AService` over an engine.
#[derive(Clone)]
pub(crate) struct GrpcService {
    engine: Arc<Engine>,
}

/// The path of the service's calls (`/{package}.{service}/{method}`), on their spans.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
const GRPC_SERVICE_PATH: &str = "/lf.a2a.v1.A2AService";

impl GrpcService {
    /// The service over `engine`, as tonic serves it; `max_message_bytes` bounds a
    /// request's message (tonic's default is 4 MiB; the hosts take the HTTP bindings' body
    /// limit).
    pub(crate) fn server(engine: Arc<Engine>, max_message_bytes: usize) -> A2aServiceServer<Self> {
        A2aServiceServer::new(Self { engine })
            .max_decoding_message_size(max_message_bytes)
            .max_encoding_message_size(usize::MAX)
    }

    async fn call<Req: Serialize>(
        &self,
        operation: Operation,
        request: Request<Req>,
    ) -> Result<Reply, Status> {
        let call = call_context(&request);
        let params = serde_json::value::to_raw_value(request.get_ref())
            .map_err(|error| Status::invalid_argument(error.to_string()))?;
        // The call's server span (telemetry on), continuing the trace in its metadata.
        #[cfg(feature = "otel")]
        let span = if crate::telemetry::is_on() {
            crate::telemetry::request(
                &axum::http::Method::POST,
                GRPC_SERVICE_PATH,
                &request.metadata().clone().into_headers(),
            )
        } else {
            None
        };
        #[cfg(not(feature = "otel"))]
        let span = None;
        let handled = self
            .engine
            .handle_operation_of("grpc", operation, Some(&params), &call);
        Ok(crate::telemetry::in_span(handled, span).await)
    }

    async fn unary<Req: Serialize, Res: DeserializeOwned>(
        &self,
        operation: Operation,
        request: Request<Req>,
    ) -> Result<Response<Res>, Status> {
        match self.call(operation, request).await? {
            Reply::Json { status, body } if status.is_success() => serde_json::from_slice(&body)
                .map(Response::new)
                .map_err(|error| internal(&error)),
            Reply::Json { body, .. } => Err(refusal(&body)),
            Reply::Stream(_) => Err(Status::internal("a stream answered a unary call")),
        }
    }

    async fn stream<Req: Serialize>(
        &self,
        operation: Operation,
        request: Request<Req>,
    ) -> Result<Response<ResponseStream>, Status> {
        match self.call(operation, request).await? {
            Reply::Stream(events) => {
                let responses = events.map(|item| {
                    if item.error {
                        Err(refusal(&item.json))
                    } else {
                        serde_json::from_slice::<v1::StreamResponse>(&item.json)
                            .map_err(|error| internal(&error))
                    }
                });
                Ok(Response::new(Box::pin(responses)))
            }
            Reply::Json { body, .. } => Err(refusal(&body)),
        }
    }
}

/// The gRPC status of the HTTP+JSON binding's refusal body.
fn refusal(body: &[u8]) -> Status {
    status::from_json(body).unwrap_or_else(|| Status::internal("Internal error"))
}

/// A reply the binding cannot read: the engine's fault, logged, never the caller's.
fn internal(error: &serde_json::Error) -> Status {
    tracing::error!(%error, "grpc: the engine's reply does not read as its message");
    Status::internal("Internal error")
}

/// What the engine knows of a gRPC call: the metadata as the HTTP bindings' headers, the
/// caller from the extensions.
fn call_context<T>(request: &Request<T>) -> CallContext {
    let metadata = request.metadata();
    let text = |name: &str| {
        metadata
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let headers = metadata.clone().into_headers();
    CallContext {
        version_header: text(a2a_lambda_core::version::VERSION_HEADER),
        query: None,
        session_id: text(crate::http::SESSION_HEADER),
        request_id: text(crate::http::REQUEST_ID_HEADER)
            .unwrap_or_else(a2a_lambda_core::model::new_id),
        last_event_id: None,
        platform: crate::platform::Platform::from_headers(&headers).map(Arc::new),
        owner: request
            .extensions()
            .get::<crate::owner::Owner>()
            .cloned()
            .unwrap_or_default(),
    }
}

#[tonic::async_trait]
impl A2aService for GrpcService {
    async fn send_message(
        &self,
        request: Request<v1::SendMessageRequest>,
    ) -> Result<Response<v1::SendMessageResponse>, Status> {
        self.unary(Operation::Send, request).await
    }

    type SendStreamingMessageStream = ResponseStream;

    async fn send_streaming_message(
        &self,
        request: Request<v1::SendMessageRequest>,
    ) -> Result<Response<ResponseStream>, Status> {
        self.stream(Operation::Stream, request).await
    }

    async fn get_task(
        &self,
        request: Request<v1::GetTaskRequest>,
    ) -> Result<Response<v1::Task>, Status> {
        self.unary(Operation::GetTask, request).await
    }

    async fn list_tasks(
        &self,
        request: Request<v1::ListTasksRequest>,
    ) -> Result<Response<v1::ListTasksResponse>, Status> {
        self.unary(Operation::ListTasks, request).await
    }

    async fn cancel_task(
        &self,
        request: Request<v1::CancelTaskRequest>,
    ) -> Result<Response<v1::Task>, Status> {
        self.unary(Operation::CancelTask, request).await
    }

    type SubscribeToTaskStream = ResponseStream;

    async fn subscribe_to_task(
        &self,
        request: Request<v1::SubscribeToTaskRequest>,
    ) -> Result<Response<ResponseStream>, Status> {
        self.stream(Operation::Subscribe, request).await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<v1::TaskPushNotificationConfig>,
    ) -> Result<Response<v1::TaskPushNotificationConfig>, Status> {
        self.unary(Operation::SetPushConfig, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<v1::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v1::TaskPushNotificationConfig>, Status> {
        self.unary(Operation::GetPushConfig, request).await
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<v1::ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<v1::ListTaskPushNotificationConfigsResponse>, Status> {
        self.unary(Operation::ListPushConfigs, request).await
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<v1::GetExtendedAgentCardRequest>,
    ) -> Result<Response<v1::AgentCard>, Status> {
        self.unary(Operation::GetExtendedCard, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<v1::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<a2a_lambda_core::grpc::Empty>, Status> {
        match self.call(Operation::DeletePushConfig, request).await? {
            Reply::Json { status, .. } if status.is_success() => {
                Ok(Response::new(a2a_lambda_core::grpc::Empty {}))
            }
            Reply::Json { body, .. } => Err(refusal(&body)),
            Reply::Stream(_) => Err(Status::internal("a stream answered a unary call")),
        }
    }
}
