//! How requests are authenticated: nothing, a bearer token, an API key header, or AWS
//! SigV4 (service `bedrock-agentcore`) for AgentCore Runtime endpoints.

use std::fmt;

use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use crate::error::Error;

/// The signing name of AgentCore Runtime's data plane.
pub const AGENTCORE_SERVICE: &str = "bedrock-agentcore";

/// Credentials sent with every request (the card included).
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Auth {
    /// No credentials.
    #[default]
    None,
    /// `Authorization: Bearer TOKEN` (an AgentCore JWT authorizer, an OAuth token).
    Bearer(String),
    /// An API key in a header of its own (the Lambda function's `X-API-Key`).
    ApiKey {
        /// Header name.
        header: String,
        /// The key.
        key: String,
    },
    /// AWS Signature Version 4.
    #[cfg(feature = "sigv4")]
    SigV4(crate::sigv4::SigV4),
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            Self::ApiKey { header, .. } => write!(f, "ApiKey({header}: <redacted>)"),
            #[cfg(feature = "sigv4")]
            Self::SigV4(signer) => write!(f, "SigV4({signer:?})"),
        }
    }
}

impl Auth {
    /// An API key in the `X-API-Key` header.
    pub fn api_key(key: impl Into<String>) -> Self {
        Self::ApiKey {
            header: "X-API-Key".to_owned(),
            key: key.into(),
        }
    }

    /// Checks the header name and values once, at build time.
    pub(crate) fn validate(&self) -> Result<(), Error> {
        match self {
            Self::Bearer(token) => sensitive(&format!("Bearer {token}")).map(drop),
            Self::ApiKey { header, key } => {
                HeaderName::try_from(header.as_str())
                    .map_err(|_| Error::Config(format!("{header:?} is not a valid header name")))?;
                sensitive(key).map(drop)
            }
            _ => Ok(()),
        }
    }

    /// Adds the credentials to a built request (signing it, for SigV4).
    pub(crate) async fn apply(&self, request: &mut reqwest::Request) -> Result<(), Error> {
        match self {
            Self::None => Ok(()),
            Self::Bearer(token) => {
                let value = sensitive(&format!("Bearer {token}"))?;
                request.headers_mut().insert(AUTHORIZATION, value);
                Ok(())
            }
            Self::ApiKey { header, key } => {
                let name = HeaderName::try_from(header.as_str())
                    .map_err(|_| Error::Config(format!("{header:?} is not a valid header name")))?;
                request.headers_mut().insert(name, sensitive(key)?);
                Ok(())
            }
            #[cfg(feature = "sigv4")]
            Self::SigV4(signer) => signer.sign(request).await,
        }
    }
}

impl Auth {
    /// The credentials as gRPC metadata (lower-case name, value): a bearer token or an API
    /// key; SigV4 signs an HTTP request, which a gRPC call is not, and is refused.
    #[cfg(feature = "grpc")]
    pub(crate) fn grpc_metadata(&self) -> Result<Option<(String, String)>, Error> {
        match self {
            Self::None => Ok(None),
            Self::Bearer(token) => Ok(Some((
                AUTHORIZATION.as_str().to_owned(),
                format!("Bearer {token}"),
            ))),
            Self::ApiKey { header, key } => Ok(Some((header.to_ascii_lowercase(), key.clone()))),
            #[cfg(feature = "sigv4")]
            Self::SigV4(_) => Err(Error::Unsupported {
                operation: "SigV4 over gRPC",
                reason: "SigV4 signs HTTP requests of AgentCore, which cannot carry gRPC"
                    .to_owned(),
            }),
        }
    }
}

fn sensitive(value: &str) -> Result<HeaderValue, Error> {
    let mut value = HeaderValue::try_from(value).map_err(|_| {
        Error::Config("a credential contains characters a header cannot carry".to_owned())
    })?;
    value.set_sensitive(true);
    Ok(value)
}
