#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The emulator's webhook sinks (`/_emulator/webhooks/{name}`), through the real front in
//! process: what a POST answers, the exact JSON a GET shows (secrets masked), polling with
//! `since` and `wait`, clearing, the bounds, bad names and bodies, and that the sinks sit
//! outside the platform (no session header, no inbound auth), plus the library accessors.
//! (The binary's sinks: `tests/tests/emulator_webhooks.rs`.)

use std::time::{Duration, Instant};

use a2a_lambda_emulator::{Emulator, InboundAuth, Running, SigV4Keys};
use a2a_lambda_server::agents::EchoAgent;
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn start() -> Running {
    Emulator::new(EchoAgent).start().await.unwrap()
}

async fn post(url: &str, body: &'static str, headers: &[(&str, &str)]) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().post(url).body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

async fn get(url: &str) -> (StatusCode, Value) {
    let response = reqwest::get(url).await.unwrap();
    let status = response.status();
    assert_eq!(
        response.headers()["content-type"],
        "application/json",
        "{url}"
    );
    (status, response.json().await.unwrap())
}

/// The deliveries' `receivedAt`, checked as RFC 3339 with milliseconds and removed (the
/// rest is compared exactly).
fn without_times(mut answer: Value) -> Value {
    for delivery in answer["deliveries"].as_array_mut().unwrap() {
        let at = delivery["receivedAt"].as_str().unwrap().to_owned();
        assert_eq!(at.len(), "2026-12-01T18:30:00.123Z".len(), "{at}");
        assert!(at.ends_with('Z') && at.as_bytes()[19] == b'.', "{at}");
        delivery.as_object_mut().unwrap().remove("receivedAt");
    }
    answer
}

#[tokio::test]
async fn a_delivery_is_shown_with_its_secrets_masked() {
    let emulator = start().await;
    let url = emulator.webhook_url("pushes");
    assert_eq!(url, format!("{}/_emulator/webhooks/pushes", emulator.url()));
    let task = r#"{"kind":"task","id":"t-1","status":{"state":"completed"}}"#;
    let (status, answer) = post(
        &url,
        task,
        &[
            ("content-type", "application/json"),
            ("authorization", "Bearer secret-jwt"),
            ("x-a2a-notification-token", "secret-token"),
        ],
    )
    .await;
    assert_eq!((status, answer), (StatusCode::OK, json!({"received": 1})));
    let (status, answer) = post(&url, "plain text", &[("content-type", "text/plain")]).await;
    assert_eq!((status, answer), (StatusCode::OK, json!({"received": 2})));

    let (status, answer) = get(&url).await;
    assert_eq!(status, StatusCode::OK);
    let host = emulator.address().to_string();
    assert_eq!(
        without_times(answer),
        json!({
            "name": "pushes",
            "dropped": 0,
            "next": 2,
            "deliveries": [
                {
                    "headers": {
                        "content-type": "application/json",
                        "authorization": "Bearer ****",
                        "x-a2a-notification-token": "****",
                        "accept": "*/*",
                        "host": host,
                        "content-length": task.len().to_string(),
                    },
                    "contentType": "application/json",
                    "body": {"kind": "task", "id": "t-1", "status": {"state": "completed"}},
                },
                {
                    "headers": {
                        "content-type": "text/plain",
                        "accept": "*/*",
                        "host": host,
                        "content-length": "10",
                    },
                    "contentType": "text/plain",
                    "body": "plain text",
                },
            ],
        })
    );

    // The library accessor shows the secrets: the test owns them.
    let held = emulator.webhook("pushes");
    assert_eq!(held.len(), 2);
    assert_eq!(
        held[0].header("Authorization").as_deref(),
        Some("Bearer secret-jwt")
    );
    assert_eq!(
        held[0].header("x-a2a-notification-token").as_deref(),
        Some("secret-token")
    );
    assert_eq!(held[0].content_type.as_deref(), Some("application/json"));
    assert_eq!(held[0].body, task.as_bytes());
    assert_eq!(held[1].json(), None);
    assert!(emulator.webhook("nothing-here").is_empty());
}

#[tokio::test]
async fn since_skips_what_was_seen_and_wait_long_polls() {
    let emulator = start().await;
    let url = emulator.webhook_url("poll");
    // Nothing yet: an empty sink, not an error.
    let (status, answer) = get(&url).await;
    assert_eq!(
        (status, answer),
        (
            StatusCode::OK,
            json!({"name": "poll", "dropped": 0, "next": 0, "deliveries": []})
        )
    );
    post(&url, r#"{"n":1}"#, &[]).await;
    post(&url, r#"{"n":2}"#, &[]).await;
    let (_, answer) = get(&format!("{url}?since=1")).await;
    assert_eq!(answer["next"], 2);
    let bodies: Vec<&Value> = answer["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|delivery| &delivery["body"])
        .collect();
    assert_eq!(bodies, [&json!({"n": 2})]);

    // A wait with nothing new ends at its time, empty.
    let started = Instant::now();
    let (_, answer) = get(&format!("{url}?since=2&wait=0.3")).await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(answer["deliveries"], json!([]));
    assert_eq!(answer["next"], 2);

    // A wait returns as soon as a delivery past `since` arrives.
    let waiting = tokio::spawn({
        let url = url.clone();
        async move {
            let started = Instant::now();
            let answer = get(&format!("{url}?since=2&wait=20")).await;
            (answer, started.elapsed())
        }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    post(&url, r#"{"n":3}"#, &[]).await;
    let ((status, answer), took) = waiting.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(answer["deliveries"][0]["body"], json!({"n": 3}));
    assert_eq!(answer["next"], 3);

    // The library's wait too.
    let arrived = emulator
        .wait_for_webhook("poll", 3, Duration::from_secs(1))
        .await;
    assert_eq!(arrived.len(), 3);

    for bad in ["since=-1", "since=x", "wait=31", "wait=-1", "wait=soon"] {
        let (status, answer) = get(&format!("{url}?{bad}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        let message = answer["error"].as_str().unwrap();
        let named = if bad.starts_with("since") {
            "since is a count of deliveries (a whole number, 0 or more)"
        } else {
            "wait is a number of seconds from 0 to 30"
        };
        assert_eq!(message, named, "{bad}");
    }
}

#[tokio::test]
async fn delete_clears_a_sink_and_the_list_shows_the_rest() {
    let emulator = start().await;
    post(&emulator.webhook_url("b"), "1", &[]).await;
    post(&emulator.webhook_url("a"), "1", &[]).await;
    post(&emulator.webhook_url("a"), "2", &[]).await;
    let list = format!("{}/_emulator/webhooks", emulator.url());
    let (status, answer) = get(&list).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer,
        json!({"sinks": [
            {"name": "a", "count": 2, "dropped": 0},
            {"name": "b", "count": 1, "dropped": 0},
        ]})
    );
    let response = reqwest::Client::new()
        .delete(emulator.webhook_url("a"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(response.bytes().await.unwrap().len(), 0);
    let (_, answer) = get(&list).await;
    assert_eq!(
        answer,
        json!({"sinks": [{"name": "b", "count": 1, "dropped": 0}]})
    );
    let (_, answer) = get(&emulator.webhook_url("a")).await;
    assert_eq!(answer["deliveries"], json!([]));
    // Made again from nothing.
    let (_, answer) = post(&emulator.webhook_url("a"), "3", &[]).await;
    assert_eq!(answer, json!({"received": 1}));
}

#[tokio::test]
async fn a_sink_keeps_the_newest_thousand() {
    let emulator = start().await;
    let url = emulator.webhook_url("full");
    let client = reqwest::Client::new();
    for n in 0..1_001 {
        let response = client.post(&url).body(n.to_string()).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let expected = json!({"received": (n + 1).min(1_000)});
        assert_eq!(response.json::<Value>().await.unwrap(), expected);
    }
    let (_, answer) = get(&url).await;
    assert_eq!(answer["dropped"], 1);
    assert_eq!(answer["next"], 1_001);
    let deliveries = answer["deliveries"].as_array().unwrap();
    assert_eq!(deliveries.len(), 1_000);
    assert_eq!(deliveries[0]["body"], 1);
    assert_eq!(deliveries[999]["body"], 1_000);
    let (_, answer) = get(&format!("{url}?since=1000")).await;
    assert_eq!(answer["deliveries"].as_array().unwrap().len(), 1);
    assert_eq!(emulator.webhook("full").len(), 1_000);
}

#[tokio::test]
async fn the_emulator_keeps_at_most_a_hundred_sinks() {
    let emulator = start().await;
    for n in 0..100 {
        let (status, _) = post(&emulator.webhook_url(&format!("s{n}")), "x", &[]).await;
        assert_eq!(status, StatusCode::OK);
    }
    let (status, answer) = post(&emulator.webhook_url("s100"), "x", &[]).await;
    assert_eq!(status, StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(
        answer,
        json!({"error": "the emulator keeps at most 100 sinks; DELETE one first"})
    );
    // An existing sink still takes deliveries.
    let (status, answer) = post(&emulator.webhook_url("s0"), "x", &[]).await;
    assert_eq!((status, answer), (StatusCode::OK, json!({"received": 2})));
}

#[tokio::test]
async fn bad_names_paths_methods_and_bodies_get_json_errors() {
    let emulator = start().await;
    let rule = json!({"error": "a sink name is 1 to 64 characters of A-Z a-z 0-9 . _ -"});
    let long = "x".repeat(65);
    for name in ["", "a/b", "a%20b", "caf%C3%A9", long.as_str()] {
        let url = format!("{}/_emulator/webhooks/{name}", emulator.url());
        let url = if name.is_empty() {
            format!("{url}/")
        } else {
            url
        };
        let (status, answer) = post(&url, "x", &[]).await;
        assert_eq!(
            (status, answer),
            (StatusCode::BAD_REQUEST, rule.clone()),
            "{name:?}"
        );
    }
    let (status, _) = post(&emulator.webhook_url(&"x".repeat(64)), "x", &[]).await;
    assert_eq!(status, StatusCode::OK);

    let too_big = vec![b'x'; 1024 * 1024 + 1];
    let response = reqwest::Client::new()
        .post(emulator.webhook_url("big"))
        .body(too_big)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"error": "a delivery body is at most 1048576 bytes (or it was cut short)"})
    );
    assert!(emulator.webhook("big").is_empty());
    let exactly = vec![b'x'; 1024 * 1024];
    let response = reqwest::Client::new()
        .post(emulator.webhook_url("big"))
        .body(exactly)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);

    let response = reqwest::Client::new()
        .put(emulator.webhook_url("a"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.headers()["allow"], "GET, POST, DELETE");
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"error": "PUT is not served on /_emulator/webhooks/a; use GET, POST, DELETE"})
    );
    let (status, answer) = get(&format!("{}/_emulator/other", emulator.url())).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(
        answer,
        json!({"error": "no emulator route /_emulator/other; the webhook sinks are under /_emulator/webhooks/"})
    );
}

#[tokio::test]
async fn sinks_need_no_session_header_and_no_auth() {
    let emulator = Emulator::new(EchoAgent)
        .auth(InboundAuth::SigV4(SigV4Keys::new("AKIDTEST", "secret")))
        .start()
        .await
        .unwrap();
    // The platform refuses an unsigned invocation...
    let response = reqwest::Client::new()
        .post(format!("{}/", emulator.url()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // ...but the sink is the client's side: no signature, no session header, none added.
    let (status, answer) = post(&emulator.webhook_url("open"), "{}", &[]).await;
    assert_eq!((status, answer), (StatusCode::OK, json!({"received": 1})));
    let response = reqwest::get(emulator.webhook_url("open")).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response
            .headers()
            .keys()
            .all(|name| !name.as_str().starts_with("x-amzn")),
        "{:?}",
        response.headers()
    );
    let held = emulator.webhook("open");
    assert!(
        held[0]
            .headers
            .iter()
            .all(|(name, _)| !name.starts_with("x-amzn")),
        "{:?}",
        held[0].headers
    );
}
