//! Exit codes, and how an error is reported.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success |
//! | 1 | the agent or platform answered with a JSON-RPC error (or, to `stop-session`, AWS's not-found), or cannot do what was asked (`new`: a file could not be written) |
//! | 2 | bad usage or configuration (clap's own usage errors are 2 as well; `new`: an invalid name, a folder that exists, a `--crates-path` that is no checkout) |
//! | 3 | no usable answer: cannot connect, HTTP error without a JSON-RPC body, credentials refused (401, 403 AccessDenied), invalid response or card, stream cut short, signing failed |
//! | 4 | throttled or session busy (-32053, retryable -32054), after every retry |
//! | 5 | the task ended failed, rejected or canceled (`send`, `resubscribe`) |

use std::process::ExitCode;

use a2a_lambda_client::Error;
use serde_json::json;

/// Success.
pub const OK: u8 = 0;
/// A JSON-RPC error answer, or an unsupported operation.
pub const RPC_ERROR: u8 = 1;
/// Bad usage or configuration.
pub const USAGE: u8 = 2;
/// No usable answer.
pub const NO_ANSWER: u8 = 3;
/// Throttled or session busy, after every retry.
pub const RETRIES_EXHAUSTED: u8 = 4;
/// The task ended unsuccessfully.
pub const TASK_UNSUCCESSFUL: u8 = 5;

/// The exit code for an error.
pub fn code(error: &Error) -> u8 {
    match error {
        Error::Rpc(rpc) if rpc.is_retryable() => RETRIES_EXHAUSTED,
        Error::Rpc(_)
        | Error::Unsupported { .. }
        | Error::SessionNotFound { .. }
        | Error::SessionRestarted { .. } => RPC_ERROR,
        Error::Config(_) => USAGE,
        Error::RetriesExhausted { .. } => RETRIES_EXHAUSTED,
        _ => NO_ANSWER,
    }
}

/// Prints `error` (to stderr; also as JSON on stdout with `--json`) and returns its code.
pub fn report(error: &Error, json: bool) -> ExitCode {
    eprintln!("error: {error}");
    if let Some(hint) = error.hint() {
        eprintln!("hint: {hint}");
    }
    if json {
        let mut object = json!({ "message": error.to_string() });
        if let Some(rpc) = error.rpc() {
            object["code"] = json!(rpc.code_number());
            object["name"] = json!(rpc.name);
            object["rpcMessage"] = json!(rpc.message);
            if let Some(data) = &rpc.data {
                object["data"] = data.clone();
            }
        }
        if let Some(status) = error.http_status() {
            object["httpStatus"] = json!(status);
        }
        if let Error::RetriesExhausted { attempts, .. } = error {
            object["attempts"] = json!(attempts);
        }
        if let Some(hint) = error.hint() {
            object["hint"] = json!(hint);
        }
        println!("{}", json!({ "error": object }));
    }
    ExitCode::from(code(error))
}
