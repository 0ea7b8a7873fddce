//! Push notification delivery against real local receivers: what arrives (headers, body),
//! which answers are retried, timeouts, redirects not followed, and every SSRF class
//! refused at config time (`check_url`) and at delivery (`Outcome::Refused`), with no
//! connection made.

#![allow(clippy::unwrap_used)] // the receivers and helpers are test code

mod push_receiver;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use a2a_lambda_server::push::delivery::{Notification, Outcome, Webhooks};
use a2a_lambda_server::push::target::{TargetError, TargetPolicy, check_url};
use bytes::Bytes;
use push_receiver::{Answer, Receiver, counting_port, header_text, notification, quick, webhooks};
use tokio::net::TcpListener;

#[tokio::test]
async fn the_receiver_gets_the_exact_headers_and_body() {
    let receiver = Receiver::start(vec![], Answer::Status(200)).await;
    let body = r#"{"statusUpdate":{"taskId":"43667960","contextId":"c295","status":{"state":"TASK_STATE_COMPLETED"}}}"#;
    let outcome = webhooks(TargetPolicy::Loopback, 3)
        .deliver(&Notification {
            url: receiver.url("/webhook/a2a?tenant=7"),
            token: Some("per-config-token".into()),
            authorization: Some("Bearer x".into()),
            content_type: "application/a2a+json",
            body: Bytes::from(body),
        })
        .await;
    assert_eq!(
        outcome,
        Outcome::Delivered {
            attempts: 1,
            status: 200
        }
    );
    let seen = receiver.seen();
    assert_eq!(seen.len(), 1);
    let seen = &seen[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.uri, "/webhook/a2a?tenant=7");
    assert_eq!(seen.body, body.as_bytes());
    assert_eq!(
        header_text(seen, "content-type"),
        Some("application/a2a+json")
    );
    assert_eq!(
        header_text(seen, "x-a2a-notification-token"),
        Some("per-config-token")
    );
    assert_eq!(header_text(seen, "authorization"), Some("Bearer x"));
    assert_eq!(
        header_text(seen, "user-agent"),
        Some(concat!("a2a-lambda/", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(
        header_text(seen, "content-length"),
        Some(&*body.len().to_string())
    );
}

#[tokio::test]
async fn a_v0_3_notification_without_secrets_sends_neither_header() {
    let receiver = Receiver::start(vec![], Answer::Status(204)).await;
    let mut plain = notification(receiver.url("/hook"));
    plain.content_type = "application/json";
    let outcome = webhooks(TargetPolicy::Loopback, 3).deliver(&plain).await;
    assert_eq!(
        outcome,
        Outcome::Delivered {
            attempts: 1,
            status: 204
        }
    );
    let seen = &receiver.seen()[0];
    assert_eq!(header_text(seen, "content-type"), Some("application/json"));
    assert_eq!(header_text(seen, "x-a2a-notification-token"), None);
    assert_eq!(header_text(seen, "authorization"), None);
}

#[tokio::test]
async fn two_server_errors_then_ok_is_delivered_on_the_third_attempt() {
    let receiver = Receiver::start(
        vec![Answer::Status(500), Answer::Status(503)],
        Answer::Status(200),
    )
    .await;
    let outcome = webhooks(TargetPolicy::Loopback, 5)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::Delivered {
            attempts: 3,
            status: 200
        }
    );
    let seen = receiver.seen();
    assert_eq!(seen.len(), 3);
    // Each attempt is the same notification.
    assert!(seen.iter().all(|s| s.body == seen[0].body));
}

#[tokio::test]
async fn always_500_gives_up_after_every_attempt() {
    let receiver = Receiver::start(vec![], Answer::Status(500)).await;
    let outcome = webhooks(TargetPolicy::Loopback, 4)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::GaveUp {
            attempts: 4,
            reason: "HTTP 500 Internal Server Error".into()
        }
    );
    assert_eq!(receiver.seen().len(), 4);
}

#[tokio::test]
async fn a_400_is_not_retried() {
    let receiver = Receiver::start(vec![], Answer::Status(400)).await;
    let outcome = webhooks(TargetPolicy::Loopback, 5)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::GaveUp {
            attempts: 1,
            reason: "HTTP 400 Bad Request".into()
        }
    );
    assert_eq!(receiver.seen().len(), 1);
}

#[tokio::test]
async fn a_408_is_retried() {
    let receiver = Receiver::start(vec![Answer::Status(408)], Answer::Status(200)).await;
    let outcome = webhooks(TargetPolicy::Loopback, 5)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::Delivered {
            attempts: 2,
            status: 200
        }
    );
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_and_the_wait_capped() {
    // Retry-After: 30 s, capped at max_backoff (40 ms): done long before 30 s.
    let receiver = Receiver::start(vec![Answer::RetryAfter(429, "30")], Answer::Status(200)).await;
    let started = Instant::now();
    let outcome = webhooks(TargetPolicy::Loopback, 3)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::Delivered {
            attempts: 2,
            status: 200
        }
    );
    assert_eq!(receiver.seen().len(), 2);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_retry_after_is_honoured() {
    // Retry-After: 1 s with max_backoff raised to 5 s: the second attempt waits ~1 s,
    // much more than the 5 ms backoff would.
    let receiver = Receiver::start(vec![Answer::RetryAfter(503, "1")], Answer::Status(200)).await;
    let mut policy = quick(3);
    policy.max_backoff = Duration::from_secs(5);
    let started = Instant::now();
    let outcome = Webhooks::new(TargetPolicy::Loopback, policy)
        .unwrap()
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::Delivered {
            attempts: 2,
            status: 200
        }
    );
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_hanging_receiver_times_out_each_attempt() {
    let receiver = Receiver::start(vec![], Answer::Hang).await;
    let started = Instant::now();
    let outcome = webhooks(TargetPolicy::Loopback, 3)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::GaveUp {
            attempts: 3,
            reason: "no answer within 300 ms".into()
        }
    );
    assert_eq!(receiver.seen().len(), 3);
    // Three 300 ms attempts and two short waits: seconds at most, never the minute the
    // receiver would take.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_redirect_to_the_metadata_service_is_not_followed() {
    let receiver = Receiver::start(
        vec![],
        Answer::Redirect("http://169.254.169.254/latest/meta-data/".into()),
    )
    .await;
    // AllowPrivate would even allow the metadata address: not following is what protects.
    let outcome = webhooks(TargetPolicy::AllowPrivate, 5)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert_eq!(
        outcome,
        Outcome::GaveUp {
            attempts: 1,
            reason: "HTTP 302 Found: redirect not followed".into()
        }
    );
    assert_eq!(receiver.seen().len(), 1);
}

#[tokio::test]
async fn a_redirect_is_not_followed_even_to_an_allowed_target() {
    let elsewhere = Receiver::start(vec![], Answer::Status(200)).await;
    let receiver = Receiver::start(
        vec![],
        Answer::Redirect(elsewhere.url("/latest/meta-data/")),
    )
    .await;
    let outcome = webhooks(TargetPolicy::Loopback, 5)
        .deliver(&notification(receiver.url("/hook")))
        .await;
    assert!(
        matches!(&outcome, Outcome::GaveUp { attempts: 1, reason } if reason.contains("redirect")),
        "{outcome:?}"
    );
    assert_eq!(receiver.seen().len(), 1);
    assert_eq!(
        elsewhere.seen().len(),
        0,
        "the redirect target was contacted"
    );
}

#[tokio::test]
async fn a_closed_port_is_retried_as_a_connect_error() {
    // Bind then drop: nothing listens there.
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let outcome = webhooks(TargetPolicy::Loopback, 2)
        .deliver(&notification(format!("http://127.0.0.1:{port}/hook")))
        .await;
    assert!(
        matches!(&outcome, Outcome::GaveUp { attempts: 2, reason } if reason.starts_with("could not connect")),
        "{outcome:?}"
    );
}

/// Every non-public class, as a URL the production default must refuse.
fn ssrf_urls(port: u16) -> Vec<String> {
    [
        "127.0.0.1",
        "127.9.9.9",
        "[::1]",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "[fc00::1]",
        "[fd00:ec2::254]",
        "[fe80::1]",
        "[ff02::1]",
        "0.0.0.0",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::ffff:169.254.169.254]",
        "[64:ff9b::a9fe:a9fe]",
        "localhost",
        "0x7f.1",
    ]
    .into_iter()
    .map(|host| format!("https://{host}:{port}/latest/meta-data/"))
    .collect()
}

#[tokio::test]
async fn every_ssrf_class_is_refused_when_a_config_is_set() {
    for url in ssrf_urls(443) {
        let refused = check_url(&url, TargetPolicy::PublicHttps).await;
        assert!(
            matches!(refused, Err(TargetError::NotAllowed { .. })),
            "{url}: {refused:?}"
        );
    }
    let http = check_url("http://hooks.example.com/a2a", TargetPolicy::PublicHttps).await;
    assert_eq!(http, Err(TargetError::InsecureScheme));
    assert_eq!(
        http.unwrap_err().to_string(),
        "url: must use https (http is allowed only with --push-allow-insecure-targets)"
    );
    assert_eq!(
        check_url(
            "https://169.254.169.254/latest/meta-data/",
            TargetPolicy::PublicHttps
        )
        .await
        .unwrap_err()
        .to_string(),
        "url: 169.254.169.254 is a link-local address (169.254.0.0/16, which holds the cloud \
         instance metadata service); webhooks must be public"
    );
    assert_eq!(
        check_url("https://localhost/hook", TargetPolicy::PublicHttps)
            .await
            .unwrap_err()
            .to_string(),
        "url: localhost resolves to a loopback address (127.0.0.0/8); webhooks must be public"
    );
    assert_eq!(
        check_url(
            "https://user:pw@hooks.example.com/",
            TargetPolicy::PublicHttps
        )
        .await
        .unwrap_err()
        .to_string(),
        "url: must not carry user:password (put credentials in authentication)"
    );
    assert_eq!(
        check_url("hooks.example.com/a2a", TargetPolicy::PublicHttps)
            .await
            .unwrap_err()
            .to_string(),
        "url: not an absolute URL: relative URL without a base"
    );
}

#[tokio::test]
async fn every_ssrf_class_is_refused_at_delivery_without_a_connection() {
    let (port, connections) = counting_port().await;
    let webhooks = webhooks(TargetPolicy::PublicHttps, 3);
    let mut urls = ssrf_urls(port);
    urls.push(format!("http://127.0.0.1:{port}/hook"));
    urls.push(format!("http://localhost:{port}/hook"));
    urls.push("http://hooks.example.com/a2a".to_owned());
    for url in urls {
        let outcome = webhooks.deliver(&notification(url.clone())).await;
        assert!(matches!(outcome, Outcome::Refused(_)), "{url}: {outcome:?}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_name_is_checked_at_connect_time() {
    // `localhost` passes the no-DNS form check; the client's resolver refuses it, naming
    // the host, before any connection: the same check that defeats DNS rebinding.
    let (port, connections) = counting_port().await;
    let outcome = webhooks(TargetPolicy::PublicHttps, 3)
        .deliver(&notification(format!("https://localhost:{port}/hook")))
        .await;
    let Outcome::Refused(TargetError::NotAllowed { host, class, .. }) = &outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(host.as_deref(), Some("localhost"));
    assert_eq!(*class, "loopback");
    assert_eq!(connections.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn loopback_allows_this_machine_and_nothing_private() {
    let receiver = Receiver::start(vec![], Answer::Status(200)).await;
    let webhooks = webhooks(TargetPolicy::Loopback, 2);
    for url in [
        receiver.url("/by-address"),
        format!("http://localhost:{}/by-name", receiver.port),
    ] {
        assert!(
            check_url(&url, TargetPolicy::Loopback).await.is_ok(),
            "{url}"
        );
        let outcome = webhooks.deliver(&notification(url.clone())).await;
        assert!(
            matches!(outcome, Outcome::Delivered { .. }),
            "{url}: {outcome:?}"
        );
    }
    assert_eq!(receiver.seen().len(), 2);
    for url in [
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/hook",
        "http://[fe80::1]/hook",
    ] {
        assert!(
            matches!(
                check_url(url, TargetPolicy::Loopback).await,
                Err(TargetError::NotAllowed { .. })
            ),
            "{url}"
        );
        let outcome = webhooks.deliver(&notification(url.to_owned())).await;
        assert!(matches!(outcome, Outcome::Refused(_)), "{url}: {outcome:?}");
    }
}

#[tokio::test]
async fn allow_private_allows_every_class() {
    for url in [
        "http://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fc00::1]/hook",
        "http://localhost/hook",
    ] {
        assert!(
            check_url(url, TargetPolicy::AllowPrivate).await.is_ok(),
            "{url}"
        );
    }
    // 0.0.0.0 reaches this machine on Linux: allowed here, refused by the other policies.
    let receiver = Receiver::start(vec![], Answer::Status(200)).await;
    let outcome = webhooks(TargetPolicy::AllowPrivate, 2)
        .deliver(&notification(format!(
            "http://0.0.0.0:{}/hook",
            receiver.port
        )))
        .await;
    assert!(matches!(outcome, Outcome::Delivered { .. }), "{outcome:?}");
}

#[tokio::test]
async fn a_client_is_reused_for_many_deliveries() {
    // One Webhooks, clones included, serves concurrent deliveries over pooled connections.
    let receiver = Receiver::start(vec![], Answer::Status(200)).await;
    let webhooks = webhooks(TargetPolicy::Loopback, 1);
    let url = receiver.url("/hook");
    let outcomes = futures_util::future::join_all((0..20).map(|_| {
        let webhooks = webhooks.clone();
        let notification = notification(url.clone());
        async move { webhooks.deliver(&notification).await }
    }))
    .await;
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Outcome::Delivered { attempts: 1, .. }))
    );
    assert_eq!(receiver.seen().len(), 20);
    assert_eq!(webhooks.targets(), TargetPolicy::Loopback);
}
