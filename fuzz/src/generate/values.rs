//! Values: message parts, media types and webhook URLs of both versions; numbers, strings
//! and session ids that break code; JSON of any shape, and bodies that are nearly JSON
//! (deep nesting, huge numbers) or not at all.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};

use super::mutate::mutate_bytes;

pub(super) fn webhook(u: &mut Unstructured<'_>) -> Result<&'static str> {
    u.choose(&[
        "https://example.com/hook",
        "http://127.0.0.1:1/hook",
        "http://10.0.0.1/hook",
        "not a url",
        "",
        "ftp://example.com/",
    ])
    .copied()
}

pub(super) fn part_v0_3(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=4)? {
        0 | 1 => json!({"kind": "text", "text": odd_string(u)?}),
        2 => {
            json!({"kind": "file", "file": {"bytes": "aGVsbG8=", "mimeType": media_type(u)?, "name": "a.txt"}})
        }
        3 => {
            json!({"kind": "file", "file": {"uri": "https://example.com/a.txt", "mimeType": media_type(u)?}})
        }
        _ => json!({"kind": "data", "data": random_value(u, 0)?}),
    })
}

pub(super) fn part_v1_0(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=4)? {
        0 | 1 => json!({"text": odd_string(u)?}),
        2 => json!({"raw": "aGVsbG8=", "mediaType": media_type(u)?, "filename": "a.txt"}),
        3 => json!({"url": "https://example.com/a.txt", "mediaType": media_type(u)?}),
        _ => json!({"data": random_value(u, 0)?}),
    })
}

fn media_type(u: &mut Unstructured<'_>) -> Result<&'static str> {
    u.choose(&[
        "text/plain",
        "application/json",
        "image/png",
        "",
        "text/plain; charset=utf-8",
        "*/*",
        "x",
    ])
    .copied()
}

/// Numbers of every size: small, negative, fractional, past 64 bits.
pub(super) fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => json!(u.int_in_range(0..=10u32)?),
        3 => json!(u.arbitrary::<i64>()?),
        4 => json!(-1),
        _ => json!(1.5),
    })
}

/// Strings with the characters that break code: escapes, NUL, surrogates written as
/// escapes, RTL marks, long runs.
pub(super) fn odd_string(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=9)? {
        0..=3 => format!("t-{}", u.arbitrary::<u16>()?),
        4 => String::new(),
        5 => "\u{0}\u{1f}\"\\/\u{202e}\u{feff}é😀".to_owned(),
        // Long runs; rarely past the sizes of the common paths' buffers.
        6 if u.ratio(1, 50)? => "x".repeat(u.int_in_range(10_000..=70_000)?),
        6 => "x".repeat(u.int_in_range(100..=2_000)?),
        7 => "../../etc/passwd%00%2F?#".to_owned(),
        8 => " ".to_owned(),
        _ => u.arbitrary::<String>()?,
    })
}

pub(super) fn session_id(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    // A small pool keeps the sessions few (each is an engine of its own), as a client
    // reusing its sessions does; the rest are invalid ones the front must refuse.
    Ok(match u.int_in_range(0..=9)? {
        0..=6 => format!("fuzz-session-{:0>28}", u.int_in_range(0..=7u8)?).into_bytes(),
        7 => b"short".to_vec(),
        8 => vec![b'a'; 257],
        _ => b"fuzz-session-\xff\xfe-with-bytes-that-are-not-utf8".to_vec(),
    })
}

/// Bytes that are JSON of any shape, or nearly JSON, or not at all.
pub(super) fn random_body(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut body = match u.int_in_range(0..=5)? {
        0 | 1 => serde_json::to_vec(&random_value(u, 0)?).unwrap_or_default(),
        2 => nested(u)?,
        3 => u.arbitrary::<Vec<u8>>()?,
        4 => huge_numbers(u)?,
        _ => Vec::new(),
    };
    mutate_bytes(u, &mut body)?;
    Ok(body)
}

fn nested(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let depth = if u.ratio(1, 50)? {
        200_000
    } else {
        *u.choose(&[10usize, 63, 64, 65, 128, 129, 200, 10_000])?
    };
    let (open, close): (&[u8], &[u8]) = *u.choose(&[
        (&b"["[..], &b"]"[..]),
        (b"{\"a\":", b"}"),
        (b"{\"params\":", b"}"),
    ])?;
    let mut body = br#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":"#.to_vec();
    for _ in 0..depth {
        body.extend_from_slice(open);
    }
    body.extend_from_slice(b"1");
    if u.ratio(3, 4)? {
        for _ in 0..depth {
            body.extend_from_slice(close);
        }
    }
    body.push(b'}');
    Ok(body)
}

fn huge_numbers(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let number = *u.choose(&[
        "1e400",
        "-1e400",
        "123456789012345678901234567890",
        "18446744073709551616",
        "-9223372036854775809",
        "0.0000000000000000000000000000001",
        "1E+2",
        "-0",
        "01",
        "1.",
        "NaN",
        "Infinity",
    ])?;
    let body = match u.int_in_range(0..=2)? {
        0 => format!(
            r#"{{"jsonrpc":"2.0","id":{number},"method":"tasks/get","params":{{"id":"t"}}}}"#
        ),
        1 => format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{{"id":"t","historyLength":{number}}}}}"#
        ),
        _ => format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"ListTasks","params":{{"pageSize":{number}}}}}"#
        ),
    };
    Ok(body.into_bytes())
}

/// A JSON value of any shape, `depth` levels in.
pub(super) fn random_value(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    let leaf = depth > 4 || u.ratio(1, 2)?;
    Ok(match (leaf, u.int_in_range(0..=5)?) {
        (true, 0) => Value::Null,
        (true, 1) => json!(u.arbitrary::<bool>()?),
        (true, 2) => json!(u.arbitrary::<i64>()?),
        (true, 3) => json!(
            u.arbitrary::<f64>()
                .map(|f| if f.is_finite() { f } else { 1.0 })?
        ),
        (true, _) => Value::String(odd_string(u)?),
        (false, 0..=2) => {
            let mut object = Map::new();
            for _ in 0..u.int_in_range(0..=4)? {
                let key = u
                    .choose(&[
                        "id",
                        "kind",
                        "message",
                        "parts",
                        "text",
                        "taskId",
                        "role",
                        "metadata",
                        "params",
                        "jsonrpc",
                        "method",
                        "",
                        "__proto__",
                    ])?
                    .to_string();
                object.insert(key, random_value(u, depth + 1)?);
            }
            Value::Object(object)
        }
        (false, _) => {
            let mut array = Vec::new();
            for _ in 0..u.int_in_range(0..=4)? {
                array.push(random_value(u, depth + 1)?);
            }
            Value::Array(array)
        }
    })
}
