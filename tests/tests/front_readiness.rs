//! Readiness without a session (`emulator/src/front/readiness.rs`): `GET /_emulator/ready`
//! answers with no credentials, starts no session and counts against no quota; a `/ping`
//! without a session header starts no session either, while one with the header is that
//! session's container's.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::TempDir;
use a2a_test_support::harness::front::{
    self, ARN, SESSION_HEADER, invocations, invoke, session_id,
};
use a2a_test_support::harness::{Emulator, json};

/// A send in `session`, answered by the echo agent.
async fn send_in(emulator: &Emulator, session: &str) -> front::Reply {
    let (_, reply) = invoke(
        emulator,
        Some(session),
        "message/send",
        json!({"message": {"kind": "message", "role": "user", "messageId": "m-1",
                           "parts": [{"kind": "text", "text": "hi"}]}}),
    )
    .await;
    reply
}

#[tokio::test]
async fn readiness_needs_no_credentials_and_starts_no_session() {
    let emulator = Emulator::start(&[
        "--max-sessions",
        "1",
        "--auth",
        "sigv4",
        "--sigv4-credentials",
        "AKIDREADINESS:readiness-secret",
    ]);
    for _ in 0..3 {
        let ready = front::get(&emulator, "/_emulator/ready", &[]).await;
        assert_eq!(ready.status, 200, "{ready:?}");
        assert_eq!(
            ready.json(),
            json!({"status": "ready", "liveSessions": 0, "maxSessions": 1})
        );
        assert_eq!(ready.headers["content-type"], "application/json");
    }
    // An unsigned invocation is still refused: readiness opened nothing else.
    let refused = send_in(&emulator, &session_id("unsigned")).await;
    assert_eq!(refused.status, 403, "{refused:?}");
    let posted = front::post(&emulator, "/_emulator/ready", &[], Vec::new()).await;
    assert_eq!(posted.status, 405, "{posted:?}");
    assert_eq!(posted.headers["allow"], "GET, HEAD");
}

#[tokio::test]
async fn readiness_needs_no_token_under_jwt_auth() {
    let dir = TempDir::new("readiness-jwt");
    let state = dir.0.to_string_lossy().into_owned();
    let emulator = Emulator::start(&[
        "--auth",
        "jwt",
        "--jwt-allowed-scopes",
        "a2a/invoke",
        "--state-dir",
        state.as_str(),
    ]);
    let ready = front::get(&emulator, "/_emulator/ready", &[]).await;
    assert_eq!(ready.status, 200, "{ready:?}");
    assert_eq!(
        ready.json(),
        json!({"status": "ready", "liveSessions": 0, "maxSessions": 1000})
    );
    // An invocation without a bearer token is still refused.
    let send = front::post(&emulator, &invocations(ARN), &[], Vec::from(&b"{}"[..])).await;
    assert_eq!(send.status, 401, "{send:?}");
    let ready = front::get(&emulator, "/_emulator/ready", &[]).await;
    assert_eq!(ready.json()["liveSessions"], 0, "{ready:?}");
}

#[tokio::test]
async fn a_ping_without_a_session_header_uses_no_session_of_the_quota() {
    let emulator = Emulator::start(&["--max-sessions", "1"]);
    let ping = front::get(&emulator, "/ping", &[]).await;
    assert_eq!(ping.status, 200, "{ping:?}");
    assert_eq!(ping.json()["status"], "Healthy");
    assert!(ping.json()["time_of_last_update"].is_u64(), "{ping:?}");
    let ready = front::get(&emulator, "/_emulator/ready", &[]).await;
    assert_eq!(ready.json()["liveSessions"], 0, "{ready:?}");
    // The one session the quota allows is still free for an invocation.
    let session = session_id("after-ping");
    let sent = send_in(&emulator, &session).await;
    assert_eq!(sent.status, 200, "{sent:?}");
    let ready = front::get(&emulator, "/_emulator/ready", &[]).await;
    assert_eq!(ready.json()["liveSessions"], 1, "{ready:?}");
    // A ping naming that session is its container's; one naming a new session past the
    // quota is refused as an invocation would be.
    let named = front::get(&emulator, "/ping", &[(SESSION_HEADER, session.as_str())]).await;
    assert_eq!(named.status, 200, "{named:?}");
    assert_eq!(named.headers[SESSION_HEADER], session.as_str());
    let other = session_id("past-quota");
    let past = front::get(&emulator, "/ping", &[(SESSION_HEADER, other.as_str())]).await;
    assert_eq!(past.status, 402, "{past:?}");
}
