//! # a2a-fuzz
//!
//! Structured fuzzing of the whole request path on the stable toolchain: body bytes,
//! headers, method and path → router → engine → response, in-process, against the
//! container's router (both bindings, and JSON-RPC alone as behind AgentCore) and the
//! emulator's AgentCore front.
//!
//! Inputs are made from random bytes by [`generate`] (with [`arbitrary`]): valid requests
//! of every method of both protocol versions and every HTTP+JSON route, mutated. Each
//! answer is checked by [`oracle`]; panics are counted by a hook (the router catches
//! them into an answer). `make fuzz` runs the binary; the tests replay `corpus/` and run
//! a short bounded fuzz with a fixed seed.
//!
//! ```
//! let report = a2a_fuzz::run::run(&a2a_fuzz::run::Config {
//!     inputs: Some(200),
//!     ..Default::default()
//! })
//! .unwrap();
//! assert_eq!(report.inputs, 200);
//! ```

pub mod generate;
pub mod input;
pub mod known;
pub mod oracle;
pub mod run;
pub mod targets;
