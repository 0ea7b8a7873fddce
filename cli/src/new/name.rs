//! The rules a new crate's name follows. The name becomes the package, its library (as a
//! Rust identifier, `-` read as `_`), its binary, the folder, the Lambda function and,
//! `-` read as `_`, the AgentCore runtime; each rule says which of these it protects.

use std::fmt;

/// Longest name: an AgentCore runtime name is at most 48 characters
/// (`[a-zA-Z][a-zA-Z0-9_]{0,47}`, CreateAgentRuntime's `agentRuntimeName`,
/// <https://docs.aws.amazon.com/bedrock-agentcore-control/latest/APIReference/API_CreateAgentRuntime.html>).
/// It is shorter than crates.io's limit (64) and a Lambda function name's (64).
pub const MAX_LEN: usize = 48;

/// Rust's keywords, strict and reserved, in the 2024 edition (The Rust Reference,
/// "Keywords"), lowercase ones only (names are lowercase). A crate named after one has no
/// library name Rust accepts.
const KEYWORDS: [&str; 50] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while", "abstract", "become", "box", "do", "final", "macro", "override",
    "priv", "try", "typeof", "unsized", "virtual",
];

/// The crates of Rust's own distribution: `cargo new` refuses them.
const STANDARD: [&str; 5] = ["std", "core", "alloc", "proc_macro", "test"];

/// Folders cargo makes in a target directory (`target/debug/deps` ...): `cargo new` refuses
/// them as names.
const CARGO_DIRECTORIES: [&str; 4] = ["deps", "examples", "build", "incremental"];

/// The crates a new crate depends on: a package cannot share its library's name with one
/// of its dependencies.
pub const DEPENDENCIES: [&str; 6] = [
    "a2a-lambda",
    "a2a-lambda-server",
    "a2a-lambda-client",
    "a2a-lambda-emulator",
    "tokio",
    "serde_json",
];

/// Why a name is refused: the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// No name at all.
    Empty,
    /// Longer than [`MAX_LEN`].
    TooLong(usize),
    /// An uppercase letter.
    Uppercase,
    /// A character that is none of `a-z`, `0-9`, `-`, `_`.
    Character(char),
    /// Starts with a digit, `-` or `_`.
    Start(char),
    /// A Rust keyword (as an identifier, `-` read as `_`).
    Keyword(String),
    /// A crate of Rust's standard distribution.
    Standard,
    /// A folder of cargo's target directory.
    CargoDirectory,
    /// A file name Windows reserves.
    Windows,
    /// One of the new crate's own dependencies.
    Dependency(&'static str),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => write!(f, "the name is empty"),
            Self::TooLong(len) => write!(
                f,
                "it is {len} characters long; at most {MAX_LEN} (the AgentCore runtime is named after the crate, and its name has at most {MAX_LEN} characters)"
            ),
            Self::Uppercase => write!(
                f,
                "it has an uppercase letter; use lowercase (Docker image names are lowercase, and so are crate names by convention)"
            ),
            Self::Character(c) => write!(
                f,
                "it has the character {c:?}; a name has only ASCII letters, digits, `-` and `_` (a Cargo package name that is also a Rust identifier)"
            ),
            Self::Start(c) => write!(
                f,
                "it starts with {c:?}; a name starts with a letter (crates.io's rule, and a Rust identifier cannot start with a digit)"
            ),
            Self::Keyword(keyword) => write!(
                f,
                "`{keyword}` is a Rust keyword, so it cannot name the crate's library"
            ),
            Self::Standard => write!(f, "it is the name of a crate of Rust's standard library"),
            Self::CargoDirectory => write!(
                f,
                "it is the name of a folder cargo makes in its target directory, which cargo refuses as a package name"
            ),
            Self::Windows => write!(f, "it is a file name Windows reserves"),
            Self::Dependency(crate_name) => write!(
                f,
                "it is the name of the crate `{crate_name}`, which the new crate depends on"
            ),
        }
    }
}

/// `name` as a Rust identifier: the name of the crate's library.
pub fn identifier(name: &str) -> String {
    name.replace('-', "_")
}

/// Checks `name` against every rule, in the order a reader would fix them.
pub fn check(name: &str) -> Result<(), Invalid> {
    let Some(first) = name.chars().next() else {
        return Err(Invalid::Empty);
    };
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(Invalid::Character(c));
    }
    if name.chars().any(|c| c.is_ascii_uppercase()) {
        return Err(Invalid::Uppercase);
    }
    if !first.is_ascii_lowercase() {
        return Err(Invalid::Start(first));
    }
    if name.len() > MAX_LEN {
        return Err(Invalid::TooLong(name.len()));
    }
    let ident = identifier(name);
    if KEYWORDS.contains(&ident.as_str()) {
        return Err(Invalid::Keyword(ident));
    }
    if STANDARD.contains(&ident.as_str()) {
        return Err(Invalid::Standard);
    }
    if CARGO_DIRECTORIES.contains(&name) {
        return Err(Invalid::CargoDirectory);
    }
    if is_windows_reserved(name) {
        return Err(Invalid::Windows);
    }
    if let Some(dependency) = DEPENDENCIES
        .iter()
        .find(|dependency| identifier(dependency) == ident)
    {
        return Err(Invalid::Dependency(dependency));
    }
    Ok(())
}

/// The device names Windows reserves for files ("Naming Files, Paths, and Namespaces",
/// <https://learn.microsoft.com/en-us/windows/win32/fileio/naming-a-file>).
fn is_windows_reserved(name: &str) -> bool {
    if ["con", "prn", "aux", "nul"].contains(&name) {
        return true;
    }
    let (prefix, digit) = name.split_at(name.len().min(3));
    ["com", "lpt"].contains(&prefix)
        && digit.len() == 1
        && digit.chars().all(|c| ('1'..='9').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_names_that_are_identifiers_pass() {
        for name in [
            "demo",
            "my-agent",
            "my_agent",
            "agent2",
            "a",
            "weather-bot-v2",
        ] {
            assert_eq!(check(name), Ok(()), "{name}");
        }
        assert_eq!(check(&"a".repeat(MAX_LEN)), Ok(()));
        assert_eq!(identifier("my-agent"), "my_agent");
    }

    #[test]
    fn each_rule_is_named() {
        let cases = [
            ("", Invalid::Empty),
            ("my agent", Invalid::Character(' ')),
            ("my.agent", Invalid::Character('.')),
            ("agent/x", Invalid::Character('/')),
            ("café", Invalid::Character('é')),
            ("MyAgent", Invalid::Uppercase),
            ("2fast", Invalid::Start('2')),
            ("-agent", Invalid::Start('-')),
            ("_agent", Invalid::Start('_')),
            ("fn", Invalid::Keyword("fn".to_owned())),
            ("gen", Invalid::Keyword("gen".to_owned())),
            ("proc-macro", Invalid::Standard),
            ("core", Invalid::Standard),
            ("build", Invalid::CargoDirectory),
            ("nul", Invalid::Windows),
            ("com7", Invalid::Windows),
            (
                "a2a-lambda-server",
                Invalid::Dependency("a2a-lambda-server"),
            ),
            ("a2a_lambda", Invalid::Dependency("a2a-lambda")),
            ("serde-json", Invalid::Dependency("serde_json")),
        ];
        for (name, rule) in cases {
            assert_eq!(check(name), Err(rule), "{name:?}");
        }
        let long = "a".repeat(MAX_LEN + 1);
        assert_eq!(check(&long), Err(Invalid::TooLong(MAX_LEN + 1)));
        // Close to a reserved name is fine.
        for name in ["com", "com10", "console", "tests", "tokio-agent"] {
            assert_eq!(check(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn the_messages_say_what_to_do() {
        assert!(Invalid::Uppercase.to_string().contains("use lowercase"));
        assert!(
            Invalid::Start('2')
                .to_string()
                .contains("starts with a letter")
        );
        assert!(
            Invalid::Keyword("fn".to_owned())
                .to_string()
                .contains("`fn` is a Rust keyword")
        );
    }
}
