//! The inspector over the real `a2a-emulator` binary: the line it prints with the page's
//! URL, the journal flags, and `--inspector off`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Stdio};

use a2a_test_support::harness::{LISTENING_PREFIX, emulator_command};
use serde_json::{Value, json};

/// The running binary and its stdout's first lines; killed on drop.
struct Binary {
    child: Child,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Binary {
    fn start(flags: &[&str]) -> (Self, String) {
        let mut child = emulator_command()
            .args(["--port", "0", "--rate-limit", "0"])
            .args(flags)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let listening = lines.next().unwrap().unwrap();
        let url = listening
            .strip_prefix(LISTENING_PREFIX)
            .and_then(|rest| rest.split(' ').next())
            .unwrap()
            .to_owned();
        (Self { child, lines }, url)
    }
}

fn send() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "message/send",
        "params": {"message": {"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}})
    .to_string()
}

#[tokio::test]
async fn the_binary_prints_the_pages_url_and_takes_the_journal_flags() {
    let (mut binary, url) = Binary::start(&["--journal-size", "1", "--journal-body-bytes", "8"]);
    let line = binary.lines.next().unwrap().unwrap();
    assert_eq!(line, format!("a2a-emulator inspector on {url}/_emulator/"));
    let http = reqwest::Client::new();
    let page = http.get(format!("{url}/_emulator/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    for _ in 0..2 {
        let reply = http.post(&url).body(send()).send().await.unwrap();
        assert_eq!(reply.status(), 200);
        reply.text().await.unwrap();
    }
    let listed: Value = http
        .get(format!("{url}/_emulator/api/invocations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed["dropped"], 1, "{listed}");
    assert_eq!(listed["invocations"][0]["seq"], 2);
    assert_eq!(listed["invocations"][0]["requestBody"], r#"{"id":1,"#);
}

#[tokio::test]
async fn inspector_off_serves_no_page_and_no_api() {
    let (_binary, url) = Binary::start(&["--inspector", "off"]);
    let http = reqwest::Client::new();
    for path in ["/_emulator/", "/_emulator/api/invocations"] {
        let reply = http.get(format!("{url}{path}")).send().await.unwrap();
        assert_eq!(reply.status(), 404, "{path}");
    }
    let reply = http.post(&url).body(send()).send().await.unwrap();
    assert_eq!(reply.status(), 200);
}
