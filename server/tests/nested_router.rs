//! `a2a_lambda_server::router(agent, url)` nested in an axum app of the user's: the card names the
//! nested URL, and JSON-RPC is served under the nested path beside the app's own routes.

#![allow(clippy::expect_used, clippy::unwrap_used)]

use a2a_lambda_server::agents::EchoAgent;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

async fn call(app: &axum::Router, request: Request<Body>) -> (StatusCode, Value) {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

#[tokio::test]
async fn the_routes_nest_under_a_path_of_the_users_app() {
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .nest(
            "/agent",
            a2a_lambda_server::router(EchoAgent, "http://example.test/agent").unwrap(),
        );

    let health = app
        .clone()
        .oneshot(Request::get("/health").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(health.status(), StatusCode::OK);

    let (status, card) = call(
        &app,
        Request::get("/agent/.well-known/agent-card.json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(card["url"], "http://example.test/agent", "{card}");

    let send = json!({
        "jsonrpc": "2.0", "id": 7, "method": "message/send",
        "params": {"message": {"kind": "message", "role": "user", "messageId": "m-1",
            "parts": [{"kind": "text", "text": "nested"}]}}
    });
    let (status, answer) = call(
        &app,
        Request::post("/agent")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(send.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["result"]["status"]["state"], "completed", "{answer}");
    assert_eq!(
        answer["result"]["artifacts"][0]["parts"][0]["text"], "nested",
        "{answer}"
    );
}

#[test]
fn a_bad_public_url_is_refused_with_a_clear_error() {
    let error = a2a_lambda_server::router(EchoAgent, "not a url").unwrap_err();
    assert!(error.to_string().contains("url"), "{error}");
}
