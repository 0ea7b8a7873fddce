//! An OTLP/HTTP receiver of spans for the telemetry tests: `POST /v1/traces` in protobuf
//! or JSON (what an exporter's `OTEL_EXPORTER_OTLP_PROTOCOL` chooses), every span kept
//! with its ids and attributes as text; `POST /v1/metrics` accepted and dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::HeaderMap;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::AnyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use prost::Message as _;

/// One span as received: ids in lowercase hex (`parent` empty for a root).
#[derive(Debug, Clone)]
pub struct Span {
    /// The trace id.
    pub trace: String,
    /// The span id.
    pub id: String,
    /// The parent span id, empty for a root.
    pub parent: String,
    /// The name.
    pub name: String,
    /// OTLP's `SpanKind` number (2 server, 3 client, 1 internal).
    pub kind: i32,
    /// Whether the span ended with an error status.
    pub error: bool,
    /// The attributes, each as text.
    pub attributes: HashMap<String, String>,
    /// The resource's `service.name`.
    pub service: String,
    /// The names of its events (a log event's message), in order.
    pub events: Vec<String>,
}

impl Span {
    /// The attribute `key`, empty when absent.
    pub fn attribute(&self, key: &str) -> &str {
        self.attributes.get(key).map_or("", String::as_str)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|value| value.value.as_ref()) {
        Some(Value::StringValue(text)) => text.clone(),
        Some(Value::IntValue(number)) => number.to_string(),
        Some(Value::BoolValue(flag)) => flag.to_string(),
        Some(Value::DoubleValue(number)) => number.to_string(),
        _ => String::new(),
    }
}

/// A running receiver.
#[derive(Debug, Clone)]
pub struct Receiver {
    url: String,
    spans: Arc<Mutex<Vec<Span>>>,
}

impl Receiver {
    /// Serves on a free local port until the test's runtime ends.
    pub async fn start() -> Self {
        let spans = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&spans);
        let app = axum::Router::new()
            .route(
                "/v1/traces",
                axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                    let kept = Arc::clone(&kept);
                    async move {
                        let json = headers
                            .get("content-type")
                            .is_some_and(|value| value.as_bytes().starts_with(b"application/json"));
                        let request: ExportTraceServiceRequest = if json {
                            serde_json::from_slice(&body).expect("an OTLP JSON export")
                        } else {
                            ExportTraceServiceRequest::decode(body)
                                .expect("an OTLP protobuf export")
                        };
                        keep(&kept, request);
                        (
                            [("content-type", "application/x-protobuf")],
                            Vec::<u8>::new(),
                        )
                    }
                }),
            )
            .route("/v1/metrics", axum::routing::post(|| async { "" }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { url, spans }
    }

    /// The endpoint to give an exporter (`OTEL_EXPORTER_OTLP_ENDPOINT`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Span> {
        self.spans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits (up to `limit`) until a span satisfies `wanted`; every span received then.
    ///
    /// # Panics
    /// None came in time.
    pub async fn wait_for(&self, limit: Duration, wanted: impl Fn(&Span) -> bool) -> Vec<Span> {
        let until = Instant::now() + limit;
        loop {
            let spans = self.spans();
            if spans.iter().any(&wanted) {
                return spans;
            }
            assert!(
                Instant::now() < until,
                "the span waited for never came: {spans:#?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn keep(kept: &Mutex<Vec<Span>>, request: ExportTraceServiceRequest) {
    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
    for resource in request.resource_spans {
        let service = resource
            .resource
            .as_ref()
            .and_then(|resource| {
                resource
                    .attributes
                    .iter()
                    .find(|pair| pair.key == "service.name")
            })
            .map(|pair| text(pair.value.as_ref()))
            .unwrap_or_default();
        for scope in resource.scope_spans {
            for span in scope.spans {
                kept.push(Span {
                    trace: hex(&span.trace_id),
                    id: hex(&span.span_id),
                    parent: hex(&span.parent_span_id),
                    name: span.name.clone(),
                    kind: span.kind,
                    // STATUS_CODE_ERROR
                    error: span.status.as_ref().is_some_and(|status| status.code == 2),
                    attributes: span
                        .attributes
                        .iter()
                        .map(|pair| (pair.key.clone(), text(pair.value.as_ref())))
                        .collect(),
                    service: service.clone(),
                    events: span.events.iter().map(|event| event.name.clone()).collect(),
                });
            }
        }
    }
}
