//! What push delivery logs: the webhook as scheme://host:port/path, never its query, the
//! token, the Authorization value or the body. Its own test binary, so its subscriber is
//! the process's.

#![allow(clippy::unwrap_used)]

mod push_receiver;

use std::sync::{Arc, Mutex};

use a2a_lambda_server::push::delivery::{Notification, Outcome};
use a2a_lambda_server::push::target::TargetPolicy;
use bytes::Bytes;
use push_receiver::{Answer, Receiver, webhooks};

/// A log sink for the test's subscriber.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn logs_never_hold_the_query_token_authorization_or_body() {
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    // The only test of this binary, so the process-wide subscriber is this test's (a
    // scoped one races with other tests registering the same log lines).
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let failing = Receiver::start(vec![Answer::Status(502)], Answer::Status(500)).await;
    let secret = |url: String| Notification {
        url,
        token: Some("TOKENSECRET".into()),
        authorization: Some("Bearer AUTHSECRET".into()),
        content_type: "application/a2a+json",
        body: Bytes::from_static(b"{\"BODYSECRET\":1}"),
    };
    let webhooks = webhooks(TargetPolicy::Loopback, 2);
    let outcome = webhooks
        .deliver(&secret(failing.url("/hooks/a2a?sig=QUERYSECRET")))
        .await;
    assert!(
        matches!(outcome, Outcome::GaveUp { attempts: 2, .. }),
        "{outcome:?}"
    );
    let refused = webhooks
        .deliver(&secret("http://169.254.169.254/x?sig=QUERYSECRET".into()))
        .await;
    assert!(matches!(refused, Outcome::Refused(_)), "{refused:?}");

    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let path = format!("http://127.0.0.1:{}/hooks/a2a", failing.port);
    assert!(logs.contains(&path), "the path is logged: {logs}");
    assert!(logs.contains("push notification attempt failed"), "{logs}");
    assert!(logs.contains("push notification given up"), "{logs}");
    assert!(logs.contains("push notification target refused"), "{logs}");
    assert!(logs.contains("address=Some(169.254.169.254)"), "{logs}");
    for secret in ["QUERYSECRET", "TOKENSECRET", "AUTHSECRET", "BODYSECRET"] {
        assert!(!logs.contains(secret), "{secret} logged: {logs}");
    }
}
