//! The limits AgentCore enforces, through the platform front in-process: the streaming
//! limit (`--max-stream-seconds`), the active-session quota (`--max-sessions`), the
//! agent-id form of AWS's paths (`/runtimes/{id}/invocations?accountId=…`) and the
//! endpoint `?qualifier=` (`--qualifier`).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use a2a_test_support::harness::front::{
    self, ARN, NOT_FOUND, SESSION_HEADER, create_task, encode, invoke, send_params, session_id,
};
use a2a_test_support::harness::{Emulator, Value, header, json};
use futures_util::StreamExt as _;

/// The runtime id of [`ARN`], and its account.
const RUNTIME_ID: &str = "test_agent-AbCdEf1234";
const ACCOUNT: &str = "123456789012";

#[tokio::test]
async fn a_stream_is_cut_at_the_streaming_limit() {
    let emulator = Emulator::start(&["--agent", "conformance", "--max-stream-seconds", "1"]);
    let session = session_id("max-stream");
    let id = emulator.next_id();
    let opened = Instant::now();
    let response = front::request(
        &emulator,
        "POST",
        &front::invocations(ARN),
        &[(SESSION_HEADER, &session)],
        front::rpc(&id, "message/stream", send_params("slow-max", "wait")),
    )
    .await;
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut parser = a2a_test_support::sse::SseParser::default();
    let mut events = Vec::new();
    let cut = loop {
        let next = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("the stream was not cut within 10 s");
        match next {
            Some(Ok(chunk)) => events.extend(parser.push_data(&chunk)),
            Some(Err(error)) => break error,
            None => panic!("the stream ended cleanly: {events:?}"),
        }
    };
    let lasted = opened.elapsed();
    assert!(
        (Duration::from_secs(1)..Duration::from_secs(5)).contains(&lasted),
        "cut after {lasted:?}: {cut}"
    );
    let first: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(first["result"]["kind"], "task", "{events:?}");
    // A stream that ends in time is untouched, and the session lives on.
    let mut stream = front::open_stream(
        &emulator,
        &front::invocations(ARN),
        &[(SESSION_HEADER, &session)],
        "message/stream",
        send_params("tck-stream-in-time", "s"),
    )
    .await;
    assert_eq!(stream.rest().await.len(), 6);
}

#[tokio::test]
async fn past_the_session_quota_a_new_session_is_refused_until_one_ends() {
    let emulator = Emulator::start(&["--max-sessions", "2"]);
    let a = session_id("quota-a");
    let b = session_id("quota-b");
    let c = session_id("quota-c");
    let task_a = create_task(&emulator, &a, "m-quota-a").await;
    create_task(&emulator, &b, "m-quota-b").await;

    let (_, refused) = invoke(
        &emulator,
        Some(&c),
        "message/send",
        send_params("m-c", "hi"),
    )
    .await;
    assert_eq!(refused.status, 402, "{refused:?}");
    assert_eq!(
        header(&refused.headers, "x-amzn-errortype"),
        Some("ServiceQuotaExceededException")
    );
    assert_eq!(
        header(&refused.headers, "content-type"),
        Some("application/json")
    );
    assert_eq!(refused.session(), Some(c.as_str()));
    assert_eq!(
        refused.json(),
        json!({"message": "The number of active sessions has reached this endpoint's quota \
            of 2; stop a session (StopRuntimeSession) or wait for one to end"})
    );
    // Live sessions go on.
    let found = front::get_task(&emulator, Some(&a), &task_a).await;
    assert_eq!(found.result()["id"], task_a.as_str());

    // Once one ends, a new session is accepted.
    let stopped = front::post(
        &emulator,
        &format!("/runtimes/{}/stopruntimesession", encode(ARN)),
        &[(SESSION_HEADER, &a)],
        Vec::new(),
    )
    .await;
    assert_eq!(stopped.status, 200, "{stopped:?}");
    create_task(&emulator, &c, "m-quota-c").await;
    // And the stopped one is now the one past the quota.
    let (_, refused) = invoke(
        &emulator,
        Some(&a),
        "message/send",
        send_params("m-a2", "hi"),
    )
    .await;
    assert_eq!(refused.status, 402, "{refused:?}");
}

#[tokio::test]
async fn the_agent_id_form_with_its_account_is_an_invocation_path() {
    let emulator = Emulator::start(&["--runtime-arn", ARN]);
    let session = session_id("by-id");
    let path = format!("/runtimes/{RUNTIME_ID}/invocations?accountId={ACCOUNT}");
    let (_, sent) = front::call_at(
        &emulator,
        &path,
        Some(&session),
        "message/send",
        send_params("m-by-id", "hi"),
    )
    .await;
    let task_id = sent.result()["id"].as_str().unwrap().to_owned();
    // The same runtime as its ARN: the same session, the same task.
    let found = front::get_task(&emulator, Some(&session), &task_id).await;
    assert_eq!(found.result()["id"], task_id.as_str());

    // Its card advertises the URL in the form it was fetched.
    let card_path = format!(
        "/runtimes/{RUNTIME_ID}/invocations/.well-known/agent-card.json?accountId={ACCOUNT}"
    );
    let card = front::get(&emulator, &card_path, &[]).await;
    assert_eq!(card.status, 200, "{card:?}");
    let advertised = format!(
        "{}/runtimes/{RUNTIME_ID}/invocations/?accountId={ACCOUNT}",
        emulator.base_url().trim_end_matches('/')
    );
    assert_eq!(card.json()["url"], advertised.as_str(), "{card:?}");

    // Without the account, or with another, it names no runtime served here.
    for path in [
        format!("/runtimes/{RUNTIME_ID}/invocations"),
        format!("/runtimes/{RUNTIME_ID}/invocations?accountId=210987654321"),
        format!("/runtimes/{RUNTIME_ID}/invocations?accountId=12"),
    ] {
        let reply = front::post(&emulator, &path, &[], b"{}".to_vec()).await;
        reply.assert_aws(&Value::Null, NOT_FOUND);
    }
}

#[tokio::test]
async fn another_qualifier_is_not_found() {
    let emulator = Emulator::start(&[]);
    let session = session_id("qualifier");
    let base = front::invocations(ARN);
    for query in ["", "?qualifier=DEFAULT"] {
        let (_, reply) = front::call_at(
            &emulator,
            &format!("{base}{query}"),
            Some(&session),
            "tasks/get",
            json!({"id": "x"}),
        )
        .await;
        assert_eq!(reply.error_code(), -32001, "{query}: {reply:?}");
    }
    for path in [
        format!("{base}?qualifier=prod"),
        format!("{base}.well-known/agent-card.json?qualifier=prod"),
    ] {
        let method = if path.contains("agent-card") {
            "GET"
        } else {
            "POST"
        };
        let reply =
            front::read(front::request(&emulator, method, &path, &[], Vec::new()).await).await;
        reply.assert_aws(&Value::Null, NOT_FOUND);
    }

    // An emulator serving `prod` answers it, and not DEFAULT.
    let prod = Emulator::start(&["--qualifier", "prod"]);
    let (_, reply) = front::call_at(
        &prod,
        &format!("{base}?qualifier=prod"),
        Some(&session),
        "tasks/get",
        json!({"id": "x"}),
    )
    .await;
    assert_eq!(reply.error_code(), -32001, "{reply:?}");
    // Without a qualifier AWS means DEFAULT. The payload of a path that names nothing is
    // not read: the id is null.
    for path in [format!("{base}?qualifier=DEFAULT"), base.clone()] {
        let (_, reply) = front::call_at(
            &prod,
            &path,
            Some(&session),
            "tasks/get",
            json!({"id": "x"}),
        )
        .await;
        reply.assert_aws(&Value::Null, NOT_FOUND);
    }
}
