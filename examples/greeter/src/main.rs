//! The greeter on AWS Lambda: `cargo lambda deploy` from this folder.

#[tokio::main]
async fn main() -> Result<(), a2a_lambda::Error> {
    a2a_lambda::run(greeter::Greeter).await
}
