//! One fuzz input: which target, the HTTP method, path and query, headers and body bytes,
//! and its text form, the corpus files' format (`fuzz/corpus/*.http`):
//!
//! ```text
//! container POST /
//! content-type: application/json
//! a2a-version: 1.0
//!
//! {"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}
//! ```
//!
//! The first line names the target ([`Target`]), the method and the path; header lines
//! follow until an empty line; everything after it is the body, byte for byte (it may be
//! invalid UTF-8).

use std::fmt;
use std::str::FromStr;

/// What an input is sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The container's router with both bindings (JSON-RPC on `/`, HTTP+JSON routes).
    Container,
    /// The container's router as behind AgentCore: JSON-RPC only, its public URL's path
    /// (`/runtimes/…/invocations/`) served too.
    ContainerJsonRpc,
    /// The emulator's AgentCore front (in-process agent per session).
    Front,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 3] = [Target::Container, Target::ContainerJsonRpc, Target::Front];

    /// Its name in a corpus file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Container => "container",
            Self::ContainerJsonRpc => "container-jsonrpc",
            Self::Front => "front",
        }
    }

    /// Whether the HTTP+JSON binding's routes are served.
    pub fn serves_rest(self) -> bool {
        self == Self::Container
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A corpus file that cannot be read as an input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The first line is not `TARGET METHOD PATH`.
    #[error(
        "the first line must be `TARGET METHOD PATH` (target: container, container-jsonrpc or front)"
    )]
    RequestLine,
    /// A header line has no `:`.
    #[error("header line {0} has no `:`")]
    Header(usize),
    /// No empty line ends the headers.
    #[error("no empty line ends the headers")]
    NoBody,
}

impl FromStr for Target {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|target| target.name() == text)
            .ok_or(ParseError::RequestLine)
    }
}

/// One request to one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The target.
    pub target: Target,
    /// The HTTP method (any token, `GET` to `FOO`).
    pub method: String,
    /// Path and query (`/runtimes/…/invocations?qualifier=DEFAULT`).
    pub path: String,
    /// Header names and values, in order (values are bytes: HTTP allows obs-text).
    pub headers: Vec<(String, Vec<u8>)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Input {
    /// The input in the corpus format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = format!("{} {} {}\n", self.target, self.method, self.path).into_bytes();
        for (name, value) in &self.headers {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.push(b'\n');
        }
        out.push(b'\n');
        out.extend_from_slice(&self.body);
        out
    }

    /// Reads an input in the corpus format.
    ///
    /// ```
    /// use a2a_fuzz::input::{Input, Target};
    ///
    /// let input = Input::from_bytes(b"front GET /ping\naccept: */*\n\n").unwrap();
    /// assert_eq!(input.target, Target::Front);
    /// assert_eq!(input.headers, [("accept".to_owned(), b"*/*".to_vec())]);
    /// assert_eq!(Input::from_bytes(&input.to_bytes()), Ok(input));
    /// ```
    ///
    /// # Errors
    /// [`ParseError`] when the text is not in that format.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ParseError> {
        let mut rest = bytes;
        let mut line = || -> Option<&[u8]> {
            let end = rest.iter().position(|byte| *byte == b'\n')?;
            let (line, tail) = rest.split_at(end);
            rest = &tail[1..];
            Some(line.strip_suffix(b"\r").unwrap_or(line))
        };
        let first = line().ok_or(ParseError::RequestLine)?;
        let first = std::str::from_utf8(first).map_err(|_| ParseError::RequestLine)?;
        let mut words = first.splitn(3, ' ');
        let (Some(target), Some(method), Some(path)) = (words.next(), words.next(), words.next())
        else {
            return Err(ParseError::RequestLine);
        };
        let target = target.parse()?;
        let mut headers = Vec::new();
        let mut number = 1;
        loop {
            number += 1;
            let header = line().ok_or(ParseError::NoBody)?;
            if header.is_empty() {
                break;
            }
            let colon = header
                .iter()
                .position(|byte| *byte == b':')
                .ok_or(ParseError::Header(number))?;
            let name = String::from_utf8_lossy(&header[..colon]).into_owned();
            let value = header[colon + 1..]
                .strip_prefix(b" ")
                .unwrap_or(&header[colon + 1..]);
            headers.push((name, value.to_vec()));
        }
        Ok(Self {
            target,
            method: method.to_owned(),
            path: path.to_owned(),
            headers,
            body: rest.to_vec(),
        })
    }

    /// The value of the first header named `name` (case-insensitive), as text.
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_slice())
    }
}
