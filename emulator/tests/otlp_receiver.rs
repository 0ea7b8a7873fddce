//! The emulator's OTLP/HTTP receiver through the library: exports in protobuf, OTLP JSON
//! and gzip, the answers OTLP/HTTP defines (200 with an `Export*ServiceResponse`, partial
//! success, 400/413/415 with a `google.rpc.Status`), the bounds, what the API
//! (`/_emulator/api/traces`, `/_emulator/api/metrics`) and `Running::telemetry` show, and
//! the `OTEL_*` variables an `--agent-cmd` process is given.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::Write as _;
use std::time::Duration;

use a2a_lambda_emulator::telemetry::{MAX_TRACES, SpanKind, SpanStatus};
use a2a_lambda_emulator::{Emulator, InvocationFilter, Running};
use a2a_lambda_server::agents::EchoAgent;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message as _;
use serde_json::{Value, json};

const STEP: Duration = Duration::from_secs(10);
const TRACE: &str = "5b8efff798038103d269b633813fc60c";
const SESSION_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-session-id";

/// `google.rpc.Status` as a client decodes it.
#[derive(Clone, PartialEq, prost::Message)]
struct Status {
    #[prost(int32, tag = "1")]
    code: i32,
    #[prost(string, tag = "2")]
    message: String,
}

async fn start() -> Running {
    Emulator::new(EchoAgent).start().await.unwrap()
}

async fn post(
    emulator: &Running,
    path: &str,
    content_type: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
) -> (u16, String, Vec<u8>) {
    let mut request = reqwest::Client::new()
        .post(format!("{}{path}", emulator.url()))
        .header("content-type", content_type)
        .body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let reply = request.send().await.unwrap();
    let status = reply.status().as_u16();
    let content_type = reply
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, content_type, reply.bytes().await.unwrap().to_vec())
}

async fn api(emulator: &Running, path: &str) -> (u16, Value) {
    let reply = reqwest::Client::new()
        .get(format!("{}/_emulator/api/{path}", emulator.url()))
        .send()
        .await
        .unwrap();
    (reply.status().as_u16(), reply.json().await.unwrap())
}

/// Three spans of one trace in OTLP JSON as the specification's example writes them
/// (upper-case hex ids, 64-bit times as strings, integer enums, an unknown field): the
/// front's server span naming the session, the agent's span under it, and a store call
/// under that, which failed.
fn json_export() -> Value {
    json!({
        "resourceSpans": [{
            "resource": {"attributes": [
                {"key": "service.name", "value": {"stringValue": "echo-agent"}},
            ]},
            "scopeSpans": [{
                "scope": {"name": "a2a-lambda-server", "version": "0.1.0"},
                "spans": [
                    {
                        "traceId": TRACE.to_uppercase(),
                        "spanId": "EEE19B7EC3C1B174",
                        "name": "SendMessage",
                        "kind": 2,
                        "startTimeUnixNano": "1544712660000000000",
                        "endTimeUnixNano": "1544712661000000000",
                        "attributes": [
                            {"key": "session.id", "value": {"stringValue": "s-1"}},
                            {"key": "http.response.status_code", "value": {"intValue": "200"}},
                            {"key": "a2a.streaming", "value": {"boolValue": false}},
                        ],
                        "status": {},
                        "aFieldOtlpMayAddLater": 1,
                    },
                    {
                        "traceId": TRACE,
                        "spanId": "1111111111111111",
                        "parentSpanId": "eee19b7ec3c1b174",
                        "name": "execute",
                        "kind": 1,
                        "startTimeUnixNano": 1_544_712_660_250_000_000_u64,
                        "endTimeUnixNano": "1544712660750000000",
                        "events": [{"timeUnixNano": "1544712660500000000", "name": "working"}],
                    },
                    {
                        "traceId": TRACE,
                        "spanId": "2222222222222222",
                        "parentSpanId": "1111111111111111",
                        "name": "PutItem",
                        "kind": 3,
                        "startTimeUnixNano": "1544712660300000000",
                        "endTimeUnixNano": "1544712660400000000",
                        "attributes": [{"key": "db.operation.name", "value": {"stringValue": "PutItem"}}],
                        "status": {"code": 2, "message": "ConditionalCheckFailed"},
                    },
                ],
            }],
        }],
    })
}

fn pair(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.to_owned())),
        }),
        ..KeyValue::default()
    }
}

/// A protobuf export of one span in each of `traces` traces (trace ids 1, 2, …).
fn protobuf_export(traces: u32) -> ExportTraceServiceRequest {
    let spans = (1..=traces)
        .map(|n| Span {
            trace_id: u128::from(n).to_be_bytes().to_vec(),
            span_id: u64::from(n).to_be_bytes().to_vec(),
            name: format!("span {n}"),
            kind: 2,
            start_time_unix_nano: 1_000_000_000 * u64::from(n),
            end_time_unix_nano: 1_000_000_000 * u64::from(n) + 2_000_000,
            attributes: vec![pair("session.id", "s-proto")],
            ..Span::default()
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![pair("service.name", "proto-agent")],
                ..Resource::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans,
                ..ScopeSpans::default()
            }],
            ..ResourceSpans::default()
        }],
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[tokio::test]
async fn an_otlp_json_export_is_kept_and_the_api_shows_it_exactly() {
    let emulator = start().await;
    let (status, content_type, body) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[],
        json_export().to_string().into_bytes(),
    )
    .await;
    // Full success: 200, the request's content type, `partial_success` unset.
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(body, b"{}");

    let (status, listed) = api(&emulator, "traces").await;
    assert_eq!(status, 200);
    assert_eq!(
        listed,
        json!({
            "traces": [{
                "traceId": TRACE,
                "rootSpan": "SendMessage",
                "start": "2018-12-13T14:51:00.000Z",
                "startUnixNano": "1544712660000000000",
                "durationMs": 1000.0,
                "spanCount": 3,
                "sessionId": "s-1",
                "services": ["echo-agent"],
            }],
            "droppedTraces": 0,
            "rejectedSpans": 0,
        })
    );
    let (status, trace) = api(&emulator, &format!("traces/{}", TRACE.to_uppercase())).await;
    assert_eq!(status, 200);
    let service = |span: Value| {
        let mut span = span;
        span["service"] = json!("echo-agent");
        span["scope"] = json!("a2a-lambda-server");
        span
    };
    assert_eq!(
        trace["spans"],
        json!([
            service(json!({
                "spanId": "eee19b7ec3c1b174", "parentSpanId": null, "name": "SendMessage",
                "kind": "server", "start": "2018-12-13T14:51:00.000Z",
                "startUnixNano": "1544712660000000000", "endUnixNano": "1544712661000000000",
                "offsetMs": 0.0, "durationMs": 1000.0,
                "attributes": {"session.id": "s-1", "http.response.status_code": 200, "a2a.streaming": false},
                "status": {"code": "unset", "message": ""}, "events": [],
            })),
            service(json!({
                "spanId": "1111111111111111", "parentSpanId": "eee19b7ec3c1b174", "name": "execute",
                "kind": "internal", "start": "2018-12-13T14:51:00.250Z",
                "startUnixNano": "1544712660250000000", "endUnixNano": "1544712660750000000",
                "offsetMs": 250.0, "durationMs": 500.0, "attributes": {},
                "status": {"code": "unset", "message": ""},
                "events": [{"name": "working", "offsetMs": 500.0, "attributes": {}}],
            })),
            service(json!({
                "spanId": "2222222222222222", "parentSpanId": "1111111111111111", "name": "PutItem",
                "kind": "client", "start": "2018-12-13T14:51:00.300Z",
                "startUnixNano": "1544712660300000000", "endUnixNano": "1544712660400000000",
                "offsetMs": 300.0, "durationMs": 100.0,
                "attributes": {"db.operation.name": "PutItem"},
                "status": {"code": "error", "message": "ConditionalCheckFailed"}, "events": [],
            })),
        ])
    );
    assert_eq!(trace["traceId"], TRACE);
    assert_eq!(trace["spanCount"], 3);

    // The same through the library, typed.
    let telemetry = emulator.telemetry().unwrap();
    let kept = telemetry.trace(TRACE).unwrap();
    assert_eq!(kept.root().unwrap().kind, SpanKind::Server);
    assert_eq!(kept.spans[2].status, SpanStatus::Error);
    assert_eq!(
        kept.spans[2].parent_span_id.as_deref(),
        Some("1111111111111111")
    );
    assert_eq!(kept.session_id(), Some("s-1"));
    assert_eq!(kept.to_json(), trace);
    // The receiver's requests are not invocations: nothing was journaled.
    assert!(
        emulator
            .journal()
            .unwrap()
            .invocations(&InvocationFilter::all())
            .is_empty()
    );
    // Forgotten on request.
    let cleared = reqwest::Client::new()
        .delete(format!("{}/_emulator/api/traces", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    assert!(telemetry.traces().is_empty());
    assert_eq!(
        api(&emulator, &format!("traces/{TRACE}")).await,
        (404, json!({"error": format!("no trace {TRACE} is kept")}))
    );
}

#[tokio::test]
async fn a_protobuf_export_plain_or_gzipped_is_kept() {
    let emulator = start().await;
    let export = protobuf_export(2).encode_to_vec();
    let (status, content_type, body) = post(
        &emulator,
        "/v1/traces",
        "application/x-protobuf",
        &[],
        export.clone(),
    )
    .await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "application/x-protobuf")
    );
    assert_eq!(
        ExportTraceServiceResponse::decode(&body[..]).unwrap(),
        ExportTraceServiceResponse {
            partial_success: None
        }
    );
    // The same spans again, gzipped: kept a second time (OTLP may deliver twice).
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/x-protobuf",
        &[("content-encoding", "gzip")],
        gzip(&export),
    )
    .await;
    assert_eq!(status, 200);
    assert!(body.is_empty(), "an empty ExportTraceServiceResponse");
    let telemetry = emulator.telemetry().unwrap();
    let traces = telemetry.traces();
    assert_eq!(traces.len(), 2);
    assert_eq!(traces[0].trace_id, format!("{:032x}", 1));
    assert_eq!(traces[0].span_count, 2);
    assert_eq!(traces[0].duration, Duration::from_millis(2));
    assert_eq!(traces[0].services, ["proto-agent"]);
    assert_eq!(traces[1].session_id.as_deref(), Some("s-proto"));
}

#[tokio::test]
async fn spans_with_invalid_ids_are_a_partial_success() {
    let emulator = start().await;
    let mut export = json_export();
    export["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["spanId"] = json!("00000000");
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[],
        export.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"partialSuccess": {
            "rejectedSpans": "1",
            "errorMessage": "span \"execute\" has an invalid id: a trace id is 16 bytes and a \
                span id 8, neither all zeros (got 16 and 4 bytes)",
        }})
    );
    // In protobuf too: a trace id of 15 bytes.
    let mut export = protobuf_export(1);
    export.resource_spans[0].scope_spans[0].spans[0].trace_id = vec![7; 15];
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/x-protobuf",
        &[],
        export.encode_to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    let partial = ExportTraceServiceResponse::decode(&body[..])
        .unwrap()
        .partial_success
        .unwrap();
    assert_eq!(partial.rejected_spans, 1);
    assert!(
        partial.error_message.contains("got 15 and 8 bytes"),
        "{}",
        partial.error_message
    );
    let telemetry = emulator.telemetry().unwrap();
    assert_eq!(telemetry.rejected_spans(), 2);
    assert_eq!(telemetry.trace(TRACE).unwrap().spans.len(), 2);
}

#[tokio::test]
async fn a_body_that_is_not_otlp_is_400_with_a_status() {
    let emulator = start().await;
    // Protobuf: a length-delimited field running past the end.
    let (status, content_type, body) = post(
        &emulator,
        "/v1/traces",
        "application/x-protobuf",
        &[],
        vec![0x0a, 0x05, 0x01],
    )
    .await;
    assert_eq!(
        (status, content_type.as_str()),
        (400, "application/x-protobuf")
    );
    let refusal = Status::decode(&body[..]).unwrap();
    assert_eq!(refusal.code, 3);
    assert!(
        refusal
            .message
            .starts_with("the body is not an ExportTraceServiceRequest in binary protobuf: "),
        "{}",
        refusal.message
    );
    // JSON: base64 ids (the standard protobuf mapping, not OTLP's hex) are bad data.
    let mut export = json_export();
    export["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"] =
        json!("W47/95gDgQPSabYzgT/GDA==");
    let (status, content_type, body) = post(
        &emulator,
        "/v1/metrics",
        "application/json; charset=utf-8",
        &[],
        b"{\"resourceMetrics\": 7}".to_vec(),
    )
    .await;
    assert_eq!((status, content_type.as_str()), (400, "application/json"));
    let refusal: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(refusal["code"], 3);
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .starts_with("the body is not an ExportMetricsServiceRequest in OTLP JSON: "),
        "{refusal}"
    );
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[],
        export.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    // A body that says gzip but is not.
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[("content-encoding", "gzip")],
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(status, 400);
    let refusal: Value = serde_json::from_slice(&body).unwrap();
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .starts_with("the body says gzip but cannot be gunzipped: "),
        "{refusal}"
    );
    assert!(emulator.telemetry().unwrap().traces().is_empty());
}

#[tokio::test]
async fn what_the_receiver_does_not_read_is_refused_as_otlp_http_says() {
    let emulator = start().await;
    // An unknown content type: 415, the Status in protobuf.
    let (status, content_type, body) = post(
        &emulator,
        "/v1/traces",
        "text/plain",
        &[],
        b"spans".to_vec(),
    )
    .await;
    assert_eq!(
        (status, content_type.as_str()),
        (415, "application/x-protobuf")
    );
    assert_eq!(
        Status::decode(&body[..]).unwrap().message,
        "content type \"text/plain\" is not OTLP's: send application/x-protobuf or application/json"
    );
    // An encoding it does not read: 415.
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[("content-encoding", "br")],
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(status, 415);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"code": 3, "message": "content encoding \"br\" is not read: send gzip or none"})
    );
    // Past 20 MiB after gzip: 413 (a few KB on the wire).
    let bomb = gzip(&vec![
        b' ';
        a2a_lambda_emulator::telemetry::MAX_BODY_BYTES + 1
    ]);
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[("content-encoding", "gzip")],
        bomb,
    )
    .await;
    assert_eq!(status, 413);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"code": 8, "message": "the body is larger than the 20971520 bytes the emulator reads"})
    );
    // Logs are not kept; a GET is not an export.
    let (status, _, body) = post(
        &emulator,
        "/v1/logs",
        "application/json",
        &[],
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("OTEL_LOGS_EXPORTER=none"));
    let reply = reqwest::get(format!("{}/v1/traces", emulator.url()))
        .await
        .unwrap();
    assert_eq!(reply.status(), 405);
    assert_eq!(reply.headers()["allow"], "POST");
}

#[tokio::test]
async fn past_the_bound_the_oldest_traces_are_dropped_and_counted() {
    let emulator = start().await;
    let extra = 5;
    let export = protobuf_export(u32::try_from(MAX_TRACES).unwrap() + extra).encode_to_vec();
    let (status, _, body) = post(
        &emulator,
        "/v1/traces",
        "application/x-protobuf",
        &[],
        export,
    )
    .await;
    // Dropping the oldest traces is not rejecting what was sent.
    assert_eq!((status, body.len()), (200, 0));
    let (_, listed) = api(&emulator, "traces?limit=2").await;
    assert_eq!(listed["droppedTraces"], extra);
    assert_eq!(listed["rejectedSpans"], 0);
    let ids: Vec<&Value> = listed["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["traceId"])
        .collect();
    assert_eq!(
        ids,
        [
            &json!(format!("{:032x}", 1004)),
            &json!(format!("{:032x}", 1005))
        ]
    );
    let telemetry = emulator.telemetry().unwrap();
    let traces = telemetry.traces();
    assert_eq!(traces.len(), MAX_TRACES);
    assert_eq!(traces[0].trace_id, format!("{:032x}", extra + 1));
    assert!(telemetry.trace(&format!("{:032x}", extra)).is_none());
    // By session, from the API.
    let (_, none) = api(&emulator, "traces?session=another").await;
    assert_eq!(none["traces"], json!([]));
}

#[tokio::test]
async fn metrics_keep_the_newest_point_of_each_series() {
    let emulator = start().await;
    let point = |value: &str, time: &str| {
        json!({"timeUnixNano": time, "asInt": value,
            "attributes": [{"key": "rpc.method", "value": {"stringValue": "SendMessage"}}]})
    };
    let export = json!({"resourceMetrics": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "echo-agent"}}]},
        "scopeMetrics": [{"metrics": [
            {"name": "a2a.server.requests", "unit": "{request}", "description": "Requests",
             "sum": {"isMonotonic": true, "aggregationTemporality": 2,
                     "dataPoints": [point("1", "1544712660000000000"), point("3", "1544712661000000000")]}},
            {"name": "a2a.server.request.duration", "unit": "s",
             "histogram": {"aggregationTemporality": 2, "dataPoints": [{
                 "timeUnixNano": "1544712661000000000", "count": "3", "sum": 0.5,
                 "bucketCounts": ["1", "2", "0"], "explicitBounds": [0.1, 1.0]}]}},
            {"name": "", "gauge": {"dataPoints": [{"asDouble": 1.5}]}},
        ]}],
    }]});
    let (status, _, body) = post(
        &emulator,
        "/v1/metrics",
        "application/json",
        &[],
        export.to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"partialSuccess": {"rejectedDataPoints": "1",
            "errorMessage": "a metric without a name cannot be kept"}})
    );
    let (status, metrics) = api(&emulator, "metrics").await;
    assert_eq!(status, 200);
    assert_eq!(
        metrics,
        json!({
            "metrics": [
                {"name": "a2a.server.requests", "unit": "{request}", "description": "Requests",
                 "service": "echo-agent", "attributes": {"rpc.method": "SendMessage"},
                 "time": "2018-12-13T14:51:01.000Z", "kind": "sum", "value": 3, "monotonic": true},
                {"name": "a2a.server.request.duration", "unit": "s", "description": "",
                 "service": "echo-agent", "attributes": {}, "time": "2018-12-13T14:51:01.000Z",
                 "kind": "histogram", "count": 3, "sum": 0.5, "bounds": [0.1, 1.0],
                 "bucketCounts": [1, 2, 0]},
            ],
            "droppedSeries": 0,
            "rejectedPoints": 1,
        })
    );
}

#[tokio::test]
async fn an_invocation_names_the_trace_of_its_traceparent() {
    let emulator = start().await;
    let traceparent = format!("00-{}-00f067aa0ba902b7-01", TRACE.to_uppercase());
    let reply = reqwest::Client::new()
        .post(emulator.url())
        .header("content-type", "application/json")
        .header(SESSION_HEADER, "otlp-test-session-0123456789abcdefghijk")
        .header("traceparent", traceparent)
        .body(r#"{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let journal = emulator.journal().unwrap();
    let seen = journal.wait_for(&InvocationFilter::all(), 1, STEP).await;
    assert_eq!(seen[0].trace_id().as_deref(), Some(TRACE));
    assert_eq!(seen[0].to_json()["traceId"], TRACE);
}

#[tokio::test]
async fn with_the_inspector_off_there_is_no_receiver() {
    let emulator = Emulator::new(EchoAgent)
        .inspector(false)
        .start()
        .await
        .unwrap();
    assert!(emulator.telemetry().is_none());
    assert_eq!(emulator.otlp_endpoint(), None);
    // The path is the platform's then: not one AgentCore serves.
    let (status, _, _) = post(
        &emulator,
        "/v1/traces",
        "application/json",
        &[],
        json_export().to_string().into_bytes(),
    )
    .await;
    assert_eq!(status, 404);
}

/// What an `--agent-cmd` process of an emulator made with `inspector` on or off sees of
/// OpenTelemetry's variables (the process writes them to a file and exits), and the
/// emulator's URL.
async fn agent_environment(inspector: bool, name: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("a2a-otlp-env-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("env");
    let command = format!(
        "echo \"${{OTEL_EXPORTER_OTLP_ENDPOINT-unset}} ${{OTEL_EXPORTER_OTLP_PROTOCOL-unset}} \
         ${{OTEL_SERVICE_NAME-unset}}\" > '{}'",
        file.display()
    );
    let emulator = Emulator::command(command)
        .inspector(inspector)
        .start()
        .await
        .unwrap();
    // The process exits without listening: the invocation is 424, the file written.
    let reply = reqwest::Client::new()
        .post(emulator.url())
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 424);
    let written = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (written.trim().to_owned(), emulator.url().to_owned())
}

#[tokio::test]
async fn an_agent_process_is_pointed_at_the_receiver_unless_told_otherwise() {
    // What this test's own environment sets, the process inherits instead.
    let given = |name: &str, ours: &str| std::env::var(name).unwrap_or_else(|_| ours.to_owned());
    let (seen, url) = agent_environment(true, "on").await;
    assert_eq!(
        seen,
        format!(
            "{} {} {}",
            given("OTEL_EXPORTER_OTLP_ENDPOINT", &url),
            given("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
            given("OTEL_SERVICE_NAME", "agent-cmd"),
        )
    );
    // No receiver, no pointer to it.
    let (seen, _) = agent_environment(false, "off").await;
    assert_eq!(
        seen,
        format!(
            "{} {} {}",
            given("OTEL_EXPORTER_OTLP_ENDPOINT", "unset"),
            given("OTEL_EXPORTER_OTLP_PROTOCOL", "unset"),
            given("OTEL_SERVICE_NAME", "unset"),
        )
    );
}
