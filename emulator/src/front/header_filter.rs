//! The header allowlist step ([`HeaderAllowlistLayer`]): the caller's headers AgentCore
//! passes on to the container, the ones it drops ([`HeaderFilter`]), and the platform's
//! own it adds (the session id, a `WorkloadAccessToken` for an invocation that names a
//! user; a `/ping` gets neither).
//!
//! AgentCore passes a caller's header only when the runtime's request header allowlist
//! names it and its value is at most 4 KB; the page states the limit as a condition for
//! passing a header, not as a refusal of the request, so a longer value is dropped like an
//! unlisted header. What the platform itself takes from an invocation reaches the container
//! whatever the allowlist: the payload's content type and accepted type (`contentType` and
//! `accept` of InvokeAgentRuntime), the session id, the user id (`runtimeUserId`), the
//! request id the platform sets, and the trace context AgentCore's observability carries
//! across the service boundary (`X-Amzn-Trace-Id`, W3C `traceparent`, `tracestate`,
//! `baggage`; the AgentCore SDK's runtime reads `baggage` from the request).
//!
//! Sources: "Pass custom headers to Amazon Bedrock AgentCore Runtime",
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-header-allowlist.html>;
//! the InvokeAgentRuntime API reference,
//! <https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_InvokeAgentRuntime.html>;
//! "Amazon Bedrock AgentCore and AWS X-Ray" (trace headers),
//! <https://docs.aws.amazon.com/xray/latest/devguide/xray-services-agentcore.html>.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use a2a_lambda_core::agentcore::USER_ID_HEADER;
use a2a_lambda_core::agentcore_headers::MAX_HEADER_VALUE_BYTES;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Request, header};
use futures_util::FutureExt as _;
use tower::{Layer, Service};

use super::allowlist::RequestHeaderAllowlist;
use super::routes::{Route, route_of};
use super::session_header::session_of;
use super::step::{self, Answer, Next};
use super::workload_token;
use super::{PLATFORM_REQUEST_ID, SESSION};
use crate::inspector::notes::{self, ContainerHeaders};

/// Passes the container only what AgentCore would.
#[derive(Debug, Clone)]
pub(super) struct HeaderAllowlistLayer {
    filter: Arc<HeaderFilter>,
}

impl HeaderAllowlistLayer {
    /// Passing the caller's headers `allowlist` names (and the platform's own).
    pub(super) fn new(allowlist: RequestHeaderAllowlist) -> Self {
        Self {
            filter: Arc::new(HeaderFilter::new(allowlist)),
        }
    }
}

impl<S> Layer<S> for HeaderAllowlistLayer {
    type Service = HeaderAllowlist<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HeaderAllowlist {
            filter: Arc::clone(&self.filter),
            inner,
        }
    }
}

/// See [`HeaderAllowlistLayer`].
#[derive(Debug, Clone)]
pub(super) struct HeaderAllowlist<S> {
    filter: Arc<HeaderFilter>,
    inner: S,
}

impl<S: Next<Bytes>> Service<Request<Bytes>> for HeaderAllowlist<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = Answer<S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Bytes>) -> Self::Future {
        let Some(session) = session_of(&request).map(|session| session.name.clone()) else {
            return step::pass(&mut self.inner, request);
        };
        let ping = matches!(route_of(&request), Some(Route::Ping));
        let headers = request.headers_mut();
        // Read before the caller's headers are filtered.
        let token = (!ping)
            .then(|| workload_token::for_invocation(headers))
            .flatten();
        self.filter.apply(headers, session.as_str());
        if ping {
            return step::pass(&mut self.inner, request);
        }
        headers.insert(&SESSION, session.into_header());
        if let Some(token) = token {
            headers.insert(&workload_token::WORKLOAD_ACCESS_TOKEN, token);
        }
        if !notes::recording(&request) {
            return step::pass(&mut self.inner, request);
        }
        let sent = ContainerHeaders(request.headers().clone());
        Box::pin(self.inner.call(request).map(|answered| {
            answered.map(|mut response| {
                response.extensions_mut().insert(sent);
                response
            })
        }))
    }
}

/// The user id header's name, parsed once.
static USER_ID: HeaderName = HeaderName::from_static(USER_ID_HEADER);

/// How many (session, header) explanations are remembered before the memory starts over:
/// a bound on what a long run with many sessions keeps.
const EXPLAINED_BOUND: usize = 4096;

/// Drops from a request for the container what AgentCore would not pass.
#[derive(Debug)]
pub(super) struct HeaderFilter {
    allowlist: RequestHeaderAllowlist,
    /// The sessions already told (at info level) that a header of a name was dropped.
    explained: Mutex<HashSet<(Box<str>, HeaderName)>>,
}

/// Why a header did not reach the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dropped {
    /// Not on the allowlist.
    NotAllowlisted,
    /// On it, with a value over 4 KB.
    TooLong,
}

impl HeaderFilter {
    /// A filter passing `allowlist`'s headers.
    pub(super) fn new(allowlist: RequestHeaderAllowlist) -> Self {
        Self {
            allowlist,
            explained: Mutex::new(HashSet::new()),
        }
    }

    /// Removes from `headers` every header AgentCore would not pass to `session`'s
    /// container. Allocates nothing when nothing is dropped; a dropped header is looked up
    /// again from the start (a request has a handful of headers).
    pub(super) fn apply(&self, headers: &mut HeaderMap, session: &str) {
        loop {
            let dropped = headers.iter().find_map(|(name, value)| {
                self.verdict(name, value)
                    .map(|reason| (name.clone(), reason, bearer(name, value)))
            });
            let Some((name, reason, bearer)) = dropped else {
                return;
            };
            headers.remove(&name);
            self.report(&name, reason, bearer, session);
        }
    }

    /// Why the platform drops this header, if it does.
    fn verdict(&self, name: &HeaderName, value: &HeaderValue) -> Option<Dropped> {
        if passed_by_platform(name) {
            None
        } else if !self.allowlist.allows(name) {
            Some(Dropped::NotAllowlisted)
        } else if value.len() > MAX_HEADER_VALUE_BYTES {
            Some(Dropped::TooLong)
        } else {
            None
        }
    }

    /// One debug line per dropped header (its name, never its value); one info line per
    /// session and name for what a user would miss: a protocol header, a bearer token, an
    /// allowlisted header whose value was too long.
    fn report(&self, name: &HeaderName, reason: Dropped, bearer: bool, session: &str) {
        tracing::debug!(
            header = name.as_str(),
            ?reason,
            "header dropped before the container"
        );
        let hint = match reason {
            Dropped::TooLong => "its value is over 4 KB, which AgentCore does not pass",
            Dropped::NotAllowlisted if name == header::AUTHORIZATION && bearer => {
                "AgentCore passes Authorization only when a runtime with a JWT authorizer \
                 allowlists it (--request-header-allowlist)"
            }
            Dropped::NotAllowlisted if protocol_header(name) => {
                "add it to the allowlist (--request-header-allowlist)"
            }
            Dropped::NotAllowlisted => return,
        };
        if self.first_time(session, name) {
            tracing::info!(session_id = session, "{name} dropped: {hint}");
        }
    }

    /// True the first time `session` drops a header of this name.
    fn first_time(&self, session: &str, name: &HeaderName) -> bool {
        let mut explained = self
            .explained
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if explained.len() >= EXPLAINED_BOUND {
            explained.clear();
        }
        explained.insert((session.into(), name.clone()))
    }
}

/// What the platform passes of its own: InvokeAgentRuntime's content type, accepted type,
/// session and user, the request id the front has set, and the trace context.
fn passed_by_platform(name: &HeaderName) -> bool {
    name == header::CONTENT_TYPE
        || name == header::ACCEPT
        || name == SESSION
        || name == USER_ID
        || name == PLATFORM_REQUEST_ID
        || matches!(
            name.as_str(),
            "x-amzn-trace-id" | "traceparent" | "tracestate" | "baggage"
        )
}

/// A header an A2A client or server relies on, which a user would want to allowlist.
fn protocol_header(name: &HeaderName) -> bool {
    let name = name.as_str();
    name.starts_with("a2a-") || name == "last-event-id" || name == "x-api-key"
}

/// True for an `Authorization: Bearer …` (a JWT), not SigV4's `AWS4-HMAC-SHA256 …`.
pub(super) fn bearer(name: &HeaderName, value: &HeaderValue) -> bool {
    name == header::AUTHORIZATION
        && value
            .as_bytes()
            .get(..7)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case(b"bearer "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::explain::Caller;
    use crate::front::routes::RouteLayer;
    use crate::front::session_header::CallSession;
    use crate::front::session_name::SessionName;
    use crate::inspector::notes::Recording;
    use axum::body::Body;
    use axum::response::Response;
    use tower::ServiceExt as _;

    /// The headers the container gets for a call to `uri` with `headers`.
    async fn sent(uri: &str, headers: &[(&str, &str)]) -> HeaderMap {
        let inner = tower::service_fn(|request: Request<Bytes>| async move {
            let mut response = Response::new(Body::empty());
            *response.headers_mut() = request.headers().clone();
            Ok::<_, std::convert::Infallible>(response)
        });
        let layer =
            HeaderAllowlistLayer::new(RequestHeaderAllowlist::new(["X-Tenant"], false).unwrap());
        let stack = RouteLayer::new(None).layer(layer.layer(inner));
        let mut request = Request::get(uri).body(Bytes::new()).unwrap();
        for (name, value) in headers {
            request.headers_mut().insert(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        request.extensions_mut().insert(CallSession {
            name: SessionName::from_text("s".repeat(33)).unwrap(),
            caller: Caller::NoHeader { new_session: false },
        });
        request.extensions_mut().insert(Recording);
        let response = stack.oneshot(request).await.unwrap();
        let noted = response
            .extensions()
            .get::<ContainerHeaders>()
            .map(|h| h.0.clone());
        assert_eq!(
            noted.as_ref(),
            (!uri.contains("ping")).then_some(response.headers())
        );
        response.headers().clone()
    }

    #[tokio::test]
    async fn a_call_gets_the_allowlist_the_session_and_a_token_for_a_user() {
        let headers = sent(
            "/",
            &[
                ("x-tenant", "acme"),
                ("x-other", "no"),
                (USER_ID_HEADER, "alice"),
            ],
        )
        .await;
        assert_eq!(headers["x-tenant"], "acme");
        assert!(headers.get("x-other").is_none());
        assert_eq!(headers[&SESSION], "s".repeat(33).as_str());
        assert!(headers.contains_key(&workload_token::WORKLOAD_ACCESS_TOKEN));
        let ping = sent("/ping", &[("x-other", "no"), (USER_ID_HEADER, "alice")]).await;
        assert!(ping.get("x-other").is_none());
        assert!(ping.get(&SESSION).is_none());
        assert!(!ping.contains_key(&workload_token::WORKLOAD_ACCESS_TOKEN));
    }

    fn filter(names: &[&str]) -> HeaderFilter {
        HeaderFilter::new(RequestHeaderAllowlist::new(names, false).unwrap())
    }

    /// The names left, sorted (a `HeaderMap` keeps no order once headers are removed).
    fn names(headers: &HeaderMap) -> Vec<&str> {
        let mut names: Vec<&str> = headers.keys().map(HeaderName::as_str).collect();
        names.sort_unstable();
        names
    }

    #[test]
    fn only_the_allowlist_and_the_platforms_own_pass() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("host", "127.0.0.1"),
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
            ("a2a-version", "1.0"),
            ("x-tenant", "acme"),
            ("x-api-key", "secret"),
            ("authorization", "AWS4-HMAC-SHA256 Credential=…"),
            (USER_ID_HEADER, "alice"),
            ("workloadaccesstoken", "forged"),
            ("x-request-id", "client-chosen"),
            (
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
        ] {
            headers.append(
                HeaderName::from_static(name),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        filter(&["X-Tenant"]).apply(&mut headers, "s");
        assert_eq!(
            names(&headers),
            [
                "accept",
                "content-type",
                "traceparent",
                "x-amzn-bedrock-agentcore-runtime-user-id",
                "x-tenant"
            ]
        );
    }

    #[test]
    fn a_value_over_4_kb_is_dropped() {
        let mut headers = HeaderMap::new();
        let long = HeaderValue::from_str(&"v".repeat(4097)).unwrap();
        let fits = HeaderValue::from_str(&"v".repeat(4096)).unwrap();
        headers.insert("x-long", long);
        headers.insert("x-fits", fits);
        filter(&["X-Long", "X-Fits"]).apply(&mut headers, "s");
        assert_eq!(names(&headers), ["x-fits"]);
    }

    #[test]
    fn each_session_is_told_once() {
        let filter = filter(&[]);
        let name = HeaderName::from_static("a2a-version");
        assert!(filter.first_time("s1", &name));
        assert!(!filter.first_time("s1", &name));
        assert!(filter.first_time("s2", &name));
    }
}
