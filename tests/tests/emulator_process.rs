//! The emulator as a process: `/ping` health, SIGTERM with work in flight, bad flags,
//! `--help`.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_test_support::harness::{Emulator, Op, Version, emulator_command, eventually, json};

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Checks the `/ping` shape and returns `(status, time_of_last_update)`.
fn read_ping(ping: &serde_json::Value) -> (String, u64) {
    let object = ping.as_object().unwrap();
    assert_eq!(
        object.keys().collect::<Vec<_>>(),
        ["status", "time_of_last_update"],
        "{ping}"
    );
    (
        ping["status"].as_str().unwrap().to_owned(),
        ping["time_of_last_update"].as_u64().unwrap(),
    )
}

#[tokio::test]
async fn ping_is_healthy_when_idle_and_busy_while_a_task_runs() {
    let before = unix_now();
    let emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .process()
        .start();

    let idle = emulator.ping().await;
    let (status, idle_since) = read_ping(&idle);
    assert_eq!(status, "Healthy");
    assert!(
        (before..=unix_now()).contains(&idle_since),
        "{idle_since} not in {before}..={}",
        unix_now()
    );
    // No status change: the time stays.
    assert_eq!(emulator.ping().await, idle);

    // A task that runs until canceled.
    let version = Version::V1_0;
    let sent = emulator
        .result(
            version,
            Op::Send,
            version.send_params_at_once("slow-ping", "wait"),
        )
        .await;
    let task_id = sent["task"]["id"].as_str().unwrap().to_owned();
    let busy = emulator.ping().await;
    let (status, busy_since) = read_ping(&busy);
    assert_eq!(status, "HealthyBusy");
    assert!(busy_since >= idle_since);
    assert_eq!(emulator.ping().await, busy);

    // A second task does not change the status, so not the time either.
    emulator
        .result(
            version,
            Op::Send,
            version.send_params_at_once("slow-ping-2", "wait"),
        )
        .await;
    assert_eq!(emulator.ping().await, busy);

    // Canceling one leaves it busy; canceling both makes it healthy again.
    emulator
        .result(version, Op::Cancel, json!({"id": task_id}))
        .await;
    let listed = emulator
        .result(version, Op::List, json!({"status": "TASK_STATE_WORKING"}))
        .await;
    assert_eq!(listed["totalSize"], 1, "{listed}");
    assert_eq!(emulator.ping().await["status"], "HealthyBusy");
    let other = listed["tasks"][0]["id"].as_str().unwrap().to_owned();
    emulator
        .result(version, Op::Cancel, json!({"id": other}))
        .await;
    emulator.wait_idle().await;
    let healthy = emulator.ping().await;
    let (status, healthy_since) = read_ping(&healthy);
    assert_eq!(status, "Healthy");
    assert!(healthy_since >= busy_since && healthy_since <= unix_now());
    assert_eq!(emulator.ping().await, healthy);
}

#[tokio::test]
async fn sigterm_when_idle_exits_zero() {
    let mut emulator = Emulator::builder().process().start();
    assert_eq!(emulator.ping().await["status"], "Healthy");
    emulator.terminate();
    let status = emulator
        .exited_within(Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("still running 10 s after SIGTERM"));
    assert_eq!(status.code(), Some(0), "{}", emulator.stderr());
    let logs = emulator.stderr();
    assert!(logs.contains("shutdown requested"), "{logs}");
}

#[tokio::test]
async fn sigterm_lets_an_in_flight_stream_finish() {
    // test-resubscribe-message-id works for 2 × 0.5 s, then completes.
    let mut emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .env("TCK_STREAMING_TIMEOUT", "0.5")
        .process()
        .start();
    let version = Version::V0_3;
    let mut stream = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params("test-resubscribe-message-id-term", "hold"),
        )
        .await;
    assert_eq!(stream.next_result().await["kind"], "task");
    assert_eq!(stream.next_result().await["status"]["state"], "working");

    emulator.terminate();
    let rest = stream.rest().await;
    assert_eq!(rest.len(), 1, "{rest:?}");
    assert_eq!(rest[0]["result"]["status"]["state"], "completed");
    assert_eq!(rest[0]["result"]["final"], true);
    drop(stream);

    let status = emulator
        .exited_within(Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("still running 10 s after SIGTERM"));
    assert_eq!(status.code(), Some(0), "{}", emulator.stderr());
}

#[tokio::test]
async fn sigterm_lets_an_in_flight_request_finish() {
    let mut emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .env("TCK_STREAMING_TIMEOUT", "0.5")
        .process()
        .start();
    let version = Version::V1_0;
    let send = emulator.result(
        version,
        Op::Send,
        version.send_params("test-resubscribe-message-id-send", "hold"),
    );
    let terminate = async {
        // Once the task runs, the request is in flight: stop the emulator.
        eventually("the task to run", Duration::from_secs(5), || async {
            (emulator.ping().await["status"] == "HealthyBusy").then_some(())
        })
        .await;
        emulator.terminate();
    };
    let (result, ()) = tokio::join!(send, terminate);
    assert_eq!(
        result["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{result}"
    );
    let status = emulator
        .exited_within(Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("still running 10 s after SIGTERM"));
    assert_eq!(status.code(), Some(0), "{}", emulator.stderr());
}

#[tokio::test]
async fn sigterm_stops_after_the_grace_period_when_a_stream_never_ends() {
    let mut emulator = Emulator::builder()
        .args(["--agent", "conformance", "--shutdown-grace-seconds", "1"])
        .process()
        .start();
    let version = Version::V1_0;
    let mut stream = emulator
        .stream(
            version,
            Op::Stream,
            version.send_params("slow-forever", "wait"),
        )
        .await;
    assert!(stream.next_result().await["task"].is_object());
    emulator.terminate();
    let status = emulator
        .exited_within(Duration::from_secs(8))
        .await
        .unwrap_or_else(|| panic!("still running 8 s after SIGTERM with a 1 s grace period"));
    assert_eq!(status.code(), Some(0), "{}", emulator.stderr());
    let logs = emulator.stderr();
    assert!(logs.contains("did not finish in time"), "{logs}");
    drop(stream);
}

#[test]
fn an_unknown_agent_is_refused_with_a_clear_message() {
    for command in [
        emulator_command()
            .args(["--port", "0", "--agent", "nope"])
            .output(),
        emulator_command()
            .args(["--port", "0"])
            .env("A2A_AGENT", "nope")
            .output(),
    ] {
        let output = command.unwrap();
        assert!(!output.status.success());
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("unknown agent \"nope\"; built-in agents: echo, conformance"),
            "{stderr}"
        );
        assert!(stderr.contains("--agent"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn help_mentions_every_flag_and_its_environment_variable() {
    let output = emulator_command().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--host",
        "--port",
        "--agent",
        "--public-url",
        "--shutdown-grace-seconds",
        "--log-format",
        "--help",
        "--version",
        "A2A_HOST",
        "A2A_PORT",
        "A2A_AGENT",
        "A2A_PUBLIC_URL",
        "A2A_SHUTDOWN_GRACE_SECONDS",
        "A2A_LOG_FORMAT",
        "AGENTCORE_RUNTIME_URL",
        "echo",
        "conformance",
    ] {
        assert!(
            help.contains(flag),
            "--help does not mention {flag}:\n{help}"
        );
    }
    let version = emulator_command().arg("--version").output().unwrap();
    assert!(version.status.success());
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("a2a-emulator {}", env!("CARGO_PKG_VERSION"))
    );
}

#[tokio::test]
async fn a_port_in_use_is_refused_with_a_clear_message() {
    let emulator = Emulator::builder().process().start();
    let port = emulator.base_url().rsplit(':').next().unwrap().to_owned();
    let output = emulator_command().args(["--port", &port]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("a2a-emulator: cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
    assert_eq!(emulator.ping().await["status"], "Healthy");
}

#[tokio::test]
async fn json_logs_are_one_json_object_a_line() {
    let mut emulator = Emulator::builder()
        .args(["--log-format", "json"])
        .process()
        .start();
    emulator.ping().await;
    emulator.terminate();
    emulator
        .exited_within(Duration::from_secs(10))
        .await
        .unwrap_or_else(|| panic!("still running 10 s after SIGTERM"));
    let logs = emulator.stderr();
    let lines: Vec<&str> = logs.lines().filter(|line| !line.is_empty()).collect();
    assert!(!lines.is_empty());
    for line in lines {
        let entry: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"));
        assert!(entry["level"].is_string(), "{line}");
    }
}

/// `/ping` must follow the number of running tasks when many start and end at once: it
/// is never left `HealthyBusy` with nothing running, nor `Healthy` while a task runs.
#[tokio::test]
async fn ping_follows_tasks_that_start_and_end_concurrently() {
    let emulator = Emulator::builder()
        .args(["--agent", "conformance"])
        .process()
        .start();
    let version = Version::V1_0;
    for round in 0..25 {
        // A task that keeps running, started while another one ends.
        let slow = emulator.result(
            version,
            Op::Send,
            version.send_params_at_once(&format!("slow-race-{round}"), "wait"),
        );
        let quick = emulator.send_task(
            version,
            version.send_params(&format!("tck-complete-task-race-{round}"), "hi"),
        );
        let (slow, _) = tokio::join!(slow, quick);
        for _ in 0..3 {
            assert_eq!(
                emulator.ping().await["status"],
                "HealthyBusy",
                "round {round}: a task runs but /ping says Healthy"
            );
        }
        emulator
            .result(version, Op::Cancel, json!({"id": slow["task"]["id"]}))
            .await;
        // Many tasks ending together.
        let quick: Vec<_> = (0..8)
            .map(|index| {
                emulator.send_task(
                    version,
                    version.send_params(&format!("tck-complete-task-{round}-{index}"), "hi"),
                )
            })
            .collect();
        futures_util::future::join_all(quick).await;
        eventually(
            &format!("round {round}: /ping to say Healthy once every task ended"),
            Duration::from_secs(3),
            || async { (emulator.ping().await["status"] == "Healthy").then_some(()) },
        )
        .await;
    }
}

#[test]
fn an_invalid_public_url_is_refused_with_a_clear_message() {
    for (args, env) in [
        (vec!["--public-url", "ftp://example.com/"], None),
        (vec![], Some(("AGENTCORE_RUNTIME_URL", "not a url"))),
    ] {
        let mut command = emulator_command();
        command.args(["--port", "0"]).args(&args);
        if let Some((name, value)) = env {
            command.env(name, value);
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?} {env:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let url = args.get(1).copied().unwrap_or("not a url/");
        assert!(
            stderr.contains(&format!(
                "a2a-emulator: agent card: `url` must be an absolute http:// or https:// URL, \
                 got {url:?}"
            )),
            "{stderr}"
        );
        assert!(output.stdout.is_empty(), "it must not say it listens");
    }
}

#[tokio::test]
async fn the_in_process_emulator_says_what_the_binary_says() {
    let binary = Emulator::builder()
        .args(["--agent", "conformance"])
        .process()
        .start();
    let in_process = Emulator::builder().args(["--agent", "conformance"]).start();
    // What each says, with its own address as `ADDRESS`.
    let said = |emulator: &Emulator, text: String| {
        let address = emulator.base_url().trim_start_matches("http://").to_owned();
        text.replace(&address, "ADDRESS")
    };
    assert_eq!(
        said(&in_process, in_process.listening_line().to_owned()),
        said(&binary, binary.listening_line().to_owned())
    );
    assert_eq!(
        said(&in_process, in_process.card().await.to_string()),
        said(&binary, binary.card().await.to_string())
    );
    for args in [
        vec![
            "--container-only",
            "--public-url",
            "https://example.com/a2a/",
        ],
        vec!["--upstream", "http://127.0.0.1:9"],
    ] {
        let binary = Emulator::builder().args(args.clone()).process().start();
        let in_process = Emulator::builder().args(args.clone()).start();
        assert_eq!(
            said(&in_process, in_process.listening_line().to_owned()),
            said(&binary, binary.listening_line().to_owned()),
            "{args:?}"
        );
    }
}

#[test]
#[should_panic(expected = "start it with Emulator::builder().process()")]
fn process_only_methods_refuse_an_in_process_emulator() {
    let emulator = Emulator::start(&[]);
    emulator.terminate();
}
