//! `a2a-agent`: the built-in agents as an AWS Lambda function. `A2A_AGENT` picks the agent
//! (`echo`, the default, or `conformance`); everything else is `a2a_lambda`'s configuration
//! (`A2A_BINDINGS` among it: JSON-RPC and HTTP+JSON unless told otherwise).

use a2a_lambda_server::agents::BuiltIn;

#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    let agent = match std::env::var("A2A_AGENT") {
        Ok(name) if !name.trim().is_empty() => match name.parse::<BuiltIn>() {
            Ok(agent) => agent,
            Err(_) => {
                let error = format!("A2A_AGENT={name:?} is not valid: one of echo, conformance");
                a2a_lambda::logging::init();
                tracing::error!(%error, "init failed");
                return Err(error.into());
            }
        },
        _ => BuiltIn::Echo,
    };
    // Lambda only: outside it, this binary says so and fails (`a2a-container` is the
    // container).
    a2a_lambda::Lambda::new(agent.agent()).run().await
}
