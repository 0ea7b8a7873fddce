//! "Your first agent", step 3: the greeter's binary. On AWS Lambda it serves Lambda
//! invocations; anywhere else it is an AgentCore Runtime container on 0.0.0.0:9000.

use a2a_guide_samples::first_agent as greeter;

// ANCHOR: main
#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    a2a_lambda::run(greeter::Greeter).await
}
// ANCHOR_END: main
