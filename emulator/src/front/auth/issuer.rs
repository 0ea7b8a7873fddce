//! The emulator's own token issuer, for local runs and tests: a signing key (ES256 made
//! here, or a given P-256 or RSA key), its JWKS, and tokens with the claims AgentCore's JWT
//! authorizer checks (`sub`, `aud`, `client_id`, `scope`, `exp`, `nbf`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::jwk::{Jwk, JwkSet, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Map, Value};

use super::AuthError;

/// The `iss` of every token the emulator's own issuer signs.
pub const ISSUER: &str = "a2a-emulator";
/// The file the emulator keeps its signing key in, under its state directory.
pub const KEY_FILE: &str = "jwt-signing-key.pem";

/// A key that signs tokens the emulator's `--auth jwt` trusts (unless it is given a
/// discovery URL or a JWKS of another issuer).
///
/// ```
/// use a2a_lambda_emulator::{TestIssuer, TokenRequest};
///
/// let issuer = TestIssuer::generate().unwrap();
/// let token = issuer.token(&TokenRequest::new("alice").scope("a2a/invoke")).unwrap();
/// assert_eq!(token.split('.').count(), 3);
/// ```
#[derive(Clone)]
pub struct TestIssuer {
    key: EncodingKey,
    algorithm: Algorithm,
    jwk: Jwk,
    pem: String,
}

impl std::fmt::Debug for TestIssuer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestIssuer")
            .field("algorithm", &self.algorithm)
            .field("kid", &self.kid())
            .finish_non_exhaustive()
    }
}

/// What a token says: the claims the JWT authorizer checks, and any others.
#[derive(Debug, Clone)]
pub struct TokenRequest {
    /// `sub`.
    pub subject: String,
    /// `scope` (space-separated), if any.
    pub scope: Option<String>,
    /// `aud`, if any.
    pub audience: Option<String>,
    /// `client_id`, if any.
    pub client_id: Option<String>,
    /// `exp` minus now, in seconds (negative: already expired).
    pub expires_in: i64,
    /// `nbf` minus now, in seconds, if any (positive: not yet valid).
    pub not_before_in: Option<i64>,
    /// Other claims.
    pub extra: Map<String, Value>,
}

impl TokenRequest {
    /// A token for `subject`, valid for an hour, with no audience, client or scope.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            scope: None,
            audience: None,
            client_id: None,
            expires_in: 3600,
            not_before_in: None,
            extra: Map::new(),
        }
    }

    /// Sets `scope`.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// Sets `aud`.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Sets `client_id`.
    pub fn client_id(mut self, client: impl Into<String>) -> Self {
        self.client_id = Some(client.into());
        self
    }

    /// Valid for `ttl` from now.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.expires_in = i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX);
        self
    }
}

impl TestIssuer {
    /// A new ES256 (P-256) key.
    ///
    /// # Errors
    /// [`AuthError::Key`] when the system's random source fails.
    pub fn generate() -> Result<Self, AuthError> {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = aws_lc_rs::signature::EcdsaKeyPair::generate_pkcs8(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &rng,
        )
        .map_err(|_| AuthError::Key("could not generate a P-256 key".to_owned()))?;
        Self::from_der(pkcs8.as_ref(), "PRIVATE KEY")
    }

    /// A key from PEM: a P-256 key in PKCS#8 (`BEGIN PRIVATE KEY`, ES256) or an RSA key in
    /// PKCS#1 (`BEGIN RSA PRIVATE KEY`, RS256).
    ///
    /// # Errors
    /// [`AuthError::Key`] for anything else.
    pub fn from_pem(pem: &str) -> Result<Self, AuthError> {
        let (label, der) = decode_pem(pem)?;
        Self::from_der(&der, &label)
    }

    fn from_der(der: &[u8], label: &str) -> Result<Self, AuthError> {
        let (key, algorithm) = match label {
            "PRIVATE KEY" => {
                aws_lc_rs::signature::EcdsaKeyPair::from_pkcs8(
                    &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
                    der,
                )
                .map_err(|_| {
                    AuthError::Key(
                        "the PKCS#8 key is not a P-256 key (RSA keys: PKCS#1, \
                         `BEGIN RSA PRIVATE KEY`)"
                            .to_owned(),
                    )
                })?;
                (EncodingKey::from_ec_der(der), Algorithm::ES256)
            }
            "RSA PRIVATE KEY" => {
                aws_lc_rs::rsa::KeyPair::from_der(der)
                    .map_err(|_| AuthError::Key("the PKCS#1 RSA key cannot be read".to_owned()))?;
                (EncodingKey::from_rsa_der(der), Algorithm::RS256)
            }
            other => {
                return Err(AuthError::Key(format!(
                    "a {other:?} PEM block is not a signing key this issuer reads \
                     (P-256 PKCS#8 or RSA PKCS#1; convert SEC1 keys with \
                     `openssl pkcs8 -topk8 -nocrypt`)"
                )));
            }
        };
        let mut jwk = Jwk::from_encoding_key(&key, algorithm)
            .map_err(|error| AuthError::Key(format!("the key's public half: {error}")))?;
        let kid = jwk
            .thumbprint(ThumbprintHash::SHA256)
            .map_err(|error| AuthError::Key(format!("the key's thumbprint: {error}")))?;
        jwk.common.key_id = Some(kid);
        jwk.common.public_key_use = Some(jsonwebtoken::jwk::PublicKeyUse::Signature);
        Ok(Self {
            key,
            algorithm,
            jwk,
            pem: encode_pem(label, der),
        })
    }

    /// The key kept in `dir` ([`JWT_KEY_FILE`](crate::JWT_KEY_FILE)), made (mode 0600) on first use.
    ///
    /// # Errors
    /// [`AuthError::Key`] when the file cannot be read, written or parsed.
    pub fn load_or_create(dir: &Path) -> Result<Self, AuthError> {
        let path = dir.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(pem) => Self::from_pem(&pem).map_err(|error| in_file(&path, &error)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let issuer = Self::generate()?;
                std::fs::create_dir_all(dir).map_err(|error| io_error(dir, &error))?;
                write_private(&path, issuer.pem.as_bytes())?;
                tracing::info!(path = %path.display(), "made the emulator's JWT signing key");
                Ok(issuer)
            }
            Err(error) => Err(io_error(&path, &error)),
        }
    }

    /// The key from a PEM file.
    ///
    /// # Errors
    /// [`AuthError::Key`] when it cannot be read or is not a key [`TestIssuer::from_pem`]
    /// reads.
    pub fn from_file(path: &Path) -> Result<Self, AuthError> {
        let pem = std::fs::read_to_string(path).map_err(|error| io_error(path, &error))?;
        Self::from_pem(&pem).map_err(|error| in_file(path, &error))
    }

    /// The private key as PEM, as [`TestIssuer::from_pem`] reads it (for writing a key
    /// file in a test; it is a secret).
    pub fn private_pem(&self) -> &str {
        &self.pem
    }

    /// The key id (the JWK's SHA-256 thumbprint, RFC 7638).
    pub fn kid(&self) -> &str {
        self.jwk.common.key_id.as_deref().unwrap_or_default()
    }

    /// The public key as a JWKS.
    pub fn jwks(&self) -> JwkSet {
        JwkSet {
            keys: vec![self.jwk.clone()],
        }
    }

    /// A signed token: `iss` [`JWT_ISSUER`](crate::JWT_ISSUER), `iat` now, and what `request` says.
    ///
    /// # Errors
    /// [`AuthError::Key`] when signing fails.
    pub fn token(&self, request: &TokenRequest) -> Result<String, AuthError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| {
                i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
            });
        let mut claims = request.extra.clone();
        claims.insert("iss".into(), ISSUER.into());
        claims.insert("sub".into(), request.subject.clone().into());
        claims.insert("iat".into(), now.into());
        claims.insert("exp".into(), now.saturating_add(request.expires_in).into());
        claims.insert("jti".into(), a2a_lambda_core::model::new_id().into());
        if let Some(offset) = request.not_before_in {
            claims.insert("nbf".into(), now.saturating_add(offset).into());
        }
        for (name, value) in [
            ("scope", &request.scope),
            ("aud", &request.audience),
            ("client_id", &request.client_id),
        ] {
            if let Some(value) = value {
                claims.insert(name.into(), value.clone().into());
            }
        }
        let mut header = Header::new(self.algorithm);
        header.kid = Some(self.kid().to_owned());
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map_err(|error| AuthError::Key(format!("signing the token: {error}")))
    }
}

/// Where the emulator keeps its state: `A2A_EMULATOR_STATE_DIR` (read by the caller), else
/// `$XDG_STATE_HOME/a2a-emulator`, else `~/.local/state/a2a-emulator`.
pub fn default_state_dir(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let nonempty = |name| env(name).filter(|value: &String| !value.is_empty());
    if let Some(state) = nonempty("XDG_STATE_HOME") {
        return Some(PathBuf::from(state).join("a2a-emulator"));
    }
    nonempty("HOME").map(|home| PathBuf::from(home).join(".local/state/a2a-emulator"))
}

fn io_error(path: &Path, error: &std::io::Error) -> AuthError {
    AuthError::Key(format!("{}: {error}", path.display()))
}

fn in_file(path: &Path, error: &AuthError) -> AuthError {
    AuthError::Key(format!("{}: {error}", path.display()))
}

/// Writes a new file readable by its owner only.
fn write_private(path: &Path, contents: &[u8]) -> Result<(), AuthError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|error| io_error(path, &error))?;
    file.write_all(contents)
        .map_err(|error| io_error(path, &error))
}

/// The label and bytes of the first PEM block.
fn decode_pem(pem: &str) -> Result<(String, Vec<u8>), AuthError> {
    let bad = || AuthError::Key("not a PEM key (-----BEGIN …----- block)".to_owned());
    let start = pem.find("-----BEGIN ").ok_or_else(bad)?;
    let rest = &pem[start + "-----BEGIN ".len()..];
    let (label, rest) = rest.split_once("-----").ok_or_else(bad)?;
    let end = format!("-----END {label}-----");
    let (body, _) = rest.split_once(&end).ok_or_else(bad)?;
    let base64: String = body.split_whitespace().collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(base64)
        .map_err(|_| AuthError::Key("the PEM block is not base64".to_owned()))?;
    Ok((label.to_owned(), der))
}

fn encode_pem(label: &str, der: &[u8]) -> String {
    let base64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut pem = format!("-----BEGIN {label}-----\n");
    for line in base64.as_bytes().chunks(64) {
        pem.push_str(&String::from_utf8_lossy(line));
        pem.push('\n');
    }
    pem.push_str(&format!("-----END {label}-----\n"));
    pem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_key_round_trips_through_pem_and_its_file_is_private() {
        let dir = std::env::temp_dir().join(format!(
            "a2a-emulator-key-{}",
            a2a_lambda_core::model::new_id()
        ));
        let made = TestIssuer::load_or_create(&dir).unwrap();
        let again = TestIssuer::load_or_create(&dir).unwrap();
        assert_eq!(made.kid(), again.kid());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(TestIssuer::from_pem("nope").is_err());
    }

    #[test]
    fn the_state_dir_follows_xdg() {
        let env = |name: &str| (name == "HOME").then(|| "/home/u".to_owned());
        assert_eq!(
            default_state_dir(env),
            Some(PathBuf::from("/home/u/.local/state/a2a-emulator"))
        );
    }
}
