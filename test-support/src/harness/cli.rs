//! Running the real `a2a` CLI from a test: its environment variables cleared, what it
//! printed and its exit code.

use std::process::{Command, Output};

use super::{Value, binary};

/// Variables the CLI reads that a caller's environment could set.
const CLI_ENV: [&str; 4] = [
    "A2A_SESSION_ID",
    "A2A_BEARER_TOKEN",
    "A2A_API_KEY",
    "RUST_LOG",
];

/// Runs `a2a` with `args`, its environment variables cleared.
///
/// # Panics
/// When the binary cannot be run.
pub fn a2a(args: &[&str]) -> Output {
    let mut command = Command::new(binary("a2a-lambda-cli", "a2a"));
    for name in CLI_ENV {
        command.env_remove(name);
    }
    command
        .args(args)
        .output()
        .unwrap_or_else(|error| panic!("a2a {args:?} did not run: {error}"))
}

/// What a run of `a2a` printed, and its exit code.
#[derive(Debug)]
pub struct Run {
    /// The exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `a2a` with `args` and checks it did not panic.
///
/// # Panics
/// When the binary cannot be run or panicked.
pub fn run(args: &[&str]) -> Run {
    let output = a2a(args);
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

impl Run {
    /// Standard output as one JSON value.
    ///
    /// # Panics
    /// When it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|error| {
            panic!(
                "stdout is not one JSON value ({error}): {}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }

    /// Checks the exit code.
    ///
    /// # Panics
    /// When it is another.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "stdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }
}
