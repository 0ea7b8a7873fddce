//! One push notification POSTed to its webhook, with retries.
//!
//! A2A v1.0 §4.3.3 (Push Notification Payload) and §13.2: the agent POSTs the event with
//! the config's authentication as `Authorization: {scheme} {credentials}`, "SHOULD include a
//! reasonable timeout for webhook requests (recommended: 10-30 seconds)", "MAY implement
//! retry logic with exponential backoff", and "MAY stop attempting delivery after a
//! configured number of consecutive failures"; the receiver acknowledges with a 2xx and
//! "SHOULD process notifications idempotently, as duplicate deliveries may occur" (so a
//! retry after a lost answer is allowed). The config's `token` goes in
//! `X-A2A-Notification-Token`, the header the Python `a2a-sdk` sends
//! (<https://github.com/a2aproject/a2a-python/blob/main/src/a2a/server/tasks/base_push_notification_sender.py>).
//!
//! Safety: no redirects are followed (a 3xx could point anywhere, e.g. the metadata
//! service), no proxy is used, and the client's resolver refuses a name when any of its
//! addresses is not allowed by the [`TargetPolicy`] — the connect-time check that defeats
//! DNS rebinding between [`check_url`](super::target::check_url) and the POST. An address
//! written in the URL bypasses resolvers, so it is checked before each send.
//!
//! https needs the crate's `tls` feature (a default); a build without it does not try a
//! webhook at an https URL: its [`Outcome::GaveUp`], after no attempt, says so.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER};
use url::Url;

use super::target::{self, TargetError, TargetPolicy};

/// The header that carries a config's `token`.
pub const TOKEN_HEADER: &str = "x-a2a-notification-token";

/// The `User-Agent` of every notification.
pub const USER_AGENT: &str = concat!("a2a-lambda/", env!("CARGO_PKG_VERSION"));

/// How much of a webhook's answer is read (then dropped): enough to keep a small answer's
/// connection reusable, never a large body.
const BODY_READ_LIMIT: usize = 4 * 1024;

/// The longest a connection may take to open (bounded also by the attempt's timeout).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Why a webhook at an https URL is not tried by a build without TLS.
#[cfg(not(feature = "tls"))]
const NO_TLS: &str = "https webhooks need TLS, which this build left out (the `tls` feature \
    of a2a-lambda-server; a2a-lambda-emulator turns it on with its `tls` or `auth` feature)";

/// How hard one notification is tried.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DeliveryPolicy {
    /// Per attempt, connection to answer (default 10 s; A2A §4.3.3 recommends 10–30 s).
    pub timeout: Duration,
    /// How many attempts in all (default 5; `0` counts as 1: §4.3.3 "Agents MUST attempt
    /// delivery at least once").
    pub attempts: u32,
    /// The wait after the first failed attempt (default 500 ms); it doubles after each.
    pub first_backoff: Duration,
    /// The longest wait between attempts, also the cap on a `Retry-After` (default 8 s).
    pub max_backoff: Duration,
}

impl Default for DeliveryPolicy {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            attempts: 5,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
        }
    }
}

impl DeliveryPolicy {
    /// The wait after failed attempt `attempt` (1-based): `first_backoff · 2^(attempt-1)`
    /// capped at `max_backoff`, then jittered down by up to half (so many webhooks failing
    /// together do not retry in step).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exponent = attempt.saturating_sub(1).min(30);
        let full = self
            .first_backoff
            .saturating_mul(1 << exponent)
            .min(self.max_backoff);
        let half = full / 2;
        half + half.mul_f64(jitter())
    }
}

/// A number in `[0, 1)`, different on each call: not for cryptography, only to spread
/// retries (a counter and the clock, mixed by SplitMix64).
fn jitter() -> f64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = nanos ^ count.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// One notification: the webhook and what to POST.
#[derive(Clone)]
pub struct Notification {
    /// The webhook.
    pub url: String,
    /// Sent as `X-A2A-Notification-Token` (a2a-sdk python's header name) when set.
    pub token: Option<String>,
    /// The config's authentication as one `Authorization` header value:
    /// `"{scheme} {credentials}"` (or the scheme alone when no credentials).
    pub authorization: Option<String>,
    /// `application/a2a+json` for v1.0 configs, `application/json` for v0.3.
    pub content_type: &'static str,
    /// The JSON to POST.
    pub body: Bytes,
}

/// Shows the URL as [`Webhooks`] logs it, and whether secrets are set — never their values.
impl std::fmt::Debug for Notification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notification")
            .field("url", &loggable(&self.url))
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field(
                "authorization",
                &self.authorization.as_ref().map(|_| "<set>"),
            )
            .field("content_type", &self.content_type)
            .field("body_len", &self.body.len())
            .finish()
    }
}

/// What became of a notification.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The webhook answered 2xx.
    Delivered {
        /// Attempts made, the last one successful.
        attempts: u32,
        /// The 2xx status.
        status: u16,
    },
    /// Every attempt failed (or a non-retryable answer came): the last reason.
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// Why the last one failed (no URL query, no secrets).
        reason: String,
    },
    /// The target is not allowed (checked again at connect time: DNS rebinding).
    Refused(TargetError),
}

/// The HTTP client could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeliveryError {
    /// The client's TLS or connector setup failed (the reason).
    #[error("the webhook HTTP client could not be built: {0}")]
    Client(String),
}

/// The webhook client: one per engine, cheap to clone (connections are pooled and shared).
///
/// ```no_run
/// use a2a_lambda_server::push::delivery::{DeliveryPolicy, Notification, Outcome, Webhooks};
/// use a2a_lambda_server::push::target::TargetPolicy;
///
/// # async fn run() -> Result<(), a2a_lambda_server::push::delivery::DeliveryError> {
/// let webhooks = Webhooks::new(TargetPolicy::PublicHttps, DeliveryPolicy::default())?;
/// let outcome = webhooks
///     .deliver(&Notification {
///         url: "https://client.example.com/webhook".into(),
///         token: Some("per-config-secret".into()),
///         authorization: Some("Bearer abc".into()),
///         content_type: "application/a2a+json",
///         body: r#"{"statusUpdate":{}}"#.into(),
///     })
///     .await;
/// assert!(matches!(outcome, Outcome::Delivered { .. }));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Webhooks {
    client: reqwest::Client,
    targets: TargetPolicy,
    policy: DeliveryPolicy,
}

/// What one attempt came to.
enum Attempt {
    Delivered(u16),
    /// Worth another try, after `after` if the webhook said so.
    Retry {
        reason: String,
        after: Option<Duration>,
    },
    /// Another try would fare no better.
    Fatal(String),
    Refused(TargetError),
}

impl Webhooks {
    /// A client for webhooks allowed by `targets`, tried as `policy` says.
    pub fn new(targets: TargetPolicy, policy: DeliveryPolicy) -> Result<Self, DeliveryError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .https_only(!targets.allows_http())
            .connect_timeout(CONNECT_TIMEOUT.min(policy.timeout))
            .timeout(policy.timeout)
            .user_agent(USER_AGENT)
            .dns_resolver(GuardedResolver { policy: targets })
            .build()
            .map_err(|e| DeliveryError::Client(error_chain(&e)))?;
        Ok(Self {
            client,
            targets,
            policy,
        })
    }

    /// Where webhooks may point.
    pub fn targets(&self) -> TargetPolicy {
        self.targets
    }

    /// How hard each notification is tried.
    pub fn policy(&self) -> &DeliveryPolicy {
        &self.policy
    }

    /// POSTs `notification`, retrying connect errors, timeouts, 408, 429 and 5xx with
    /// backoff; any other answer ends it. Never panics; every failure is an [`Outcome`].
    pub async fn deliver(&self, notification: &Notification) -> Outcome {
        if !crate::telemetry::is_on() {
            return self.deliver_untraced(notification).await;
        }
        // The host only: the path, query and token of a webhook may carry secrets.
        let host = Url::parse(&notification.url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_owned))
            .unwrap_or_default();
        let span = crate::telemetry::push(&host);
        let outcome =
            crate::telemetry::instrument(self.deliver_untraced(notification), span.clone()).await;
        let (name, attempts, status) = match &outcome {
            Outcome::Delivered { attempts, status } => ("delivered", *attempts, Some(*status)),
            Outcome::Refused(_) => ("refused", 0, None),
            Outcome::GaveUp { attempts, .. } => ("gave_up", *attempts, None),
        };
        crate::telemetry::record_push(&span, name, attempts, status);
        crate::telemetry::metrics::push(name);
        outcome
    }

    async fn deliver_untraced(&self, notification: &Notification) -> Outcome {
        let url = match target::check_url_form(&notification.url, self.targets) {
            Ok((url, _)) => url,
            Err(refusal) => {
                tracing::info!(%refusal, address = ?refusal.address(), "push notification target refused");
                return Outcome::Refused(refusal);
            }
        };
        let shown = &*shown(&url);
        #[cfg(not(feature = "tls"))]
        if url.scheme() == "https" {
            let reason = NO_TLS.to_owned();
            tracing::warn!(url = shown, %reason, "push notification not sent");
            return Outcome::GaveUp {
                attempts: 0,
                reason,
            };
        }
        let headers = match headers(notification) {
            Ok(headers) => headers,
            Err(reason) => {
                tracing::warn!(url = shown, %reason, "push notification not sent");
                return Outcome::GaveUp {
                    attempts: 0,
                    reason,
                };
            }
        };
        let attempts = self.policy.attempts.max(1);
        let mut last = String::new();
        for attempt in 1..=attempts {
            match self.attempt(&url, &headers, notification).await {
                Attempt::Delivered(status) => {
                    tracing::debug!(url = shown, attempt, status, "push notification delivered");
                    return Outcome::Delivered {
                        attempts: attempt,
                        status,
                    };
                }
                Attempt::Refused(refusal) => {
                    tracing::info!(
                        url = shown,
                        %refusal,
                        address = ?refusal.address(),
                        "push notification target refused"
                    );
                    return Outcome::Refused(refusal);
                }
                Attempt::Fatal(reason) => {
                    tracing::warn!(url = shown, attempt, %reason, "push notification given up");
                    return Outcome::GaveUp {
                        attempts: attempt,
                        reason,
                    };
                }
                Attempt::Retry { reason, after } => {
                    tracing::debug!(url = shown, attempt, %reason, "push notification attempt failed");
                    if attempt < attempts {
                        let wait = after.map_or_else(
                            || self.policy.backoff(attempt),
                            |after| after.min(self.policy.max_backoff),
                        );
                        tokio::time::sleep(wait).await;
                    }
                    last = reason;
                }
            }
        }
        tracing::warn!(url = shown, attempts, reason = %last, "push notification given up");
        Outcome::GaveUp {
            attempts,
            reason: last,
        }
    }

    /// One POST and what its answer means.
    async fn attempt(
        &self,
        url: &Url,
        headers: &[(HeaderName, HeaderValue)],
        notification: &Notification,
    ) -> Attempt {
        let mut request = self.client.post(url.clone());
        for (name, value) in headers {
            request = request.header(name, value.clone());
        }
        #[cfg(feature = "otel")]
        if crate::telemetry::is_on() {
            let mut context = axum::http::HeaderMap::new();
            crate::telemetry::inject(&mut context);
            request = request.headers(context);
        }
        let response = match request.body(notification.body.clone()).send().await {
            Ok(response) => response,
            Err(error) => return self.failed(&error),
        };
        let status = response.status();
        let after = retry_after(&response);
        drain(response).await;
        judge(status, after)
    }

    /// What a transport error means: a refusal by the resolver, or a retryable failure.
    fn failed(&self, error: &reqwest::Error) -> Attempt {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(cause) = source {
            if let Some(target) = cause.downcast_ref::<TargetError>() {
                if target.is_refusal() {
                    return Attempt::Refused(target.clone());
                }
                return Attempt::Retry {
                    reason: target.to_string(),
                    after: None,
                };
            }
            source = cause.source();
        }
        let reason = if error.is_timeout() {
            format!("no answer within {} ms", self.policy.timeout.as_millis())
        } else if error.is_connect() {
            format!("could not connect: {}", error_chain(error))
        } else if error.is_builder() {
            return Attempt::Fatal(format!("request not built: {}", error_chain(error)));
        } else {
            format!("request failed: {}", error_chain(error))
        };
        Attempt::Retry {
            reason,
            after: None,
        }
    }
}

/// The headers of every attempt, built once; the secrets marked sensitive (HTTP/2 never
/// indexes them in its header table).
fn headers(notification: &Notification) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    let mut headers = vec![(
        CONTENT_TYPE,
        HeaderValue::from_static(notification.content_type),
    )];
    let secret = |value: &str, what: &str| {
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| format!("the {what} cannot be sent as an HTTP header value"))?;
        value.set_sensitive(true);
        Ok::<_, String>(value)
    };
    if let Some(token) = &notification.token {
        headers.push((
            HeaderName::from_static(TOKEN_HEADER),
            secret(token, "token")?,
        ));
    }
    if let Some(authorization) = &notification.authorization {
        headers.push((AUTHORIZATION, secret(authorization, "authentication")?));
    }
    Ok(headers)
}

/// What a webhook's status means.
fn judge(status: StatusCode, after: Option<Duration>) -> Attempt {
    let code = status.as_u16();
    let text = match status.canonical_reason() {
        Some(reason) => format!("HTTP {code} {reason}"),
        None => format!("HTTP {code}"),
    };
    if status.is_success() {
        Attempt::Delivered(code)
    } else if status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
    {
        Attempt::Retry {
            reason: text,
            after,
        }
    } else if status.is_redirection() {
        Attempt::Fatal(format!("{text}: redirect not followed"))
    } else {
        Attempt::Fatal(text)
    }
}

/// A `Retry-After` in seconds (the HTTP-date form is not honoured: backoff applies).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

/// Reads at most [`BODY_READ_LIMIT`] of the answer, then drops it.
async fn drain(mut response: reqwest::Response) {
    let mut read = 0;
    while read < BODY_READ_LIMIT {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            Ok(None) | Err(_) => break,
        }
    }
}

/// An error and its causes, `: `-joined, without the URL (which may hold a query).
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    if text.is_empty() {
        // reqwest's own text names the kind ("error sending request") and the URL; keep
        // only the kind.
        let own = error.to_string();
        text = own
            .split(" for url (")
            .next()
            .unwrap_or("request failed")
            .to_owned();
    }
    text
}

/// A URL as logged: scheme, host, port and path; never the query, fragment or userinfo.
fn shown(url: &Url) -> String {
    let host = url.host_str().unwrap_or("");
    match url.port() {
        Some(port) => format!("{}://{host}:{port}{}", url.scheme(), url.path()),
        None => format!("{}://{host}{}", url.scheme(), url.path()),
    }
}

/// [`shown`] for text that may not parse.
fn loggable(url: &str) -> String {
    Url::parse(url).map_or_else(|_| "<not a URL>".to_owned(), |url| shown(&url))
}

/// Resolves with tokio, and refuses a name when any of its addresses is not allowed.
#[derive(Debug)]
struct GuardedResolver {
    policy: TargetPolicy,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Port 0: reqwest puts the URL's port in.
            let addrs: Vec<SocketAddr> = target::resolve_checked(&host, 0, policy).await?;
            let addrs: Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_caps() {
        let policy = DeliveryPolicy {
            first_backoff: Duration::from_millis(400),
            max_backoff: Duration::from_millis(2000),
            ..DeliveryPolicy::default()
        };
        for (attempt, full) in [(1, 400), (2, 800), (3, 1600), (4, 2000), (40, 2000)] {
            let wait = policy.backoff(attempt);
            let full = Duration::from_millis(full);
            assert!(wait >= full / 2 && wait <= full, "{attempt}: {wait:?}");
        }
        let spread: std::collections::HashSet<_> = (0..20).map(|_| policy.backoff(3)).collect();
        assert!(spread.len() > 1, "jitter varies the wait");
    }

    #[test]
    fn statuses() {
        let kind = |code: u16| match judge(StatusCode::from_u16(code).unwrap(), None) {
            Attempt::Delivered(_) => "delivered",
            Attempt::Retry { .. } => "retry",
            Attempt::Fatal(_) => "fatal",
            Attempt::Refused(_) => "refused",
        };
        for (code, want) in [
            (200, "delivered"),
            (202, "delivered"),
            (204, "delivered"),
            (301, "fatal"),
            (302, "fatal"),
            (400, "fatal"),
            (401, "fatal"),
            (404, "fatal"),
            (408, "retry"),
            (429, "retry"),
            (500, "retry"),
            (503, "retry"),
        ] {
            assert_eq!(kind(code), want, "{code}");
        }
        let Attempt::Fatal(reason) = judge(StatusCode::FOUND, None) else {
            panic!("302 is fatal");
        };
        assert_eq!(reason, "HTTP 302 Found: redirect not followed");
    }

    #[test]
    fn debug_hides_secrets() {
        let notification = Notification {
            url: "https://hooks.example.com/a2a?key=QUERYSECRET#frag".into(),
            token: Some("TOKENSECRET".into()),
            authorization: Some("Bearer AUTHSECRET".into()),
            content_type: "application/a2a+json",
            body: Bytes::from_static(b"BODYSECRET"),
        };
        let shown = format!("{notification:?}");
        for secret in [
            "QUERYSECRET",
            "TOKENSECRET",
            "AUTHSECRET",
            "BODYSECRET",
            "frag",
        ] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("https://hooks.example.com/a2a"), "{shown}");
    }

    #[test]
    fn bad_header_values_are_not_sent() {
        let notification = Notification {
            url: "https://hooks.example.com/".into(),
            token: Some("line\nbreak".into()),
            authorization: None,
            content_type: "application/json",
            body: Bytes::new(),
        };
        assert_eq!(
            headers(&notification).unwrap_err(),
            "the token cannot be sent as an HTTP header value"
        );
    }
}
