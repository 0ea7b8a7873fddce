//! Inputs from random bytes ([`arbitrary::Unstructured`]): a valid request of one of the
//! methods (every JSON-RPC method of v0.3 and v1.0, every HTTP+JSON route, the card, ping,
//! AWS's invocation paths), then mutated — its JSON values and shapes, its id, its
//! envelope, its bytes (deep nesting, huge numbers, invalid UTF-8, truncation), its
//! headers (content types, `A2A-Version`s, session ids), its method and path.
//!
//! The same bytes always make the same input, so a run is replayed from its seed, and a
//! coverage-guided engine that feeds bytes can drive this generator unchanged.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Value, json};

use crate::input::{Input, Target};

/// A runtime ARN the front serves (any well-formed one is served).
pub const ARN: &str =
    "arn:aws:bedrock-agentcore:us-east-1:123456789012:runtime/fuzz_agent-AbCdEf1234";
/// The path prefix of the JSON-RPC-only container's public URL.
pub const INTERFACE_PATH: &str = "/runtimes/fuzz/invocations";

/// Task ids seen in answers, which later inputs name (a get of a task that exists reaches
/// further than one of a random id). Bounded.
#[derive(Debug, Default, Clone)]
pub struct Known {
    task_ids: Vec<String>,
    next: usize,
}

impl Known {
    /// How many ids are kept.
    pub const CAPACITY: usize = 64;

    /// Remembers a task id (the oldest is forgotten first).
    pub fn remember(&mut self, id: &str) {
        if self.task_ids.len() < Self::CAPACITY {
            self.task_ids.push(id.to_owned());
        } else {
            self.task_ids[self.next] = id.to_owned();
            self.next = (self.next + 1) % Self::CAPACITY;
        }
    }

    fn task_id(&self, u: &mut Unstructured<'_>) -> Result<String> {
        if !self.task_ids.is_empty() && u.ratio(3, 4)? {
            return Ok(u.choose(&self.task_ids)?.clone());
        }
        odd_string(u)
    }
}

/// Every JSON-RPC method name, both versions, and some that are none.
const METHODS_V0_3: [&str; 10] = [
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
];
const METHODS_V1_0: [&str; 11] = [
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];
const ODD_METHODS: [&str; 8] = [
    "",
    "message/Send",
    "sendMessage",
    "message/send/",
    "rpc.discover",
    "tasks/list",
    "GetTask\u{0}",
    "ΣendMessage",
];

/// One input from `u`.
///
/// ```
/// use a2a_fuzz::generate::{Known, input};
///
/// let bytes = [7u8; 256];
/// let one = input(&mut arbitrary::Unstructured::new(&bytes), &Known::default()).unwrap();
/// let two = input(&mut arbitrary::Unstructured::new(&bytes), &Known::default()).unwrap();
/// assert_eq!(one, two);
/// ```
///
/// # Errors
/// Only when `u` runs dry in a way `arbitrary` reports (it normally yields zeros).
pub fn input(u: &mut Unstructured<'_>, known: &Known) -> Result<Input> {
    let target = *u.choose(&Target::ALL)?;
    let mut input = match u.int_in_range(0..=19)? {
        0..=10 => json_rpc(u, known, target)?,
        11..=14 if target.serves_rest() => rest(u, known, target)?,
        11..=14 => json_rpc(u, known, target)?,
        15 | 16 => other_path(u, target)?,
        _ => random_request(u, target)?,
    };
    // Nearly always a session of the pool: without one, each invocation starts a new
    // session, and the quota (1,000) is soon reached.
    if target == Target::Front && u.ratio(63, 64)? {
        input.headers.push((
            "x-amzn-bedrock-agentcore-runtime-session-id".to_owned(),
            session_id(u)?,
        ));
    }
    mutate_headers(u, &mut input)?;
    if u.ratio(1, 12)? {
        input.method = u.choose(&METHODS_HTTP)?.to_string();
    }
    Ok(input)
}

const METHODS_HTTP: [&str; 9] = [
    "GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "FUZZ",
];

fn json_rpc(u: &mut Unstructured<'_>, known: &Known, target: Target) -> Result<Input> {
    let v1 = u.ratio(1, 2)?;
    let method = if u.ratio(1, 20)? {
        u.choose(&ODD_METHODS)?.to_string()
    } else if v1 {
        u.choose(&METHODS_V1_0)?.to_string()
    } else {
        u.choose(&METHODS_V0_3)?.to_string()
    };
    let params = params(u, known, &method)?;
    let mut envelope = Map::new();
    envelope.insert("jsonrpc".to_owned(), json!("2.0"));
    envelope.insert("id".to_owned(), id(u)?);
    envelope.insert("method".to_owned(), Value::String(method));
    if let Some(params) = params {
        envelope.insert("params".to_owned(), params);
    }
    let mut envelope = Value::Object(envelope);
    mutate_value(u, &mut envelope, 0)?;
    let mut body = serde_json::to_vec(&envelope).unwrap_or_default();
    mutate_bytes(u, &mut body)?;
    let path = json_rpc_path(u, target)?;
    let mut headers = vec![("content-type".to_owned(), b"application/json".to_vec())];
    if v1 {
        headers.push(("a2a-version".to_owned(), b"1.0".to_vec()));
    }
    Ok(Input {
        target,
        method: "POST".to_owned(),
        path,
        headers,
        body,
    })
}

fn json_rpc_path(u: &mut Unstructured<'_>, target: Target) -> Result<String> {
    let invocations = format!(
        "/runtimes/{}/invocations",
        a2a_core::percent::encode_component(ARN)
    );
    let choices: Vec<String> = match target {
        Target::Container => vec!["/".to_owned()],
        Target::ContainerJsonRpc => vec![
            "/".to_owned(),
            format!("{INTERFACE_PATH}/"),
            INTERFACE_PATH.to_owned(),
        ],
        Target::Front => vec![
            "/".to_owned(),
            format!("{invocations}/"),
            invocations.clone(),
            format!("{invocations}?qualifier=DEFAULT"),
            format!("{invocations}/?qualifier=OTHER"),
            "/runtimes/fuzz_agent-AbCdEf1234/invocations".to_owned(),
            "/runtimes/not%an%arn/invocations".to_owned(),
        ],
    };
    let mut path = u.choose(&choices)?.clone();
    if u.ratio(1, 16)? {
        path.push_str(u.choose(&ODD_QUERIES)?);
    }
    Ok(path)
}

const ODD_QUERIES: [&str; 7] = [
    "?A2A-Version=1.0",
    "?A2A-Version=0.3",
    "?A2A-Version=9.9",
    "?A2A-Version=",
    "?a2a-version=1.0&A2A-Version=0.3",
    "?%ff=%00",
    "?qualifier=%E2%82%AC",
];

fn params(u: &mut Unstructured<'_>, known: &Known, method: &str) -> Result<Option<Value>> {
    let task = known.task_id(u)?;
    let v1_message =
        || json!({"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]});
    let params = match method {
        "message/send" | "message/stream" => {
            let mut message = json!({
                "kind": "message", "role": "user", "messageId": message_id(u)?,
                "parts": [part_v0_3(u)?],
            });
            if u.ratio(1, 4)? {
                message["taskId"] = Value::String(task);
            }
            if u.ratio(1, 4)? {
                message["contextId"] = Value::String(odd_string(u)?);
            }
            let mut params = json!({ "message": message });
            if u.ratio(1, 3)? {
                params["configuration"] = json!({
                    "blocking": u.arbitrary::<bool>()?,
                    "acceptedOutputModes": ["text/plain"],
                    "historyLength": number(u)?,
                });
            }
            params
        }
        "SendMessage" | "SendStreamingMessage" => {
            let mut message = v1_message();
            message["messageId"] = Value::String(message_id(u)?);
            message["parts"] = json!([part_v1_0(u)?]);
            if u.ratio(1, 4)? {
                message["taskId"] = Value::String(task);
            }
            let mut params = json!({ "message": message });
            if u.ratio(1, 3)? {
                params["configuration"] = json!({
                    "returnImmediately": u.arbitrary::<bool>()?,
                    "acceptedOutputModes": ["text/plain", "application/json"],
                    "historyLength": number(u)?,
                });
            }
            params
        }
        "tasks/get" | "GetTask" => json!({"id": task, "historyLength": number(u)?}),
        "tasks/cancel" | "tasks/resubscribe" | "CancelTask" | "SubscribeToTask" => {
            json!({ "id": task })
        }
        "ListTasks" => json!({
            "contextId": odd_string(u)?,
            "status": u.choose(&["TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "working", "TASK_STATE_UNSPECIFIED"])?,
            "pageSize": number(u)?,
            "pageToken": odd_string(u)?,
            "includeArtifacts": u.arbitrary::<bool>()?,
        }),
        "tasks/pushNotificationConfig/set" => json!({
            "taskId": task,
            "pushNotificationConfig": {"id": "c-1", "url": webhook(u)?, "token": "t"},
        }),
        "tasks/pushNotificationConfig/get" | "tasks/pushNotificationConfig/delete" => {
            json!({"id": task, "pushNotificationConfigId": "c-1"})
        }
        "tasks/pushNotificationConfig/list" => json!({ "id": task }),
        "CreateTaskPushNotificationConfig" => {
            json!({"taskId": task, "id": "c-1", "url": webhook(u)?, "token": "t"})
        }
        "GetTaskPushNotificationConfig" | "DeleteTaskPushNotificationConfig" => {
            json!({"taskId": task, "id": "c-1"})
        }
        "ListTaskPushNotificationConfigs" => json!({"taskId": task, "pageSize": number(u)?}),
        "agent/getAuthenticatedExtendedCard" | "GetExtendedAgentCard" => {
            return Ok(u.ratio(1, 2)?.then(|| json!({})));
        }
        _ => random_value(u, 0)?,
    };
    Ok(Some(params))
}

fn message_id(u: &mut Unstructured<'_>) -> Result<String> {
    // The echo agent reads no prefix; odd ids still reach the store and the logs.
    if u.ratio(3, 4)? {
        Ok(format!("m-{}", u.arbitrary::<u32>()?))
    } else {
        odd_string(u)
    }
}

fn webhook(u: &mut Unstructured<'_>) -> Result<&'static str> {
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

fn part_v0_3(u: &mut Unstructured<'_>) -> Result<Value> {
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

fn part_v1_0(u: &mut Unstructured<'_>) -> Result<Value> {
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

/// An id of every kind JSON-RPC allows and some it does not.
fn id(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=11)? {
        0..=3 => json!(u.int_in_range(0..=1_000_000u32)?),
        4 | 5 => Value::String(format!("req-{}", u.arbitrary::<u16>()?)),
        6 => Value::Null,
        7 => json!(u.arbitrary::<i64>()?),
        8 => json!(
            u.arbitrary::<f64>()
                .map(|f| if f.is_finite() { f } else { 0.5 })?
        ),
        9 => Value::String(odd_string(u)?),
        10 => json!(u.arbitrary::<bool>()?),
        _ => random_value(u, 3)?,
    })
}

/// Numbers of every size: small, negative, fractional, past 64 bits.
fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => json!(u.int_in_range(0..=10u32)?),
        3 => json!(u.arbitrary::<i64>()?),
        4 => json!(-1),
        _ => json!(1.5),
    })
}

/// Strings with the characters that break code: escapes, NUL, surrogates written as
/// escapes, RTL marks, long runs.
fn odd_string(u: &mut Unstructured<'_>) -> Result<String> {
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

fn session_id(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    // A small pool keeps the sessions few (each is an engine of its own), as a client
    // reusing its sessions does; the rest are invalid ones the front must refuse.
    Ok(match u.int_in_range(0..=9)? {
        0..=6 => format!("fuzz-session-{:0>28}", u.int_in_range(0..=7u8)?).into_bytes(),
        7 => b"short".to_vec(),
        8 => vec![b'a'; 257],
        _ => b"fuzz-session-\xff\xfe-with-bytes-that-are-not-utf8".to_vec(),
    })
}

fn rest(u: &mut Unstructured<'_>, known: &Known, target: Target) -> Result<Input> {
    let task = a2a_core::percent::encode_component(&known.task_id(u)?);
    let send =
        json!({"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [part_v1_0(u)?]}});
    let (method, path, body) = match u.int_in_range(0..=11)? {
        0 | 1 => ("POST", "/message:send".to_owned(), Some(send)),
        2 => ("POST", "/message:stream".to_owned(), Some(send)),
        3 => ("GET", format!("/tasks/{task}?historyLength=2"), None),
        4 => (
            "GET",
            "/tasks?pageSize=5&status=TASK_STATE_WORKING".to_owned(),
            None,
        ),
        5 => ("POST", format!("/tasks/{task}:cancel"), Some(json!({}))),
        6 => ("POST", format!("/tasks/{task}:subscribe"), None),
        7 => ("GET", format!("/tasks/{task}:subscribe"), None),
        8 => (
            "POST",
            format!("/tasks/{task}/pushNotificationConfigs"),
            Some(json!({"url": webhook(u)?, "id": "c-1"})),
        ),
        9 => (
            "GET",
            format!("/tasks/{task}/pushNotificationConfigs/c-1"),
            None,
        ),
        10 => (
            "DELETE",
            format!("/tasks/{task}/pushNotificationConfigs/c-1"),
            None,
        ),
        _ => ("GET", "/extendedAgentCard".to_owned(), None),
    };
    let mut path = path;
    if u.ratio(1, 8)? {
        path = format!("/{}{path}", u.choose(&["tenant-a", "tasks", "%ff", "%2F"])?);
    }
    if u.ratio(1, 10)? {
        path.push_str(u.choose(&[
            "&historyLength=-1",
            "?pageSize=99999999999",
            "?status=bogus",
            "?%zz",
        ])?);
    }
    let body = match body {
        Some(mut value) => {
            mutate_value(u, &mut value, 0)?;
            let mut bytes = serde_json::to_vec(&value).unwrap_or_default();
            mutate_bytes(u, &mut bytes)?;
            bytes
        }
        None => Vec::new(),
    };
    let mut headers = vec![("a2a-version".to_owned(), b"1.0".to_vec())];
    if !body.is_empty() {
        headers.push(("content-type".to_owned(), b"application/json".to_vec()));
    }
    Ok(Input {
        target,
        method: method.to_owned(),
        path,
        headers,
        body,
    })
}

fn other_path(u: &mut Unstructured<'_>, target: Target) -> Result<Input> {
    let card_under_invocations = format!(
        "/runtimes/{}/invocations/.well-known/agent-card.json",
        a2a_core::percent::encode_component(ARN)
    );
    let stop = format!(
        "/runtimes/{}/stopruntimesession",
        a2a_core::percent::encode_component(ARN)
    );
    let paths = [
        "/.well-known/agent-card.json",
        "/ping",
        card_under_invocations.as_str(),
        stop.as_str(),
        "/_emulator/api/invocations",
        "/_emulator/api/sessions",
        "/_emulator/",
        "/_emulator/webhooks/sink-1",
        "/nothing/here",
        "//",
        "/%2e%2e/%2e%2e",
        "/runtimes/",
        "/runtimes//invocations",
        "/tasks/",
        "/tasks/a/b/c:cancel",
        "/message:sendx",
    ];
    let path = u.choose(&paths)?.to_string();
    let method = u
        .choose(&["GET", "GET", "POST", "HEAD", "DELETE"])?
        .to_string();
    let mut headers = Vec::new();
    if u.ratio(1, 4)? {
        headers.push((
            "if-none-match".to_owned(),
            u.choose(&[&b"*"[..], b"\"0\"", b"W/\"x\"", b""])?.to_vec(),
        ));
    }
    let body = if method == "POST" {
        random_body(u)?
    } else {
        Vec::new()
    };
    Ok(Input {
        target,
        method,
        path,
        headers,
        body,
    })
}

fn random_request(u: &mut Unstructured<'_>, target: Target) -> Result<Input> {
    let path = json_rpc_path(u, target)?;
    let body = random_body(u)?;
    Ok(Input {
        target,
        method: "POST".to_owned(),
        path,
        headers: vec![("content-type".to_owned(), b"application/json".to_vec())],
        body,
    })
}

/// Bytes that are JSON of any shape, or nearly JSON, or not at all.
fn random_body(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
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
fn random_value(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
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

/// Changes a valid value: drops, retypes or replaces members, at any depth.
fn mutate_value(u: &mut Unstructured<'_>, value: &mut Value, depth: usize) -> Result<()> {
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
fn mutate_bytes(u: &mut Unstructured<'_>, body: &mut Vec<u8>) -> Result<()> {
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
fn mutate_headers(u: &mut Unstructured<'_>, input: &mut Input) -> Result<()> {
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
