//! "Hosting": the same agent served by each host, configured in code where the
//! environment is not enough.

use std::sync::Arc;
use std::time::Duration;

use a2a_lambda_server::agents::EchoAgent;
use a2a_lambda_server::serve::{Container, ServeError};
use a2a_lambda_server::tasks::InMemoryTaskStore;

use crate::first_agent::Greeter;

/// The greeter as an AgentCore Runtime container, configured from the environment and
/// then in code.
///
/// # Errors
/// A variable is invalid, the address cannot be bound, or the server failed.
// ANCHOR: container
pub async fn container() -> Result<(), ServeError> {
    Container::from_env(Greeter)? // PORT, A2A_HOST, A2A_PUBLIC_URL, … (see the reference)
        .shutdown_grace(Duration::from_secs(20))
        .task_store(Arc::new(InMemoryTaskStore::with_capacity(10_000)))
        .serve() // until SIGTERM or Ctrl-C, then drains
        .await
}
// ANCHOR_END: container

/// The echo agent's routes nested in an axum app of your own.
///
/// # Errors
/// The card or the URL is invalid, or the port cannot be bound.
// ANCHOR: router
pub async fn nested() -> Result<(), Box<dyn std::error::Error>> {
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .nest(
            "/agent",
            a2a_lambda_server::router(EchoAgent, "http://127.0.0.1:3000/agent")?,
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
    axum::serve(listener, app).await?;
    Ok(())
}
// ANCHOR_END: router

/// The greeter as a Lambda function configured in code.
///
/// # Errors
/// Not inside Lambda, init failed, or the runtime failed.
// ANCHOR: lambda
pub async fn lambda() -> Result<(), a2a_lambda::Error> {
    a2a_lambda::Lambda::new(Greeter)
        .public_url("https://agents.example.com/greeter/")
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .run() // Lambda only: fails outside it (a2a_lambda::run chooses for you)
        .await
}
// ANCHOR_END: lambda
