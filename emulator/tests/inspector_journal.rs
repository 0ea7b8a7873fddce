//! The emulator's inspector through the library: what the journal keeps of each invocation
//! (exact JSON from `/_emulator/api/`), the secrets it masks, its bounds, its filters, the
//! session lifecycle and task timelines, the live feed, the page, and the inspector off.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::time::Duration;

use a2a_lambda_emulator::{Emulator, FaultSpec, InvocationFilter, Running};
use a2a_lambda_server::agents::EchoAgent;
use futures_util::StreamExt as _;
use serde_json::{Value, json};

const SESSION_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-session-id";
const REQUEST_ID_HEADER: &str = "x-amzn-bedrock-agentcore-runtime-request-id";
const ARN: &str = "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/test_agent-AbCdEf1234";
const STEP: Duration = Duration::from_secs(10);

/// A session id of AgentCore's length (33 to 256), unique to `name`.
fn session(name: &str) -> String {
    format!("inspector-test-session-{name:0>20}")
}

fn send_v1(text: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": text}]}},
    })
}

async fn start(emulator: Emulator) -> Running {
    emulator.start().await.unwrap()
}

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

async fn api(emulator: &Running, path: &str) -> Value {
    let reply = http()
        .get(format!("{}/_emulator/api/{path}", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200, "{path}");
    assert_eq!(reply.headers()["content-type"], "application/json");
    reply.json().await.unwrap()
}

/// An invocation's JSON with what varies from run to run replaced: times, the request id.
fn stable(mut record: Value) -> Value {
    for field in ["at", "headMs", "latencyMs"] {
        assert!(record.get(field).is_some(), "{field} in {record}");
        record[field] = json!("…");
    }
    // AWS's request id for AWS's SDKs is the platform's request id, under restJson1's name.
    let responses = &record["responseHeaders"];
    if let Some(aws) = responses.get("x-amzn-requestid") {
        assert_eq!(Some(aws), responses.get(REQUEST_ID_HEADER), "{responses}");
    }
    for headers in ["containerHeaders", "responseHeaders"] {
        for name in [REQUEST_ID_HEADER, "x-amzn-requestid", "x-request-id"] {
            if let Some(id) = record[headers].get_mut(name) {
                assert_eq!(id.as_str().unwrap().len(), 36, "a request id: {id}");
                *id = json!("…");
            }
        }
    }
    record
}

#[tokio::test]
async fn a_send_is_journaled_as_the_caller_sent_it_and_the_container_received_it() {
    let emulator = start(Emulator::new(EchoAgent)).await;
    let session = session("send");
    let payload = send_v1("hello").to_string();
    let reply = http()
        .post(format!("{}/?A2A-Version=1.0", emulator.url()))
        .header("content-type", "application/json")
        .header(SESSION_HEADER, &session)
        .header("x-not-allowlisted", "dropped")
        .body(payload.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let answer = reply.text().await.unwrap();
    let task_id = serde_json::from_str::<Value>(&answer).unwrap()["result"]["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let journal = emulator.journal().unwrap();
    let seen = journal.wait_for(&InvocationFilter::all(), 1, STEP).await;
    assert_eq!(seen.len(), 1);
    let listed = api(&emulator, "invocations").await;
    assert_eq!(listed["dropped"], 0);
    assert_eq!(listed["next"], 1);
    let host = emulator.address().to_string();
    assert_eq!(
        stable(listed["invocations"][0].clone()),
        json!({
            "seq": 1,
            "at": "…",
            "session": session,
            "route": "container",
            "path": "/?A2A-Version=1.0",
            "httpMethod": "POST",
            "method": "SendMessage",
            "version": "1.0",
            "status": 200,
            "code": null,
            "headMs": "…",
            "latencyMs": "…",
            "fault": null,
            "requestHeaders": {
                "content-type": "application/json",
                SESSION_HEADER: session,
                "x-not-allowlisted": "dropped",
                "accept": "*/*",
                "host": host,
                "content-length": payload.len().to_string(),
            },
            // What the front passes on; the client that calls the container adds its own
            // host and length.
            "containerHeaders": {
                "content-type": "application/json",
                SESSION_HEADER: session,
                "accept": "*/*",
                REQUEST_ID_HEADER: "…",
            },
            "responseHeaders": {
                "content-type": "application/json",
                "content-length": answer.len().to_string(),
                SESSION_HEADER: session,
                REQUEST_ID_HEADER: "…",
                "x-amzn-requestid": "…",
                "x-request-id": "…",
            },
            "requestBody": payload,
            "requestBytes": payload.len(),
            "responseBody": answer,
            "responseBytes": answer.len(),
            "taskId": task_id,
            "traceId": null,
            "stream": false,
            "done": true,
        })
    );
    // The same record, one by one and through the library.
    let one = api(&emulator, "invocations/1").await;
    assert_eq!(one, listed["invocations"][0]);
    assert_eq!(journal.invocation(1).unwrap().to_json(), one);
}

#[tokio::test]
async fn secrets_are_never_stored() {
    let emulator = start(Emulator::new(EchoAgent)).await;
    let push_config = json!({
        "jsonrpc": "2.0", "id": 2, "method": "tasks/pushNotificationConfig/set",
        "params": {"taskId": "t-1", "pushNotificationConfig": {
            "url": "http://127.0.0.1:9/hook", "token": "push-token-secret",
            "authentication": {"schemes": ["Bearer"], "credentials": "push-credentials-secret"}}},
    });
    let reply = http()
        .post(format!(
            "{}?qualifier=DEFAULT&X-Amz-Signature=query-signature-secret&X-Amz-Credential=AKIDQUERYSECRET",
            emulator.invocation_url(ARN)
        ))
        .header(SESSION_HEADER, session("secrets"))
        .header("authorization", "Bearer bearer-token-secret")
        .header("x-a2a-notification-token", "notification-token-secret")
        .header("workloadaccesstoken", "workload-token-secret")
        .header("x-api-key", "api-key-secret")
        .header("cookie", "sid=cookie-secret")
        .header("x-amz-security-token", "session-token-secret")
        .body(push_config.to_string())
        .send()
        .await
        .unwrap();
    let answer = reply.text().await.unwrap();
    emulator
        .journal()
        .unwrap()
        .wait_for(&InvocationFilter::all(), 1, STEP)
        .await;
    let everything = [
        api(&emulator, "invocations").await,
        api(&emulator, "sessions").await,
        api(&emulator, "tasks").await,
    ];
    let text = serde_json::to_string(&everything).unwrap();
    for secret in [
        "bearer-token-secret",
        "notification-token-secret",
        "workload-token-secret",
        "api-key-secret",
        "cookie-secret",
        "session-token-secret",
        "query-signature-secret",
        "AKIDQUERYSECRET",
        "push-token-secret",
        "push-credentials-secret",
    ] {
        assert!(!text.contains(secret), "{secret} is stored: {text}");
    }
    let record = &everything[0]["invocations"][0];
    let sent = &record["requestHeaders"];
    assert_eq!(sent["authorization"], "Bearer ****");
    assert_eq!(sent["x-a2a-notification-token"], "****");
    assert_eq!(sent["workloadaccesstoken"], "****");
    assert_eq!(sent["x-api-key"], "****");
    assert_eq!(sent["cookie"], "****");
    assert_eq!(sent["x-amz-security-token"], "****");
    assert_eq!(
        record["path"],
        format!(
            "/runtimes/{}/invocations?qualifier=DEFAULT&X-Amz-Signature=****&X-Amz-Credential=****",
            a2a_test_support::harness::front::encode(ARN)
        )
    );
    let body: Value = serde_json::from_str(record["requestBody"].as_str().unwrap()).unwrap();
    let config = &body["params"]["pushNotificationConfig"];
    assert_eq!(config["token"], "****");
    assert_eq!(config["authentication"]["credentials"], "****");
    assert_eq!(config["url"], "http://127.0.0.1:9/hook");
    // The answer echoes the config: masked in the journal, not on the wire.
    if answer.contains("push-token-secret") {
        assert!(
            record["responseBody"]
                .as_str()
                .unwrap()
                .contains("\"token\":\"****\"")
        );
    }
    // A SigV4 signature in the Authorization header keeps only its scheme.
    let signed = "AWS4-HMAC-SHA256 Credential=AKIDHEADERSECRET/20261201/us-east-1/bedrock-agentcore/aws4_request, SignedHeaders=host, Signature=headersignaturesecret";
    http()
        .post(emulator.invocation_url(ARN))
        .header("authorization", signed)
        .body(send_v1("x").to_string())
        .send()
        .await
        .unwrap();
    let seen = emulator
        .journal()
        .unwrap()
        .wait_for(&InvocationFilter::all(), 2, STEP)
        .await;
    assert_eq!(
        seen[1].request_header("authorization"),
        Some("AWS4-HMAC-SHA256 ****")
    );
    let text = serde_json::to_string(&api(&emulator, "invocations").await).unwrap();
    assert!(!text.contains("headersignaturesecret") && !text.contains("AKIDHEADERSECRET"));
}

#[tokio::test]
async fn the_journal_keeps_the_newest_entries_and_the_first_bytes_of_bodies() {
    let emulator = start(
        Emulator::new(EchoAgent)
            .journal_size(3)
            .journal_body_bytes(16),
    )
    .await;
    for _ in 0..5 {
        http()
            .post(format!("{}/?A2A-Version=1.0", emulator.url()))
            .header(SESSION_HEADER, session("bounds"))
            .body(send_v1("a text longer than sixteen bytes").to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
    }
    let journal = emulator.journal().unwrap();
    journal
        .wait_for(&InvocationFilter::all().since(4), 1, STEP)
        .await;
    let listed = api(&emulator, "invocations").await;
    let seqs: Vec<&Value> = listed["invocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["seq"])
        .collect();
    assert_eq!(seqs, [&json!(3), &json!(4), &json!(5)]);
    assert_eq!(listed["dropped"], 2);
    let record = &listed["invocations"][2];
    assert_eq!(record["requestBody"], r#"{"id":1,"jsonrpc"#);
    assert_eq!(
        record["requestBytes"],
        send_v1("a text longer than sixteen bytes")
            .to_string()
            .len()
    );
    assert_eq!(record["responseBody"].as_str().unwrap().len(), 16);
    assert!(record["responseBytes"].as_u64().unwrap() > 16);
    // Gone from the ring: 404 with a JSON body; `limit` keeps the newest.
    let gone = http()
        .get(format!("{}/_emulator/api/invocations/1", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
    assert_eq!(
        gone.json::<Value>().await.unwrap(),
        json!({"error": "no invocation 1 is kept"})
    );
    let newest = api(&emulator, "invocations?limit=1").await;
    assert_eq!(newest["invocations"].as_array().unwrap().len(), 1);
    assert_eq!(newest["invocations"][0]["seq"], 5);
    assert_eq!(journal.capacity(), 3);
}

#[tokio::test]
async fn a_throttled_retry_is_counted_and_filtered() {
    // One invocation a second: the second of two at once is throttled, its retry a second
    // later goes through.
    let emulator = Emulator::new(EchoAgent)
        .rate_limit(1)
        .start()
        .await
        .unwrap();
    let session = session("retry");
    let call = || {
        http()
            .post(format!("{}/?A2A-Version=1.0", emulator.url()))
            .header(SESSION_HEADER, &session)
            .body(send_v1("again").to_string())
            .send()
    };
    assert_eq!(call().await.unwrap().status(), 200);
    let throttled = call().await.unwrap();
    assert_eq!(throttled.status(), 429);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(call().await.unwrap().status(), 200);
    let journal = emulator.journal().unwrap();
    let all = journal.wait_for(&InvocationFilter::all(), 3, STEP).await;
    assert_eq!(all.len(), 3);
    let retried = journal.invocations(&InvocationFilter::all().code(-32053));
    assert_eq!(retried.len(), 1);
    assert_eq!((retried[0].seq, retried[0].status), (2, 429));
    // The platform refused it: it never reached a container.
    assert_eq!(retried[0].container_headers, None);
    let by_status = api(&emulator, "invocations?status=429").await;
    assert_eq!(by_status["invocations"].as_array().unwrap().len(), 1);
    assert_eq!(by_status["invocations"][0]["code"], -32053);
    let by_code = api(&emulator, "invocations?code=-32053&method=SendMessage").await;
    assert_eq!(by_code["invocations"][0]["seq"], 2);
    let by_session = api(&emulator, &format!("invocations?session={session}")).await;
    assert_eq!(by_session["invocations"].as_array().unwrap().len(), 3);
    let none = api(
        &emulator,
        "invocations?session=another-session-id-of-enough-length",
    )
    .await;
    assert_eq!(none["invocations"], json!([]));
    let bad = http()
        .get(format!(
            "{}/_emulator/api/invocations?status=teapot",
            emulator.url()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    assert_eq!(
        bad.json::<Value>().await.unwrap(),
        json!({"error": "status=teapot is not a number"})
    );
}

#[tokio::test]
async fn an_injected_fault_is_named() {
    let faults: FaultSpec = "throttle=1".parse().unwrap();
    let emulator = start(Emulator::new(EchoAgent).faults(faults).seed(7)).await;
    let reply = http()
        .post(format!("{}/?A2A-Version=1.0", emulator.url()))
        .body(send_v1("x").to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 429);
    let seen = emulator
        .journal()
        .unwrap()
        .wait_for(&InvocationFilter::all(), 1, STEP)
        .await;
    assert_eq!(seen[0].fault.as_deref(), Some("Throttle"));
    assert_eq!(seen[0].code, Some(-32053));
}

#[tokio::test]
async fn sessions_show_their_lifecycle_and_tasks_their_timeline() {
    let emulator = start(Emulator::new(EchoAgent).session_startup(Duration::from_millis(50))).await;
    let session = session("life");
    let stream = json!({
        "jsonrpc": "2.0", "id": 3, "method": "message/stream",
        "params": {"message": {"kind": "message", "messageId": "m-2", "role": "user", "parts": [{"kind": "text", "text": "streamed"}]}},
    });
    let reply = http()
        .post(emulator.invocation_url(ARN))
        .header(SESSION_HEADER, &session)
        .header("accept", "text/event-stream")
        .body(stream.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let events = reply.text().await.unwrap();
    assert!(events.contains("completed"), "{events}");
    let journal = emulator.journal().unwrap();
    let seen = journal.wait_for(&InvocationFilter::all(), 1, STEP).await;
    let record = &seen[0];
    assert!(record.stream && record.done);
    assert_eq!(record.method.as_deref(), Some("message/stream"));
    assert_eq!(record.version.as_deref(), Some("0.3"));
    assert_eq!(record.route.as_str(), "aws");
    let task_id = record.task_id.clone().expect("the stream named its task");
    let task = api(&emulator, &format!("tasks/{task_id}")).await;
    let steps: Vec<Value> = task["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| {
            assert_eq!(step["invocation"], 1);
            step.get("state").or(step.get("artifact")).cloned().unwrap()
        })
        .collect();
    assert_eq!(steps[0], "submitted", "{task}");
    assert_eq!(
        steps[1..],
        [
            json!("working"),
            json!(steps[2].clone()),
            json!("completed")
        ][..]
    );
    assert_eq!(task["state"], "completed");
    assert_eq!(task["session"], session);
    // Ended by StopRuntimeSession.
    let stopped = http()
        .post(format!(
            "{}/runtimes/{}/stopruntimesession",
            emulator.url(),
            a2a_test_support::harness::front::encode(ARN)
        ))
        .header(SESSION_HEADER, &session)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(stopped.status(), 200, "{:?}", stopped.text().await);
    let record = api(&emulator, &format!("sessions/{session}")).await;
    let states: Vec<&Value> = record["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["state"])
        .collect();
    // The invocation that starts a session is in flight while it starts.
    assert_eq!(
        states,
        ["starting", "busy", "ready", "idle", "stopped"]
            .map(|s| json!(s))
            .iter()
            .collect::<Vec<_>>(),
        "{record}"
    );
    assert_eq!(record["state"], "stopped");
    assert_eq!(record["why"], "StopRuntimeSession");
    assert_eq!(record["invocations"], 2);
}

#[tokio::test]
async fn the_feed_sends_each_change_as_it_happens() {
    let emulator = start(Emulator::new(EchoAgent)).await;
    let feed = http()
        .get(format!("{}/_emulator/api/events", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(feed.status(), 200);
    assert_eq!(feed.headers()["content-type"], "text/event-stream");
    let mut body = feed.bytes_stream();
    let opened = tokio::time::timeout(STEP, body.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(&opened[..], b": inspector feed\n\n");
    http()
        .post(format!("{}/?A2A-Version=1.0", emulator.url()))
        .header(SESSION_HEADER, session("feed"))
        .body(send_v1("fed").to_string())
        .send()
        .await
        .unwrap();
    let mut text = String::new();
    while !text.contains("\"done\":true") {
        let chunk = tokio::time::timeout(STEP, body.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        text.push_str(std::str::from_utf8(&chunk).unwrap());
    }
    assert!(text.contains("event: session\ndata: {"), "{text}");
    assert!(text.contains("event: invocation\ndata: {\"at\":"), "{text}");
    assert!(text.contains("event: task\ndata: {"), "{text}");
}

#[tokio::test]
async fn the_page_and_its_assets_are_served() {
    let emulator = start(Emulator::new(EchoAgent)).await;
    assert_eq!(
        emulator.inspector_url().unwrap(),
        format!("{}/_emulator/", emulator.url())
    );
    for (path, content_type, needle) in [
        (
            "/_emulator/",
            "text/html; charset=utf-8",
            "<script src=\"/_emulator/inspector.js\">",
        ),
        (
            "/_emulator",
            "text/html; charset=utf-8",
            "<table id=\"invocations\">",
        ),
        (
            "/_emulator/inspector.js",
            "text/javascript; charset=utf-8",
            "new EventSource",
        ),
        (
            "/_emulator/inspector.css",
            "text/css; charset=utf-8",
            "table",
        ),
    ] {
        let reply = http()
            .get(format!("{}{path}", emulator.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 200, "{path}");
        assert_eq!(reply.headers()["content-type"], content_type, "{path}");
        assert!(reply.text().await.unwrap().contains(needle), "{path}");
    }
    // The inspector's own paths are not journaled, nor refused like the platform's.
    let wrong = http()
        .post(format!("{}/_emulator/", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    assert_eq!(wrong.headers()["allow"], "GET, HEAD");
    let unknown = http()
        .get(format!("{}/_emulator/api/nothing", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert!(
        emulator
            .journal()
            .unwrap()
            .invocations(&InvocationFilter::all())
            .is_empty()
    );
}

#[tokio::test]
async fn with_the_inspector_off_nothing_is_recorded_and_the_sinks_stay() {
    let emulator = start(Emulator::new(EchoAgent).inspector(false)).await;
    assert!(emulator.journal().is_none());
    assert!(emulator.inspector_url().is_none());
    for path in [
        "/_emulator/",
        "/_emulator/api/invocations",
        "/_emulator/api/events",
    ] {
        let reply = http()
            .get(format!("{}{path}", emulator.url()))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 404, "{path}");
        assert_eq!(
            reply.headers()["content-type"],
            "application/json",
            "{path}"
        );
    }
    let sink = http()
        .post(emulator.webhook_url("still-here"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(sink.status(), 200);
}

#[tokio::test]
async fn the_journal_can_be_cleared() {
    let emulator = start(Emulator::new(EchoAgent)).await;
    http()
        .post(format!("{}/?A2A-Version=1.0", emulator.url()))
        .body(send_v1("x").to_string())
        .send()
        .await
        .unwrap();
    let journal = emulator.journal().unwrap();
    journal.wait_for(&InvocationFilter::all(), 1, STEP).await;
    let cleared = http()
        .delete(format!("{}/_emulator/api/journal", emulator.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    assert_eq!(
        api(&emulator, "invocations").await["invocations"],
        json!([])
    );
    assert_eq!(journal.dropped(), 1);
}
