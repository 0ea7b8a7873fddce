//! Cards on the invocation path: the container's card with every URL pointing at the
//! runtime's invocation URL, as AgentCore serves it.

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use a2a_lambda_core::error::Refusal;
use a2a_lambda_core::jsonrpc::Id;

use super::CARD_PATH;
use super::container::{self, RuntimeFailure};
use super::errors::platform_error;
use super::routes::{Route, Routed};
use super::runtime::Runtime;
use super::step::{self, Answer, Next};

/// Answers the card on the invocation path; the card on the container's path goes on to
/// the session's container, as any call.
#[derive(Clone)]
pub(super) struct InvocationCardLayer {
    cards: Arc<Cards>,
}

struct Cards {
    /// The emulator's own base URL, which the invocation URL starts with.
    base_url: String,
    /// A container outside any session: fetching a card starts no session.
    template: container::Container,
    /// How long an upstream's card may take.
    timeout: Duration,
}

impl InvocationCardLayer {
    /// Cards of `template`, pointing at the invocation URL under `base_url`.
    pub(super) fn new(base_url: String, template: container::Container, timeout: Duration) -> Self {
        let cards = Cards {
            base_url,
            template,
            timeout,
        };
        Self {
            cards: Arc::new(cards),
        }
    }
}

impl<S> Layer<S> for InvocationCardLayer {
    type Service = InvocationCard<S>;

    fn layer(&self, inner: S) -> Self::Service {
        InvocationCard {
            cards: Arc::clone(&self.cards),
            inner,
        }
    }
}

/// See [`InvocationCardLayer`].
#[derive(Clone)]
pub(super) struct InvocationCard<S> {
    cards: Arc<Cards>,
    inner: S,
}

impl<S: Next<Body>> Service<Request> for InvocationCard<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let Some(Routed(Ok(Route::Card {
            runtime: Some(runtime),
        }))) = request.extensions().get::<Routed>()
        else {
            return step::pass(&mut self.inner, request);
        };
        let runtime = runtime.clone();
        let cards = Arc::clone(&self.cards);
        Box::pin(async move { cards.card(&runtime).await }.map(Ok))
    }
}

impl Cards {
    /// The card with every URL pointing at `runtime`'s invocation URL.
    async fn card(&self, runtime: &Runtime) -> Response {
        let url = runtime.invocation_url(&self.base_url);
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
                self.timeout,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::sessions::testing::backend;
    use crate::front::step::testing::{echo_path, read};
    use tower::ServiceExt as _;

    #[tokio::test]
    async fn the_invocation_paths_card_points_there_and_the_containers_goes_on() {
        let cards = InvocationCardLayer::new(
            "http://127.0.0.1:9000".to_owned(),
            backend().template().unwrap(),
            Duration::from_secs(5),
        );
        let stack = RouteLayer::new(None).layer(cards.layer(echo_path()));
        let arn = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/echo-abcdefghij";
        let invocations = format!(
            "/runtimes/{}/invocations",
            crate::front::percent_encode(arn)
        );
        let card = Request::get(format!("{invocations}/.well-known/agent-card.json"))
            .body(Body::empty())
            .unwrap();
        let response = stack.clone().oneshot(card).await.unwrap();
        assert_eq!(
            response.headers()[header::CACHE_CONTROL],
            "public, max-age=300"
        );
        let (status, body) = read(response).await;
        assert_eq!(status, 200);
        let card: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let url = card["url"]
            .as_str()
            .or(card["supportedInterfaces"][0]["url"].as_str());
        assert!(
            url.unwrap().starts_with("http://127.0.0.1:9000/runtimes/"),
            "{card}"
        );
        let own = Request::get(CARD_PATH).body(Body::empty()).unwrap();
        assert_eq!(read(stack.oneshot(own).await.unwrap()).await.1, CARD_PATH);
    }
}
