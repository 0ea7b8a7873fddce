#![allow(clippy::expect_used, clippy::unwrap_used)]
//! One trace across agents (feature `otel`): a caller's span → the emulator's front →
//! the container's server span → the agent's run → its `a2a-lambda-client` call to a
//! second agent → that agent's server span and run, every span parented on the one before,
//! read back from an OTLP/HTTP test receiver.
//!
//! Telemetry is configured by the process's environment, so the chain runs in a child
//! process of this test binary (`chain_in_a_child`, ignored when run alone) with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a receiver this test serves.

use a2a_lambda_client::Client;
use a2a_lambda_client::model::SendResult;
use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::card::AgentCard;
use a2a_lambda_server::model::Artifact;
use a2a_lambda_server::{Agent, AgentError, EventSink, RequestContext};
use a2a_test_support::otlp::{Receiver, Span};
use tracing::Instrument as _;

const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/traced-Zz98Yy76Xx";
const SESSION: &str = "otel-trace-session-0000000000000000000000";

/// Answers with what the next agent answered to the same text.
struct RelayAgent {
    next: String,
}

impl Agent for RelayAgent {
    fn card(&self) -> AgentCard {
        AgentCard::new("Relay Agent", "Asks the next agent.", "1.0.0").with_skill(
            a2a_lambda_server::card::Skill::new(
                "relay",
                "Relay",
                "Asks the next agent.",
                ["relay"],
            ),
        )
    }

    async fn execute(&self, context: RequestContext, events: EventSink) -> Result<(), AgentError> {
        // The agent's own span and log event, as an agent written with `tracing` makes them.
        let client = Client::builder(&self.next)
            .connect()
            .instrument(tracing::info_span!("relay.connect"))
            .await?;
        tracing::warn!("asking the next agent");
        let answer = client.send_text(&context.message.joined_text()).await?;
        let SendResult::Task(task) = answer else {
            return Err("the next agent answered without a task".into());
        };
        let echoed = task.artifacts.len().to_string();
        events.artifact(Artifact::text("relayed", echoed)).await?;
        events.complete().await?;
        Ok(())
    }
}

/// The chain itself, in the child process (its environment points telemetry at the
/// parent's receiver).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by one_trace_from_the_caller_through_the_front_to_the_next_agent"]
async fn chain_in_a_child() {
    let _logs = a2a_lambda_server::serve::init_logging(a2a_lambda_server::serve::LogFormat::Text);
    assert!(a2a_lambda_server::host::telemetry::is_on());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let next = format!("http://{}", listener.local_addr().unwrap());
    let router = a2a_lambda_server::router(EchoAgent, &next).unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });

    let emulator = a2a_lambda_emulator::Emulator::new(RelayAgent { next })
        .address("127.0.0.1:0".parse().unwrap())
        .start()
        .await
        .unwrap();
    let caller = tracing::info_span!("caller");
    async {
        let client = Client::builder(emulator.invocation_url(ARN))
            .session_id(SESSION)
            .connect()
            .await
            .unwrap();
        let answer = client.send_text("hello").await.unwrap();
        assert!(matches!(answer, SendResult::Task(_)), "{answer:?}");
    }
    .instrument(caller)
    .await;
    a2a_lambda_server::host::telemetry::flush().await;
}

/// The same over gRPC, in a child too: our client's call carries the caller's context in
/// its metadata, and the container's gRPC server span continues it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_grpc_call_continues_the_callers_trace"]
async fn grpc_in_a_child() {
    let _logs = a2a_lambda_server::serve::init_logging(a2a_lambda_server::serve::LogFormat::Text);
    let config = a2a_lambda_server::serve::ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" | "A2A_GRPC_PORT" => "0",
                "A2A_BINDINGS" => "jsonrpc,grpc",
                _ => return None,
            }
            .to_owned(),
        )
    })
    .unwrap();
    let running = a2a_lambda_server::serve::Container::with_config(EchoAgent, config)
        .bind()
        .await
        .unwrap();
    let caller = tracing::info_span!("grpc caller");
    async {
        let client = Client::builder(running.url())
            .binding(a2a_lambda_client::Binding::Grpc)
            .connect()
            .await
            .unwrap();
        let answer = client.send_text("over grpc").await.unwrap();
        assert!(matches!(answer, SendResult::Task(_)), "{answer:?}");
    }
    .instrument(caller)
    .await;
    a2a_lambda_server::host::telemetry::flush().await;
}

#[tokio::test]
async fn a_grpc_call_continues_the_callers_trace() {
    let receiver = Receiver::start().await;
    let status = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args(["grpc_in_a_child", "--exact", "--ignored", "--nocapture"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .env("OTEL_METRICS_EXPORTER", "none")
        .status()
        .await
        .unwrap();
    assert!(status.success(), "the gRPC call failed: {status}");
    let spans = receiver.spans();
    let caller = one_named(&spans, |span| span.name == "grpc caller", "caller");
    let send = one_named(
        &spans,
        |span| span.attribute("rpc.method") == "SendMessage",
        "send",
    );
    assert_eq!(send.trace, caller.trace);
    assert_eq!(
        send.parent, caller.id,
        "the gRPC server span continues the caller's"
    );
    assert_eq!(send.kind, 2);
    assert_eq!(send.attribute("rpc.system.name"), "grpc");
    assert_eq!(send.attribute("a2a.binding"), "GRPC");
    let run = one_named(&spans, |span| span.name == "invoke_agent Echo Agent", "run");
    assert_eq!(run.parent, send.id);
}

fn one_named<'a>(spans: &'a [Span], what: impl Fn(&Span) -> bool, label: &str) -> &'a Span {
    let found: Vec<_> = spans.iter().filter(|span| what(span)).collect();
    assert_eq!(
        found.len(),
        1,
        "one {label} span, got {found:#?} among {spans:#?}"
    );
    found[0]
}

#[tokio::test]
async fn one_trace_from_the_caller_through_the_front_to_the_next_agent() {
    let receiver = Receiver::start().await;
    let status = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args(["chain_in_a_child", "--exact", "--ignored", "--nocapture"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .env("OTEL_METRICS_EXPORTER", "none")
        .env("OTEL_SERVICE_NAME", "traced-test")
        .status()
        .await
        .unwrap();
    assert!(status.success(), "the chain failed: {status}");
    let spans = receiver.spans();

    // One trace, begun by the caller.
    let caller = one_named(&spans, |span| span.name == "caller", "caller");
    assert_eq!(caller.parent, "", "the caller's span is the root");
    for span in &spans {
        assert_eq!(
            span.trace, caller.trace,
            "every span in the caller's trace: {span:#?}"
        );
    }

    // The front: a server span (kind 2), child of the caller's, carrying the session.
    let front = one_named(
        &spans,
        |span| span.name.starts_with("AgentCore POST /runtimes/"),
        "front",
    );
    assert_eq!(front.parent, caller.id);
    assert_eq!(front.kind, 2, "SPAN_KIND_SERVER");
    assert_eq!(front.attributes["session.id"], SESSION);

    // The container: its server span for the send, child of the front's.
    let sends: Vec<_> = spans
        .iter()
        .filter(|span| {
            span.attributes
                .get("rpc.method")
                .is_some_and(|method| method == "SendMessage")
        })
        .collect();
    assert_eq!(sends.len(), 2, "one send per agent: {sends:#?}");
    let first = sends
        .iter()
        .find(|span| span.parent == front.id)
        .expect("the container's send under the front");
    assert_eq!(first.kind, 2);
    assert_eq!(first.name, "SendMessage", "named after its method");
    assert_eq!(first.attributes["rpc.system.name"], "jsonrpc");
    assert_eq!(first.attributes["a2a.protocol.version"], "1.0");
    assert_eq!(first.attributes["a2a.binding"], "JSONRPC");
    assert_eq!(first.attributes["http.response.status_code"], "200");
    assert_eq!(first.attributes["session.id"], SESSION);
    assert!(!first.attributes["a2a.task.id"].is_empty());

    // The relay's run, child of its send; the next agent's send, child of that run.
    let relay = one_named(
        &spans,
        |span| span.name == "invoke_agent Relay Agent",
        "relay run",
    );
    assert_eq!(relay.parent, first.id);
    assert_eq!(relay.attributes["gen_ai.operation.name"], "invoke_agent");
    // The agent's own span and its warning, in its run.
    let connect = one_named(&spans, |span| span.name == "relay.connect", "connect");
    assert_eq!(connect.parent, relay.id);
    assert_eq!(relay.events, ["asking the next agent"]);
    assert_eq!(
        relay.attributes["gen_ai.conversation.id"],
        first.attributes["a2a.context.id"]
    );
    let second = sends
        .iter()
        .find(|span| span.parent == relay.id)
        .expect("the next agent's send under the relay's run");
    let echo = one_named(
        &spans,
        |span| span.name == "invoke_agent Echo Agent",
        "echo run",
    );
    assert_eq!(echo.parent, second.id);

    // The in-memory store's calls are not traced (map lookups): only a shared store's.
    assert!(
        !spans.iter().any(|span| span.name.starts_with("task_store")),
        "no store spans for the in-memory store: {spans:#?}"
    );
}

/// The emulator binary (built with `otel`) with no `OTEL_*` endpoint exports its front's
/// spans and its in-process agent's to its own OTLP receiver: the inspector's API shows
/// the caller's trace continued through the front into the agent.
#[tokio::test]
async fn the_emulator_reads_back_its_own_trace_without_any_configuration() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let binary = a2a_test_support::harness::binary("a2a-lambda-emulator", "a2a-emulator");
    let mut emulator = tokio::process::Command::new(binary)
        .args([
            "--host",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--rate-limit",
            "0",
        ])
        .env_clear()
        .env("OTEL_BSP_SCHEDULE_DELAY", "50")
        .env("OTEL_METRIC_EXPORT_INTERVAL", "100")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let ready = async {
        while http
            .get(format!("{base}/_emulator/ready"))
            .send()
            .await
            .is_err()
        {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), ready)
        .await
        .expect("the emulator listens");

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let caller_span = "00f067aa0ba902b7";
    let invocation = format!(
        "{base}/runtimes/{}/invocations",
        ARN.replace(':', "%3A").replace('/', "%2F")
    );
    let sent = http
        .post(invocation)
        .header("content-type", "application/json")
        .header("a2a-version", "1.0")
        .header("x-amzn-bedrock-agentcore-runtime-session-id", SESSION)
        .header("traceparent", format!("00-{trace_id}-{caller_span}-01"))
        .body(
            r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}]}}}"#,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status(), 200);

    let read_back = async {
        loop {
            let answer = http
                .get(format!("{base}/_emulator/api/traces/{trace_id}"))
                .send()
                .await
                .unwrap();
            if answer.status() == 200 {
                let trace: serde_json::Value = answer.json().await.unwrap();
                let spans = trace["spans"].as_array().cloned().unwrap_or_default();
                if spans.iter().any(|span| {
                    span["name"]
                        .as_str()
                        .is_some_and(|name| name.starts_with("invoke_agent "))
                }) {
                    return spans;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    let spans = tokio::time::timeout(std::time::Duration::from_secs(20), read_back)
        .await
        .expect("the trace reaches the emulator's receiver");
    let named = |prefix: &str| {
        spans
            .iter()
            .find(|span| {
                span["name"]
                    .as_str()
                    .is_some_and(|name| name.starts_with(prefix))
            })
            .unwrap_or_else(|| panic!("a span {prefix}…: {spans:#?}"))
            .clone()
    };
    let front = named("AgentCore POST /runtimes/");
    let send = named("SendMessage");
    let run = named("invoke_agent ");
    assert_eq!(front["parentSpanId"], caller_span);
    assert_eq!(front["kind"], "server");
    assert_eq!(send["parentSpanId"], front["spanId"]);
    assert_eq!(run["parentSpanId"], send["spanId"]);
    assert_eq!(front["attributes"]["session.id"], SESSION);

    // The metrics too: the call's duration by system and method, the task's transitions.
    let metrics = async {
        loop {
            let answer: serde_json::Value = http
                .get(format!("{base}/_emulator/api/metrics"))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let metrics = answer["metrics"].as_array().cloned().unwrap_or_default();
            let named = |name: &str| metrics.iter().any(|metric| metric["name"] == name);
            if named("rpc.server.call.duration") && named("a2a.task.transitions") {
                return metrics;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    let metrics = tokio::time::timeout(std::time::Duration::from_secs(20), metrics)
        .await
        .expect("the metrics reach the emulator's receiver");
    let call = metrics
        .iter()
        .find(|metric| metric["name"] == "rpc.server.call.duration")
        .unwrap();
    assert_eq!(call["unit"], "s");
    assert_eq!(call["attributes"]["rpc.system.name"], "jsonrpc");
    assert_eq!(call["attributes"]["rpc.method"], "SendMessage");
    assert!(
        metrics
            .iter()
            .any(|metric| metric["name"] == "a2a.task.transitions"
                && metric["attributes"]["a2a.task.state"] == "TASK_STATE_COMPLETED"),
        "{metrics:#?}"
    );
    let _ = emulator.kill().await;
}
