//! The greeter, from one binary: on AWS Lambda (the runtime sets `AWS_LAMBDA_RUNTIME_API`;
//! `cargo lambda deploy` from this folder) it serves Lambda invocations, anywhere else it is
//! an AWS Bedrock AgentCore Runtime container on 0.0.0.0:9000.

#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    if std::env::var_os("AWS_LAMBDA_RUNTIME_API").is_some() {
        a2a_lambda::run(greeter::Greeter).await
    } else {
        Ok(a2a_server::serve(greeter::Greeter).await?)
    }
}
