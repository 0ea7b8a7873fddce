//! StopRuntimeSession: the AgentCore data-plane call that ends the client's session, sent
//! to `…/runtimes/{ARN or id}/stopruntimesession` beside the invocation URL, with the
//! session header and a `clientToken` that makes its retries idempotent
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/APIReference/API_StopRuntimeSession.html>).

use bytes::Bytes;
use reqwest::Method;
use url::Url;

use crate::error::Error;
use crate::rpc::{Call, Transport};

/// The StopRuntimeSession URL of an AgentCore invocation URL
/// (`…/runtimes/{runtime}/invocations[/]`), its query (`qualifier`, `accountId`) kept.
pub(crate) fn stop_url(endpoint: &Url) -> Option<Url> {
    let path = endpoint.path();
    let start = path.find("/runtimes/")?;
    let rest = &path[start + "/runtimes/".len()..];
    let (runtime, tail) = rest.split_once('/')?;
    if runtime.is_empty() || !matches!(tail, "invocations" | "invocations/") {
        return None;
    }
    let mut url = endpoint.clone();
    url.set_path(&format!(
        "{}/runtimes/{runtime}/stopruntimesession",
        &path[..start]
    ));
    Some(url)
}

/// Stops the transport's session at the runtime of `endpoint`.
pub(crate) async fn stop(transport: &Transport, endpoint: &Url) -> Result<(), Error> {
    let url = stop_url(endpoint).ok_or_else(|| Error::Unsupported {
        operation: "stop-session",
        reason: format!(
            "{endpoint} is not an AgentCore invocation URL (…/runtimes/{{ARN}}/invocations/)"
        ),
    })?;
    // One token for every attempt: a retried stop is the same stop.
    let token = uuid::Uuid::new_v4().to_string();
    let body = serde_json::json!({ "clientToken": token }).to_string();
    let call = Call {
        method: Method::POST,
        url: &url,
        body: Some(Bytes::from(body)),
        version: None,
        accept: "application/json",
        id: None,
        rest: false,
        streaming: false,
        last_event_id: None,
    };
    let session = transport.session_id();
    match send_retrying(transport, &call).await {
        Ok(_) => {
            transport.note_restart("it was stopped");
            Ok(())
        }
        Err(Error::Http {
            status: 404, body, ..
        }) => Err(Error::SessionNotFound {
            url: url.to_string(),
            session,
            detail: body,
        }),
        Err(error) => Err(error),
    }
}

/// Sends the stop, retrying AWS's `ThrottlingException` (HTTP 429, restJson1: not a
/// JSON-RPC refusal, so [`Transport::execute`] does not retry it) within the retry policy.
async fn send_retrying(transport: &Transport, call: &Call<'_>) -> Result<(), Error> {
    let started = std::time::Instant::now();
    let mut attempt = 1;
    loop {
        let error = match transport.execute(call).await {
            Ok(_) => return Ok(()),
            Err(error @ Error::Http { status: 429, .. }) => error,
            Err(error) => return Err(error),
        };
        let wait = transport.retry.backoff(attempt, None);
        if attempt >= transport.retry.max_attempts
            || started.elapsed() + wait > transport.retry.max_elapsed
        {
            return Err(error);
        }
        tracing::debug!(attempt, wait_ms = wait.as_millis() as u64, %error, "retrying the stop");
        tokio::time::sleep(wait).await;
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_url_sits_beside_the_invocations() {
        let stop = |url: &str| stop_url(&Url::parse(url).unwrap()).map(|url| url.to_string());
        assert_eq!(
            stop("https://h/runtimes/arn%3Aaws%3Ax%2Fa-1/invocations/?qualifier=DEFAULT")
                .as_deref(),
            Some("https://h/runtimes/arn%3Aaws%3Ax%2Fa-1/stopruntimesession?qualifier=DEFAULT")
        );
        assert_eq!(
            stop("http://h/p/runtimes/a-0123456789/invocations?accountId=123456789012").as_deref(),
            Some("http://h/p/runtimes/a-0123456789/stopruntimesession?accountId=123456789012")
        );
        assert_eq!(stop("http://h/"), None);
        assert_eq!(stop("http://h/runtimes/x/other"), None);
    }
}
