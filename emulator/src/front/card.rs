//! Cards on the invocation path: the container's card with every URL pointing at the
//! runtime's invocation URL, as AgentCore serves it.

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use a2a_core::error::Refusal;
use a2a_core::jsonrpc::Id;

use super::container::{self, RuntimeFailure};
use super::errors::platform_error;
use super::runtime::Runtime;
use super::{CARD_PATH, Front, SessionName};

impl Front {
    pub(super) async fn card(
        &self,
        headers: HeaderMap,
        session: SessionName,
        runtime: Option<&Runtime>,
    ) -> Response {
        let Some(runtime) = runtime else {
            let target = Uri::from_static(CARD_PATH);
            return self
                .forward(Method::GET, target, headers, Bytes::new(), session)
                .await;
        };
        let url = runtime.invocation_url(&self.config.base_url);
        let json = match self.template.card_json(&url) {
            Some(json) => Ok(json),
            None => self.upstream_card(&self.template, &url).await,
        };
        match json {
            Ok(json) => (
                StatusCode::OK,
                [
                    (header::CONTENT_TYPE, "application/json"),
                    (header::CACHE_CONTROL, "public, max-age=300"),
                ],
                json,
            )
                .into_response(),
            Err(failure) => {
                platform_error(Refusal::RuntimeUnavailable, Id::Null, &failure.to_string())
            }
        }
    }

    /// The upstream's card with every URL pointing at the invocation path.
    async fn upstream_card(
        &self,
        container: &container::Container,
        url: &str,
    ) -> Result<Vec<u8>, RuntimeFailure> {
        let response = container
            .call(
                Method::GET,
                Uri::from_static(CARD_PATH),
                HeaderMap::new(),
                Bytes::new(),
                self.config.request_timeout,
            )
            .await?;
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .map_err(|error| RuntimeFailure::Unreachable(error.to_string()))?;
        let mut card: serde_json::Value = serde_json::from_slice(&bytes).map_err(|error| {
            RuntimeFailure::Unreachable(format!("the container's card is not JSON: {error}"))
        })?;
        if card.get("url").is_some() {
            card["url"] = serde_json::Value::from(url);
        }
        for list in ["supportedInterfaces", "additionalInterfaces"] {
            if let Some(interfaces) = card.get_mut(list).and_then(|v| v.as_array_mut()) {
                for interface in interfaces {
                    interface["url"] = serde_json::Value::from(url);
                }
            }
        }
        serde_json::to_vec(&card).map_err(|error| RuntimeFailure::Unreachable(error.to_string()))
    }
}
