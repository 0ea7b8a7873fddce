//! Inputs from random bytes ([`arbitrary::Unstructured`]): a valid request of one of the
//! methods (every JSON-RPC method of v0.3 and v1.0, every HTTP+JSON route, the card, ping,
//! AWS's invocation paths), then mutated — its JSON values and shapes, its id, its
//! envelope, its bytes (deep nesting, huge numbers, invalid UTF-8, truncation), its
//! headers (content types, `A2A-Version`s, session ids), its method and path.
//!
//! The same bytes always make the same input, so a run is replayed from its seed, and a
//! coverage-guided engine that feeds bytes can drive this generator unchanged.

mod jsonrpc;
mod mutate;
mod rest;
mod values;

use arbitrary::{Result, Unstructured};

use crate::input::{Input, Target};
use jsonrpc::{json_rpc, random_request};
use mutate::mutate_headers;
use rest::{other_path, rest};
use values::{odd_string, session_id};

/// A runtime ARN the front serves (any well-formed one is served).
pub const ARN: &str =
    "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/fuzz_agent-AbCdEf1234";

/// The path prefix of the JSON-RPC-only container's public URL.
pub const INTERFACE_PATH: &str = "/runtimes/fuzz/invocations";

/// Task ids seen in answers, which later inputs name (a get of a task that exists reaches
/// further than one of a random id). Bounded.
#[derive(Debug, Default, Clone)]
pub struct Known {
    task_ids: Vec<String>,
    next: usize,
}

impl Known {
    /// How many ids are kept.
    pub const CAPACITY: usize = 64;

    /// Remembers a task id (the oldest is forgotten first).
    pub fn remember(&mut self, id: &str) {
        if self.task_ids.len() < Self::CAPACITY {
            self.task_ids.push(id.to_owned());
        } else {
            self.task_ids[self.next] = id.to_owned();
            self.next = (self.next + 1) % Self::CAPACITY;
        }
    }

    fn task_id(&self, u: &mut Unstructured<'_>) -> Result<String> {
        if !self.task_ids.is_empty() && u.ratio(3, 4)? {
            return Ok(u.choose(&self.task_ids)?.clone());
        }
        odd_string(u)
    }
}

/// One input from `u`.
///
/// ```
/// use a2a_fuzz::generate::{Known, input};
///
/// let bytes = [7u8; 256];
/// let one = input(&mut arbitrary::Unstructured::new(&bytes), &Known::default()).unwrap();
/// let two = input(&mut arbitrary::Unstructured::new(&bytes), &Known::default()).unwrap();
/// assert_eq!(one, two);
/// ```
///
/// # Errors
/// Only when `u` runs dry in a way `arbitrary` reports (it normally yields zeros).
pub fn input(u: &mut Unstructured<'_>, known: &Known) -> Result<Input> {
    let target = *u.choose(&Target::ALL)?;
    let mut input = match u.int_in_range(0..=19)? {
        0..=10 => json_rpc(u, known, target)?,
        11..=14 if target.serves_rest() => rest(u, known, target)?,
        11..=14 => json_rpc(u, known, target)?,
        15 | 16 => other_path(u, target)?,
        _ => random_request(u, target)?,
    };
    // Nearly always a session of the pool: without one, each invocation starts a new
    // session, and the quota (1,000) is soon reached.
    if target == Target::Front && u.ratio(63, 64)? {
        input.headers.push((
            "x-amzn-bedrock-agentcore-runtime-session-id".to_owned(),
            session_id(u)?,
        ));
    }
    mutate_headers(u, &mut input)?;
    if u.ratio(1, 12)? {
        input.method = u.choose(&METHODS_HTTP)?.to_string();
    }
    Ok(input)
}

const METHODS_HTTP: [&str; 9] = [
    "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "FUZZ",
];
