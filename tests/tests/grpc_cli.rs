#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a` CLI over the gRPC binding (`--binding grpc`), against the container host
//! in-process on loopback sockets: the card names the gRPC interface it uses; send, stream,
//! get and cancel with the documented exit codes and the JSON-RPC codes of refusals.

use a2a_lambda_server::agents::BuiltIn;
use a2a_lambda_server::serve::{Container, ContainerConfig, Running};
use a2a_test_support::harness::Value;
use a2a_test_support::harness::cli::{Run, run};

/// A conformance agent's container on 127.0.0.1, free ports, serving JSON-RPC and gRPC.
async fn container() -> Running {
    let config = ContainerConfig::from_lookup(|name| {
        Some(
            match name {
                "A2A_HOST" => "127.0.0.1",
                "PORT" | "A2A_GRPC_PORT" => "0",
                "A2A_BINDINGS" => "jsonrpc,grpc",
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
async fn the_cli_sends_streams_gets_and_cancels_over_grpc() {
    let running = container().await;
    let url = running.url().to_owned();
    let grpc_url = format!("http://{}/", running.grpc_address().unwrap());

    let card = cli(&["card", &url, "--binding", "grpc"]).await;
    card.expect_code(0);
    assert!(
        card.stdout
            .contains(&format!("using:     gRPC 1.0 at {grpc_url}\n")),
        "{}",
        card.stdout
    );

    let sent = cli(&[
        "send",
        &url,
        "hi",
        "--binding",
        "grpc",
        "--message-id",
        "tck-artifact-text-cli-grpc",
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

    let got = cli(&["get", &url, &id, "--binding", "grpc", "--json"]).await;
    got.expect_code(0);
    assert_eq!(got.json()["id"], Value::from(id.as_str()));

    let cancel = cli(&["cancel", &url, &id, "--binding", "grpc"]).await;
    cancel.expect_code(1);
    assert!(cancel.stderr.contains("-32002"), "{}", cancel.stderr);

    let unknown = cli(&["get", &url, "no-such-task", "--binding", "grpc"]).await;
    unknown.expect_code(1);
    assert!(unknown.stderr.contains("-32001"), "{}", unknown.stderr);

    let streamed = cli(&[
        "send",
        &url,
        "go",
        "--stream",
        "--binding",
        "grpc",
        "--message-id",
        "tck-stream-cli-grpc",
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
    assert_eq!(chunks, 3, "{events:?}");
    assert_eq!(
        events.last().unwrap()["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED",
        "{events:?}"
    );
    running.shutdown().await.unwrap();
}
