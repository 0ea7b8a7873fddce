//! The front as one tower stack, its steps in AgentCore's order.

use std::sync::Arc;

use tower::ServiceBuilder;

#[cfg(feature = "auth")]
use super::auth::InboundAuthLayer;
use super::body_limit::BodyLimitLayer;
use super::card::InvocationCardLayer;
use super::container::Container;
use super::container_call::ContainerCall;
use super::emulator_paths::EmulatorPathsLayer;
use super::endpoint::EndpointLayer;
use super::explain::ExplainLayer;
use super::faults::FaultsLayer;
use super::header_filter::HeaderAllowlistLayer;
use super::request_id::PlatformRequestIdLayer;
use super::routes::RouteLayer;
use super::runtime_client_error::RuntimeClientErrorLayer;
use super::session_entry::SessionEntryLayer;
use super::session_header::SessionHeaderLayer;
use super::session_name::SessionName;
use super::sessions::Sessions;
use super::stop_session::StopSessionLayer;
use super::stream_end::StreamBoundLayer;
use super::throttle::ThrottleLayer;
use super::trace_echo::TraceEchoLayer;
use super::{FrontConfig, FrontService, InvalidSessionId};
use crate::inspector::RecordLayer;

/// The front over `sessions`: what AgentCore Runtime does between a client and the
/// session's container, one step a layer, top to bottom in the order AgentCore does it.
/// A step either answers (a refusal, a card, a stop) or passes the request on, and may
/// change the answer on its way back; the journal reads what the steps noted on it. Every
/// refusal names its AWS exception in `x-amzn-ErrorType` (`front/errors.rs`), as AWS's SDKs
/// expect.
///
/// | Step | What AgentCore does | Layer's file (`emulator/src/…`) |
/// |---|---|---|
/// | emulator paths | nothing: `/_emulator/*` (readiness, webhook sinks, inspector) is the client's side, and `/v1/traces`, `/v1/metrics` the OTLP receiver's, answered outside the platform | `front/emulator_paths.rs` (`readiness.rs`, `telemetry/`) |
/// | record | nothing: the inspector's journal of what the steps did | `inspector/recorder.rs` |
/// | request id | gives each request `X-Amzn-Bedrock-AgentCore-Runtime-Request-Id`, to the container and on the answer (there also as AWS's `x-amzn-RequestId`) | `front/request_id.rs` |
/// | inbound auth | SigV4 (403 `AccessDeniedException`) or a `customJWTAuthorizer` (401, RFC 9728 metadata); `auth` feature | `front/auth/layer.rs` (`sigv4.rs`, `jwt.rs`) |
/// | route | reads the path: the container's `/`, card and `/ping`, or `/runtimes/{ARN or id}/…` | `front/routes.rs` |
/// | trace echo | returns the caller's `X-Amzn-Trace-Id`, `traceparent`, `tracestate`, `baggage` on an invocation's answer, as InvokeAgentRuntime's model maps them | `front/trace_echo.rs` |
/// | StopRuntimeSession | ends a session (restJson1 answers, `clientToken`) | `front/stop_session.rs` |
/// | session header | checks the session id (400 -32052), starts a new session when there is none, returns it on every answer | `front/session_header.rs` |
/// | endpoint | 404 -32051 for an unknown path, runtime or `?qualifier=`; the container sees `/` | `front/endpoint.rs` |
/// | invocation card | serves the card on the invocation path, its URLs pointing there | `front/card.rs` |
/// | payload limit | 400 -32052 past 100 MB (`--max-body-bytes`) | `front/body_limit.rs` |
/// | throttle | 429 -32053 past 25 invocations a second (`--rate-limit`) | `front/throttle.rs` |
/// | faults | nothing: `--fault` latency, refusals, a lost session, a cut stream | `front/faults.rs` (`stream_cut.rs`) |
/// | session entry | one microVM a session: 409 -32054 while it starts or stops, 402 past the quota, the start awaited | `front/session_entry.rs` (`sessions.rs`) |
/// | header allowlist | passes the allowlisted caller headers and its own (session id, `WorkloadAccessToken`) | `front/header_filter.rs` (`allowlist.rs`, `workload_token.rs`) |
/// | runtime client error | 424 -32055 when the container cannot answer in time | `front/runtime_client_error.rs` |
/// | explain | nothing on the wire: logs where a task not found lives | `front/explain.rs` (`task_index.rs`) |
/// | stream bound | cuts a stream at 60 minutes (`--max-stream-seconds`) or when its session ends | `front/stream_end.rs` |
/// | container call | calls the session's container (`--request-timeout`) | `front/container_call.rs` (`container.rs`) |
///
/// Each step's future is boxed: a few allocations a request, in a development tool whose
/// point is that this order can be read here.
///
/// # Errors
/// [`InvalidSessionId`] when `config.default_session` cannot be sent as a header.
pub fn stack(
    config: FrontConfig,
    sessions: Arc<Sessions>,
    template: Container,
) -> Result<impl FrontService, InvalidSessionId> {
    let default_session = SessionName::from_text(config.default_session.clone())
        .ok_or_else(|| InvalidSessionId(config.default_session.clone()))?;
    let FrontConfig {
        base_url,
        runtime_arn,
        max_body_bytes,
        rate_limit,
        faults,
        request_timeout,
        interface_path,
        request_header_allowlist,
        #[cfg(feature = "auth")]
        auth,
        max_stream,
        qualifier,
        webhooks,
        journal,
        telemetry,
        ..
    } = config;
    #[cfg(feature = "auth")]
    let auth = auth.map(|guard| InboundAuthLayer::new(guard, &base_url, max_body_bytes));
    // Without the `auth` feature there is no check to add.
    #[cfg(not(feature = "auth"))]
    let auth = None::<tower::layer::util::Identity>;
    let stop = StopSessionLayer::new(
        Arc::clone(&sessions),
        runtime_arn.clone(),
        qualifier.clone(),
    );
    let session_header = SessionHeaderLayer::new(default_session, max_body_bytes);
    let card = InvocationCardLayer::new(base_url, template, request_timeout);
    let faults = faults.map(|faults| FaultsLayer::new(faults, Arc::clone(&sessions)));
    let allowlist = HeaderAllowlistLayer::new(request_header_allowlist);
    Ok(ServiceBuilder::new()
        .layer(EmulatorPathsLayer::new(
            Arc::clone(&sessions),
            webhooks,
            journal.clone(),
            telemetry,
        )) // /_emulator/*, and the OTLP receiver's /v1/*
        .option_layer(journal.map(RecordLayer::new)) // the inspector's journal
        .layer(PlatformRequestIdLayer) // the request id, in and out
        .option_layer(auth) // SigV4 403, JWT 401
        .layer(RouteLayer::new(interface_path.as_deref())) // which path
        .layer(TraceEchoLayer) // the trace context on the invocation's answer
        .layer(stop) // StopRuntimeSession
        .layer(session_header) // 400, or the session named; echoed
        .layer(EndpointLayer::new(runtime_arn, qualifier)) // 404
        .layer(card) // the invocation path's card
        .layer(BodyLimitLayer::new(max_body_bytes)) // 400
        .option_layer(rate_limit.map(ThrottleLayer::new)) // 429
        .option_layer(faults) // --fault
        .layer(SessionEntryLayer::new(sessions)) // 409, 402, the start awaited
        .layer(allowlist) // the headers the container gets
        .layer(RuntimeClientErrorLayer) // 424
        .layer(ExplainLayer::default()) // log lines only
        .layer(StreamBoundLayer::new(max_stream)) // 60 minutes, or the session's end
        .service(ContainerCall::new(request_timeout))) // the session's container
}
