//! The JSON-RPC 2.0 envelope: parse a request body with precise refusals, and write
//! responses that always echo the request's id.
//!
//! Refusals, in the order they are checked:
//!
//! | input | code |
//! |---|---|
//! | nested deeper than [`MAX_DEPTH`] | -32600 |
//! | not JSON | -32700 |
//! | a batch (array) | -32600 |
//! | JSON that is not an object | -32600 |
//! | an `id` that is not a string, number or null | -32600 |
//! | `jsonrpc` missing or not exactly `"2.0"` | -32600 |
//! | `method` missing or not a string | -32600 |
//! | `params` neither an object, an array nor null | -32600 |
//!
//! Once the id is read, every later refusal echoes it; before that, the id is `null`.
//!
//! A request without an `id` member is what JSON-RPC 2.0 calls a notification
//! ([`Request::is_notification`]). A2A defines no notifications, and the official A2A
//! servers answer such requests, so servers here answer them too, with `"id": null`
//! ([`Request::response_id`]); the server crate refuses a valid one with -32600 without
//! running it. A request with `"id": null` is answered with `"id": null`.

use http::StatusCode;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;

use crate::error::{Error, ErrorObject, ErrorProfile};

/// Deepest nesting of arrays and objects accepted in a request body.
///
/// Deeper bodies are refused with -32600 before any parsing, so no input can exhaust the
/// stack. A2A requests nest a handful of levels; 64 leaves room for deep `data` parts and
/// metadata.
pub const MAX_DEPTH: usize = 64;

/// A request id: string, number or null.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    /// A numeric id, echoed exactly as sent.
    Number(NumberId),
    /// A string id.
    String(String),
    /// `null`: sent by the client, or used when the id could not be read.
    Null,
}

/// A numeric id as its request wrote it: written back verbatim, so that an id past
/// 64-bit integers or with a fraction (`1.5e300`) comes back as the same text, as
/// JSON-RPC 2.0's "the same as the value of the id member" asks; a float would round it.
///
/// ```
/// use a2a_lambda_core::jsonrpc::{Id, NumberId, parse_request};
///
/// let body = br#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}"#;
/// let id = parse_request(body).unwrap().response_id();
/// assert_eq!(serde_json::to_string(&id).unwrap(), "123456789012345678901234567890");
/// assert_eq!(Id::Number(NumberId::from(7_u64)), serde_json::from_str("7").unwrap());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NumberId(Box<str>);

impl NumberId {
    /// The number's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The number in `raw` JSON text, when it is one.
    fn from_raw(raw: &str) -> Option<Self> {
        serde_json::from_str::<serde_json::Number>(raw)
            .ok()
            .map(|_| Self(raw.into()))
    }
}

impl From<u64> for NumberId {
    fn from(number: u64) -> Self {
        Self(number.to_string().into())
    }
}

impl From<i64> for NumberId {
    fn from(number: i64) -> Self {
        Self(number.to_string().into())
    }
}

impl Serialize for NumberId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match RawValue::from_string(self.0.to_string()) {
            Ok(raw) => raw.serialize(serializer),
            Err(error) => Err(serde::ser::Error::custom(error)),
        }
    }
}

impl<'de> Deserialize<'de> for NumberId {
    /// From a number a deserializer has already read (an id in a response a client
    /// parses): serde_json's text of it. Requests keep their own text ([`parse_request`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        Ok(Self(number.to_string().into()))
    }
}

/// A parsed JSON-RPC request, borrowing its params from the body.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The id, or `None` for a notification.
    pub id: Option<Id>,
    /// The method name.
    pub method: String,
    /// The raw params, if present and not null.
    pub params: Option<&'a RawValue>,
}

impl Request<'_> {
    /// True when the request has no `id` member (a JSON-RPC 2.0 notification, which A2A
    /// does not define).
    pub fn is_notification(&self) -> bool {
        self.id.is_none()
    }

    /// The id to echo in the response (`null` when the request has none).
    pub fn response_id(&self) -> Id {
        self.id.clone().unwrap_or(Id::Null)
    }
}

/// A request refused before it reached a method: the error and the id to echo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The id to echo (`null` when it could not be read).
    pub id: Id,
    /// Why the request was refused.
    pub error: Error,
}

impl Rejection {
    fn new(id: Id, error: Error) -> Self {
        Self { id, error }
    }
}

/// The members of a request object, each kept raw so that each can be refused precisely.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
}

/// `Some(raw)` for a present member, even when it is `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// Parses a request body.
///
/// # Errors
/// A [`Rejection`] naming the first problem found, with the id to echo.
pub fn parse_request(body: &[u8]) -> Result<Request<'_>, Rejection> {
    check_depth(body).map_err(|error| Rejection::new(top_level_id(body), error))?;
    let text = std::str::from_utf8(body).map_err(|_| {
        Rejection::new(
            Id::Null,
            Error::new(crate::error::Refusal::Parse, "body is not valid UTF-8"),
        )
    })?;
    match text.trim_start().as_bytes().first() {
        Some(b'{') => {}
        Some(b'[') if serde_json::from_str::<&RawValue>(text).is_ok() => {
            return Err(Rejection::new(
                Id::Null,
                Error::invalid_request("batch requests are not supported; send one object"),
            ));
        }
        _ => {
            return Err(match serde_json::from_str::<&RawValue>(text) {
                Ok(_) => Rejection::new(
                    Id::Null,
                    Error::invalid_request("the request must be a JSON object"),
                ),
                Err(error) => Rejection::new(Id::Null, parse_error(&error)),
            });
        }
    }
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(|error| {
        let refusal = if error.is_data() {
            Error::invalid_request(strip_position(&error))
        } else {
            parse_error(&error)
        };
        Rejection::new(Id::Null, refusal)
    })?;

    let id = envelope.id.map(read_id).transpose()?;
    let echo = id.clone().unwrap_or(Id::Null);
    let refuse = |detail: &str| Rejection::new(echo.clone(), Error::invalid_request(detail));

    match envelope.jsonrpc.map(RawValue::get) {
        Some("\"2.0\"") => {}
        Some(_) => return Err(refuse("`jsonrpc` must be exactly \"2.0\"")),
        None => return Err(refuse("`jsonrpc` is required and must be \"2.0\"")),
    }
    let method = match envelope.method {
        None => return Err(refuse("`method` is required")),
        Some(raw) => serde_json::from_str::<String>(raw.get())
            .map_err(|_| refuse("`method` must be a string"))?,
    };
    let params = match envelope.params {
        Some(raw) if raw.get() == "null" => None,
        Some(raw) if matches!(raw.get().as_bytes().first(), Some(b'{' | b'[')) => Some(raw),
        Some(_) => return Err(refuse("`params` must be an object")),
        None => None,
    };
    Ok(Request { id, method, params })
}

/// The id of a request body, as far as it can be read (`null` otherwise): what a refusal
/// made before the request is parsed (its content type, say) echoes.
///
/// ```
/// use a2a_lambda_core::jsonrpc::{Id, request_id};
///
/// assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":"a","method":"m"}"#), Id::String("a".into()));
/// assert_eq!(request_id(br#"{"id":"a","jsonrpc":"1.0"}"#), Id::String("a".into()));
/// assert_eq!(request_id(b"not json"), Id::Null);
/// ```
pub fn request_id(body: &[u8]) -> Id {
    match parse_request(body) {
        Ok(request) => request.response_id(),
        Err(rejection) => rejection.id,
    }
}

/// The `id` member of a body too deep to parse, read without descending into the other
/// members (serde_json skips them without recursion, within its own depth limit).
fn top_level_id(body: &[u8]) -> Id {
    std::str::from_utf8(body)
        .ok()
        .and_then(|text| serde_json::from_str::<Envelope<'_>>(text).ok())
        .and_then(|envelope| envelope.id)
        .and_then(|raw| read_id(raw).ok())
        .unwrap_or(Id::Null)
}

fn read_id(raw: &RawValue) -> Result<Id, Rejection> {
    let refused = || {
        Rejection::new(
            Id::Null,
            Error::invalid_request("`id` must be a string, a number or null"),
        )
    };
    match raw.get().as_bytes().first() {
        Some(b'-' | b'0'..=b'9') => NumberId::from_raw(raw.get())
            .map(Id::Number)
            .ok_or_else(refused),
        Some(b'"' | b'n') => serde_json::from_str::<Id>(raw.get()).map_err(|_| refused()),
        _ => Err(refused()),
    }
}

pub(crate) fn parse_error(error: &serde_json::Error) -> Error {
    Error::new(
        crate::error::Refusal::Parse,
        format!(
            "{} (line {}, column {})",
            strip_position(error),
            error.line(),
            error.column()
        ),
    )
}

/// serde_json's message without its " at line 1 column 57" suffix (the caller gets the
/// position another way, or the path of the offending member instead).
pub(crate) fn strip_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(cut) if error.line() > 0 => text[..cut].to_owned(),
        _ => text,
    }
}

/// Refuses bodies whose arrays and objects nest deeper than [`MAX_DEPTH`].
///
/// A linear scan that skips string contents; it does not validate JSON (the parser does).
pub(crate) fn check_depth(body: &[u8]) -> Result<(), Error> {
    // Nesting needs an opening bracket per level: a body with few of them (strings
    // included) cannot nest too deep, and counting them is far quicker than the scan.
    let opening = body
        .iter()
        .filter(|&&byte| byte == b'{' || byte == b'[')
        .count();
    if opening <= MAX_DEPTH {
        return Ok(());
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in body {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(Error::invalid_request(format!(
                        "the body nests deeper than {MAX_DEPTH} levels"
                    )));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// A successful response.
#[derive(Debug, Clone, Serialize)]
pub struct SuccessResponse<'a, T> {
    /// Always `"2.0"`.
    pub jsonrpc: &'static str,
    /// The request's id.
    pub id: &'a Id,
    /// The method's result.
    pub result: T,
}

impl<'a, T: Serialize> SuccessResponse<'a, T> {
    /// A success response echoing `id`.
    pub fn new(id: &'a Id, result: T) -> Self {
        Self {
            jsonrpc: "2.0",
            id,
            result,
        }
    }
}

/// An error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: String,
    /// The request's id (`null` when it could not be read).
    pub id: Id,
    /// The error.
    pub error: ErrorObject,
}

impl ErrorResponse {
    /// The response for `error` under `profile`, with the HTTP status to send it with.
    pub fn from_error(id: Id, error: &Error, profile: ErrorProfile) -> (StatusCode, Self) {
        let (status, object) = error.to_wire(profile);
        (
            status,
            Self {
                jsonrpc: "2.0".to_owned(),
                id,
                error: object,
            },
        )
    }

    /// The response for a rejected request under `profile`, with its HTTP status.
    pub fn from_rejection(rejection: &Rejection, profile: ErrorProfile) -> (StatusCode, Self) {
        Self::from_error(rejection.id.clone(), &rejection.error, profile)
    }
}
