//! Writing the binding's responses: JSON with the media type the client accepts, SSE for
//! streams (one `data:` line per `StreamResponse`, an error that ends a stream as
//! `event: error`), and refusals as `google.rpc.Status` bodies.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse as _, Response};

use crate::engine::Reply;
use a2a_lambda_core::error::Error;

/// The media type of a JSON response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaType {
    /// `application/json`: the default.
    Json,
    /// `application/a2a+json`, when the request's `Accept` names it.
    A2aJson,
}

impl MediaType {
    /// What the request accepts: `application/a2a+json` when `Accept` names it with a
    /// non-zero quality, else `application/json`.
    pub fn accepted(headers: &HeaderMap) -> Self {
        let names_a2a = headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|range| {
                let mut pieces = range.split(';').map(str::trim);
                let essence = pieces.next().unwrap_or_default();
                let refused = pieces.any(|parameter| {
                    parameter
                        .strip_prefix("q=")
                        .and_then(|quality| quality.parse::<f32>().ok())
                        .is_some_and(|quality| quality <= 0.0)
                });
                essence.eq_ignore_ascii_case(a2a_lambda_core::rest::MEDIA_TYPE) && !refused
            });
        if names_a2a { Self::A2aJson } else { Self::Json }
    }

    fn header(self) -> HeaderValue {
        HeaderValue::from_static(match self {
            Self::Json => "application/json",
            Self::A2aJson => a2a_lambda_core::rest::MEDIA_TYPE,
        })
    }
}

/// A JSON body with its status.
pub(super) fn json(status: StatusCode, body: Vec<u8>, media: MediaType) -> Response {
    (status, [(header::CONTENT_TYPE, media.header())], body).into_response()
}

/// A refusal: the binding's status (or `status_override`) and its `google.rpc.Status`.
pub(super) fn refusal(
    error: &Error,
    status_override: Option<StatusCode>,
    media: MediaType,
) -> Response {
    let (status, body) = a2a_lambda_core::rest::status::to_bytes(error, status_override);
    json(status, body, media)
}

/// The engine's reply, as the binding writes it.
pub(super) fn reply(reply: Reply, media: MediaType) -> Response {
    match reply {
        Reply::Json { status, body } => json(status, body, media),
        // The engine answers every operation of this binding; a notification cannot reach
        // it.
        Reply::Stream(events) => crate::http::sse(events, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> MediaType {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        MediaType::accepted(&headers)
    }

    #[tokio::test]
    async fn a_stream_is_one_data_line_an_event_and_its_error_is_event_error() {
        use crate::engine::StreamItem;
        use http_body_util::BodyExt as _;

        let items = vec![
            StreamItem {
                id: Some("t-1:1".to_owned()),
                json: br#"{"task":{"id":"t-1"}}"#.to_vec(),
                error: false,
            },
            StreamItem {
                id: None,
                json: br#"{"error":{"code":500,"status":"INTERNAL","message":"Internal error"}}"#
                    .to_vec(),
                error: true,
            },
        ];
        let reply = Reply::Stream(Box::pin(futures_util::stream::iter(items)));
        let response = super::reply(reply, MediaType::Json);
        assert_eq!(
            response.headers().get(header::CONTENT_TYPE).unwrap(),
            "text/event-stream"
        );
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(
            String::from_utf8_lossy(&body),
            "data: {\"task\":{\"id\":\"t-1\"}}\nid: t-1:1\n\n\
             event: error\ndata: {\"error\":{\"code\":500,\"status\":\"INTERNAL\",\"message\":\"Internal error\"}}\n\n"
        );
    }

    #[test]
    fn a2a_json_only_when_asked_for() {
        assert_eq!(MediaType::accepted(&HeaderMap::new()), MediaType::Json);
        assert_eq!(accept("*/*"), MediaType::Json);
        assert_eq!(
            accept("application/a2a+json, application/json"),
            MediaType::A2aJson
        );
        assert_eq!(
            accept("application/json, application/A2A+JSON;q=0.5"),
            MediaType::A2aJson
        );
        assert_eq!(accept("application/a2a+json;q=0"), MediaType::Json);
    }
}
