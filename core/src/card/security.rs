//! Security schemes projected from a named mechanism, in each version's JSON shape.
//!
//! | mechanism | v0.3 `securitySchemes` entry | v1.0 entry |
//! |---|---|---|
//! | `jwt` | `{"type":"http","scheme":"bearer","bearerFormat":"JWT"}` | `{"httpAuthSecurityScheme":{"scheme":"Bearer","bearerFormat":"JWT"}}` |
//! | `api-key` | `{"type":"apiKey","in":"header","name":"X-API-Key"}` | `{"apiKeySecurityScheme":{"location":"header","name":"X-API-Key"}}` |
//! | `mtls` | `{"type":"mutualTLS"}` | `{"mtlsSecurityScheme":{}}` |
//! | `sigv4` | none: IAM (SigV4) is not an A2A security scheme | none |
//! | `none` | none | none |

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

/// The header an `api-key` agent reads its key from.
pub const API_KEY_HEADER: &str = "X-API-Key";

/// How callers authenticate to the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SecurityMechanism {
    /// No authentication.
    #[default]
    None,
    /// A JWT bearer token in `Authorization`.
    Jwt,
    /// An API key in the `X-API-Key` header.
    ApiKey,
    /// Mutual TLS.
    Mtls,
    /// AWS IAM (SigV4) in front of the agent; nothing the card can describe.
    Sigv4,
}

/// A mechanism name that is not one of `none`, `jwt`, `api-key`, `mtls`, `sigv4`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown security mechanism {0:?}; expected one of none, jwt, api-key, mtls, sigv4")]
pub struct UnknownMechanism(pub String);

impl FromStr for SecurityMechanism {
    type Err = UnknownMechanism;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "none" => Ok(Self::None),
            "jwt" => Ok(Self::Jwt),
            "api-key" | "apikey" => Ok(Self::ApiKey),
            "mtls" => Ok(Self::Mtls),
            "sigv4" | "iam" => Ok(Self::Sigv4),
            _ => Err(UnknownMechanism(value.to_owned())),
        }
    }
}

impl fmt::Display for SecurityMechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::None => "none",
            Self::Jwt => "jwt",
            Self::ApiKey => "api-key",
            Self::Mtls => "mtls",
            Self::Sigv4 => "sigv4",
        })
    }
}

impl SecurityMechanism {
    /// The name the card gives the scheme, or `None` when nothing is published.
    pub fn scheme_name(self) -> Option<&'static str> {
        match self {
            Self::Jwt => Some("bearer"),
            Self::ApiKey => Some("apiKey"),
            Self::Mtls => Some("mtls"),
            Self::None | Self::Sigv4 => None,
        }
    }

    /// The v0.3 scheme object (`type`-discriminated).
    pub fn scheme_v0_3(self) -> Option<Value> {
        match self {
            Self::Jwt => Some(json!({"type": "http", "scheme": "bearer", "bearerFormat": "JWT"})),
            Self::ApiKey => Some(json!({"type": "apiKey", "in": "header", "name": API_KEY_HEADER})),
            Self::Mtls => Some(json!({"type": "mutualTLS"})),
            Self::None | Self::Sigv4 => None,
        }
    }

    /// The v1.0 scheme object (a member-presence oneof).
    pub fn scheme_v1_0(self) -> Option<Value> {
        match self {
            Self::Jwt => Some(json!({
                "httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}
            })),
            Self::ApiKey => Some(json!({
                "apiKeySecurityScheme": {"location": "header", "name": API_KEY_HEADER}
            })),
            Self::Mtls => Some(json!({"mtlsSecurityScheme": {}})),
            Self::None | Self::Sigv4 => None,
        }
    }

    /// The hybrid scheme object: the v0.3 members and the v1.0 oneof member side by side.
    ///
    /// v0.3 readers look at `type` and ignore the wrapper; v1.0 readers (ProtoJSON with
    /// unknown fields ignored) read the wrapper and ignore `type`.
    pub fn scheme_hybrid(self) -> Option<Value> {
        let (Some(Value::Object(mut old)), Some(Value::Object(new))) =
            (self.scheme_v0_3(), self.scheme_v1_0())
        else {
            return None;
        };
        old.extend(new);
        Some(Value::Object(old))
    }

    /// `securitySchemes` for a card, built with one of the projections above.
    pub(crate) fn schemes(self, project: fn(Self) -> Option<Value>) -> Option<Map<String, Value>> {
        let name = self.scheme_name()?;
        let scheme = project(self)?;
        let mut schemes = Map::new();
        schemes.insert(name.to_owned(), scheme);
        Some(schemes)
    }

    /// v0.3 `security`: `[{"<name>": []}]`.
    pub(crate) fn requirement_v0_3(self) -> Option<Value> {
        self.scheme_name().map(|name| json!([{ name: [] }]))
    }

    /// v1.0 `securityRequirements`: `[{"schemes": {"<name>": {"list": []}}}]`.
    pub(crate) fn requirement_v1_0(self) -> Option<Value> {
        self.scheme_name()
            .map(|name| json!([{ "schemes": { name: { "list": [] } } }]))
    }
}
