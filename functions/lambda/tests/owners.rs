//! Tasks belong to their caller on Lambda: the owner comes from the event's request context
//! (a Function URL's IAM principal, an HTTP API JWT authorizer's claims, a REST API Cognito
//! or Lambda authorizer), never from a header the caller sends. Each event is a fixture fed
//! through `lambda_http::request::from_str` to one function (one app, one store), as the
//! runtime would; answers are asserted whole.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;
use std::sync::Arc;

use a2a_lambda::{App, Config};
use a2a_lambda_server::host::identity::USER_ID_HEADER;
use a2a_lambda_server::tasks::{InMemoryTaskStore, TaskStore};
use a2a_test_support::agents::SaysWhoCalls;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::{Service as _, ServiceExt as _};

const FURL_ANONYMOUS: &str = include_str!("fixtures/function_url_send_v1_0.json");
const FURL_IAM_ALICE: &str = include_str!("fixtures/function_url_iam_user_alice.json");
const FURL_IAM_BOB: &str = include_str!("fixtures/function_url_iam_user_bob.json");
const FURL_ROLE_SESSION_1: &str = include_str!("fixtures/function_url_iam_role_session_1.json");
const FURL_ROLE_SESSION_2: &str = include_str!("fixtures/function_url_iam_role_session_2.json");
const HTTP_API_ANONYMOUS: &str = include_str!("fixtures/apigw_v2_send_query_version.json");
const HTTP_API_JWT: &str = include_str!("fixtures/apigw_v2_jwt_authorizer_send.json");
const REST_ANONYMOUS: &str = include_str!("fixtures/apigw_v1_prod_send.json");
const REST_COGNITO: &str = include_str!("fixtures/apigw_v1_cognito_authorizer_send.json");
const REST_LAMBDA_AUTHORIZER: &str = include_str!("fixtures/apigw_v1_lambda_authorizer_send.json");

const API_KEY: &str = "s3cret-key-0123456789";
const ALICE_ARN: &str = "iam:arn:aws:iam::123456789012:user/alice";
const ROLE: &str = "iam:arn:aws:sts::123456789012:assumed-role/a2a-caller";
const HTTP_API_ISSUER: &str = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123";
const REST_ISSUER: &str = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_XyZ987abc";
const ALICE_SUB: &str = "5b7c9d1e-aaaa-4f3a-9b2c-a11ce0000001";

fn config(vars: &[(&str, &str)]) -> Config {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    Config::from_lookup(|name| vars.get(name).cloned()).expect("valid configuration")
}

/// Puts the `X-Amzn-Bedrock-AgentCore-Runtime-User-Id` header the router was given (or
/// `none`) on the response: what a user's layer, and anything inside it, could read.
async fn show_user_id(request: axum::extract::Request, next: Next) -> Response {
    let seen = request
        .headers()
        .get(USER_ID_HEADER)
        .map_or_else(|| HeaderValue::from_static("none"), Clone::clone);
    let mut response = next.run(request).await;
    response.headers_mut().insert("x-test-seen-user-id", seen);
    response
}

/// One function instance: one app over one store, called event after event.
struct Function {
    app: App,
}

struct Answer {
    status: StatusCode,
    seen_user_id: String,
    body: Value,
}

impl Function {
    fn new(config: &Config, store: Arc<dyn TaskStore>) -> Self {
        let (app, _) = a2a_lambda::Lambda::new(SaysWhoCalls)
            .config(config.clone())
            .task_store(store)
            .layer(axum::middleware::from_fn(show_user_id))
            .into_app()
            .expect("app");
        Self { app }
    }

    fn plain() -> Self {
        Self::new(&config(&[]), Arc::new(InMemoryTaskStore::new()))
    }

    async fn answer(&mut self, event: &str) -> Answer {
        let request = lambda_http::request::from_str(event).expect("the event deserializes");
        let response = self
            .app
            .ready()
            .await
            .expect("ready")
            .call(request)
            .await
            .expect("the app answers");
        let status = response.status();
        let seen_user_id = response
            .headers()
            .get("x-test-seen-user-id")
            .map_or("<not through the router>", |value| value.to_str().unwrap())
            .to_owned();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&bytes)));
        Answer {
            status,
            seen_user_id,
            body,
        }
    }

    /// The JSON-RPC answer (HTTP 200) to `request` sent in `event`'s envelope.
    async fn rpc(&mut self, event: &str, request: &Value) -> Value {
        let answer = self.answer(&with_body(event, request)).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        answer.body
    }

    /// Sends the fixture as it is: the new task, which must be open.
    async fn create(&mut self, event: &str) -> Value {
        let answer = self.answer(event).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        let task = answer.body["result"]["task"].clone();
        assert_eq!(
            task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
            "{}",
            answer.body
        );
        task
    }
}

/// The event with its JSON-RPC body replaced (and no stale `content-length`).
fn with_body(event: &str, request: &Value) -> String {
    let mut event: Value = serde_json::from_str(event).expect("fixture is JSON");
    event["body"] = json!(request.to_string());
    event["isBase64Encoded"] = json!(false);
    for headers in ["headers", "multiValueHeaders"] {
        if let Some(headers) = event[headers].as_object_mut() {
            headers.retain(|name, _| !name.eq_ignore_ascii_case("content-length"));
        }
    }
    event.to_string()
}

/// The fixture with `edit` applied to its JSON.
fn edited(fixture: &str, edit: impl FnOnce(&mut Value)) -> String {
    let mut event: Value = serde_json::from_str(fixture).expect("fixture is JSON");
    edit(&mut event);
    event.to_string()
}

/// The fixture with one more request header (in `multiValueHeaders` too when the shape
/// has them).
fn with_header(fixture: &str, name: &str, value: &str) -> String {
    edited(fixture, |event| {
        event["headers"][name] = json!(value);
        if event.get("multiValueHeaders").is_some() {
            event["multiValueHeaders"][name] = json!([value]);
        }
    })
}

fn get(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": "get", "method": "GetTask", "params": {"id": task_id}})
}

fn cancel(task_id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": "cancel", "method": "CancelTask", "params": {"id": task_id}})
}

fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": "list", "method": "ListTasks", "params": {}})
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

/// The ids a ListTasks answer holds.
fn ids(list: &Value) -> Vec<&str> {
    list["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|task| task["id"].as_str().unwrap())
        .collect()
}

/// The owner a fixture's request context names, as the function reads it.
fn owner_of(event: &str) -> Option<String> {
    let request = lambda_http::request::from_str(event).expect("the event deserializes");
    a2a_lambda::app::owner(&request).key().map(str::to_owned)
}

/// The agent's status message: who it was told calls.
fn told(task: &Value) -> &str {
    task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no status message: {task}"))
}

/// `owner`'s task, made with `owner_event`, is not found by `others` (GetTask, CancelTask),
/// is in none of their lists, and stays `owner`'s: readable, listed, cancelable.
async fn isolated(owner_event: &str, expected_owner: &str, others: &[&str]) {
    let mut function = Function::plain();
    let task = function.create(owner_event).await;
    assert_eq!(told(&task), expected_owner);
    let task_id = task["id"].as_str().unwrap();
    for other in others {
        assert_ne!(owner_of(other).as_deref(), Some(expected_owner));
        assert_eq!(
            function.rpc(other, &get(task_id)).await,
            not_found("get", task_id),
            "GetTask by {:?}",
            owner_of(other)
        );
        assert_eq!(
            function.rpc(other, &cancel(task_id)).await,
            not_found("cancel", task_id),
            "CancelTask by {:?}",
            owner_of(other)
        );
        assert_eq!(
            function.rpc(other, &list()).await,
            empty_list(),
            "ListTasks by {:?}",
            owner_of(other)
        );
    }
    let got = function.rpc(owner_event, &get(task_id)).await;
    assert_eq!(got["result"]["id"], task_id, "{got}");
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "a stranger's cancel changed the task: {got}"
    );
    let listed = function.rpc(owner_event, &list()).await;
    assert_eq!(ids(&listed), [task_id], "{listed}");
    let canceled = function.rpc(owner_event, &cancel(task_id)).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
}

#[test]
fn each_identity_fixture_names_its_owner() {
    for (fixture, owner) in [
        (FURL_IAM_ALICE, Some(ALICE_ARN.to_owned())),
        (
            FURL_IAM_BOB,
            Some("iam:arn:aws:iam::123456789012:user/bob".to_owned()),
        ),
        (FURL_ROLE_SESSION_1, Some(ROLE.to_owned())),
        (FURL_ROLE_SESSION_2, Some(ROLE.to_owned())),
        (
            HTTP_API_JWT,
            Some(format!("jwt:{HTTP_API_ISSUER}|{ALICE_SUB}")),
        ),
        (REST_COGNITO, Some(format!("jwt:{REST_ISSUER}|{ALICE_SUB}"))),
        (
            REST_LAMBDA_AUTHORIZER,
            Some("authorizer:user|alice".to_owned()),
        ),
        (FURL_ANONYMOUS, None),
        (HTTP_API_ANONYMOUS, None),
        (REST_ANONYMOUS, None),
    ] {
        assert_eq!(owner_of(fixture), owner, "{fixture}");
    }
}

#[tokio::test]
async fn function_url_iam_principals_do_not_see_each_others_tasks() {
    isolated(FURL_IAM_ALICE, ALICE_ARN, &[FURL_IAM_BOB, FURL_ANONYMOUS]).await;
    isolated(
        FURL_IAM_BOB,
        "iam:arn:aws:iam::123456789012:user/bob",
        &[FURL_IAM_ALICE, FURL_ROLE_SESSION_1, FURL_ANONYMOUS],
    )
    .await;
    // An anonymous caller's task is not a principal's either.
    isolated(FURL_ANONYMOUS, "anonymous", &[FURL_IAM_ALICE, FURL_IAM_BOB]).await;
}

#[tokio::test]
async fn the_sessions_of_one_assumed_role_share_its_tasks() {
    let mut function = Function::plain();
    let task = function.create(FURL_ROLE_SESSION_1).await;
    assert_eq!(told(&task), ROLE);
    let task_id = task["id"].as_str().unwrap();
    // The next credentials of the role, another session name: the same owner.
    let got = function.rpc(FURL_ROLE_SESSION_2, &get(task_id)).await;
    assert_eq!(got["result"]["id"], task_id, "{got}");
    let listed = function.rpc(FURL_ROLE_SESSION_2, &list()).await;
    assert_eq!(ids(&listed), [task_id], "{listed}");
    // Another role of the same account is someone else.
    let other_role = edited(FURL_ROLE_SESSION_2, |event| {
        event["requestContext"]["authorizer"]["iam"]["userArn"] =
            json!("arn:aws:sts::123456789012:assumed-role/a2a-other/session-2");
    });
    assert_eq!(
        function.rpc(&other_role, &get(task_id)).await,
        not_found("get", task_id)
    );
    assert_eq!(function.rpc(&other_role, &list()).await, empty_list());
    let canceled = function.rpc(FURL_ROLE_SESSION_2, &cancel(task_id)).await;
    assert_eq!(
        canceled["result"]["status"]["state"], "TASK_STATE_CANCELED",
        "{canceled}"
    );
}

#[tokio::test]
async fn http_api_jwt_subjects_do_not_see_each_others_tasks() {
    let bob = edited(HTTP_API_JWT, |event| {
        let claims = &mut event["requestContext"]["authorizer"]["jwt"]["claims"];
        claims["sub"] = json!("9e8d7c6b-bbbb-4a1b-8c2d-b0b000000002");
        claims["username"] = json!("bob");
    });
    // Alice's subject from another user pool is someone else.
    let other_pool = edited(HTTP_API_JWT, |event| {
        event["requestContext"]["authorizer"]["jwt"]["claims"]["iss"] =
            json!("https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other0000");
    });
    let alice = format!("jwt:{HTTP_API_ISSUER}|{ALICE_SUB}");
    isolated(
        HTTP_API_JWT,
        &alice,
        &[&bob, &other_pool, HTTP_API_ANONYMOUS],
    )
    .await;
}

#[tokio::test]
async fn rest_cognito_users_do_not_see_each_others_tasks() {
    let bob = edited(REST_COGNITO, |event| {
        let claims = &mut event["requestContext"]["authorizer"]["claims"];
        claims["sub"] = json!("9e8d7c6b-bbbb-4a1b-8c2d-b0b000000002");
        claims["cognito:username"] = json!("bob");
    });
    let alice = format!("jwt:{REST_ISSUER}|{ALICE_SUB}");
    isolated(REST_COGNITO, &alice, &[&bob, REST_ANONYMOUS]).await;
}

#[tokio::test]
async fn rest_lambda_authorizer_principals_do_not_see_each_others_tasks() {
    let bob = edited(REST_LAMBDA_AUTHORIZER, |event| {
        event["requestContext"]["authorizer"]["principalId"] = json!("user|bob");
    });
    // The same name from another source (a JWT subject) is not the authorizer's principal.
    let jwt_alice = edited(REST_COGNITO, |event| {
        event["requestContext"]["authorizer"]["claims"]
            .as_object_mut()
            .unwrap()
            .remove("iss");
        event["requestContext"]["authorizer"]["claims"]["sub"] = json!("user|alice");
    });
    isolated(
        REST_LAMBDA_AUTHORIZER,
        "authorizer:user|alice",
        &[&bob, &jwt_alice, REST_ANONYMOUS],
    )
    .await;
}

/// A caller's `X-Amzn-Bedrock-AgentCore-Runtime-User-Id` names nobody on Lambda: the
/// caller stays who the request context says (anonymous here), shares its tasks with the
/// other anonymous callers, and the header is gone before the router (and the user's
/// layers, and the agent) see the request.
#[tokio::test]
async fn a_callers_agentcore_user_header_gives_no_identity() {
    for (forged, plain) in [
        (
            with_header(FURL_ANONYMOUS, USER_ID_HEADER, "alice"),
            FURL_ANONYMOUS,
        ),
        (
            with_header(
                REST_ANONYMOUS,
                "X-Amzn-Bedrock-AgentCore-Runtime-User-Id",
                "alice",
            ),
            REST_ANONYMOUS,
        ),
    ] {
        let mut function = Function::plain();
        let answer = function.answer(&forged).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        assert_eq!(answer.seen_user_id, "none", "the header reached the router");
        let task = &answer.body["result"]["task"];
        assert_eq!(told(task), "anonymous", "{}", answer.body);
        let task_id = task["id"].as_str().unwrap();
        // A plain anonymous caller sees it (the user the header named is nobody)...
        let got = function.rpc(plain, &get(task_id)).await;
        assert_eq!(got["result"]["id"], task_id, "{got}");
        let listed = function.rpc(plain, &list()).await;
        assert_eq!(ids(&listed), [task_id], "{listed}");
        // ...and the same header does not reach a task of an agentcore user "alice".
        let forged_list = function.answer(&with_body(&forged, &list())).await;
        assert_eq!(forged_list.seen_user_id, "none");
        assert_eq!(ids(&forged_list.body), [task_id]);
    }

    // On an IAM-signed event the header changes nothing either: the principal owns it.
    let mut function = Function::plain();
    let forged = with_header(FURL_IAM_ALICE, USER_ID_HEADER, "bob");
    let answer = function.answer(&forged).await;
    assert_eq!(answer.seen_user_id, "none");
    let task = &answer.body["result"]["task"];
    assert_eq!(told(task), ALICE_ARN, "{}", answer.body);
    let task_id = task["id"].as_str().unwrap();
    let got = function.rpc(FURL_IAM_ALICE, &get(task_id)).await;
    assert_eq!(got["result"]["id"], task_id, "{got}");
    assert_eq!(
        function.rpc(FURL_ANONYMOUS, &get(task_id)).await,
        not_found("get", task_id)
    );
}

/// Under `A2A_AUTH=api-key` a key holder without a platform identity owns its tasks as the
/// key: a caller with an IAM identity (and the key) does not see them, nor does an
/// anonymous caller of another function on the same store; a platform identity wins over
/// the key.
#[tokio::test]
async fn an_api_key_holders_tasks_are_the_keys() {
    let store: Arc<dyn TaskStore> = Arc::new(InMemoryTaskStore::new());
    let keyed = config(&[("A2A_AUTH", "api-key"), ("A2A_API_KEY", API_KEY)]);
    let mut function = Function::new(&keyed, Arc::clone(&store));
    let mut open_function = Function::new(&config(&[]), Arc::clone(&store));
    let holder = with_header(FURL_ANONYMOUS, "x-api-key", API_KEY);
    let alice_with_key = with_header(FURL_IAM_ALICE, "x-api-key", API_KEY);

    let task = function.create(&holder).await;
    assert_eq!(told(&task), "api-key:default");
    let task_id = task["id"].as_str().unwrap();
    assert_eq!(
        function.rpc(&alice_with_key, &get(task_id)).await,
        not_found("get", task_id)
    );
    assert_eq!(function.rpc(&alice_with_key, &list()).await, empty_list());
    assert_eq!(
        open_function.rpc(FURL_ANONYMOUS, &get(task_id)).await,
        not_found("get", task_id)
    );
    assert_eq!(
        open_function.rpc(FURL_ANONYMOUS, &cancel(task_id)).await,
        not_found("cancel", task_id)
    );
    assert_eq!(
        open_function.rpc(FURL_ANONYMOUS, &list()).await,
        empty_list()
    );
    let listed = function.rpc(&holder, &list()).await;
    assert_eq!(ids(&listed), [task_id], "{listed}");

    // With the key and an IAM identity, the principal owns the task.
    let alices = function.create(&alice_with_key).await;
    assert_eq!(told(&alices), ALICE_ARN);
    let alices_id = alices["id"].as_str().unwrap();
    assert_eq!(
        function.rpc(&holder, &get(alices_id)).await,
        not_found("get", alices_id)
    );
    let listed = function.rpc(&holder, &list()).await;
    assert_eq!(ids(&listed), [task_id], "{listed}");
    // Without the key, nothing at all.
    let refused = function
        .answer(&with_body(FURL_ANONYMOUS, &get(task_id)))
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
}
