//! The OTLP/HTTP receiver: `POST /v1/traces` and `POST /v1/metrics` as the OTLP
//! specification's "OTLP/HTTP" section defines them
//! (<https://opentelemetry.io/docs/specs/otlp/#otlphttp>):
//!
//! - the body is an `Export{Trace,Metrics}ServiceRequest` in binary protobuf
//!   (`Content-Type: application/x-protobuf`) or in OTLP's JSON mapping
//!   (`application/json`: hex trace and span ids, integer enums, lowerCamelCase keys,
//!   unknown fields ignored), decoded by `opentelemetry-proto`'s prost messages and their
//!   serde mapping ("Binary Protobuf Encoding", "JSON Protobuf Encoding");
//! - `Content-Encoding: gzip` is read ("OTLP/HTTP Request": "The client MAY gzip the
//!   content"; every server MUST support gzip, "Protocol Details");
//! - the answer has the request's content type ("OTLP/HTTP Response"): `200` with an
//!   `Export*ServiceResponse`, its `partial_success` set only when entries were rejected
//!   ("Full Success", "Partial Success");
//! - a body that cannot be decoded is `400` with a `google.rpc.Status` ("Bad Data"); a
//!   body past 20 MiB, before or after gzip, `413` (the limit the "OTLP/HTTP Request"
//!   section recommends); a content type or encoding it does not read `415` (RFC 9110
//!   §15.5.16; every 4xx body is a `Status`, "Failures"); another method `405`;
//! - `/v1/logs` is `404`, saying the emulator keeps no logs.

use std::io::Read as _;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt as _, LengthLimitError, Limited};
use opentelemetry_proto::tonic::collector::metrics::v1::{
    ExportMetricsPartialSuccess, ExportMetricsServiceRequest, ExportMetricsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message as _;
use serde_json::{Value, json};

use super::Telemetry;
use super::convert;

/// Where traces are sent (OTLP's default path).
pub const TRACES_PATH: &str = "/v1/traces";
/// Where metrics are sent (OTLP's default path).
pub const METRICS_PATH: &str = "/v1/metrics";
/// Where logs would be sent: answered 404.
const LOGS_PATH: &str = "/v1/logs";
/// The largest body read, before and after gzip: the 20 MiB the OTLP specification
/// recommends.
pub const MAX_BODY_BYTES: usize = 20 * 1024 * 1024;

/// `google.rpc.Status`, the body of every OTLP/HTTP 4xx answer
/// (<https://github.com/googleapis/googleapis/blob/master/google/rpc/status.proto>); its
/// `details` (field 3) are not sent.
#[derive(Clone, PartialEq, prost::Message)]
struct Status {
    /// A `google.rpc.Code` (the specification does not use it; clients may log it).
    #[prost(int32, tag = "1")]
    code: i32,
    /// What was wrong, for a developer.
    #[prost(string, tag = "2")]
    message: String,
}

/// `google.rpc.Code.INVALID_ARGUMENT`.
const INVALID_ARGUMENT: i32 = 3;
/// `google.rpc.Code.NOT_FOUND`.
const NOT_FOUND: i32 = 5;
/// `google.rpc.Code.RESOURCE_EXHAUSTED`.
const RESOURCE_EXHAUSTED: i32 = 8;
/// `google.rpc.Code.UNIMPLEMENTED`.
const UNIMPLEMENTED: i32 = 12;
/// `google.rpc.Code.INTERNAL`.
const INTERNAL: i32 = 13;

/// Whether `path` is one of the receiver's.
pub(crate) fn is_otlp_path(path: &str) -> bool {
    matches!(path, TRACES_PATH | METRICS_PATH | LOGS_PATH)
}

/// The two encodings OTLP/HTTP defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Protobuf,
    Json,
}

impl Encoding {
    fn content_type(self) -> &'static str {
        match self {
            Self::Protobuf => "application/x-protobuf",
            Self::Json => "application/json",
        }
    }

    /// The encoding a `Content-Type` names, if OTLP defines it.
    fn of(headers: &HeaderMap) -> Option<Self> {
        let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
        let media = value.split(';').next().unwrap_or("").trim();
        if media.eq_ignore_ascii_case("application/x-protobuf") {
            Some(Self::Protobuf)
        } else if media.eq_ignore_ascii_case("application/json") {
            Some(Self::Json)
        } else {
            None
        }
    }
}

/// A refusal: an HTTP status and what was wrong.
struct Refusal {
    status: StatusCode,
    code: i32,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, code: i32, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    /// The answer: a `Status` in `encoding` (protobuf when the request's is unknown).
    fn answer(self, encoding: Option<Encoding>) -> Response {
        let encoding = encoding.unwrap_or(Encoding::Protobuf);
        let body = match encoding {
            Encoding::Protobuf => Status {
                code: self.code,
                message: self.message,
            }
            .encode_to_vec(),
            Encoding::Json => json!({"code": self.code, "message": self.message})
                .to_string()
                .into_bytes(),
        };
        reply(self.status, encoding, body)
    }
}

fn reply(status: StatusCode, encoding: Encoding, body: Vec<u8>) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(encoding.content_type()),
        )],
        body,
    )
        .into_response()
}

/// Answers a request on one of the receiver's paths (see [`is_otlp_path`]).
pub(crate) async fn serve(telemetry: Telemetry, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let encoding = Encoding::of(&parts.headers);
    let path = parts.uri.path();
    if path == LOGS_PATH {
        return Refusal::new(
            StatusCode::NOT_FOUND,
            NOT_FOUND,
            "the emulator keeps traces (/v1/traces) and metrics (/v1/metrics), not logs; \
             turn the logs exporter off (OTEL_LOGS_EXPORTER=none)",
        )
        .answer(encoding);
    }
    if parts.method != Method::POST {
        let mut answer = Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            UNIMPLEMENTED,
            format!(
                "{} is not served on {path}; OTLP/HTTP exports with POST",
                parts.method
            ),
        )
        .answer(encoding);
        answer
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return answer;
    }
    let Some(encoding) = encoding else {
        let named = parts
            .headers
            .get(header::CONTENT_TYPE)
            .map_or_else(|| "none".to_owned(), |value| format!("{value:?}"));
        return Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            INVALID_ARGUMENT,
            format!(
                "content type {named} is not OTLP's: send application/x-protobuf or application/json"
            ),
        )
        .answer(None);
    };
    let bytes = match read(&parts.headers, body).await {
        Ok(bytes) => bytes,
        Err(refusal) => return refusal.answer(Some(encoding)),
    };
    // Decoding up to 20 MiB takes a while: off the threads that serve invocations.
    let is_traces = path == TRACES_PATH;
    let decoded = tokio::task::spawn_blocking(move || {
        if is_traces {
            traces(&telemetry, encoding, &bytes)
        } else {
            metrics(&telemetry, encoding, &bytes)
        }
    })
    .await;
    match decoded {
        Ok(answer) => answer.unwrap_or_else(|refusal| refusal.answer(Some(encoding))),
        Err(error) => Refusal::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            INTERNAL,
            format!("the export could not be read: {error}"),
        )
        .answer(Some(encoding)),
    }
}

/// The body, gunzipped when it says so, at most [`MAX_BODY_BYTES`] either way.
async fn read(headers: &HeaderMap, body: Body) -> Result<Bytes, Refusal> {
    let too_large = || {
        Refusal::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            RESOURCE_EXHAUSTED,
            format!("the body is larger than the {MAX_BODY_BYTES} bytes the emulator reads"),
        )
    };
    let gzip = match headers
        .get(header::CONTENT_ENCODING)
        .map(HeaderValue::to_str)
    {
        None => false,
        Some(Ok(coding)) if coding.trim().eq_ignore_ascii_case("identity") => false,
        Some(Ok(coding))
            if coding.trim().eq_ignore_ascii_case("gzip")
                || coding.trim().eq_ignore_ascii_case("x-gzip") =>
        {
            true
        }
        Some(coding) => {
            return Err(Refusal::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                INVALID_ARGUMENT,
                format!(
                    "content encoding {:?} is not read: send gzip or none",
                    coding.unwrap_or("(not text)")
                ),
            ));
        }
    };
    let collected = Limited::new(body, MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|error| {
            if error.downcast_ref::<LengthLimitError>().is_some() {
                too_large()
            } else {
                Refusal::new(
                    StatusCode::BAD_REQUEST,
                    INVALID_ARGUMENT,
                    format!("the body could not be read: {error}"),
                )
            }
        })?
        .to_bytes();
    if !gzip {
        return Ok(collected);
    }
    let mut plain = Vec::new();
    flate2::read::MultiGzDecoder::new(&collected[..])
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut plain)
        .map_err(|error| {
            Refusal::new(
                StatusCode::BAD_REQUEST,
                INVALID_ARGUMENT,
                format!("the body says gzip but cannot be gunzipped: {error}"),
            )
        })?;
    if plain.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    Ok(Bytes::from(plain))
}

/// `bytes` as message `T` in `encoding`, or a 400 naming the message.
fn decode<T>(encoding: Encoding, bytes: &[u8], name: &str) -> Result<T, Refusal>
where
    T: prost::Message + Default + serde::de::DeserializeOwned,
{
    let decoded = match encoding {
        Encoding::Protobuf => T::decode(bytes).map_err(|error| error.to_string()),
        Encoding::Json => serde_json::from_slice(bytes).map_err(|error| error.to_string()),
    };
    decoded.map_err(|error| {
        let form = match encoding {
            Encoding::Protobuf => "binary protobuf",
            Encoding::Json => "OTLP JSON",
        };
        Refusal::new(
            StatusCode::BAD_REQUEST,
            INVALID_ARGUMENT,
            format!("the body is not an {name} in {form}: {error}"),
        )
    })
}

/// `POST /v1/traces`.
fn traces(telemetry: &Telemetry, encoding: Encoding, bytes: &[u8]) -> Result<Response, Refusal> {
    let request: ExportTraceServiceRequest = decode(encoding, bytes, "ExportTraceServiceRequest")?;
    let batch = convert::spans(request);
    telemetry.count_rejected_spans(batch.rejected);
    let full = telemetry.add_spans(batch.kept);
    let rejected = batch.rejected + full.count;
    let why = batch.why.or(full.why);
    let partial = (rejected > 0).then(|| ExportTracePartialSuccess {
        rejected_spans: i64::try_from(rejected).unwrap_or(i64::MAX),
        error_message: why.unwrap_or_default(),
    });
    let body = match encoding {
        Encoding::Protobuf => ExportTraceServiceResponse {
            partial_success: partial,
        }
        .encode_to_vec(),
        Encoding::Json => json_answer(partial.map(|partial| {
            (
                "rejectedSpans",
                partial.rejected_spans,
                partial.error_message,
            )
        })),
    };
    Ok(reply(StatusCode::OK, encoding, body))
}

/// `POST /v1/metrics`.
fn metrics(telemetry: &Telemetry, encoding: Encoding, bytes: &[u8]) -> Result<Response, Refusal> {
    let request: ExportMetricsServiceRequest =
        decode(encoding, bytes, "ExportMetricsServiceRequest")?;
    let batch = convert::points(request);
    telemetry.count_rejected_points(batch.rejected);
    telemetry.add_points(batch.kept);
    let partial = (batch.rejected > 0).then(|| ExportMetricsPartialSuccess {
        rejected_data_points: i64::try_from(batch.rejected).unwrap_or(i64::MAX),
        error_message: batch.why.unwrap_or_default(),
    });
    let body = match encoding {
        Encoding::Protobuf => ExportMetricsServiceResponse {
            partial_success: partial,
        }
        .encode_to_vec(),
        Encoding::Json => json_answer(partial.map(|partial| {
            (
                "rejectedDataPoints",
                partial.rejected_data_points,
                partial.error_message,
            )
        })),
    };
    Ok(reply(StatusCode::OK, encoding, body))
}

/// An `Export*ServiceResponse` in OTLP JSON: `{}` on full success (`partial_success`
/// unset), else `{"partialSuccess": {field: "N", "errorMessage": …}}` (an int64 as a
/// decimal string, proto3's JSON mapping).
fn json_answer(partial: Option<(&str, i64, String)>) -> Vec<u8> {
    let body = match partial {
        None => json!({}),
        Some((field, rejected, message)) => {
            let mut partial = serde_json::Map::new();
            partial.insert(field.to_owned(), Value::String(rejected.to_string()));
            partial.insert("errorMessage".to_owned(), Value::String(message));
            json!({ "partialSuccess": partial })
        }
    };
    body.to_string().into_bytes()
}
