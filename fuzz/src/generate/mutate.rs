//! Mutations of a valid input: its JSON values and shapes, its bytes, its headers.

use arbitrary::{Result, Unstructured};
use serde_json::Value;

use super::values::random_value;
use crate::input::Input;

/// Changes a valid value: drops, retypes or replaces members, at any depth.
pub(super) fn mutate_value(
    u: &mut Unstructured<'_>,
    value: &mut Value,
    depth: usize,
) -> Result<()> {
    if depth > 6 || !u.ratio(1, 3)? {
        return Ok(());
    }
    match value {
        Value::Object(object) if !object.is_empty() => {
            let keys: Vec<String> = object.keys().cloned().collect();
            let key = u.choose(&keys)?.clone();
            match u.int_in_range(0..=5)? {
                0 => {
                    object.remove(&key);
                }
                1 => {
                    object.insert(key, random_value(u, 3)?);
                }
                2 => {
                    object.insert(key.to_uppercase(), Value::Null);
                }
                _ => {
                    if let Some(inner) = object.get_mut(&key) {
                        mutate_value(u, inner, depth + 1)?;
                    }
                }
            }
        }
        Value::Array(array) if !array.is_empty() => {
            let at = u.choose_index(array.len())?;
            match u.int_in_range(0..=3)? {
                0 => {
                    array.remove(at);
                }
                1 => {
                    let copy = array[at].clone();
                    array.extend(std::iter::repeat_n(copy, u.int_in_range(1..=20)?));
                }
                _ => mutate_value(u, &mut array[at], depth + 1)?,
            }
        }
        other => *other = random_value(u, 4)?,
    }
    Ok(())
}

/// Changes the bytes: truncation, a flipped byte, invalid UTF-8, a BOM, trailing data, a
/// second document.
pub(super) fn mutate_bytes(u: &mut Unstructured<'_>, body: &mut Vec<u8>) -> Result<()> {
    if !u.ratio(1, 6)? {
        return Ok(());
    }
    let at = if body.is_empty() {
        0
    } else {
        u.choose_index(body.len())?
    };
    match u.int_in_range(0..=8)? {
        0 => body.truncate(at),
        1 => {
            if let Some(byte) = body.get_mut(at) {
                *byte ^= 1 << u.int_in_range(0..=7)?;
            }
        }
        2 => body.splice(at..at, [0xff, 0xfe, 0xc3]).for_each(drop),
        3 => body.splice(0..0, [0xef, 0xbb, 0xbf]).for_each(drop),
        4 => body.extend_from_slice(b" {\"jsonrpc\":\"2.0\"}"),
        5 => body.extend_from_slice(b"\x00garbage"),
        6 => body.splice(at..at, *b"\\ud800").for_each(drop),
        7 => {
            let tail = body.split_off(at);
            body.extend_from_slice(b"\"\\u0000\"");
            body.extend_from_slice(&tail);
        }
        _ => {
            let copy = body.clone();
            body.extend_from_slice(&copy);
        }
    }
    Ok(())
}

/// Adds, drops or replaces headers: content types, versions, extensions, accept, ids,
/// lengths.
pub(super) fn mutate_headers(u: &mut Unstructured<'_>, input: &mut Input) -> Result<()> {
    for _ in 0..u.int_in_range(0..=2)? {
        match u.int_in_range(0..=7)? {
            0 => {
                input
                    .headers
                    .retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
                if u.ratio(2, 3)? {
                    let value = u
                        .choose(&[
                            &b"text/plain"[..],
                            b"application/json; charset=latin1",
                            b"application/a2a+json",
                            b"multipart/form-data; boundary=x",
                            b"",
                            b"application/json\xff",
                            b"APPLICATION/JSON",
                        ])?
                        .to_vec();
                    input.headers.push(("content-type".to_owned(), value));
                }
            }
            1 => {
                input
                    .headers
                    .retain(|(name, _)| !name.eq_ignore_ascii_case("a2a-version"));
                let value = u
                    .choose(&[
                        &b"1.0"[..],
                        b"0.3",
                        b"",
                        b"1.0.0",
                        b"0.3.0",
                        b"2.0",
                        b"1",
                        b" 1.0 ",
                        b"1.0, 0.3",
                        b"\xff",
                    ])?
                    .to_vec();
                input.headers.push(("a2a-version".to_owned(), value));
            }
            2 => input.headers.push((
                "a2a-extensions".to_owned(),
                u.choose(&[&b"https://example.com/ext"[..], b"", b",,,", b"\xc3("])?
                    .to_vec(),
            )),
            3 => input.headers.push((
                "accept".to_owned(),
                u.choose(&[&b"text/event-stream"[..], b"application/json", b"*/*", b"x"])?
                    .to_vec(),
            )),
            4 => input.headers.push((
                "last-event-id".to_owned(),
                u.choose(&[&b"0"[..], b"-1", b"99999999999999999999", b"abc"])?
                    .to_vec(),
            )),
            5 => input.headers.push((
                "x-amzn-bedrock-agentcore-runtime-user-id".to_owned(),
                u.choose(&[&b"alice"[..], b"", b"\xff\xfe"])?.to_vec(),
            )),
            6 => input.headers.push((
                "authorization".to_owned(),
                u.choose(&[
                    &b"Bearer x.y.z"[..],
                    b"Bearer",
                    b"Basic Zm9vOmJhcg==",
                    b"AWS4-HMAC-SHA256 Credential=x",
                ])?
                .to_vec(),
            )),
            _ => input.headers.push((
                "x-request-id".to_owned(),
                u.choose(&[&b"r-1"[..], b"", b"\x01"])?.to_vec(),
            )),
        }
    }
    Ok(())
}
