//! The greeter, from one binary: on AWS Lambda (`cargo lambda deploy` from this folder) it
//! serves Lambda invocations; anywhere else it is an AWS Bedrock AgentCore Runtime
//! container on 0.0.0.0:9000.

#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    a2a_lambda::run(greeter::Greeter).await
}
