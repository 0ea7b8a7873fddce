//! SigV4 inbound auth: a request must be signed (`AWS4-HMAC-SHA256`) for the
//! `bedrock-agentcore` service with the credentials the emulator was given.
//!
//! The signature is recomputed with `aws-sigv4` over the request as received (method,
//! path and query, the headers it names as signed, the payload hash) and compared in
//! constant time. Every refusal is AWS's 403 `AccessDeniedException` (restJson1, not
//! JSON-RPC): the A2A protocol contract says SigV4-configured agents answer 403 with
//! `ACCESS_DENIED` and no `WWW-Authenticate`
//! (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-a2a-protocol-contract.html>).
//!
//! The signing date may be at most 15 minutes off the emulator's clock either way, AWS's
//! `RequestExpired` window (Common Errors,
//! <https://docs.aws.amazon.com/bedrock-agentcore-control/latest/APIReference/CommonErrors.html>).

use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
use aws_sigv4::sign::v4;
use axum::http::HeaderMap;
use axum::http::request::Parts;
use subtle::ConstantTimeEq as _;

use super::{MISSING_TOKEN, SigV4Keys};

/// The service name AgentCore's data plane is signed for.
pub const SERVICE: &str = "bedrock-agentcore";
/// How far the signing date may be from the emulator's clock (AWS: 15 minutes).
pub const CLOCK_WINDOW: Duration = Duration::from_secs(15 * 60);
/// The scheme of a SigV4 `Authorization` header.
pub(super) const SCHEME: &str = "AWS4-HMAC-SHA256";

/// Why a request's signature is refused; [`Denial::message`] is what the caller reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Denial {
    /// No `Authorization` header.
    Unsigned,
    /// The header or a signed value cannot be read.
    Malformed(String),
    /// Not the emulator's access key (or session token).
    UnknownKey,
    /// Scoped to another service.
    WrongService(String),
    /// `host` or `x-amz-date` is not signed.
    UnsignedHeader,
    /// Signed more than 15 minutes ago.
    Expired {
        signed: String,
        earliest: String,
        now: String,
    },
    /// Signed more than 15 minutes ahead.
    NotYetCurrent {
        signed: String,
        latest: String,
        now: String,
    },
    /// `x-amz-content-sha256` is not the body's hash.
    PayloadHash,
    /// The recomputed signature differs.
    Signature,
}

impl Denial {
    /// AWS's message for the refusal.
    pub(super) fn message(&self) -> String {
        match self {
            Self::Unsigned => MISSING_TOKEN.to_owned(),
            Self::Malformed(what) => format!("Invalid authorization: {what}"),
            Self::UnknownKey => "The security token included in the request is invalid.".to_owned(),
            Self::WrongService(service) => format!(
                "Credential should be scoped to correct service: '{SERVICE}' (not '{service}')."
            ),
            Self::UnsignedHeader => "'Host' and 'X-Amz-Date' must be signed headers.".to_owned(),
            Self::Expired {
                signed,
                earliest,
                now,
            } => format!(
                "Signature expired: {signed} is now earlier than {earliest} ({now} - 15 min.)"
            ),
            Self::NotYetCurrent {
                signed,
                latest,
                now,
            } => format!(
                "Signature not yet current: {signed} is still later than {latest} ({now} + 15 min.)"
            ),
            Self::PayloadHash => {
                "The provided 'x-amz-content-sha256' header does not match what was computed."
                    .to_owned()
            }
            Self::Signature => "The request signature we calculated does not match the signature \
                 you provided. Check your AWS Secret Access Key and signing method. Consult the \
                 service documentation for details."
                .to_owned(),
        }
    }
}

/// The parts of `Authorization: AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`.
struct Authorization<'a> {
    access_key: &'a str,
    date: &'a str,
    region: &'a str,
    service: &'a str,
    signed_headers: Vec<&'a str>,
    signature: &'a str,
}

fn malformed(what: &str) -> Denial {
    Denial::Malformed(what.to_owned())
}

fn parse_authorization(value: &str) -> Result<Authorization<'_>, Denial> {
    let rest = value
        .strip_prefix(SCHEME)
        .and_then(|rest| rest.strip_prefix(' '))
        .ok_or_else(|| malformed("the Authorization header is not AWS4-HMAC-SHA256"))?;
    let (mut credential, mut signed, mut signature) = (None, None, None);
    for field in rest.split(',').map(str::trim) {
        match field.split_once('=') {
            Some(("Credential", value)) => credential = Some(value),
            Some(("SignedHeaders", value)) => signed = Some(value),
            Some(("Signature", value)) => signature = Some(value),
            _ => {}
        }
    }
    let credential = credential.ok_or_else(|| malformed("no Credential in Authorization"))?;
    let signed = signed.ok_or_else(|| malformed("no SignedHeaders in Authorization"))?;
    let signature = signature.ok_or_else(|| malformed("no Signature in Authorization"))?;
    let scope: Vec<&str> = credential.split('/').collect();
    let [access_key, date, region, service, "aws4_request"] = scope[..] else {
        return Err(malformed(
            "Credential is not ACCESS_KEY/DATE/REGION/SERVICE/aws4_request",
        ));
    };
    Ok(Authorization {
        access_key,
        date,
        region,
        service,
        signed_headers: signed.split(';').collect(),
        signature,
    })
}

/// `20260101T120000Z` as a time.
fn parse_amz_date(text: &str) -> Option<SystemTime> {
    let format = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
    let parsed = time::PrimitiveDateTime::parse(text, format).ok()?;
    Some(parsed.assume_utc().into())
}

fn format_amz_date(at: SystemTime) -> String {
    let format = time::macros::format_description!("[year][month][day]T[hour][minute][second]Z");
    time::OffsetDateTime::from(at)
        .format(format)
        .unwrap_or_default()
}

fn header<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, Denial> {
    headers
        .get(name)
        .map(|value| {
            value
                .to_str()
                .map_err(|_| Denial::Malformed(format!("the {name} header is not visible ASCII")))
        })
        .transpose()
}

/// Checks the request's SigV4 signature against `keys` at `now`.
pub(super) fn verify(
    keys: &SigV4Keys,
    parts: &Parts,
    body: &[u8],
    now: SystemTime,
) -> Result<(), Denial> {
    let headers = &parts.headers;
    let Some(value) = header(headers, "authorization")? else {
        return Err(Denial::Unsigned);
    };
    let claimed = parse_authorization(value)?;
    if claimed.service != SERVICE {
        return Err(Denial::WrongService(claimed.service.to_owned()));
    }
    if !bool::from(
        claimed
            .access_key
            .as_bytes()
            .ct_eq(keys.access_key_id.as_bytes()),
    ) {
        return Err(Denial::UnknownKey);
    }
    if !claimed.signed_headers.contains(&"host") || !claimed.signed_headers.contains(&"x-amz-date")
    {
        return Err(Denial::UnsignedHeader);
    }
    let date_text = header(headers, "x-amz-date")?.ok_or_else(|| malformed("no X-Amz-Date"))?;
    let signed_at =
        parse_amz_date(date_text).ok_or_else(|| malformed("X-Amz-Date is not YYYYMMDDTHHMMSSZ"))?;
    if !date_text.starts_with(claimed.date) || claimed.date.len() != 8 {
        return Err(malformed("the Credential date is not the X-Amz-Date's"));
    }
    check_window(signed_at, date_text, now)?;
    let token = header(headers, "x-amz-security-token")?;
    match (&keys.session_token, token) {
        (None, None) => {}
        (Some(expected), Some(given))
            if bool::from(expected.as_bytes().ct_eq(given.as_bytes())) => {}
        _ => return Err(Denial::UnknownKey),
    }
    let host = header(headers, "host")?.ok_or_else(|| malformed("no Host header"))?;
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", |path_and_query| path_and_query.as_str());
    let url = format!("http://{host}{target}");
    let payload_hash = header(headers, "x-amz-content-sha256")?;
    let signable_body = match payload_hash {
        Some("UNSIGNED-PAYLOAD") => SignableBody::UnsignedPayload,
        Some(hash) => {
            let computed = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, body);
            let computed = hex_lower(computed.as_ref());
            if !hash.eq_ignore_ascii_case(&computed) {
                return Err(Denial::PayloadHash);
            }
            SignableBody::Precomputed(computed)
        }
        None => SignableBody::Bytes(body),
    };
    // Exactly the headers the client says it signed, each with all its values; host and
    // x-amz-date (and the session token) are added back by the signer.
    let mut signed = Vec::new();
    for name in &claimed.signed_headers {
        for value in headers.get_all(*name) {
            let value = value.to_str().map_err(|_| {
                Denial::Malformed(format!("the signed header {name} is not visible ASCII"))
            })?;
            signed.push((*name, value));
        }
    }
    let signable = SignableRequest::new(
        parts.method.as_str(),
        &url,
        signed.into_iter(),
        signable_body,
    )
    .map_err(|error| Denial::Malformed(error.to_string()))?;
    let identity = Credentials::new(
        &keys.access_key_id,
        &keys.secret_access_key,
        keys.session_token.clone(),
        None,
        "a2a-emulator",
    )
    .into();
    let mut settings = SigningSettings::default();
    // Sign what the client listed, no more, no less.
    settings.excluded_headers = None;
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(claimed.region)
        .name(SERVICE)
        .time(signed_at)
        .settings(settings)
        .build()
        .map_err(|error| Denial::Malformed(error.to_string()))?
        .into();
    let (_, expected) = sign(signable, &params)
        .map_err(|error| Denial::Malformed(error.to_string()))?
        .into_parts();
    if bool::from(expected.as_bytes().ct_eq(claimed.signature.as_bytes())) {
        Ok(())
    } else {
        Err(Denial::Signature)
    }
}

/// AWS's `RequestExpired` window: 15 minutes either way.
fn check_window(signed_at: SystemTime, signed: &str, now: SystemTime) -> Result<(), Denial> {
    let earliest = now
        .checked_sub(CLOCK_WINDOW)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let latest = now + CLOCK_WINDOW;
    if signed_at < earliest {
        return Err(Denial::Expired {
            signed: signed.to_owned(),
            earliest: format_amz_date(earliest),
            now: format_amz_date(now),
        });
    }
    if signed_at > latest {
        return Err(Denial::NotYetCurrent {
            signed: signed.to_owned(),
            latest: format_amz_date(latest),
            now: format_amz_date(now),
        });
    }
    Ok(())
}

fn hex_lower(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_fifteen_minutes_either_way() {
        let now = parse_amz_date("20260101T120000Z").unwrap();
        let at = |text| check_window(parse_amz_date(text).unwrap(), text, now);
        assert!(at("20260101T114500Z").is_ok());
        assert!(at("20260101T121500Z").is_ok());
        assert_eq!(
            at("20260101T114459Z").unwrap_err().message(),
            "Signature expired: 20260101T114459Z is now earlier than 20260101T114500Z \
             (20260101T120000Z - 15 min.)"
        );
        assert!(matches!(
            at("20260101T121501Z"),
            Err(Denial::NotYetCurrent { .. })
        ));
    }

    #[test]
    fn the_authorization_header_is_read_strictly() {
        let header = "AWS4-HMAC-SHA256 Credential=AK/20260101/us-east-1/bedrock-agentcore/aws4_request, \
                      SignedHeaders=host;x-amz-date, Signature=abc";
        let parsed = parse_authorization(header).ok().unwrap();
        assert_eq!(parsed.access_key, "AK");
        assert_eq!(parsed.region, "us-east-1");
        assert_eq!(parsed.signed_headers, ["host", "x-amz-date"]);
        assert!(
            parse_authorization(
                "AWS4-HMAC-SHA256 Credential=AK/x, SignedHeaders=host, Signature=a"
            )
            .is_err()
        );
        assert!(parse_authorization("Bearer x").is_err());
    }
}
