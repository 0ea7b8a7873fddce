//! {{name}}, from one binary: started by AWS Lambda (`AWS_LAMBDA_RUNTIME_API` set) it serves
//! Lambda invocations, configured from the environment (`A2A_STREAMING`, `A2A_TASK_TABLE`,
//! ...); anywhere else it is an Amazon Bedrock AgentCore Runtime container on 0.0.0.0:9000
//! (`PORT` to change it), as `cargo run` and the Dockerfile start it.

use {{crate}}::Agent;

#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    a2a_lambda::run(Agent).await
}
