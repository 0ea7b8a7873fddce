//! The greeter as an AWS Bedrock AgentCore Runtime container (0.0.0.0:9000).

#[tokio::main]
async fn main() -> Result<(), a2a_server::serve::ServeError> {
    a2a_server::serve(greeter::Greeter).await
}
