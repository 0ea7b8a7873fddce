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
        let sent = request.map(|request| self.runtime.spawn(send(request)));
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
