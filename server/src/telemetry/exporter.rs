//! The span exporter for OTLP/HTTP in protobuf (the default protocol): each batch written
//! in one pass ([`super::protobuf`]) and POSTed with the headers and compression the
//! variables set ([`super::variables::trace_target`]). `http/json` keeps
//! `opentelemetry-otlp`'s exporter.
//!
//! It runs under the SDK's batch processor on a thread of its own, which takes each ended
//! span without waking anyone until a batch is full or due (the processor on tokio wakes
//! its task for every span: measured, a tenth of a request's CPU). The POST itself runs on
//! the host's tokio runtime, whose reactor reqwest needs; the processor's thread waits for
//! it.

use std::io::Write as _;

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::protobuf::{EncodedResource, encode};
use super::variables::TraceTarget;

/// Exports spans to an OTLP/HTTP collector in protobuf.
pub(super) struct ProtobufSpanExporter {
    client: reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    gzip: bool,
    export_timeout: std::time::Duration,
    resource: EncodedResource,
    runtime: tokio::runtime::Handle,
}

/// The headers may hold credentials: not shown.
impl std::fmt::Debug for ProtobufSpanExporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtobufSpanExporter")
            .field("url", &self.url.as_str())
            .field("gzip", &self.gzip)
            .finish_non_exhaustive()
    }
}

impl ProtobufSpanExporter {
    /// Sends to `target` with `client` (which bounds each export's time), on `runtime`.
    pub(super) fn new(
        client: reqwest::Client,
        target: TraceTarget,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        let mut headers = HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-protobuf"),
        );
        if target.gzip {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        // Checked when the target was read: every name and value is valid.
        for (name, value) in target.headers {
            if let (Ok(name), Ok(mut value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                value.set_sensitive(true);
                headers.insert(name, value);
            }
        }
        Self {
            client,
            url: target.url,
            headers,
            gzip: target.gzip,
            export_timeout: target.export_timeout,
            resource: EncodedResource::default(),
            runtime,
        }
    }

    fn body(&self, batch: &[SpanData]) -> Result<Vec<u8>, OTelSdkError> {
        let body = encode(batch, &self.resource);
        if !self.gzip {
            return Ok(body);
        }
        let mut gzip = flate2::write::GzEncoder::new(
            Vec::with_capacity(body.len() / 2),
            flate2::Compression::default(),
        );
        gzip.write_all(&body)
            .and_then(|()| gzip.finish())
            .map_err(|error| OTelSdkError::InternalFailure(format!("gzip: {error}")))
    }
}

/// POSTs one export and reads the collector's answer.
async fn send(request: reqwest::RequestBuilder) -> OTelSdkResult {
    let response = request
        .send()
        .await
        .map_err(|error| OTelSdkError::InternalFailure(error.without_url().to_string()))?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(OTelSdkError::InternalFailure(format!(
            "the collector answered {status}"
        )))
    }
}

impl SpanExporter for ProtobufSpanExporter {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        let request = self.body(&batch).map(|body| {
            self.client
                .post(self.url.clone())
                .headers(self.headers.clone())
                .body(body)
        });
        drop(batch);
        let limit = self.export_timeout;
        let sent = request.map(|request| {
            self.runtime.spawn(async move {
                tokio::time::timeout(limit, send(request))
                    .await
                    .unwrap_or(Err(OTelSdkError::Timeout(limit)))
            })
        });
        async move {
            sent?.await.map_err(|error| {
                OTelSdkError::InternalFailure(format!("the export stopped: {error}"))
            })?
        }
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.resource = EncodedResource::new(resource);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn target(url: &str, export_timeout: Duration) -> TraceTarget {
        TraceTarget {
            url: reqwest::Url::parse(url).unwrap(),
            headers: vec![("x-api-key".to_owned(), "secret".to_owned())],
            gzip: false,
            export_timeout,
        }
    }

    #[tokio::test]
    async fn a_gzipped_export_carries_its_headers_and_reads_back_as_otlp() {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        use prost::Message as _;
        use std::io::Read as _;
        let (heard, mut hearing) = tokio::sync::mpsc::unbounded_channel();
        let app = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(
                move |headers: axum::http::HeaderMap, body: axum::body::Bytes| async move {
                    let _ = heard.send((headers, body));
                    axum::http::StatusCode::OK
                },
            ),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        let mut gzipped = target(&url, Duration::from_secs(5));
        gzipped.gzip = true;
        let mut exporter = ProtobufSpanExporter::new(
            reqwest::Client::new(),
            gzipped,
            tokio::runtime::Handle::current(),
        );
        exporter.set_resource(&Resource::builder_empty().with_service_name("agent").build());
        exporter.export(Vec::new()).await.unwrap();
        let (headers, body) = hearing.recv().await.unwrap();
        assert_eq!(headers["content-type"], "application/x-protobuf");
        assert_eq!(headers["content-encoding"], "gzip");
        assert_eq!(headers["x-api-key"], "secret");
        let mut plain = Vec::new();
        flate2::read::GzDecoder::new(body.as_ref())
            .read_to_end(&mut plain)
            .unwrap();
        let request = ExportTraceServiceRequest::decode(plain.as_slice()).unwrap();
        let resource = request.resource_spans[0].resource.as_ref().unwrap();
        assert_eq!(resource.attributes[0].key, "service.name");
    }

    #[tokio::test]
    async fn an_export_to_a_collector_that_never_answers_ends_at_its_time_bound() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        // Accepts and reads, never answers.
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((connection, _)) = listener.accept().await {
                held.push(connection);
            }
        });
        let exporter = ProtobufSpanExporter::new(
            reqwest::Client::new(),
            target(&url, Duration::from_millis(100)),
            tokio::runtime::Handle::current(),
        );
        let outcome = exporter.export(Vec::new()).await;
        assert!(
            matches!(outcome, Err(OTelSdkError::Timeout(limit)) if limit == Duration::from_millis(100)),
            "{outcome:?}"
        );
        assert!(!format!("{exporter:?}").contains("secret"));
    }

    #[tokio::test]
    async fn a_refusal_is_an_error_naming_the_status() {
        let app = axum::Router::new().route(
            "/v1/traces",
            axum::routing::post(|| async { axum::http::StatusCode::UNAUTHORIZED }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        let exporter = ProtobufSpanExporter::new(
            reqwest::Client::new(),
            target(&url, Duration::from_secs(5)),
            tokio::runtime::Handle::current(),
        );
        let outcome = exporter.export(Vec::new()).await;
        assert!(
            matches!(&outcome, Err(OTelSdkError::InternalFailure(why)) if why.contains("401")),
            "{outcome:?}"
        );
    }
}
