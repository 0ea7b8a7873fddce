//! Percent-encoding (RFC 3986 §2.1), in the two decodings the A2A hosts meet.
//!
//! - A path segment (an AgentCore runtime ARN in `/runtimes/{arn}/invocations`) is
//!   [`encode_component`]d and read back with [`decode_component`], which is strict: a
//!   malformed escape or a result that is not UTF-8 is refused, and `+` is a plus sign.
//! - A query value (`?A2A-Version=1.0`) is form-encoded (`application/x-www-form-urlencoded`):
//!   [`decode_query`] reads `+` as a space and never fails, keeping a malformed escape as
//!   it is and replacing bytes that are not UTF-8, as browsers and URL libraries do.

/// Percent-encodes `text` for a path segment or a query value, as the AWS SDKs encode a
/// runtime ARN: every byte but the RFC 3986 unreserved ones (`A–Z a–z 0–9 - _ . ~`) becomes
/// `%XX` (upper-case hex).
///
/// ```
/// use a2a_lambda_core::percent::encode_component;
///
/// assert_eq!(encode_component("runtime/a b:c"), "runtime%2Fa%20b%3Ac");
/// ```
pub fn encode_component(text: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(text.len() + 16);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0F)]));
        }
    }
    out
}

/// Decodes a percent-encoded path segment (`%3A` → `:`); `None` when an escape is not `%`
/// and two hex digits or the result is not UTF-8. `+` stays a plus sign.
///
/// ```
/// use a2a_lambda_core::percent::decode_component;
///
/// assert_eq!(decode_component("a%3Ab+c").as_deref(), Some("a:b+c"));
/// assert_eq!(decode_component("cut%3"), None);
/// assert_eq!(decode_component("%FF"), None);
/// ```
pub fn decode_component(text: &str) -> Option<String> {
    String::from_utf8(decode(text, Mode::Strict)?).ok()
}

/// Decodes a form-encoded query value: `+` → space, `%XX` → its byte; a `%` that does not
/// start an escape is kept, and bytes that are not UTF-8 become U+FFFD.
///
/// ```
/// use a2a_lambda_core::percent::decode_query;
///
/// assert_eq!(decode_query("1%2E0+beta"), "1.0 beta");
/// assert_eq!(decode_query("100%"), "100%");
/// ```
pub fn decode_query(text: &str) -> String {
    let bytes = decode(text, Mode::Form).unwrap_or_else(|| text.as_bytes().to_vec());
    String::from_utf8_lossy(&bytes).into_owned()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A malformed escape refuses the whole text; `+` is itself.
    Strict,
    /// A malformed escape is kept as written; `+` is a space.
    Form,
}

/// The bytes `text` encodes; `None` only in [`Mode::Strict`].
fn decode(text: &str, mode: Mode) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let hex = |at: usize| {
        bytes
            .get(at)
            .and_then(|byte| char::from(*byte).to_digit(16))
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        match (byte, mode) {
            (b'%', _) => match (hex(index + 1), hex(index + 2)) {
                (Some(high), Some(low)) => {
                    // Two hex digits: at most 0xFF, so the cast keeps every bit.
                    out.push((high * 16 + low) as u8);
                    index += 3;
                    continue;
                }
                _ if mode == Mode::Strict => return None,
                _ => out.push(b'%'),
            },
            (b'+', Mode::Form) => out.push(b' '),
            _ => out.push(byte),
        }
        index += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_round_trip() {
        for text in [
            "",
            "plain-_.~09AZaz",
            "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/my_agent-AbCdEf1234",
            "a b+c%d/é",
        ] {
            assert_eq!(
                decode_component(&encode_component(text)).as_deref(),
                Some(text)
            );
        }
        assert_eq!(encode_component("é+"), "%C3%A9%2B");
    }

    #[test]
    fn strict_decoding_refuses_malformed_escapes_and_non_utf8() {
        for text in ["bad%zz", "cut%3", "end%", "%+1x", "%-1x", "%C3"] {
            assert_eq!(decode_component(text), None, "{text}");
        }
        assert_eq!(decode_component("%c3%a9").as_deref(), Some("é"));
        assert_eq!(decode_component("a+b").as_deref(), Some("a+b"));
    }

    #[test]
    fn query_decoding_is_lenient() {
        assert_eq!(decode_query("1%2E0"), "1.0");
        assert_eq!(decode_query("a+b%20c"), "a b c");
        assert_eq!(decode_query("bad%zz"), "bad%zz");
        assert_eq!(decode_query("cut%3"), "cut%3");
        assert_eq!(decode_query("%C3"), "\u{FFFD}");
        assert_eq!(decode_query("%2B"), "+");
    }
}
