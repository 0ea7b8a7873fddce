//! AgentCore's `customJWTAuthorizer`: a bearer token is checked against the issuer's keys
//! (OIDC discovery's `jwks_uri`, a JWKS file, or the emulator's own issuer), its `exp` and
//! `nbf`, and the runtime's allowed audiences (`aud`), clients (`client_id`) and scopes (at
//! least one `scope` value), as "Configure inbound JWT authorizer" describes
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/inbound-jwt-authorizer.html>,
//! <https://docs.aws.amazon.com/bedrock-agentcore-control/latest/APIReference/API_CustomJWTAuthorizerConfiguration.html>).
//!
//! AWS documents no clock-skew tolerance for `exp`/`nbf`; the emulator allows
//! [`LEEWAY_SECONDS`]. Signatures: RS256 and ES256.

use std::path::Path;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use tokio::sync::Mutex;

use super::AuthError;
use super::issuer::{ISSUER, TestIssuer};

/// The clock skew allowed on `exp` and `nbf` (AWS documents none).
pub const LEEWAY_SECONDS: u64 = 60;
/// How long fetched discovery documents and key sets are kept.
const KEYS_TTL: Duration = Duration::from_secs(15 * 60);
/// How soon an unknown `kid` may fetch the keys again.
const REFRESH_AFTER: Duration = Duration::from_secs(30);

/// Where a JWT authorizer gets the issuer's public keys.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum JwtKeys {
    /// An OIDC discovery URL (`…/.well-known/openid-configuration`): its `jwks_uri` is
    /// fetched (and cached), its `issuer` must be the token's `iss`.
    Discovery(String),
    /// A fixed key set; any `iss`.
    Jwks(JwkSet),
    /// The emulator's own issuer's key; `iss` must be [`JWT_ISSUER`](crate::JWT_ISSUER).
    Issuer(Box<TestIssuer>),
}

/// A runtime's `customJWTAuthorizer` configuration. An empty list allows any value.
#[derive(Debug, Clone)]
pub struct JwtAuthorizer {
    pub(super) keys: JwtKeys,
    pub(super) allowed_audience: Vec<String>,
    pub(super) allowed_clients: Vec<String>,
    pub(super) allowed_scopes: Vec<String>,
}

impl JwtAuthorizer {
    /// Trusts the issuer behind an OIDC discovery URL.
    pub fn discovery(url: impl Into<String>) -> Self {
        Self::with_keys(JwtKeys::Discovery(url.into()))
    }

    /// Trusts the keys of a JWKS.
    pub fn jwks(keys: JwkSet) -> Self {
        Self::with_keys(JwtKeys::Jwks(keys))
    }

    /// Trusts the keys of a JWKS file.
    ///
    /// # Errors
    /// [`AuthError::Config`] when the file cannot be read or is not a JWKS.
    pub fn jwks_file(path: &Path) -> Result<Self, AuthError> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| AuthError::Config(format!("{}: {error}", path.display())))?;
        let keys: JwkSet = serde_json::from_str(&text).map_err(|error| {
            AuthError::Config(format!("{} is not a JWKS: {error}", path.display()))
        })?;
        Ok(Self::jwks(keys))
    }

    /// Trusts the emulator's own issuer (tokens from `a2a-emulator token`).
    pub fn trusting(issuer: &TestIssuer) -> Self {
        Self::with_keys(JwtKeys::Issuer(Box::new(issuer.clone())))
    }

    fn with_keys(keys: JwtKeys) -> Self {
        Self {
            keys,
            allowed_audience: Vec::new(),
            allowed_clients: Vec::new(),
            allowed_scopes: Vec::new(),
        }
    }

    /// `allowedAudience`: one of the token's `aud` values must be among these.
    pub fn allowed_audience(
        mut self,
        audience: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_audience = audience.into_iter().map(Into::into).collect();
        self
    }

    /// `allowedClients`: the token's `client_id` must be among these.
    pub fn allowed_clients(mut self, clients: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_clients = clients.into_iter().map(Into::into).collect();
        self
    }

    /// `allowedScopes`: one of the token's `scope` values must be among these.
    pub fn allowed_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
}

/// Why a token is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TokenRefusal {
    /// Not a JWT at all: AgentCore answers 403.
    Unparseable,
    /// A JWT that does not pass: 401 with this message.
    Invalid(String),
    /// The issuer's keys could not be fetched: 500.
    KeysUnavailable(String),
}

fn mismatch(claim: &str) -> TokenRefusal {
    TokenRefusal::Invalid(format!(
        "Claim '{claim}' value mismatch with configuration."
    ))
}

/// Keys fetched through discovery.
struct Fetched {
    issuer: Option<String>,
    keys: JwkSet,
    at: Instant,
}

/// A configured authorizer, ready per request: keys precomputed or cached.
pub struct Verifier {
    config: JwtAuthorizer,
    fixed: Option<(JwkSet, Option<String>)>,
    fetched: Mutex<Option<Fetched>>,
    client: reqwest::Client,
}

impl Verifier {
    pub(super) fn new(config: JwtAuthorizer) -> Result<Self, AuthError> {
        let fixed = match &config.keys {
            JwtKeys::Discovery(url) => {
                if !url.ends_with("/.well-known/openid-configuration") {
                    return Err(AuthError::Config(format!(
                        "the discovery URL {url} must end with /.well-known/openid-configuration \
                         (AgentCore's pattern)"
                    )));
                }
                None
            }
            JwtKeys::Jwks(keys) => Some((keys.clone(), None)),
            JwtKeys::Issuer(issuer) => Some((issuer.jwks(), Some(ISSUER.to_owned()))),
        };
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|error| AuthError::Config(format!("HTTP client: {error}")))?;
        Ok(Self {
            config,
            fixed,
            fetched: Mutex::new(None),
            client,
        })
    }

    /// The scopes to advertise in the protected resource metadata.
    pub(super) fn scopes(&self) -> &[String] {
        &self.config.allowed_scopes
    }

    /// The issuer, for the metadata's `authorization_servers`, when known.
    pub(super) async fn issuer(&self) -> Option<String> {
        match &self.fixed {
            Some((_, issuer)) => issuer.clone(),
            None => self.keys(false).await.ok().and_then(|(_, issuer)| issuer),
        }
    }

    /// The key set and the issuer it belongs to; `refresh` fetches again unless the last
    /// fetch was very recent.
    async fn keys(&self, refresh: bool) -> Result<(JwkSet, Option<String>), TokenRefusal> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let JwtKeys::Discovery(url) = &self.config.keys else {
            return Err(TokenRefusal::KeysUnavailable("no keys".to_owned()));
        };
        let mut cached = self.fetched.lock().await;
        if let Some(fetched) = cached.as_ref() {
            let age = fetched.at.elapsed();
            if age < KEYS_TTL && (!refresh || age < REFRESH_AFTER) {
                return Ok((fetched.keys.clone(), fetched.issuer.clone()));
            }
        }
        let fetched = self
            .fetch(url)
            .await
            .map_err(TokenRefusal::KeysUnavailable)?;
        let answer = (fetched.keys.clone(), fetched.issuer.clone());
        *cached = Some(fetched);
        Ok(answer)
    }

    async fn fetch(&self, url: &str) -> Result<Fetched, String> {
        let document: Value = self.get_json(url).await?;
        let jwks_uri = document
            .get("jwks_uri")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{url} has no jwks_uri"))?;
        let issuer = document
            .get("issuer")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let keys: JwkSet = serde_json::from_value(self.get_json(jwks_uri).await?)
            .map_err(|error| format!("{jwks_uri} is not a JWKS: {error}"))?;
        tracing::info!(
            jwks_uri,
            keys = keys.keys.len(),
            "fetched the JWT issuer's keys"
        );
        Ok(Fetched {
            issuer,
            keys,
            at: Instant::now(),
        })
    }

    async fn get_json(&self, url: &str) -> Result<Value, String> {
        let response = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|error| format!("GET {url}: {error}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let bytes = response
            .bytes()
            .await
            .map_err(|error| format!("GET {url}: {error}"))?;
        serde_json::from_slice(&bytes).map_err(|error| format!("GET {url}: not JSON: {error}"))
    }

    /// Checks a bearer token; its claims when it passes.
    pub(super) async fn verify(&self, token: &str) -> Result<Map<String, Value>, TokenRefusal> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| TokenRefusal::Unparseable)?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(TokenRefusal::Invalid(format!(
                "Unsupported token algorithm {:?} (RS256 and ES256 are accepted)",
                header.alg
            )));
        }
        let (keys, issuer) = self.keys(false).await?;
        let jwk = match find_key(&keys, header.kid.as_deref(), header.alg) {
            Some(jwk) => jwk.clone(),
            None if self.fixed.is_none() => {
                let (keys, _) = self.keys(true).await?;
                find_key(&keys, header.kid.as_deref(), header.alg)
                    .cloned()
                    .ok_or_else(unknown_key)?
            }
            None => return Err(unknown_key()),
        };
        let key = DecodingKey::from_jwk(&jwk).map_err(|_| unknown_key())?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp"]);
        if let Some(issuer) = &issuer {
            validation.set_issuer(&[issuer]);
        }
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| TokenRefusal::Invalid(describe(error.kind())))?;
        self.check_claims(&data.claims)?;
        Ok(data.claims)
    }

    fn check_claims(&self, claims: &Map<String, Value>) -> Result<(), TokenRefusal> {
        let config = &self.config;
        if !config.allowed_audience.is_empty()
            && !values(claims.get("aud"), false)
                .any(|aud| config.allowed_audience.iter().any(|a| a == aud))
        {
            return Err(mismatch("aud"));
        }
        if !config.allowed_clients.is_empty()
            && !claims
                .get("client_id")
                .and_then(Value::as_str)
                .is_some_and(|client| config.allowed_clients.iter().any(|c| c == client))
        {
            return Err(mismatch("client_id"));
        }
        if !config.allowed_scopes.is_empty()
            && !values(claims.get("scope"), true)
                .any(|scope| config.allowed_scopes.iter().any(|s| s == scope))
        {
            return Err(mismatch("scope"));
        }
        Ok(())
    }
}

fn unknown_key() -> TokenRefusal {
    TokenRefusal::Invalid("No key of the issuer matches the token's kid".to_owned())
}

/// A key for the token: by `kid`, else the first of the algorithm's family.
fn find_key<'a>(keys: &'a JwkSet, kid: Option<&str>, alg: Algorithm) -> Option<&'a Jwk> {
    match kid {
        Some(kid) => keys.find(kid),
        None => keys.keys.iter().find(|jwk| {
            matches!(
                (&jwk.algorithm, alg),
                (
                    jsonwebtoken::jwk::AlgorithmParameters::RSA(_),
                    Algorithm::RS256
                ) | (
                    jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(_),
                    Algorithm::ES256
                )
            )
        }),
    }
}

/// A claim's values: a string (split on spaces when `spaced`, as `scope` is) or an array
/// of strings.
fn values(claim: Option<&Value>, spaced: bool) -> Box<dyn Iterator<Item = &str> + '_> {
    match claim {
        Some(Value::String(text)) if spaced => Box::new(text.split_whitespace()),
        Some(Value::String(text)) => Box::new(std::iter::once(text.as_str())),
        Some(Value::Array(items)) => Box::new(items.iter().filter_map(Value::as_str)),
        _ => Box::new(std::iter::empty()),
    }
}

fn describe(kind: &jsonwebtoken::errors::ErrorKind) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match kind {
        ErrorKind::ExpiredSignature => "Token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "Token is not yet valid (nbf)".to_owned(),
        ErrorKind::InvalidSignature => "Token signature verification failed".to_owned(),
        ErrorKind::InvalidIssuer => "Claim 'iss' value mismatch with configuration.".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("Claim '{claim}' is missing"),
        _ => "Invalid token".to_owned(),
    }
}
