//! The credentials a SigV4 runtime checks signatures with: plain data, in every build
//! (the binary parses `--sigv4-credentials` whatever its features); the check itself is
//! [`sigv4`](super::sigv4), with the `auth` feature.

use std::fmt;
use std::str::FromStr;

use super::AuthError;

/// The AWS credentials requests must be signed with. `Debug` shows the access key id only.
#[derive(Clone, PartialEq, Eq)]
pub struct SigV4Keys {
    pub(super) access_key_id: String,
    pub(super) secret_access_key: String,
    pub(super) session_token: Option<String>,
}

impl fmt::Debug for SigV4Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigV4Keys")
            .field("access_key_id", &self.access_key_id)
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .finish_non_exhaustive()
    }
}

impl SigV4Keys {
    /// Long-term credentials: an access key id and its secret.
    pub fn new(access_key_id: impl Into<String>, secret_access_key: impl Into<String>) -> Self {
        Self {
            access_key_id: access_key_id.into(),
            secret_access_key: secret_access_key.into(),
            session_token: None,
        }
    }

    /// Temporary credentials: requests must also carry this `X-Amz-Security-Token`.
    pub fn with_session_token(mut self, token: impl Into<String>) -> Self {
        self.session_token = Some(token.into());
        self
    }

    /// The standard AWS variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, optional
    /// `AWS_SESSION_TOKEN`) read through `env`; `None` when either of the first two is unset.
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let access = env("AWS_ACCESS_KEY_ID").filter(|value| !value.is_empty())?;
        let secret = env("AWS_SECRET_ACCESS_KEY").filter(|value| !value.is_empty())?;
        let keys = Self::new(access, secret);
        Some(
            match env("AWS_SESSION_TOKEN").filter(|value| !value.is_empty()) {
                Some(token) => keys.with_session_token(token),
                None => keys,
            },
        )
    }

    /// The access key id.
    pub fn access_key_id(&self) -> &str {
        &self.access_key_id
    }
}

impl FromStr for SigV4Keys {
    type Err = AuthError;

    /// `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.splitn(3, ':');
        let access = parts.next().unwrap_or_default();
        let secret = parts.next().unwrap_or_default();
        if access.is_empty() || secret.is_empty() {
            return Err(AuthError::Config(
                "--sigv4-credentials expects ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]"
                    .to_owned(),
            ));
        }
        let keys = Self::new(access, secret);
        Ok(match parts.next().filter(|token| !token.is_empty()) {
            Some(token) => keys.with_session_token(token),
            None => keys,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_parse_from_the_flag_and_the_environment() {
        let keys: SigV4Keys = "AKID:secret:tok".parse().unwrap();
        assert_eq!(
            keys,
            SigV4Keys::new("AKID", "secret").with_session_token("tok")
        );
        assert!("AKID".parse::<SigV4Keys>().is_err());
        assert!(!format!("{keys:?}").contains("secret"));
        let env = |name: &str| match name {
            "AWS_ACCESS_KEY_ID" => Some("AK".to_owned()),
            "AWS_SECRET_ACCESS_KEY" => Some("SK".to_owned()),
            _ => None,
        };
        assert_eq!(SigV4Keys::from_env(env), Some(SigV4Keys::new("AK", "SK")));
        assert_eq!(SigV4Keys::from_env(|_| None), None);
    }
}
