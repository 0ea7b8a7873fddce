//! Our `a2a` CLI against an agent built on the official A2A Rust SDK's server
//! (`src/bin/lf_echo_server.rs`), over both of its bindings: card, send (waiting, at once,
//! streamed), get, list, cancel, resubscribe and the push-notification configs.
//! `A2A_CLI` names our CLI (tests/interop/run.sh sets it); without it the tests are skipped
//! with a line saying so.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

/// The official SDK's echo server, killed on drop.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn server() -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lf_echo_server"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    Server { child, url }
}

/// Our CLI, or `None` (the test is skipped) when `A2A_CLI` is not set.
fn cli() -> Option<String> {
    let cli = std::env::var("A2A_CLI").ok();
    if cli.is_none() {
        eprintln!("A2A_CLI not set: skipped (tests/interop/run.sh sets it)");
    }
    cli
}

fn run(cli: &str, args: &[&str]) -> Output {
    Command::new(cli)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// `a2a --binding BINDING --json ARGS…`, which must succeed; its JSON.
fn json(cli: &str, binding: &str, args: &[&str]) -> Value {
    let mut all = vec!["--binding", binding, "--json"];
    all.extend_from_slice(args);
    let output = run(cli, &all);
    assert!(output.status.success(), "{all:?}: {output:?}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{all:?}: {error}: {output:?}"))
}

const BINDINGS: [&str; 2] = ["jsonrpc", "http+json"];

#[test]
fn card_send_get_and_list_over_both_bindings() {
    let Some(cli) = cli() else { return };
    let server = server();
    for binding in BINDINGS {
        let card = run(&cli, &["--binding", binding, "card", &server.url]);
        let text = String::from_utf8_lossy(&card.stdout);
        assert!(card.status.success(), "{card:?}");
        let expected = match binding {
            "jsonrpc" => format!("using:     JSON-RPC 1.0 at {}/jsonrpc", server.url),
            _ => format!("using:     HTTP+JSON 1.0 at {}/rest", server.url),
        };
        assert!(text.contains(&expected), "{binding}: {text}");

        let sent = json(&cli, binding, &["send", &server.url, "hello"]);
        let task = &sent["task"];
        assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{sent}");
        assert_eq!(task["status"]["message"]["parts"][0]["text"], "Echo: hello");
        let id = task["id"].as_str().unwrap();

        let got = json(&cli, binding, &["get", &server.url, id]);
        assert_eq!(got["id"], id, "{got}");
        assert_eq!(got["status"]["state"], "TASK_STATE_COMPLETED");

        let listed = json(&cli, binding, &["list", &server.url]);
        let ids: Vec<&str> = listed["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|task| task["id"].as_str())
            .collect();
        assert!(ids.contains(&id), "{binding}: {listed}");
    }
}

#[test]
fn streamed_sends_cancel_and_resubscribe_over_both_bindings() {
    let Some(cli) = cli() else { return };
    let server = server();
    for binding in BINDINGS {
        let streamed = run(
            &cli,
            &["--binding", binding, "send", "--stream", &server.url, "hi"],
        );
        // The events as they come are progress, on stderr.
        let text = String::from_utf8_lossy(&streamed.stderr);
        assert!(streamed.status.success(), "{streamed:?}");
        assert!(text.contains("[working]"), "{binding}: {text}");
        assert!(text.contains("[completed]: Echo: hi"), "{binding}: {text}");

        // A task that works until canceled: sent at once, canceled, then it is canceled.
        let sent = json(
            &cli,
            binding,
            &["send", "--no-wait", &server.url, "wait for it"],
        );
        let task = if sent["task"].is_object() {
            &sent["task"]
        } else {
            &sent
        };
        let id = task["id"].as_str().unwrap().to_owned();
        let canceled = json(&cli, binding, &["cancel", &server.url, &id]);
        assert_eq!(
            canceled["status"]["state"], "TASK_STATE_CANCELED",
            "{binding}: {canceled}"
        );
        // Resubscribing to a task that has ended is refused with the spec's error
        // (UnsupportedOperationError: A2A 1.0 §3.1.6), which the CLI reports as the
        // agent's error (exit 1).
        let resubscribed = run(
            &cli,
            &["--binding", binding, "resubscribe", &server.url, &id],
        );
        assert_eq!(
            resubscribed.status.code(),
            Some(1),
            "{binding}: {resubscribed:?}"
        );
    }
}

#[test]
fn push_configs_round_trip_over_both_bindings() {
    let Some(cli) = cli() else { return };
    let server = server();
    for binding in BINDINGS {
        let sent = json(
            &cli,
            binding,
            &["send", "--no-wait", &server.url, "wait for push"],
        );
        let task = if sent["task"].is_object() {
            &sent["task"]
        } else {
            &sent
        };
        let id = task["id"].as_str().unwrap().to_owned();
        let webhook = "http://127.0.0.1:9/hook";
        let created = json(
            &cli,
            binding,
            &[
                "push",
                "create",
                "--url",
                webhook,
                "--id",
                "cfg-1",
                &server.url,
                &id,
            ],
        );
        assert_eq!(created["url"], webhook, "{binding}: {created}");
        assert_eq!(created["id"], "cfg-1", "{binding}: {created}");
        let got = json(&cli, binding, &["push", "get", &server.url, &id, "cfg-1"]);
        assert_eq!(got["url"], webhook, "{binding}: {got}");
        let listed = json(&cli, binding, &["push", "list", &server.url, &id]);
        assert_eq!(listed["configs"][0]["id"], "cfg-1", "{binding}: {listed}");
        let deleted = run(
            &cli,
            &[
                "--binding",
                binding,
                "push",
                "delete",
                &server.url,
                &id,
                "cfg-1",
            ],
        );
        assert!(deleted.status.success(), "{binding}: {deleted:?}");
        json(&cli, binding, &["cancel", &server.url, &id]);
    }
}
