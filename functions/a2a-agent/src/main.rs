//! `a2a-agent`: the A2A agent as an AWS Lambda function. Configuration comes from the
//! environment (see the crate docs); a bad value fails the init with a clear log line.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    a2a_agent::run().await
}
