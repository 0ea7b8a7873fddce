//! The binary's inbound-auth flags turned into an `InboundAuth`, and the `token`
//! subcommand: a JWT signed by the emulator's own key, which `--auth jwt` trusts unless it
//! is given another issuer (`--jwt-discovery-url`, `--jwt-jwks`).
//!
//! Both need the `auth` feature. The flags are there in every build, so that a binary
//! built without it refuses them by name ([`needs_auth_feature`]) instead of serving
//! without the auth it was asked for.

#[cfg(feature = "auth")]
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::Args;
#[cfg(feature = "auth")]
use crate::front::auth::issuer::default_state_dir;
use crate::{Emulator, EmulatorError};
#[cfg(feature = "auth")]
use crate::{InboundAuth, JwtAuthorizer, SigV4Keys, TestIssuer, TokenRequest};

/// The binary's subcommands; without one it serves.
#[derive(Debug, Clone, clap::Subcommand)]
#[non_exhaustive]
pub enum Command {
    /// Print a JWT signed by the emulator's own key (kept under --state-dir, made on first
    /// use; or --jwt-signing-key), for `--auth jwt`. Needs the `auth` feature.
    Token(TokenArgs),
    /// Run a Lambda function's binary as AWS Lambda runs it (Runtime and Extensions APIs,
    /// a Function URL or API Gateway front, freezing, timeout, SIGTERM at shutdown).
    Lambda(Box<crate::lambda::LambdaArgs>),
}

/// `a2a-emulator token`: the claims of the token to print.
#[derive(Debug, Clone, clap::Args)]
pub struct TokenArgs {
    /// `sub`: who the caller is (the agent sees the owner `jwt:a2a-emulator|SUB`).
    #[arg(long, default_value = "user")]
    pub sub: String,
    /// `scope` (space-separated scopes), for --jwt-allowed-scopes.
    #[arg(long)]
    pub scope: Option<String>,
    /// `aud`, for --jwt-allowed-audience.
    #[arg(long)]
    pub aud: Option<String>,
    /// `client_id`, for --jwt-allowed-clients.
    #[arg(long)]
    pub client_id: Option<String>,
    /// How long the token is valid: `1h`, `30m`, `90s` or seconds.
    #[arg(long, default_value = "1h", value_parser = parse_ttl)]
    pub ttl: Duration,
}

/// `1h`, `30m`, `90s`, `3600`.
fn parse_ttl(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last() {
        Some((at, 'h')) => (&text[..at], 3600),
        Some((at, 'm')) => (&text[..at], 60),
        Some((at, 's')) => (&text[..at], 1),
        _ => (text, 1),
    };
    number
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|value| *value > 0)
        .map(|value| Duration::from_secs(value.saturating_mul(unit)))
        .ok_or_else(|| format!("{text:?} is not a duration like 1h, 30m, 90s or 3600"))
}

/// The refusal of a binary built without the `auth` feature: `what` (`--auth jwt`,
/// `signing a token`) needs it; the error says how to build it in and run `args` again.
pub fn needs_auth_feature(what: &str, args: &str) -> EmulatorError {
    let make = if args.starts_with("--auth") {
        format!(" (in the a2a-lambda repository: `make run FEATURES=auth ARGS='{args}'`)")
    } else {
        String::new()
    };
    EmulatorError::Config(format!(
        "{what} needs the emulator's `auth` feature (inbound SigV4 and JWT), which this \
         a2a-emulator was built without; build it in: \
         `cargo run -p a2a-lambda-emulator --features auth -- {args} …`{make}"
    ))
}

/// `emulator` with the inbound auth the flags ask for (unchanged without `--auth`).
///
/// # Errors
/// As `inbound_auth`; without the `auth` feature, [`needs_auth_feature`] for any
/// `--auth`.
pub fn with_inbound_auth(
    args: &Args,
    emulator: Emulator,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Emulator, EmulatorError> {
    #[cfg(feature = "auth")]
    if let Some(auth) = inbound_auth(args, env)? {
        return Ok(emulator.auth(auth));
    }
    #[cfg(not(feature = "auth"))]
    if let Some(kind) = &args.auth {
        let _ = env;
        let flag = format!("--auth {kind}");
        return Err(needs_auth_feature(&flag, &flag));
    }
    Ok(emulator)
}

/// The emulator's own issuer: `--jwt-signing-key`, else the key under the state directory
/// (`--state-dir`, `A2A_EMULATOR_STATE_DIR`, else the user's state directory).
///
/// # Errors
/// [`EmulatorError::Config`] when no key can be read or made.
#[cfg(feature = "auth")]
pub fn own_issuer(
    args: &Args,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<TestIssuer, EmulatorError> {
    let config = |error: crate::AuthError| EmulatorError::Config(error.to_string());
    if let Some(path) = &args.jwt_signing_key {
        return TestIssuer::from_file(path).map_err(config);
    }
    let dir: Option<PathBuf> = args
        .state_dir
        .clone()
        .or_else(|| {
            env("A2A_EMULATOR_STATE_DIR")
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from)
        })
        .or_else(|| default_state_dir(env));
    let dir = dir.ok_or_else(|| {
        EmulatorError::Config(
            "no state directory for the JWT signing key: pass --state-dir or --jwt-signing-key"
                .to_owned(),
        )
    })?;
    TestIssuer::load_or_create(&dir).map_err(config)
}

/// What `a2a-emulator token` prints: a signed JWT.
///
/// # Errors
/// As `own_issuer`, or signing fails; without the `auth` feature, [`needs_auth_feature`].
pub fn token(
    args: &Args,
    token: &TokenArgs,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<String, EmulatorError> {
    #[cfg(not(feature = "auth"))]
    {
        let _ = (args, token, env);
        Err(needs_auth_feature("signing a token", "token"))
    }
    #[cfg(feature = "auth")]
    signed_token(args, token, env)
}

#[cfg(feature = "auth")]
fn signed_token(
    args: &Args,
    token: &TokenArgs,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<String, EmulatorError> {
    let issuer = own_issuer(args, env)?;
    let mut request = TokenRequest::new(token.sub.clone()).ttl(token.ttl);
    request.scope.clone_from(&token.scope);
    request.audience.clone_from(&token.aud);
    request.client_id.clone_from(&token.client_id);
    issuer
        .token(&request)
        .map_err(|error| EmulatorError::Config(error.to_string()))
}

/// The inbound auth the flags ask for, if any.
///
/// # Errors
/// [`EmulatorError::Config`] for `--auth sigv4` without credentials, or a JWT setting that
/// cannot be used.
#[cfg(feature = "auth")]
pub fn inbound_auth(
    args: &Args,
    env: &impl Fn(&str) -> Option<String>,
) -> Result<Option<InboundAuth>, EmulatorError> {
    match args.auth.as_deref() {
        None => Ok(None),
        Some("sigv4") => {
            let keys = args
                .sigv4_credentials
                .clone()
                .or_else(|| SigV4Keys::from_env(env))
                .ok_or_else(|| {
                    EmulatorError::Config(
                        "--auth sigv4 needs credentials: --sigv4-credentials ACCESS:SECRET or \
                         AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
                            .to_owned(),
                    )
                })?;
            Ok(Some(InboundAuth::SigV4(keys)))
        }
        Some(_) => {
            let authorizer = match (&args.jwt_discovery_url, &args.jwt_jwks) {
                (Some(url), _) => JwtAuthorizer::discovery(url.clone()),
                (None, Some(path)) => JwtAuthorizer::jwks_file(path)
                    .map_err(|error| EmulatorError::Config(error.to_string()))?,
                (None, None) => JwtAuthorizer::trusting(&own_issuer(args, env)?),
            };
            Ok(Some(InboundAuth::Jwt(
                authorizer
                    .allowed_audience(args.jwt_allowed_audience.clone())
                    .allowed_clients(args.jwt_allowed_clients.clone())
                    .allowed_scopes(args.jwt_allowed_scopes.clone()),
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_without_the_feature_says_how_to_build_it_in() {
        let refusal = needs_auth_feature("--auth jwt", "--auth jwt").to_string();
        assert!(
            refusal.starts_with("--auth jwt needs the emulator's `auth` feature"),
            "{refusal}"
        );
        assert!(
            refusal.contains("`cargo run -p a2a-lambda-emulator --features auth -- --auth jwt …`"),
            "{refusal}"
        );
        assert!(
            refusal.contains("`make run FEATURES=auth ARGS='--auth jwt'`"),
            "{refusal}"
        );
        let token = needs_auth_feature("signing a token", "token").to_string();
        assert!(
            token.contains("--features auth -- token …`") && !token.contains("make run"),
            "{token}"
        );
    }

    #[test]
    fn ttls_read_like_durations() {
        assert_eq!(parse_ttl("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_ttl("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_ttl("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_ttl("120"), Ok(Duration::from_secs(120)));
        assert!(parse_ttl("soon").is_err());
        assert!(parse_ttl("0").is_err());
    }
}
