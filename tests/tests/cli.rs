#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The real `a2a` CLI against the real emulator: card, send (plain, streamed, JSON), get,
//! list, cancel, resubscribe, sessions, and the platform's injected throttling and
//! busy-session refusals survived through retries; exit codes as documented.

use a2a_test_support::harness::cli::run;
use a2a_test_support::harness::front::{invocations, session_id};
use a2a_test_support::harness::{Emulator, Value};

const ARN: &str = "arn:aws:bedrock-agentcore:us-west-2:123456789012:runtime/cli_test-Ab12Cd34Ef";

/// The invocation URL of the emulator's runtime, with the trailing slash AWS documents.
fn invocation_url(emulator: &Emulator) -> String {
    emulator.url(&invocations(ARN))
}

#[test]
fn card_through_an_invocation_url_picks_1_0_and_its_endpoint() {
    let emulator = Emulator::start(&[]);
    let url = invocation_url(&emulator);
    let card = run(&["card", &url]);
    card.expect_code(0);
    assert!(
        card.stdout
            .contains(&format!("using:     JSON-RPC 1.0 at {url}")),
        "{}",
        card.stdout
    );
    assert!(card.stdout.contains("streaming: true"), "{}", card.stdout);
    // The ARN may be given unescaped; the card comes from the same place.
    let unescaped = emulator.url(&format!("/runtimes/{ARN}/invocations"));
    let json = run(&["card", &unescaped, "--json"]);
    json.expect_code(0);
    let card = json.json();
    assert_eq!(card["supportedInterfaces"][0]["url"], Value::from(url));
}

#[test]
fn send_prints_the_echo_and_json_is_the_chosen_versions_wire() {
    let emulator = Emulator::start(&[]);
    let url = invocation_url(&emulator);
    let plain = run(&["send", &url, "hello there"]);
    plain.expect_code(0);
    assert!(plain.stdout.contains("hello there"), "{}", plain.stdout);
    assert!(plain.stderr.contains("): completed"), "{}", plain.stderr);

    let v10 = run(&["send", &url, "one", "--json"]);
    v10.expect_code(0);
    let task = &v10.json()["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");

    let v03 = run(&["send", &url, "two", "--json", "--protocol", "0.3"]);
    v03.expect_code(0);
    let task = v03.json();
    assert_eq!(
        (&task["kind"], &task["status"]["state"]),
        (&Value::from("task"), &Value::from("completed"))
    );
}

#[test]
fn streamed_text_arrives_and_the_stream_ends_at_completion() {
    let emulator = Emulator::conformance();
    let url = emulator.base_url().to_owned();
    let streamed = run(&[
        "send",
        &url,
        "go",
        "--stream",
        "--message-id",
        "tck-stream-cli-1",
    ]);
    streamed.expect_code(0);
    assert!(
        streamed.stderr.contains("[completed]"),
        "{}",
        streamed.stderr
    );
    let lines = run(&[
        "send",
        &url,
        "go",
        "--stream",
        "--json",
        "--message-id",
        "tck-stream-cli-2",
    ]);
    lines.expect_code(0);
    let events: Vec<Value> = lines
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(events.len() >= 3, "{events:?}");
    assert!(
        events[0].get("task").is_some(),
        "first a task: {:?}",
        events[0]
    );
    let last = events.last().unwrap();
    assert_eq!(
        last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{last}"
    );
}

#[test]
fn exit_codes_say_how_it_ended() {
    let emulator = Emulator::conformance();
    let url = emulator.base_url().to_owned();
    // 5: the agent rejected the task.
    let rejected = run(&["send", &url, "x", "--message-id", "tck-reject-task-cli"]);
    rejected.expect_code(5);
    assert!(
        rejected.stderr.contains("): rejected"),
        "{}",
        rejected.stderr
    );
    // 1: a JSON-RPC error, printed with its code, name and a hint.
    let missing = run(&["get", &url, "no-such-task"]);
    missing.expect_code(1);
    assert!(
        missing.stderr.contains("error: -32001 TaskNotFoundError"),
        "{}",
        missing.stderr
    );
    assert!(missing.stderr.contains("hint: "), "{}", missing.stderr);
    // 1: an operation the version lacks.
    run(&["list", &url, "--protocol", "0.3"]).expect_code(1);
    // 2: bad usage and bad configuration.
    run(&["send", &url]).expect_code(2);
    run(&["send", "not a url", "x"]).expect_code(2);
    run(&["send", &url, "x", "--session", "too-short"]).expect_code(2);
    // 3: nothing listening.
    let refused = run(&["send", "http://127.0.0.1:9/", "x"]);
    refused.expect_code(3);
    assert!(
        refused.stderr.contains("cannot reach"),
        "{}",
        refused.stderr
    );
}

#[test]
fn get_list_cancel_and_resubscribe_a_running_task() {
    let emulator = Emulator::conformance();
    let url = emulator.base_url().to_owned();
    let sent = run(&[
        "send",
        &url,
        "wait",
        "--no-wait",
        "--json",
        "--message-id",
        "slow-cli-1",
    ]);
    sent.expect_code(0);
    let task_id = sent.json()["task"]["id"].as_str().unwrap().to_owned();

    let got = run(&["get", &url, &task_id, "--json"]);
    got.expect_code(0);
    assert_eq!(got.json()["status"]["state"], "TASK_STATE_WORKING");

    let listed = run(&["list", &url]);
    listed.expect_code(0);
    assert!(
        listed.stdout.contains(&format!("{task_id}\t")),
        "{}",
        listed.stdout
    );

    // Resubscribe in the background, then cancel: the subscription sees the cancel.
    let resubscriber = {
        let (url, task_id) = (url.clone(), task_id.clone());
        std::thread::spawn(move || run(&["resubscribe", &url, &task_id, "--json"]))
    };
    let canceled = run(&["cancel", &url, &task_id]);
    canceled.expect_code(0);
    assert!(
        canceled.stderr.contains("): canceled"),
        "{}",
        canceled.stderr
    );
    let followed = resubscriber.join().unwrap();
    // The subscription sees the cancel (exit 5: the task ended canceled), or starts after
    // it and is refused (exit 1).
    if followed.code == Some(5) {
        assert!(
            followed.stdout.contains("TASK_STATE_CANCELED"),
            "{}",
            followed.stdout
        );
    } else {
        followed.expect_code(1);
    }
    run(&["cancel", &url, &task_id]).expect_code(1);
}

#[test]
fn a_session_keeps_its_tasks_and_another_does_not_see_them() {
    let emulator = Emulator::start(&[]);
    let url = invocation_url(&emulator);
    let mine = session_id("cli-mine");
    let theirs = session_id("cli-theirs");
    let sent = run(&["send", &url, "kept", "--json", "--session", &mine]);
    sent.expect_code(0);
    let task_id = sent.json()["task"]["id"].as_str().unwrap().to_owned();
    run(&["get", &url, &task_id, "--session", &mine]).expect_code(0);
    let other = run(&["get", &url, &task_id, "--session", &theirs]);
    other.expect_code(1);
    assert!(other.stderr.contains("-32001"), "{}", other.stderr);
}

#[test]
fn injected_throttling_and_busy_sessions_are_survived_through_retries() {
    let emulator = Emulator::builder()
        .args(["--fault", "throttle=0.3,conflict=0.3", "--seed", "7"])
        .start();
    let url = invocation_url(&emulator);
    let mut retried = 0;
    for round in 0..8 {
        let text = format!("round {round}");
        let sent = run(&["send", &url, &text, "--retries", "12", "-v"]);
        sent.expect_code(0);
        assert!(sent.stdout.contains(&text), "{}", sent.stdout);
        retried += sent.stderr.matches("retrying").count();
    }
    let streamed = run(&["send", &url, "streamed", "--stream", "--retries", "12"]);
    streamed.expect_code(0);
    assert!(streamed.stdout.contains("streamed"), "{}", streamed.stdout);
    assert!(
        retried > 0,
        "with 60% of invocations refused, some call retried"
    );
}

#[test]
fn retries_give_up_with_exit_4_and_other_refusals_are_not_retried() {
    let emulator = Emulator::builder().args(["--fault", "throttle=1"]).start();
    let url = invocation_url(&emulator);
    let throttled = run(&["send", &url, "x", "--retries", "3", "--json"]);
    throttled.expect_code(4);
    assert!(
        throttled.stderr.contains("gave up after 3 attempts"),
        "{}",
        throttled.stderr
    );
    let error = &throttled.json()["error"];
    assert_eq!(error["code"], -32053, "{error}");
    assert_eq!(error["name"], "ThrottlingException");
    assert_eq!(error["httpStatus"], 429);
    assert_eq!(error["attempts"], 3);

    let broken = Emulator::builder()
        .args(["--fault", "runtime-error=1"])
        .start();
    let url = invocation_url(&broken);
    let failed = run(&["send", &url, "x", "-v"]);
    failed.expect_code(1);
    assert!(
        failed.stderr.contains("error: -32055 RuntimeClientError"),
        "{}",
        failed.stderr
    );
    assert!(failed.stderr.contains("(HTTP 424)"), "{}", failed.stderr);
    assert!(
        failed.stderr.contains("9000"),
        "the hint names the port: {}",
        failed.stderr
    );
    assert!(!failed.stderr.contains("retrying"), "{}", failed.stderr);
}

#[test]
fn a_streamed_follow_up_shows_the_agents_answer_to_the_end() {
    let emulator = Emulator::conformance();
    let url = emulator.base_url().to_owned();
    let first = run(&["send", &url, "a question", "--json"]);
    first.expect_code(0);
    let task = &first.json()["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let task_id = task["id"].as_str().unwrap().to_owned();

    // The reopened task's first snapshot still says input-required; the stream goes on.
    let follow_up = run(&["send", &url, "done", "--task", &task_id, "--stream"]);
    follow_up.expect_code(0);
    assert!(
        follow_up.stderr.contains("[completed]"),
        "{}",
        follow_up.stderr
    );
}

#[test]
fn a_new_session_is_printed_so_it_can_be_reused() {
    let emulator = Emulator::start(&[]);
    let url = invocation_url(&emulator);
    let sent = run(&["send", &url, "hello", "--new-session", "--json"]);
    sent.expect_code(0);
    let task_id = sent.json()["task"]["id"].as_str().unwrap().to_owned();
    let line = sent
        .stderr
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .unwrap_or_else(|| panic!("no session line: {}", sent.stderr));
    let session = line.split_whitespace().next().unwrap();
    run(&["get", &url, &task_id, "--session", session]).expect_code(0);
    // The URL's usual session is another one.
    run(&["get", &url, &task_id]).expect_code(1);
}

#[test]
fn a_streamed_send_goes_on_across_a_cut_stream() {
    // Every stream cut; the draws of seed 2 cut the first after two events (submitted,
    // working) while the task works: the CLI's client resubscribes and prints the rest.
    let emulator = Emulator::builder()
        .args([
            "--agent",
            "conformance",
            "--fault",
            "stream-cut=1",
            "--seed",
            "2",
        ])
        .start();
    let lines = run(&[
        "send",
        emulator.base_url(),
        "go",
        "--stream",
        "--json",
        "--message-id",
        "tck-delayed-complete-cli",
    ]);
    lines.expect_code(0);
    let events: Vec<Value> = lines
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| {
            event
                .as_object()
                .and_then(|object| object.keys().next())
                .map_or("?", String::as_str)
        })
        .collect();
    assert_eq!(
        kinds,
        ["task", "statusUpdate", "statusUpdate"],
        "{events:?}"
    );
    assert_eq!(
        events[2]["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{events:?}"
    );
}
