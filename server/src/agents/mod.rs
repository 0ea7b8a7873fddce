//! The built-in agents: `echo` (the default) and `conformance`.

mod conformance;
mod echo;

use std::str::FromStr;

pub use conformance::ConformanceAgent;
pub use echo::EchoAgent;

use crate::agent::SharedAgent;

/// A built-in agent, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum BuiltIn {
    /// Echoes the input text as an artifact.
    #[default]
    Echo,
    /// Behaves as conformance suites expect, by `messageId` prefix.
    Conformance,
}

/// A name that is not a built-in agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent {0:?}; built-in agents: echo, conformance")]
pub struct UnknownAgent(pub String);

impl FromStr for BuiltIn {
    type Err = UnknownAgent;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "echo" => Ok(Self::Echo),
            "conformance" => Ok(Self::Conformance),
            _ => Err(UnknownAgent(name.to_owned())),
        }
    }
}

impl std::fmt::Display for BuiltIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Echo => "echo",
            Self::Conformance => "conformance",
        })
    }
}

impl BuiltIn {
    /// The agent.
    pub fn agent(self) -> SharedAgent {
        match self {
            Self::Echo => SharedAgent::new(EchoAgent),
            Self::Conformance => SharedAgent::new(ConformanceAgent::from_env()),
        }
    }
}
