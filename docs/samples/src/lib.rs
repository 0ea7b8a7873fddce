//! The Rust samples of the a2a-lambda guide (`docs/src`). Each chapter includes its code
//! from these files with mdBook's `{{#include file:anchor}}`, so every sample the guide
//! shows is compiled, linted and tested by `make test` (`make lint`, `make unit`).
//!
//! One module per chapter that shows an agent; the tests under `tests/` are the guide's
//! test and client samples.

pub mod agents;
pub mod first_agent;
pub mod hosting;
