//! The AgentCore platform front's routes, in-process: AWS's invocation paths
//! (`POST /runtimes/{url-encoded ARN}/invocations[/]?qualifier=…`), the card on the
//! invocation path advertising that URL, 404/-32051 for anything else, and `--runtime-arn`
//! pinning. (A bad `--runtime-arn` and `--help` of the binary: `tests/tests/front_routes.rs`.)
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::front::{
    self, ARN, NOT_FOUND, OTHER_ARN, SESSION_HEADER, encode, invocations, rpc, send_params,
    session_id,
};
use a2a_test_support::harness::{Emulator, Value, json};

/// The echo agent's answer to `message/send` with `text`: a completed task echoing it.
fn assert_echoed(result: &Value, text: &str) {
    assert_eq!(result["kind"], "task", "{result}");
    assert_eq!(result["status"]["state"], "completed", "{result}");
    assert_eq!(result["artifacts"][0]["parts"][0]["text"], text, "{result}");
}

#[tokio::test]
async fn invocation_paths_are_served_with_and_without_slash_and_qualifier() {
    let emulator = Emulator::start(&[]);
    let encoded = encode(ARN);
    let lowercase_escapes = encoded.replace("%3A", "%3a").replace("%2F", "%2f");
    let paths = [
        format!("/runtimes/{encoded}/invocations"),
        format!("/runtimes/{encoded}/invocations/"),
        format!("/runtimes/{encoded}/invocations?qualifier=DEFAULT"),
        format!("/runtimes/{encoded}/invocations/?qualifier=DEFAULT"),
        format!("/runtimes/{lowercase_escapes}/invocations/?qualifier=DEFAULT"),
    ];
    for (index, path) in paths.iter().enumerate() {
        let session = session_id("paths");
        let text = format!("hello {index}");
        let (id, reply) = front::call_at(
            &emulator,
            path,
            Some(&session),
            "message/send",
            send_params(&format!("m-paths-{index}"), &text),
        )
        .await;
        assert_eq!(reply.json()["id"], id, "{path}: {reply:?}");
        assert_echoed(&reply.result(), &text);
        assert_eq!(reply.session(), Some(session.as_str()), "{path}");
        assert!(reply.request_id().is_some(), "{path}: {reply:?}");
    }
    // The container's own path is served by the front too.
    let (_, reply) = front::call_at(
        &emulator,
        "/",
        None,
        "message/send",
        send_params("m-paths-root", "root"),
    )
    .await;
    assert_echoed(&reply.result(), "root");
}

#[tokio::test]
async fn the_card_on_the_invocation_path_advertises_the_invocation_url() {
    let emulator = Emulator::start(&[]);
    let expected = format!("{}{}", emulator.base_url(), invocations(ARN));
    assert!(expected.ends_with("/invocations/"), "{expected}");
    for query in ["", "?qualifier=DEFAULT"] {
        let path = format!("{}.well-known/agent-card.json{query}", invocations(ARN));
        let reply = front::get(&emulator, &path, &[]).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.session().is_some(), "{reply:?}");
        let card = reply.json();
        assert_eq!(card["url"], expected.as_str(), "{card}");
        let interfaces = card["supportedInterfaces"].as_array().expect("interfaces");
        assert!(!interfaces.is_empty(), "{card}");
        for interface in interfaces {
            assert_eq!(interface["url"], expected.as_str(), "{card}");
        }
    }
    // The container's own card keeps the container's URL.
    let card = emulator.card().await;
    assert_eq!(card["url"], format!("{}/", emulator.base_url()), "{card}");
    // The advertised URL works for JSON-RPC as it is.
    let response = emulator
        .send(
            emulator
                .http()
                .post(&expected)
                .header("content-type", "application/json")
                .body(rpc(
                    &json!("card-url"),
                    "message/send",
                    send_params("m-card-url", "via the card"),
                )),
        )
        .await;
    let reply = front::read(response).await;
    assert_echoed(&reply.result(), "via the card");
}

#[tokio::test]
async fn malformed_arns_and_unknown_paths_are_404_with_aws_body() {
    let emulator = Emulator::start(&[]);
    let encoded = encode(ARN);
    let bad_account = encode(&ARN.replace("123456789012", "12345"));
    let bad_service = encode(&ARN.replace("bedrock-agentcore", "bedrock"));
    let body = rpc(&json!(7), "tasks/get", json!({"id": "x"}));
    let cases: Vec<(&str, String)> = vec![
        ("GET", "/nope".to_owned()),
        ("POST", "/nope".to_owned()),
        ("POST", "/runtimes".to_owned()),
        ("POST", "/runtimes/not-an-arn/invocations".to_owned()),
        ("POST", format!("/runtimes/{bad_account}/invocations")),
        ("POST", format!("/runtimes/{bad_service}/invocations/")),
        ("POST", "/runtimes/bad%zz/invocations".to_owned()),
        // An ARN whose `/` is not encoded splits the path.
        ("POST", format!("/runtimes/{ARN}/invocations")),
        ("POST", format!("/runtimes/{encoded}")),
        ("POST", format!("/runtimes/{encoded}/")),
        ("POST", format!("/runtimes/{encoded}/invoke")),
        ("POST", format!("/runtimes/{encoded}/invocations/extra")),
        (
            "GET",
            format!("/runtimes/{encoded}/invocations/.well-known/other.json"),
        ),
        (
            "GET",
            format!("/runtimes/{bad_account}/invocations/.well-known/agent-card.json"),
        ),
    ];
    let mut request_ids = Vec::new();
    for (method, path) in &cases {
        let sent = if *method == "POST" {
            body.clone()
        } else {
            Vec::new()
        };
        let reply = front::read(front::request(&emulator, method, path, &[], sent).await).await;
        reply.assert_aws(&Value::Null, NOT_FOUND);
        assert!(
            reply.session().is_some_and(|s| s.len() >= 33),
            "{method} {path}: {reply:?}"
        );
        request_ids.push(reply.request_id().expect("a request id").to_owned());
    }
    request_ids.sort();
    request_ids.dedup();
    assert_eq!(request_ids.len(), cases.len(), "request ids repeat");
}

#[tokio::test]
async fn a_pinned_runtime_arn_is_the_only_one_served() {
    let emulator = Emulator::start(&["--runtime-arn", ARN]);
    let session = session_id("pinned");
    let (_, reply) = front::invoke(
        &emulator,
        Some(&session),
        "message/send",
        send_params("m-pinned", "pinned"),
    )
    .await;
    assert_echoed(&reply.result(), "pinned");
    let card = front::get(
        &emulator,
        &format!("{}.well-known/agent-card.json", invocations(ARN)),
        &[],
    )
    .await;
    assert_eq!(card.status, 200, "{card:?}");

    let (_, reply) = front::call_at(
        &emulator,
        &invocations(OTHER_ARN),
        Some(&session),
        "message/send",
        send_params("m-other", "other"),
    )
    .await;
    reply.assert_aws(&Value::Null, NOT_FOUND);
    assert_eq!(reply.session(), Some(session.as_str()));
    let card = front::get(
        &emulator,
        &format!("{}.well-known/agent-card.json", invocations(OTHER_ARN)),
        &[(SESSION_HEADER, &session)],
    )
    .await;
    card.assert_aws(&Value::Null, NOT_FOUND);
}
