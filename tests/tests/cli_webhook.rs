#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a webhook listen`: where it says it listens, what it prints for each
//! delivery (a line, or JSON with the secrets masked), `--count`, and `--token`'s 401.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use a2a_test_support::harness::{STEP_TIMEOUT, Value, binary, json};

/// A running `a2a webhook listen`, and the URL it printed.
struct Listener {
    child: Child,
    url: String,
    /// What it says on stderr after the listening line (read until it exits).
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `a2a webhook listen --port 0 ARGS…` and reads the URL it prints on stderr.
fn listen(args: &[&str]) -> Listener {
    let mut child = Command::new(binary("a2a-lambda-cli", "a2a"))
        .args(["webhook", "listen", "--port", "0"])
        .args(args)
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    // The rest of stderr is read by the test that wants it; keep the pipe drained.
    let rest = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let url = first
        .strip_prefix("listening on ")
        .and_then(|rest| rest.split_once(' '))
        .map(|(url, _)| url.to_owned())
        .unwrap_or_else(|| panic!("no listening line: {first:?}"));
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(
        first.trim_end(),
        format!("listening on {url} (POST to any path; Ctrl-C stops)")
    );
    Listener {
        child,
        url,
        stderr: Some(rest),
    }
}

/// Waits (bounded) for the listener to exit; its exit code and stdout.
fn finish(mut listener: Listener) -> (Option<i32>, String, String) {
    let started = Instant::now();
    let status = loop {
        if let Some(status) = listener.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < STEP_TIMEOUT,
            "the listener did not exit"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    listener
        .child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let stderr = listener.stderr.take().unwrap().join().unwrap();
    (status.code(), stdout, stderr)
}

async fn post(url: &str, headers: &[(&str, &str)], body: &'static str) -> reqwest::StatusCode {
    let mut request = reqwest::Client::new().post(url).body(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().status()
}

/// The arrival time of a printed delivery: RFC 3339, milliseconds, UTC.
fn assert_time(at: &str) {
    assert_eq!(at.len(), "2026-12-01T18:30:00.123Z".len(), "{at}");
    assert!(at.ends_with('Z') && at.as_bytes()[19] == b'.', "{at}");
}

const V0_3_TASK: &str = r#"{"kind":"task","id":"task-03","status":{"state":"completed"}}"#;
const V1_0_UPDATE: &str =
    r#"{"statusUpdate":{"taskId":"task-10","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}"#;

#[tokio::test]
async fn json_lines_with_masked_secrets_then_exit_after_count() {
    let listener = listen(&["--count", "2", "--json", "--token", "tok-1"]);
    let first = format!("{}hooks/a?x=1", listener.url);
    let headers = [
        ("content-type", "application/json"),
        ("authorization", "Bearer jwt-secret"),
        ("x-a2a-notification-token", "tok-1"),
    ];
    assert_eq!(post(&first, &headers, V0_3_TASK).await, 200);
    let second = format!("{}other", listener.url);
    assert_eq!(post(&second, &headers[2..], V1_0_UPDATE).await, 200);
    let (code, stdout, _) = finish(listener);
    assert_eq!(code, Some(0), "{stdout}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    let mut lines = lines.into_iter().map(|mut line| {
        assert_time(line["receivedAt"].as_str().unwrap());
        line.as_object_mut().unwrap().remove("receivedAt");
        let headers = line["headers"].as_object_mut().unwrap();
        // Set by reqwest and the connection, not by the test.
        assert!(headers.remove("host").is_some());
        line
    });
    assert_eq!(
        lines.next().unwrap(),
        json!({
            "path": "/hooks/a",
            "headers": {
                "content-type": "application/json",
                "authorization": "Bearer ****",
                "x-a2a-notification-token": "****",
                "accept": "*/*",
                "content-length": V0_3_TASK.len().to_string(),
            },
            "contentType": "application/json",
            "body": {"kind": "task", "id": "task-03", "status": {"state": "completed"}},
        })
    );
    assert_eq!(
        lines.next().unwrap(),
        json!({
            "path": "/other",
            "headers": {
                "x-a2a-notification-token": "****",
                "accept": "*/*",
                "content-length": V1_0_UPDATE.len().to_string(),
            },
            "contentType": null,
            "body": {"statusUpdate": {
                "taskId": "task-10",
                "status": {"state": "TASK_STATE_INPUT_REQUIRED"},
            }},
        })
    );
}

#[tokio::test]
async fn one_line_a_delivery_names_the_task_and_state() {
    let listener = listen(&["--count", "3"]);
    let url = format!("{}push", listener.url);
    assert_eq!(post(&url, &[], V0_3_TASK).await, 200);
    assert_eq!(post(&url, &[], V1_0_UPDATE).await, 200);
    assert_eq!(post(&url, &[], "not json").await, 200);
    let (code, stdout, _) = finish(listener);
    assert_eq!(code, Some(0), "{stdout}");
    let lines: Vec<(&str, &str)> = stdout
        .lines()
        .map(|line| line.split_once("  ").unwrap())
        .collect();
    for (at, _) in &lines {
        assert_time(at);
    }
    let rest: Vec<&str> = lines.iter().map(|(_, rest)| *rest).collect();
    assert_eq!(
        rest,
        [
            "/push  task-03  completed",
            "/push  task-10  input-required",
            "/push  -  -",
        ]
    );
}

#[tokio::test]
async fn a_wrong_or_missing_token_is_refused_with_401() {
    let listener = listen(&["--count", "1", "--token", "right"]);
    let url = format!("{}hook", listener.url);
    let wrong = [("x-a2a-notification-token", "wrong")];
    assert_eq!(post(&url, &wrong, V0_3_TASK).await, 401);
    assert_eq!(post(&url, &[], V0_3_TASK).await, 401);
    let get = reqwest::get(&url).await.unwrap();
    assert_eq!(get.status(), 405);
    assert_eq!(get.headers()["allow"], "POST");
    let right = [("x-a2a-notification-token", "right")];
    assert_eq!(post(&url, &right, V0_3_TASK).await, 200);
    let (code, stdout, stderr) = finish(listener);
    assert_eq!(code, Some(0));
    // Only the accepted delivery is printed; the refusals are said on stderr.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.ends_with("  /hook  task-03  completed\n"),
        "{stdout}"
    );
    assert_eq!(
        stderr,
        "refused a delivery to /hook: a wrong X-A2A-Notification-Token (401)\n\
         refused a delivery to /hook: no X-A2A-Notification-Token (401)\n"
    );
    assert!(!stderr.contains("wrong\n") && !stderr.contains("right"));
}

#[test]
fn a_port_in_use_is_a_usage_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let run = a2a_test_support::harness::cli::run(&["webhook", "listen", "--port", &port]);
    run.expect_code(2);
    assert!(
        run.stderr.starts_with(&format!(
            "error: invalid configuration: cannot listen on 127.0.0.1:{port}: "
        )),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn ctrl_c_exits_0() {
    let listener = listen(&[]);
    assert_eq!(post(&listener.url, &[], V0_3_TASK).await, 200);
    let pid = listener.child.id().to_string();
    let signalled = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(signalled.success());
    let (code, stdout, _) = finish(listener);
    assert_eq!(code, Some(0));
    assert!(stdout.ends_with("  /  task-03  completed\n"), "{stdout}");
}
