//! The `make run` flow against the real emulator: the agent card (hybrid, cached; the
//! container's 304, which If-None-Match does not reach through AgentCore's front),
//! the URL it advertises (`AGENTCORE_RUNTIME_URL`, `--public-url`), then a message to the
//! echo agent.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_test_support::harness::{Emulator, Op, Version, header, json, json_body, redact};

fn echo_card(url: &str) -> serde_json::Value {
    json!({
        "name": "Echo Agent",
        "description": "Echoes every message back. The built-in agent of a2a-lambda, for trying clients and hosts.",
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": {"streaming": true, "pushNotifications": true, "extendedAgentCard": false},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{
            "id": "echo",
            "name": "Echo",
            "description": "Returns the text of your message as an artifact.",
            "tags": ["echo", "test"],
            "examples": ["hello"],
        }],
        "url": url,
        "protocolVersion": "0.3.0",
        "preferredTransport": "JSONRPC",
        "supportsAuthenticatedExtendedCard": false,
    })
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn is_imf_fixdate(text: &str) -> bool {
    let parts: Vec<&str> = text.split(' ').collect();
    parts.len() == 6
        && parts[0].len() == 4
        && parts[0].ends_with(',')
        && parts[1].len() == 2
        && parts[2].len() == 3
        && parts[3].len() == 4
        && parts[4].len() == 8
        && parts[5] == "GMT"
}

/// The container itself (`--container-only`, as it runs inside AgentCore) answers a
/// matching If-None-Match with 304 and no body.
#[tokio::test]
async fn the_container_revalidates_its_card_with_304() {
    let emulator = Emulator::start(&["--container-only"]);
    let url = format!("{}/", emulator.base_url());
    let (headers, card) = json_body(emulator.card_response(None).await, 200).await;
    assert_eq!(card, echo_card(&url));
    let etag = header(&headers, "etag").expect("ETag").to_owned();
    for tag in [etag.clone(), format!("W/{etag}"), "\"other\", *".to_owned()] {
        let not_modified = emulator.card_response(Some(&tag)).await;
        assert_eq!(not_modified.status().as_u16(), 304, "If-None-Match: {tag}");
        assert_eq!(header(not_modified.headers(), "etag"), Some(etag.as_str()));
        assert_eq!(
            header(not_modified.headers(), "cache-control"),
            Some("public, max-age=300")
        );
        assert_eq!(not_modified.text().await.unwrap(), "");
    }
    let changed = emulator.card_response(Some("\"stale\"")).await;
    assert_eq!(json_body(changed, 200).await.1, echo_card(&url));
}

#[tokio::test]
async fn make_run_flow_card_then_echo() {
    let emulator = Emulator::start(&[]);
    let url = format!("{}/", emulator.base_url());
    assert!(
        emulator
            .listening_line()
            .contains(&format!("card url: {url}")),
        "{}",
        emulator.listening_line()
    );

    // The hybrid card, with its caching headers.
    let (headers, card) = json_body(emulator.card_response(None).await, 200).await;
    assert_eq!(card, echo_card(&url));
    let etag = header(&headers, "etag").expect("ETag").to_owned();
    assert!(
        etag.len() > 2 && etag.starts_with('"') && etag.ends_with('"'),
        "{etag}"
    );
    assert_eq!(
        header(&headers, "cache-control"),
        Some("public, max-age=300")
    );
    let last_modified = header(&headers, "last-modified").expect("Last-Modified");
    assert!(is_imf_fixdate(last_modified), "{last_modified}");
    assert!(header(&headers, "x-request-id").is_some_and(|id| !id.is_empty()));

    // The same card again: same ETag. If-None-Match is a restricted header AgentCore never
    // passes to the container, so through the front the card comes whole (the container's
    // own 304 is below).
    let again = emulator.card_response(None).await;
    assert_eq!(header(again.headers(), "etag"), Some(etag.as_str()));
    let revalidated = emulator.card_response(Some(&etag)).await;
    assert_eq!(json_body(revalidated, 200).await.1, echo_card(&url));

    // message/send to the echo agent: a completed task whose artifact echoes the text.
    let response = emulator
        .call(
            Version::V0_3,
            "message/send",
            Version::V0_3.send_params("run-message-1", "hello, emulator"),
        )
        .await;
    let task = &response["result"];
    let (task_id, context_id) = (
        task["id"].as_str().unwrap(),
        task["contextId"].as_str().unwrap(),
    );
    assert_eq!(
        redact(&response),
        json!({"jsonrpc": "2.0", "id": response["id"], "result": {
            "kind": "task",
            "id": task_id,
            "contextId": context_id,
            "status": {"state": "completed", "timestamp": "<timestamp>"},
            "artifacts": [{"artifactId": "echo", "parts": [{"kind": "text", "text": "hello, emulator"}]}],
            "history": [{
                "kind": "message",
                "messageId": "run-message-1",
                "role": "user",
                "parts": [{"kind": "text", "text": "hello, emulator"}],
                "contextId": context_id,
                "taskId": task_id,
            }],
        }})
    );

    // The same in v1.0.
    let result = emulator
        .result(
            Version::V1_0,
            Op::Send,
            Version::V1_0.send_params("run-message-2", "hi v1"),
        )
        .await;
    let task = &result["task"];
    let (task_id, context_id) = (
        task["id"].as_str().unwrap(),
        task["contextId"].as_str().unwrap(),
    );
    assert_eq!(
        redact(&result),
        json!({"task": {
            "id": task_id,
            "contextId": context_id,
            "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "<timestamp>"},
            "artifacts": [{"artifactId": "echo", "parts": [{"text": "hi v1"}]}],
            "history": [{
                "messageId": "run-message-2",
                "contextId": context_id,
                "taskId": task_id,
                "role": "ROLE_USER",
                "parts": [{"text": "hi v1"}],
            }],
        }})
    );

    // The task is kept: tasks/get finds it.
    let got = emulator.get_task(Version::V1_0, task_id).await;
    assert_eq!(got, result["task"]);
}

#[tokio::test]
async fn agentcore_runtime_url_is_the_card_url_with_a_trailing_slash() {
    let emulator = Emulator::builder()
        .env(
            "AGENTCORE_RUNTIME_URL",
            "https://example.com/runtimes/x/invocations",
        )
        .start();
    let url = "https://example.com/runtimes/x/invocations/";
    assert_eq!(emulator.card().await, echo_card(url));
    assert!(
        emulator
            .listening_line()
            .contains(&format!("card url: {url}")),
        "{}",
        emulator.listening_line()
    );
    // JSON-RPC is served on the interface path too (with and without the slash), as
    // well as on `/`.
    for path in ["/", "/runtimes/x/invocations/", "/runtimes/x/invocations"] {
        let body = json!({"jsonrpc": "2.0", "id": path, "method": "message/send",
            "params": Version::V0_3.send_params("path-check", "ping")});
        let response = emulator
            .post(path, Version::V0_3, body.to_string().into_bytes())
            .await;
        let (_, response) = json_body(response, 200).await;
        assert_eq!(response["id"], path);
        assert_eq!(
            response["result"]["status"]["state"], "completed",
            "{response}"
        );
    }
}

#[tokio::test]
async fn public_url_flag_wins_over_agentcore_runtime_url() {
    let emulator = Emulator::builder()
        .args(["--public-url", "https://agents.example.org/a2a/"])
        .env(
            "AGENTCORE_RUNTIME_URL",
            "https://example.com/runtimes/x/invocations",
        )
        .start();
    assert_eq!(
        emulator.card().await,
        echo_card("https://agents.example.org/a2a/")
    );
}

#[tokio::test]
async fn an_already_slashed_agentcore_runtime_url_keeps_one_slash() {
    let emulator = Emulator::builder()
        .env("AGENTCORE_RUNTIME_URL", "https://example.com/runtimes/y/")
        .start();
    assert_eq!(
        emulator.card().await,
        echo_card("https://example.com/runtimes/y/")
    );
}
