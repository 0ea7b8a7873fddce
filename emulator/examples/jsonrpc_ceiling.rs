//! The load benchmark's ceiling: the least a JSON-RPC server over axum can do per request.
//!
//! It parses the body with serde_json and answers with the request's id and params, with
//! no protocol, no tasks and no agent. `scripts/load.py` runs it next to the emulator so
//! the emulator's cost per request can be read as a multiple of this one.
//!
//! `cargo run --release -p a2a-lambda-emulator --example jsonrpc_ceiling -- PORT`

use axum::Router;
use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use serde_json::{Value, json};

async fn rpc(body: Bytes) -> impl IntoResponse {
    let answer = match serde_json::from_slice::<Value>(&body) {
        Ok(request) => json!({"jsonrpc": "2.0", "id": request["id"], "result": request["params"]}),
        Err(_) => {
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})
        }
    };
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::to_vec(&answer).unwrap_or_default(),
    )
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|port| port.parse().ok())
        .unwrap_or(9500);
    let app = Router::new()
        .route("/", post(rpc))
        .route("/ping", get(|| async { r#"{"status":"Healthy"}"# }));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!(
        "jsonrpc_ceiling listening on http://{}",
        listener.local_addr()?
    );
    axum::serve(listener, app).await
}
