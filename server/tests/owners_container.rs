//! Who calls an AgentCore container, over HTTP in-process: the bearer JWT AgentCore
//! forwards (claims read, signature checked by the platform), else the
//! `X-Amzn-Bedrock-AgentCore-Runtime-User-Id` header, else anonymous; with
//! `A2A_IDENTITY=none` everyone is anonymous. Tasks are the caller's: another caller's are
//! -32001 and missing from its list.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;

use a2a_lambda_server::host::identity::USER_ID_HEADER;
use a2a_lambda_server::serve::{Container, ContainerConfig};
use a2a_test_support::agents::SaysWhoCalls;
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine as _;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// Puts the user id header the router was given (or `none`) on the response.
async fn show_user_id(request: axum::extract::Request, next: Next) -> Response {
    let seen = request
        .headers()
        .get(USER_ID_HEADER)
        .map_or_else(|| HeaderValue::from_static("none"), Clone::clone);
    let mut response = next.run(request).await;
    response.headers_mut().insert("x-test-seen-user-id", seen);
    response
}

fn router(config: ContainerConfig) -> Router {
    Container::with_config(SaysWhoCalls, config)
        .layer(axum::middleware::from_fn(show_user_id))
        .into_router("https://example.com/runtimes/abc/invocations/")
        .expect("a router")
}

fn config(vars: &[(&str, &str)]) -> Result<ContainerConfig, a2a_lambda_server::serve::ServeError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    ContainerConfig::from_lookup(|name| vars.get(name).cloned())
}

/// An unsigned test JWT with these claims, as `Authorization: Bearer …`.
fn bearer(claims: &Value) -> String {
    let encode = |text: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text);
    format!(
        "Bearer {}.{}.{}",
        encode(r#"{"alg":"RS256","kid":"test"}"#),
        encode(&claims.to_string()),
        encode("not-checked-here")
    )
}

/// What a caller sends along with its request.
#[derive(Clone, Copy)]
enum Caller<'a> {
    Nobody,
    Token(&'a str),
    User(&'a str),
    TokenAndUser(&'a str, &'a str),
}

struct Answer {
    seen_user_id: String,
    body: Value,
}

async fn call(router: &Router, caller: Caller<'_>, request: &Value) -> Answer {
    let mut builder = Request::post("/")
        .header(header::CONTENT_TYPE, "application/json")
        .header("a2a-version", "1.0");
    let token =
        |sub: &str| bearer(&json!({"iss": "https://idp", "sub": sub, "exp": 1_900_000_000}));
    match caller {
        Caller::Nobody => {}
        Caller::Token(sub) => builder = builder.header(header::AUTHORIZATION, token(sub)),
        Caller::User(user) => builder = builder.header(USER_ID_HEADER, user),
        Caller::TokenAndUser(sub, user) => {
            builder = builder
                .header(header::AUTHORIZATION, token(sub))
                .header(USER_ID_HEADER, user);
        }
    }
    let request = builder.body(Body::from(request.to_string())).unwrap();
    let response = router.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let seen_user_id = response
        .headers()
        .get("x-test-seen-user-id")
        .map_or("<not through the router>", |value| value.to_str().unwrap())
        .to_owned();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Answer {
        seen_user_id,
        body: serde_json::from_slice(&bytes).unwrap(),
    }
}

async fn rpc(router: &Router, caller: Caller<'_>, request: &Value) -> Value {
    call(router, caller, request).await.body
}

fn send() -> Value {
    json!({"jsonrpc": "2.0", "id": "send", "method": "SendMessage", "params": {"message": {
        "messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}})
}

fn get(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": "get", "method": "GetTask", "params": {"id": task_id}})
}

fn cancel(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": "cancel", "method": "CancelTask", "params": {"id": task_id}})
}

fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": "list", "method": "ListTasks"})
}

fn not_found(id: &str, task_id: &str) -> Value {
    let detail = format!("no task with id {task_id:?}");
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": -32001,
        "message": format!("Task not found: {detail}"),
        "data": [{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "domain": "a2a-protocol.org",
            "metadata": {"detail": detail, "taskId": task_id},
            "reason": "TASK_NOT_FOUND",
        }],
    }})
}

fn empty_list() -> Value {
    json!({"jsonrpc": "2.0", "id": "list", "result": {
        "tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0,
    }})
}

fn ids(list: &Value) -> Vec<&str> {
    list["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|task| task["id"].as_str().unwrap())
        .collect()
}

/// A new task of `caller`'s, and who the agent was told calls.
async fn create(router: &Router, caller: Caller<'_>) -> (String, String) {
    let answer = rpc(router, caller, &send()).await;
    let task = &answer["result"]["task"];
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{answer}"
    );
    let told = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    (task["id"].as_str().unwrap().to_owned(), told)
}

/// `owner`'s task is -32001 for each of `others` (get, cancel), in none of their lists,
/// and still `owner`'s to read, list and cancel.
async fn isolated(router: &Router, owner: Caller<'_>, told: &str, others: &[Caller<'_>]) {
    let (task_id, said) = create(router, owner).await;
    assert_eq!(said, told);
    for other in others {
        assert_eq!(
            rpc(router, *other, &get(&task_id)).await,
            not_found("get", &task_id)
        );
        assert_eq!(
            rpc(router, *other, &cancel(&task_id)).await,
            not_found("cancel", &task_id)
        );
        let listed = rpc(router, *other, &list()).await;
        assert!(!ids(&listed).contains(&task_id.as_str()), "{listed}");
    }
    let got = rpc(router, owner, &get(&task_id)).await;
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{got}"
    );
    let listed = rpc(router, owner, &list()).await;
    assert!(ids(&listed).contains(&task_id.as_str()), "{listed}");
    let canceled = rpc(router, owner, &cancel(&task_id)).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
}

#[tokio::test]
async fn bearer_token_subjects_do_not_see_each_others_tasks() {
    let router = router(ContainerConfig::default());
    isolated(
        &router,
        Caller::Token("alice"),
        "jwt:https://idp|alice",
        &[Caller::Token("bob"), Caller::User("alice"), Caller::Nobody],
    )
    .await;
    // The token names the owner even beside a user id header.
    isolated(
        &router,
        Caller::TokenAndUser("alice", "bob"),
        "jwt:https://idp|alice",
        &[Caller::User("bob"), Caller::Token("bob")],
    )
    .await;
    let (bobs, _) = create(&router, Caller::Token("bob")).await;
    let listed = rpc(&router, Caller::Token("bob"), &list()).await;
    assert_eq!(ids(&listed), [bobs.as_str()], "{listed}");
    assert_eq!(
        rpc(&router, Caller::Token("carol"), &list()).await,
        empty_list()
    );
}

#[tokio::test]
async fn agentcore_users_do_not_see_each_others_tasks() {
    let router = router(ContainerConfig::default());
    let answer = call(&router, Caller::User("alice"), &list()).await;
    assert_eq!(
        answer.seen_user_id, "alice",
        "behind AgentCore the header is the platform's, and kept"
    );
    isolated(
        &router,
        Caller::User("alice"),
        "agentcore-user:alice",
        &[Caller::User("bob"), Caller::Token("alice"), Caller::Nobody],
    )
    .await;
    isolated(
        &router,
        Caller::Nobody,
        "anonymous",
        &[Caller::User("alice"), Caller::Token("alice")],
    )
    .await;
}

#[tokio::test]
async fn with_identity_none_everyone_is_anonymous_and_shares_tasks() {
    let config = config(&[("A2A_IDENTITY", "none")]).unwrap();
    let router = router(config);
    let mut made = Vec::new();
    for caller in [
        Caller::Token("alice"),
        Caller::User("bob"),
        Caller::TokenAndUser("alice", "bob"),
    ] {
        let answer = call(&router, caller, &send()).await;
        assert_eq!(answer.seen_user_id, "none", "the untrusted header was kept");
        let task = &answer.body["result"]["task"];
        assert_eq!(task["status"]["message"]["parts"][0]["text"], "anonymous");
        made.push(task["id"].as_str().unwrap().to_owned());
    }
    for caller in [Caller::Nobody, Caller::Token("carol"), Caller::User("dave")] {
        for task_id in &made {
            let got = rpc(&router, caller, &get(task_id)).await;
            assert_eq!(got["result"]["id"], json!(task_id), "{got}");
        }
        let mut listed: Vec<String> = ids(&rpc(&router, caller, &list()).await)
            .into_iter()
            .map(str::to_owned)
            .collect();
        listed.sort();
        let mut expected = made.clone();
        expected.sort();
        assert_eq!(listed, expected);
    }
}

#[test]
fn a2a_identity_is_agentcore_or_none() {
    assert_eq!(config(&[]).unwrap(), ContainerConfig::default());
    assert_eq!(
        config(&[("A2A_IDENTITY", "agentcore")]).unwrap(),
        ContainerConfig::default()
    );
    assert_ne!(
        config(&[("A2A_IDENTITY", "none")]).unwrap(),
        ContainerConfig::default()
    );
    for bad in ["AgentCore", "jwt", "anonymous", "off"] {
        let error = config(&[("A2A_IDENTITY", bad)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("A2A_IDENTITY={bad:?} is not valid: agentcore or none")
        );
    }
}
