//! The session header, `X-Amzn-Bedrock-AgentCore-Runtime-Session-Id`: checked (visible
//! ASCII, 33 to 256 characters, else 400 -32052 echoing the payload's id), chosen when the
//! caller sent none (AgentCore starts a new session for an invocation without one; the
//! container paths keep one default session so a plain A2A client can come back to its
//! tasks), and returned on every answer after this step.
//!
//! The session chosen rides in the request's extensions ([`CallSession`]) to the later
//! steps.

use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_lambda_core::agentcore::{SESSION_HEADER, SESSION_ID_LENGTH};
use a2a_lambda_core::error::Refusal;
use a2a_lambda_core::jsonrpc::Id;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName};
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::errors::platform_error;
use super::explain::Caller;
use super::routes::Routed;
use super::session_name::SessionName;
use super::step::{self, Answer, Next, request_id_of};

/// The session header's name, for inserting without parsing the name each time.
pub(crate) static SESSION: HeaderName = HeaderName::from_static(SESSION_HEADER);

/// The session a request is served in, and how the caller named it.
#[derive(Debug, Clone)]
pub(super) struct CallSession {
    pub(super) name: SessionName,
    pub(super) caller: Caller,
}

/// The session a request is served in, when the session header step has chosen one.
pub(super) fn session_of<B>(request: &Request<B>) -> Option<&CallSession> {
    request.extensions().get::<CallSession>()
}

/// Checks and chooses each request's session, and returns it on the answer.
#[derive(Debug, Clone)]
pub(super) struct SessionHeaderLayer {
    /// The session of the container paths' requests without the header.
    default_session: SessionName,
    /// Read up to this much of a payload whose id a refusal echoes.
    max_body_bytes: usize,
}

impl SessionHeaderLayer {
    /// Requests on the container paths without a header go to `default_session`.
    pub(super) fn new(default_session: SessionName, max_body_bytes: usize) -> Self {
        Self {
            default_session,
            max_body_bytes,
        }
    }
}

impl<S> Layer<S> for SessionHeaderLayer {
    type Service = SessionHeader<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SessionHeader {
            layer: Arc::new(self.clone()),
            inner,
        }
    }
}

/// See [`SessionHeaderLayer`].
#[derive(Debug, Clone)]
pub(super) struct SessionHeader<S> {
    layer: Arc<SessionHeaderLayer>,
    inner: S,
}

impl<S: Next<Body>> Service<Request> for SessionHeader<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let sent = match session_id(request.headers()) {
            Ok(sent) => sent,
            Err(detail) => {
                // Echo the request's id when the payload can be read.
                let limit = self.layer.max_body_bytes;
                return Box::pin(async move {
                    let id = match axum::body::to_bytes(request.into_body(), limit).await {
                        Ok(bytes) => request_id_of(&bytes),
                        Err(_) => Id::Null,
                    };
                    Ok(platform_error(Refusal::PlatformValidation, id, &detail))
                });
            }
        };
        let on_invocation_path =
            request
                .extensions()
                .get::<Routed>()
                .is_some_and(|Routed(route)| {
                    route.as_ref().is_ok_and(|route| route.runtime().is_some())
                });
        let chosen = match sent {
            Some(name) => CallSession {
                name,
                caller: Caller::Header,
            },
            // AgentCore starts a new session for an invocation without one.
            None if on_invocation_path => {
                let made =
                    SessionName::from_text(format!("session-{}", a2a_lambda_core::model::new_id()));
                let Some(name) = made else {
                    let detail = "could not make a session id";
                    return step::now(platform_error(Refusal::Internal, Id::Null, detail));
                };
                CallSession {
                    name,
                    caller: Caller::NoHeader { new_session: true },
                }
            }
            None => CallSession {
                name: self.layer.default_session.clone(),
                caller: Caller::NoHeader { new_session: false },
            },
        };
        let shown = chosen.name.header();
        request.extensions_mut().insert(chosen);
        Box::pin(self.inner.call(request).map(move |answered| {
            answered.map(|mut response| {
                response.headers_mut().insert(&SESSION, shown);
                response
            })
        }))
    }
}

/// The client's session id, if it sent one; an error for one of the wrong length.
fn session_id(headers: &HeaderMap) -> Result<Option<SessionName>, String> {
    let Some(value) = headers.get(&SESSION) else {
        return Ok(None);
    };
    let session = SessionName::new(value.clone())
        .ok_or_else(|| "the session id is not visible ASCII".to_owned())?;
    let length = session.as_str().len();
    if SESSION_ID_LENGTH.contains(&length) {
        Ok(Some(session))
    } else {
        Err(format!(
            "the session id has {length} characters; AgentCore accepts 33 to 256"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::routes::RouteLayer;
    use crate::front::step::testing::read;
    use axum::http::HeaderValue;
    use axum::response::Response;
    use tower::ServiceExt as _;

    #[test]
    fn session_ids_are_visible_ascii_of_agentcores_length() {
        let mut headers = HeaderMap::new();
        assert!(matches!(session_id(&headers), Ok(None)));
        headers.insert(&SESSION, HeaderValue::from_static("short"));
        assert_eq!(
            session_id(&headers).unwrap_err(),
            "the session id has 5 characters; AgentCore accepts 33 to 256"
        );
        let long_enough = "s".repeat(33);
        headers.insert(&SESSION, HeaderValue::from_str(&long_enough).unwrap());
        assert_eq!(session_id(&headers).unwrap().unwrap().as_str(), long_enough);
        let not_ascii = HeaderValue::from_bytes("é".repeat(20).as_bytes()).unwrap();
        headers.insert(&SESSION, not_ascii);
        assert_eq!(
            session_id(&headers).unwrap_err(),
            "the session id is not visible ASCII"
        );
    }

    /// The session the inner service saw and the header the caller got.
    async fn served(uri: &str, sent: Option<&str>) -> (Option<String>, Response) {
        let inner = tower::service_fn(|request: Request| async move {
            let seen = session_of(&request).map(|s| (s.name.as_str().to_owned(), s.caller));
            let mut response = Response::new(Body::empty());
            if let Some((name, _)) = seen {
                response
                    .headers_mut()
                    .insert("x-seen", name.parse().unwrap());
            }
            Ok::<_, std::convert::Infallible>(response)
        });
        let default = SessionName::from_text("d".repeat(40)).unwrap();
        let stack =
            RouteLayer::new(None).layer(SessionHeaderLayer::new(default, 1024).layer(inner));
        let mut request = Request::post(uri).body(Body::from(r#"{"id":5}"#)).unwrap();
        if let Some(sent) = sent {
            request
                .headers_mut()
                .insert(&SESSION, sent.parse().unwrap());
        }
        let response = stack.oneshot(request).await.unwrap();
        let seen = response
            .headers()
            .get("x-seen")
            .map(|v| v.to_str().unwrap().to_owned());
        (seen, response)
    }

    #[tokio::test]
    async fn a_session_is_chosen_passed_on_and_returned() {
        let mine = "m".repeat(33);
        let (seen, response) = served("/", Some(&mine)).await;
        assert_eq!(seen.as_deref(), Some(mine.as_str()));
        assert_eq!(response.headers()[&SESSION], mine.as_str());
        let (seen, _) = served("/", None).await;
        assert_eq!(seen, Some("d".repeat(40)));
        let arn =
            "arn%3Aaws%3Abedrock-agentcore%3Aus-east-1%3A123456789012%3Aruntime%2Fecho-abcdefghij";
        let (seen, response) = served(&format!("/runtimes/{arn}/invocations"), None).await;
        let made = seen.unwrap();
        assert!(made.starts_with("session-"));
        assert_eq!(response.headers()[&SESSION], made.as_str());
    }

    #[tokio::test]
    async fn a_bad_session_id_is_refused_with_the_payloads_id() {
        let (seen, response) = served("/", Some("short")).await;
        assert_eq!(seen, None);
        assert!(response.headers().get(&SESSION).is_none());
        let (status, body) = read(response).await;
        assert_eq!(status, 400);
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["id"], 5);
        assert_eq!(body["error"]["code"], -32052);
    }
}
