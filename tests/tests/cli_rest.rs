#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a` CLI over the HTTP+JSON binding, against the container host in-process on
//! a loopback socket: the binding the card prefers or `--binding` names, shown by `card`;
//! send, stream, get and cancel over REST with the documented exit codes.
//!
//! The send/get/cancel runs use a container serving HTTP+JSON only, whose router has no
//! JSON-RPC route: an answer there could only have come over REST.

use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::{Container, ContainerConfig, Running};
use a2a_test_support::harness::Value;
use a2a_test_support::harness::cli::{Run, run};

/// A conformance agent's container on 127.0.0.1, a free port, serving `bindings`.
async fn container(bindings: &str) -> Running {
    let config = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" => "0",
                "A2A_BINDINGS" => bindings,
                _ => return None,
            }
            .to_owned(),
        )
    })
    .unwrap();
    Container::with_config(BuiltIn::Conformance.agent(), config)
        .bind()
        .await
        .unwrap()
}

/// Runs the CLI off the runtime's threads, so that the container goes on serving.
async fn cli(args: &[&str]) -> Run {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run(&args)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_says_which_binding_is_used_and_binding_changes_it() {
    let running = container("http+json,jsonrpc").await;
    let url = running.url().to_owned();
    let card = cli(&["card", &url]).await;
    card.expect_code(0);
    assert!(
        card.stdout
            .contains(&format!("using:     HTTP+JSON 1.0 at {url}\n")),
        "{}",
        card.stdout
    );
    let forced = cli(&["card", &url, "--binding", "jsonrpc"]).await;
    forced.expect_code(0);
    assert!(
        forced
            .stdout
            .contains(&format!("using:     JSON-RPC 1.0 at {url}\n")),
        "{}",
        forced.stdout
    );
    let refused = cli(&["card", &url, "--binding", "http+json", "--protocol", "0.3"]).await;
    refused.expect_code(3);
    assert!(
        refused.stderr.contains("offers no HTTP+JSON in 0.3"),
        "{}",
        refused.stderr
    );
    running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_get_and_cancel_over_rest_print_the_wire_and_exit_as_documented() {
    let running = container("http+json").await;
    let url = running.url().to_owned();
    let sent = cli(&[
        "send",
        &url,
        "hi",
        "--binding",
        "http+json",
        "--message-id",
        "tck-artifact-text-cli",
        "--json",
    ])
    .await;
    sent.expect_code(0);
    let task = sent.json()["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(
        task["artifacts"][0]["parts"][0]["text"],
        "Generated text content"
    );
    let id = task["id"].as_str().unwrap().to_owned();

    let got = cli(&["get", &url, &id, "--history", "0", "--json"]).await;
    got.expect_code(0);
    let got = got.json();
    assert_eq!(
        (&got["id"], &got["status"]["state"]),
        (
            &Value::from(id.as_str()),
            &Value::from("TASK_STATE_COMPLETED")
        )
    );

    let cancel = cli(&["cancel", &url, &id]).await;
    cancel.expect_code(1);
    assert!(cancel.stderr.contains("-32002"), "{}", cancel.stderr);

    let unknown = cli(&["get", &url, "no-such-task"]).await;
    unknown.expect_code(1);
    assert!(unknown.stderr.contains("-32001"), "{}", unknown.stderr);
    running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_over_rest_arrives_and_ends_at_completion() {
    let running = container("http+json").await;
    let url = running.url().to_owned();
    let streamed = cli(&[
        "send",
        &url,
        "go",
        "--stream",
        "--message-id",
        "tck-stream-cli-rest",
        "--json",
    ])
    .await;
    streamed.expect_code(0);
    let events: Vec<Value> = streamed
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let chunks = events
        .iter()
        .filter(|event| event.get("artifactUpdate").is_some())
        .count();
    assert_eq!(chunks, 3, "{}", streamed.stdout);
    assert_eq!(
        events.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{}",
        streamed.stdout
    );
    running.shutdown().await.unwrap();
}
