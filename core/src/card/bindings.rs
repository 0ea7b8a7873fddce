//! Which protocol bindings a host serves, in the card's order of preference.
//!
//! A host decides it (`A2A_BINDINGS=jsonrpc,http+json,grpc`); the card lists one interface per
//! binding and version, the first the one a client should prefer (A2A specification
//! §8.2, `supportedInterfaces`). JSON-RPC also serves v0.3, listed last.

use std::fmt;
use std::str::FromStr;

/// A protocol binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP (`JSONRPC`), both versions.
    JsonRpc,
    /// HTTP+JSON, the REST binding (`HTTP+JSON`), v1.0.
    HttpJson,
    /// gRPC (`GRPC`), v1.0: served on a port of its own, at [`Bindings::grpc_url`].
    Grpc,
}

impl Binding {
    /// The card's `protocolBinding` value.
    pub fn card_name(self) -> &'static str {
        match self {
            Self::JsonRpc => super::JSONRPC_BINDING,
            Self::HttpJson => crate::rest::BINDING_NAME,
            Self::Grpc => GRPC_BINDING,
        }
    }

    /// The name in `A2A_BINDINGS` (`jsonrpc`, `http+json`).
    pub fn config_name(self) -> &'static str {
        match self {
            Self::JsonRpc => "jsonrpc",
            Self::HttpJson => "http+json",
            Self::Grpc => "grpc",
        }
    }
}

/// The card's `protocolBinding` of the gRPC binding (A2A specification §8.2).
pub const GRPC_BINDING: &str = "GRPC";

/// The bindings served, preferred first: at least one, none twice.
///
/// ```
/// use a2a_lambda_core::card::{Binding, Bindings};
///
/// let both: Bindings = "http+json, jsonrpc".parse().unwrap();
/// assert_eq!(both.preferred(), Binding::HttpJson);
/// assert!(both.serves(Binding::JsonRpc));
/// assert_eq!(both.to_string(), "http+json,jsonrpc");
/// assert!("soap".parse::<Bindings>().is_err());
/// // gRPC only where the host says it serves it (the container host).
/// assert!("jsonrpc,grpc".parse::<Bindings>().is_err());
/// assert!(Bindings::parse_with_grpc("jsonrpc,grpc").unwrap().serves(Binding::Grpc));
/// assert_eq!(Bindings::default().to_string(), "jsonrpc");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bindings(Vec<Binding>, Option<String>);

impl Default for Bindings {
    /// JSON-RPC only.
    fn default() -> Self {
        Self(vec![Binding::JsonRpc], None)
    }
}

impl Bindings {
    /// JSON-RPC first, then HTTP+JSON: what the hosts serve unless told otherwise.
    pub fn both() -> Self {
        Self(vec![Binding::JsonRpc, Binding::HttpJson], None)
    }

    /// The URL the card gives the gRPC interface (gRPC is served on a port of its own);
    /// without one, the card's URL.
    ///
    /// ```
    /// use a2a_lambda_core::card::Bindings;
    ///
    /// let bindings = Bindings::parse_with_grpc("jsonrpc,grpc").unwrap();
    /// let bindings = bindings.with_grpc_url("http://127.0.0.1:50051");
    /// assert_eq!(bindings.grpc_url(), Some("http://127.0.0.1:50051"));
    /// ```
    #[must_use]
    pub fn with_grpc_url(mut self, url: impl Into<String>) -> Self {
        self.1 = Some(url.into());
        self
    }

    /// The URL of the gRPC interface, when the host set one.
    ///
    /// ```
    /// assert_eq!(a2a_lambda_core::card::Bindings::both().grpc_url(), None);
    /// ```
    pub fn grpc_url(&self) -> Option<&str> {
        self.1.as_deref()
    }

    /// Whether `binding` is served.
    pub fn serves(&self, binding: Binding) -> bool {
        self.0.contains(&binding)
    }

    /// The binding listed first.
    pub fn preferred(&self) -> Binding {
        self.0.first().copied().unwrap_or(Binding::JsonRpc)
    }

    /// The bindings, preferred first.
    pub fn iter(&self) -> impl Iterator<Item = Binding> + '_ {
        self.0.iter().copied()
    }
}

/// Why an `A2A_BINDINGS` value is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindingsError {
    /// A name that is not a binding.
    #[error("unknown binding {0:?}: expected jsonrpc, http+json or grpc")]
    Unknown(String),
    /// A binding named twice.
    #[error("binding {0} is listed twice")]
    Repeated(&'static str),
    /// gRPC named to a host that does not serve it (AWS Lambda: a Function URL cannot
    /// carry gRPC).
    #[error(
        "binding grpc is served only by the container host (a2a-container built with its \
         `grpc` feature), not here: expected jsonrpc or http+json"
    )]
    GrpcNotServed,
    /// No binding at all.
    #[error("no binding listed: expected jsonrpc, http+json, grpc, comma-separated")]
    Empty,
}

impl FromStr for Bindings {
    type Err = BindingsError;

    /// `jsonrpc` and `http+json`, comma-separated; `grpc` is refused
    /// ([`BindingsError::GrpcNotServed`]): a host that serves it reads the list with
    /// [`Bindings::parse_with_grpc`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bindings = Self::parse_with_grpc(text)?;
        if bindings.serves(Binding::Grpc) {
            return Err(BindingsError::GrpcNotServed);
        }
        Ok(bindings)
    }
}

impl Bindings {
    /// Reads a list that may name `grpc` too, for a host that serves it.
    ///
    /// # Errors
    /// A name that is not a binding, one named twice, or none.
    pub fn parse_with_grpc(text: &str) -> Result<Self, BindingsError> {
        let mut out = Vec::new();
        for name in text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
        {
            let binding = match name.to_ascii_lowercase().as_str() {
                "jsonrpc" | "json-rpc" => Binding::JsonRpc,
                "http+json" | "rest" => Binding::HttpJson,
                "grpc" => Binding::Grpc,
                _ => return Err(BindingsError::Unknown(name.to_owned())),
            };
            if out.contains(&binding) {
                return Err(BindingsError::Repeated(binding.config_name()));
            }
            out.push(binding);
        }
        if out.is_empty() {
            return Err(BindingsError::Empty);
        }
        Ok(Self(out, None))
    }
}

impl fmt::Display for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|binding| binding.config_name()).collect();
        f.write_str(&names.join(","))
    }
}
