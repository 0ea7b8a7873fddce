#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Retries: AgentCore's two retryable refusals (409/-32054 "Session operation in progress"
//! and 429/-32053) are re-sent byte for byte until an answer or the policy's budget runs
//! out; everything else (a plain ConflictException, a non-JSON 429, a transport error) is
//! returned at once.

mod common;

use std::time::{Duration, Instant};

use a2a_lambda_client::model::SendResult;
use a2a_lambda_client::{Client, Error, ProtocolVersion, RetryPolicy, text_params};
use a2a_lambda_core::error::ErrorCode;
use common::{echo_error, echo_result, fast_retry, message_v10, request_json, task_v10};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const IN_PROGRESS: &str = "Session operation in progress, please retry";
const THROTTLED: &str = "Rate limit exceeded - Too many requests";

async fn always_throttled(server: &MockServer) {
    Mock::given(method("POST"))
        .respond_with(echo_error(429, -32053, THROTTLED))
        .mount(server)
        .await;
}

async fn posts(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap()
}

#[tokio::test]
async fn busy_then_throttled_then_answered_resends_the_same_bytes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_error(409, -32054, IN_PROGRESS))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_error(429, -32053, THROTTLED))
        .up_to_n_times(1)
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(
            serde_json::json!({"message": message_v10("done")}),
        ))
        .with_priority(3)
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .version(ProtocolVersion::V1_0)
        .retry(fast_retry())
        .build()
        .unwrap();
    let params = text_params("hello");

    let result = client.send(&params).await.unwrap();

    let SendResult::Message(reply) = result else {
        panic!("expected a message, got {result:?}")
    };
    assert_eq!(reply.joined_text(), "done");
    let requests = posts(&server).await;
    assert_eq!(requests.len(), 3);
    for request in &requests {
        assert_eq!(request.method.as_str(), "POST");
        assert_eq!(
            request.body, requests[0].body,
            "a retry re-sends the same bytes"
        );
    }
    let sent = request_json(&requests[0]);
    assert_eq!(sent["method"], "SendMessage");
    assert_eq!(
        sent["params"]["message"]["messageId"],
        params.message.message_id.as_str()
    );
}

#[tokio::test]
async fn retry_after_is_capped_at_max_backoff() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(move |request: &Request| {
            echo_error(429, -32053, THROTTLED)(request).insert_header("retry-after", "1")
        })
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_WORKING")))
        .with_priority(2)
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .build()
        .unwrap();

    let started = Instant::now();
    let task = client.get_task("t-1", None).await.unwrap();

    assert_eq!(task.id, "t-1");
    assert_eq!(posts(&server).await.len(), 2);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "Retry-After: 1 is capped at max_backoff (5 ms), took {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn retry_after_is_a_floor_under_the_cap() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(move |request: &Request| {
            echo_error(429, -32053, THROTTLED)(request).insert_header("retry-after", "1")
        })
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(task_v10("t-1", "TASK_STATE_WORKING")))
        .with_priority(2)
        .mount(&server)
        .await;
    // Jitter alone would wait at most 1 ms; the server's Retry-After (1 s) raises the wait
    // to the cap, 150 ms.
    let policy = fast_retry().with_max_backoff(Duration::from_millis(150));
    let client = Client::builder(server.uri()).retry(policy).build().unwrap();

    let started = Instant::now();
    client.get_task("t-1", None).await.unwrap();

    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(posts(&server).await.len(), 2);
}

#[tokio::test]
async fn always_throttled_gives_up_after_max_attempts() {
    let server = MockServer::start().await;
    always_throttled(&server).await;
    let client = Client::builder(server.uri())
        .retry(fast_retry().with_max_attempts(3))
        .build()
        .unwrap();

    let error = client.send_text("hello").await.unwrap_err();

    let Error::RetriesExhausted { attempts, last, .. } = &error else {
        panic!("expected RetriesExhausted, got {error:?}")
    };
    assert_eq!(*attempts, 3);
    let Error::Rpc(rpc) = last.as_ref() else {
        panic!("expected the last error to be JSON-RPC, got {last:?}")
    };
    assert_eq!(rpc.code, ErrorCode::Throttling);
    assert_eq!(rpc.code_number(), -32053);
    assert_eq!(rpc.http_status, 429);
    assert_eq!(rpc.name, "ThrottlingException");
    assert_eq!(rpc.message, THROTTLED);
    assert!(rpc.is_retryable());
    assert_eq!(
        error.rpc(),
        Some(rpc),
        "rpc() looks through RetriesExhausted"
    );
    assert_eq!(error.http_status(), Some(429));
    assert!(error.to_string().starts_with("gave up after 3 attempts"));
    assert_eq!(posts(&server).await.len(), 3);
}

#[tokio::test]
async fn the_default_policy_makes_five_attempts() {
    let server = MockServer::start().await;
    always_throttled(&server).await;
    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .build()
        .unwrap();

    let error = client.get_task("t-1", None).await.unwrap_err();

    assert!(
        matches!(error, Error::RetriesExhausted { attempts: 5, .. }),
        "{error:?}"
    );
    assert_eq!(posts(&server).await.len(), 5);
}

#[tokio::test]
async fn the_time_budget_stops_retrying_before_max_attempts() {
    let server = MockServer::start().await;
    always_throttled(&server).await;
    // Waits of up to 50 ms against a budget of nothing: the first wait already overruns it.
    let policy = RetryPolicy::default()
        .with_max_attempts(10)
        .with_initial_backoff(Duration::from_millis(50))
        .with_max_backoff(Duration::from_millis(50))
        .with_max_elapsed(Duration::ZERO);
    let client = Client::builder(server.uri()).retry(policy).build().unwrap();

    let error = client.get_task("t-1", None).await.unwrap_err();

    let Error::RetriesExhausted { attempts, last, .. } = &error else {
        panic!("expected RetriesExhausted, got {error:?}")
    };
    assert_eq!(*attempts, 1);
    assert_eq!(last.rpc().unwrap().name, "ThrottlingException");
    assert_eq!(posts(&server).await.len(), 1);
}

#[tokio::test]
async fn the_time_budget_counts_the_waits() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(move |request: &Request| {
            echo_error(429, -32053, THROTTLED)(request).insert_header("retry-after", "1")
        })
        .mount(&server)
        .await;
    // Every wait is exactly 100 ms (Retry-After raised to the cap): 250 ms of budget allow
    // at most three attempts, never ten.
    let policy = RetryPolicy::default()
        .with_max_attempts(10)
        .with_initial_backoff(Duration::from_millis(1))
        .with_max_backoff(Duration::from_millis(100))
        .with_max_elapsed(Duration::from_millis(250));
    let client = Client::builder(server.uri()).retry(policy).build().unwrap();

    let error = client.get_task("t-1", None).await.unwrap_err();

    let Error::RetriesExhausted {
        attempts, elapsed, ..
    } = error
    else {
        panic!("expected RetriesExhausted, got {error:?}")
    };
    // However slow the machine, waits of 100 ms fit at most twice in 250 ms.
    assert!(
        (1..=3).contains(&attempts),
        "{attempts} attempts in {elapsed:?}"
    );
    assert_eq!(posts(&server).await.len(), attempts as usize);
}

#[tokio::test]
async fn no_retries_returns_the_bare_error_after_one_request() {
    let server = MockServer::start().await;
    always_throttled(&server).await;
    let client = Client::builder(server.uri())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();

    let error = client.send_text("hello").await.unwrap_err();

    let Error::Rpc(rpc) = &error else {
        panic!("expected a bare Rpc error, got {error:?}")
    };
    assert_eq!(
        (rpc.code_number(), rpc.http_status, rpc.name),
        (-32053, 429, "ThrottlingException")
    );
    assert_eq!(posts(&server).await.len(), 1);
}

#[tokio::test]
async fn a_plain_conflict_is_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_error(
            409,
            -32054,
            "Resource conflict - Resource already exists",
        ))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .build()
        .unwrap();

    let error = client.send_text("hello").await.unwrap_err();

    let Error::Rpc(rpc) = &error else {
        panic!("expected Rpc, got {error:?}")
    };
    assert_eq!(rpc.code, ErrorCode::Conflict);
    assert_eq!(rpc.http_status, 409);
    assert_eq!(rpc.name, "ConflictException");
    assert!(!rpc.is_retryable());
    assert_eq!(posts(&server).await.len(), 1);
}

#[tokio::test]
async fn a_busy_session_is_retried_with_any_protocol_and_operation() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_error(409, -32054, IN_PROGRESS))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo_result(serde_json::json!({
            "kind": "task", "id": "t-9", "contextId": "c", "status": {"state": "canceled"}
        })))
        .with_priority(2)
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .version(ProtocolVersion::V0_3)
        .retry(fast_retry())
        .build()
        .unwrap();

    let task = client.cancel_task("t-9").await.unwrap();

    assert_eq!(task.id, "t-9");
    let requests = posts(&server).await;
    assert_eq!(requests.len(), 3);
    assert_eq!(request_json(&requests[2])["method"], "tasks/cancel");
    assert!(requests.iter().all(|r| r.body == requests[0].body));
}

#[tokio::test]
async fn errors_that_are_not_json_rpc_are_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_string("Too Many Requests"))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .build()
        .unwrap();

    let error = client.get_task("t-1", None).await.unwrap_err();

    assert!(
        matches!(error, Error::Http { status: 429, .. }),
        "{error:?}"
    );
    assert_eq!(posts(&server).await.len(), 1);
}

#[tokio::test]
async fn spec_errors_are_not_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(echo_error(200, -32603, "Internal error"))
        .mount(&server)
        .await;
    let client = Client::builder(server.uri())
        .retry(fast_retry())
        .build()
        .unwrap();

    let error = client.get_task("t-1", None).await.unwrap_err();

    assert_eq!(error.rpc().unwrap().code, ErrorCode::InternalError);
    assert_eq!(posts(&server).await.len(), 1);
}

#[tokio::test]
async fn transport_errors_are_not_retried() {
    // A port nothing listens on any more.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    drop(listener);
    let client = Client::builder(format!("http://{address}/"))
        .retry(fast_retry())
        .build()
        .unwrap();

    let error = client.get_task("t-1", None).await.unwrap_err();

    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert!(error.hint().is_some());
}
