//! A session id checked once: the key of the sessions map, the header the container and
//! the client get.

use axum::http::HeaderValue;

/// A session id that is a header value of visible ASCII.
#[derive(Clone, Debug)]
pub(super) struct SessionName(HeaderValue);

/// The configured default session id cannot be sent as a header.
#[derive(Debug, thiserror::Error)]
#[error("the default session id {0:?} is not a header value of visible ASCII")]
pub struct InvalidSessionId(pub String);

impl SessionName {
    /// `value` when it is visible ASCII.
    pub(super) fn new(value: HeaderValue) -> Option<Self> {
        value.to_str().is_ok().then_some(Self(value))
    }

    /// `text` when it is a header value of visible ASCII.
    pub(super) fn from_text(text: String) -> Option<Self> {
        HeaderValue::try_from(text).ok().and_then(Self::new)
    }

    /// The id.
    pub(super) fn as_str(&self) -> &str {
        // `new` checked that it is visible ASCII, so this never falls back.
        self.0.to_str().unwrap_or_default()
    }

    /// The id as a header value.
    pub(super) fn header(&self) -> HeaderValue {
        self.0.clone()
    }

    /// The id as a header value, taken.
    pub(super) fn into_header(self) -> HeaderValue {
        self.0
    }
}
