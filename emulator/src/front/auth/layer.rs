//! The inbound auth step ([`InboundAuthLayer`]) and what it checks with ([`Guard`]).

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::SystemTime;

use a2a_lambda_core::error::Refusal;
use a2a_lambda_core::jsonrpc::Id;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tower::{Layer, Service};

use super::jwt::{JwtAuthorizer, TokenRefusal, Verifier};
use super::sigv4::{self, Denial};
use super::{AuthError, SigV4Keys, access_denied, metadata};
use crate::front::errors::platform_error;
use crate::front::request_id::PLATFORM_REQUEST_ID;
use crate::front::step::{self, Answer, Next, request_id_of};

/// The message AWS answers a request authenticated the other way than the runtime's.
pub const METHOD_MISMATCH: &str = "Authorization method mismatch. The agent is configured for a \
    different authorization method than what was used in your request. Check the agent's \
    authorization configuration and ensure your request uses the matching method (OAuth or SigV4)";
/// AgentCore's JSON-RPC code on an OAuth refusal.
pub const UNAUTHORIZED_CODE: i64 = -32001;
/// The message of a 401 for a request without a bearer token.
pub const MISSING_BEARER: &str = "Missing Authentication Token";

/// How the front authenticates callers (default: not at all).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum InboundAuth {
    /// IAM SigV4 for `bedrock-agentcore`, with these credentials.
    SigV4(SigV4Keys),
    /// A `customJWTAuthorizer`.
    Jwt(JwtAuthorizer),
}

impl InboundAuth {
    /// Whether the caller's `Authorization` reaches the container: in `jwt` mode it does
    /// (the checked bearer token, whose claims name the caller: `Identity::AgentCore`,
    /// owner `jwt:{iss}|{sub}`); AWS forwards it only with a JWT authorizer and only when
    /// allowlisted (runtime-header-allowlist page,
    /// <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-header-allowlist.html>).
    /// What the request-header allowlist consults.
    pub fn forwards_authorization(&self) -> bool {
        matches!(self, Self::Jwt(_))
    }
}

/// The configured check, built once at startup.
pub enum Guard {
    /// SigV4 with these credentials.
    SigV4(SigV4Keys),
    /// A JWT authorizer, keys precomputed or cached.
    Jwt(Verifier),
}

impl Guard {
    /// Ready for requests.
    ///
    /// # Errors
    /// [`AuthError::Config`] for an unusable setting.
    pub fn new(auth: InboundAuth) -> Result<Self, AuthError> {
        Ok(match auth {
            InboundAuth::SigV4(keys) => Self::SigV4(keys),
            InboundAuth::Jwt(config) => Self::Jwt(Verifier::new(config)?),
        })
    }
}

/// The inbound auth step: checks each request before it is routed (the body is read
/// first, SigV4 signs it, then handed on as it came) and serves the RFC 9728 metadata of a
/// JWT runtime without a token.
#[derive(Clone)]
pub(crate) struct InboundAuthLayer {
    guard: Arc<Guard>,
    /// The emulator's base URL, for the metadata's URLs.
    base_url: Arc<str>,
    max_body_bytes: usize,
}

impl InboundAuthLayer {
    /// Checking with `guard`; `base_url` is the emulator's own, a body is read up to
    /// `max_body_bytes`.
    pub(crate) fn new(guard: Arc<Guard>, base_url: &str, max_body_bytes: usize) -> Self {
        Self {
            guard,
            base_url: Arc::from(base_url),
            max_body_bytes,
        }
    }
}

impl<S> Layer<S> for InboundAuthLayer {
    type Service = InboundAuthService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        InboundAuthService {
            auth: self.clone(),
            inner,
        }
    }
}

/// See [`InboundAuthLayer`].
#[derive(Clone)]
pub(crate) struct InboundAuthService<S> {
    auth: InboundAuthLayer,
    inner: S,
}

impl<S: Next<Body>> Service<Request> for InboundAuthService<S> {
    type Response = Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let auth = self.auth.clone();
        let mut inner = step::take(&mut self.inner);
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            match check(&auth, &parts, body).await {
                Err(refused) => Ok(refused),
                Ok(bytes) => {
                    inner
                        .call(Request::from_parts(parts, Body::from(bytes)))
                        .await
                }
            }
        })
    }
}

/// The request's body when the request passes the check, else the answer to it.
async fn check(auth: &InboundAuthLayer, parts: &Parts, body: Body) -> Result<Bytes, Response> {
    let base = &*auth.base_url;
    if let Guard::Jwt(verifier) = &*auth.guard
        && parts.method == Method::GET
        && let Some(path) = metadata::resource_path(parts.uri.path())
    {
        return Err(metadata::document(verifier, base, path, parts.uri.query()).await);
    }
    let limit = auth.max_body_bytes;
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        let detail = format!("the payload is larger than {limit} bytes (or could not be read)");
        return Err(platform_error(
            Refusal::PlatformValidation,
            Id::Null,
            &detail,
        ));
    };
    let request_id = parts.headers.get(&PLATFORM_REQUEST_ID);
    let scheme = authorization_scheme(parts);
    let refused = match (&*auth.guard, scheme) {
        (Guard::SigV4(_), Scheme::Bearer) | (Guard::Jwt(_), Scheme::SigV4) => Some(access_denied(
            METHOD_MISMATCH,
            "authorization method mismatch",
            request_id,
        )),
        (Guard::SigV4(keys), _) => sigv4::verify(keys, parts, &bytes, SystemTime::now())
            .err()
            .map(|denial| denied(&denial, request_id)),
        (Guard::Jwt(verifier), Scheme::Bearer) => {
            let token = bearer_token(parts).unwrap_or_default();
            match verifier.verify(token).await {
                Ok(claims) => {
                    tracing::debug!(sub = ?claims.get("sub"), "bearer token accepted");
                    None
                }
                Err(refusal) => Some(token_refused(&refusal, base, parts, &bytes, request_id)),
            }
        }
        (Guard::Jwt(_), Scheme::None) => Some(unauthorized(MISSING_BEARER, base, parts, &bytes)),
    };
    match refused {
        Some(response) => Err(response),
        None => Ok(bytes),
    }
}

/// How a request says it is authenticated.
enum Scheme {
    None,
    Bearer,
    SigV4,
}

fn authorization_scheme(parts: &Parts) -> Scheme {
    let Some(value) = parts.headers.get(header::AUTHORIZATION) else {
        return Scheme::None;
    };
    let value = value.as_bytes();
    if value.starts_with(sigv4::SCHEME.as_bytes()) {
        Scheme::SigV4
    } else if value.len() > 7 && value[..7].eq_ignore_ascii_case(b"bearer ") {
        Scheme::Bearer
    } else {
        Scheme::None
    }
}

fn bearer_token(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    value.get(7..).map(str::trim)
}

fn denied(denial: &Denial, request_id: Option<&HeaderValue>) -> Response {
    let message = denial.message();
    access_denied(&message, &message, request_id)
}

fn token_refused(
    refusal: &TokenRefusal,
    base: &str,
    parts: &Parts,
    body: &Bytes,
    request_id: Option<&HeaderValue>,
) -> Response {
    match refusal {
        TokenRefusal::Unparseable => access_denied(
            "OAuth authorization failed: Failed to parse token",
            "the bearer token is not a JWT",
            request_id,
        ),
        TokenRefusal::Invalid(message) => unauthorized(message, base, parts, body),
        TokenRefusal::KeysUnavailable(detail) => {
            platform_error(Refusal::Internal, request_id_of(body), detail)
        }
    }
}

/// AgentCore's 401 for an OAuth runtime: the metadata URL in `WWW-Authenticate` and a
/// JSON-RPC error that echoes the request's id.
fn unauthorized(message: &str, base: &str, parts: &Parts, body: &[u8]) -> Response {
    tracing::info!(why = message, "inbound auth refused the bearer token (401)");
    let url = metadata::url_for(base, parts.uri.path(), parts.uri.query());
    let challenge = format!("Bearer resource_metadata=\"{url}\"");
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": request_id_of(body),
        "error": { "code": UNAUTHORIZED_CODE, "message": message },
    });
    let mut response = (
        StatusCode::UNAUTHORIZED,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response();
    if let Ok(value) = HeaderValue::try_from(challenge) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("www-authenticate"), value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::auth::issuer;
    use crate::front::step::testing::{echo_path, read};
    use tower::ServiceExt as _;

    fn jwt() -> (issuer::TestIssuer, InboundAuthLayer) {
        let issuer = issuer::TestIssuer::generate().unwrap();
        let guard = Guard::new(InboundAuth::Jwt(JwtAuthorizer::trusting(&issuer))).unwrap();
        let layer = InboundAuthLayer::new(Arc::new(guard), "http://127.0.0.1:9000", 1024);
        (issuer, layer)
    }

    fn send(authorization: Option<&str>) -> Request {
        let mut request = Request::post("/").body(Body::from(r#"{"id":2}"#)).unwrap();
        if let Some(value) = authorization {
            let value = HeaderValue::from_str(value).unwrap();
            request.headers_mut().insert(header::AUTHORIZATION, value);
        }
        request
    }

    #[tokio::test]
    async fn a_jwt_runtime_passes_a_good_token_and_refuses_the_rest() {
        let (issuer, layer) = jwt();
        let token = issuer.token(&issuer::TokenRequest::new("alice")).unwrap();
        let passed = layer
            .layer(echo_path())
            .oneshot(send(Some(&format!("Bearer {token}"))))
            .await
            .unwrap();
        assert_eq!(read(passed).await.1, "/");
        let missing = layer.layer(echo_path()).oneshot(send(None)).await.unwrap();
        assert_eq!(missing.status(), 401);
        assert!(
            missing.headers()["www-authenticate"]
                .to_str()
                .unwrap()
                .starts_with("Bearer resource_metadata=\"http://127.0.0.1:9000/.well-known/")
        );
        let (status, body) = read(missing).await;
        assert_eq!(status, 401);
        assert!(String::from_utf8_lossy(&body).contains(r#""id":2"#));
        let sigv4 = send(Some("AWS4-HMAC-SHA256 Credential=x"));
        let mismatch = layer.layer(echo_path()).oneshot(sigv4).await.unwrap();
        assert_eq!(mismatch.status(), 403);
    }

    #[tokio::test]
    async fn a_jwt_runtime_serves_its_metadata_without_a_token() {
        let (_, layer) = jwt();
        let request = Request::get("/.well-known/oauth-protected-resource")
            .body(Body::empty())
            .unwrap();
        let (status, body) = read(layer.layer(echo_path()).oneshot(request).await.unwrap()).await;
        assert_eq!(status, 200);
        let document: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(document["resource"], "http://127.0.0.1:9000/");
    }

    #[tokio::test]
    async fn a_sigv4_runtime_refuses_an_unsigned_request() {
        let guard = Guard::new(InboundAuth::SigV4(SigV4Keys::new("AKID", "secret"))).unwrap();
        let layer = InboundAuthLayer::new(Arc::new(guard), "http://127.0.0.1:9000", 1024);
        let refused = layer.layer(echo_path()).oneshot(send(None)).await.unwrap();
        assert_eq!(refused.status(), 403);
        assert!(refused.headers().get("www-authenticate").is_none());
    }
}
