//! HTTP+JSON requests (every route of the binding, with a known task id where one is
//! named), and the other paths: the card, ping, AWS's paths, the emulator's own, and
//! paths that are none.

use arbitrary::{Result, Unstructured};
use serde_json::json;

use super::mutate::{mutate_bytes, mutate_value};
use super::values::{part_v1_0, random_body, webhook};
use super::{ARN, Known};
use crate::input::{Input, Target};

pub(super) fn rest(u: &mut Unstructured<'_>, known: &Known, target: Target) -> Result<Input> {
    let task = a2a_lambda_core::percent::encode_component(&known.task_id(u)?);
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

pub(super) fn other_path(u: &mut Unstructured<'_>, target: Target) -> Result<Input> {
    let card_under_invocations = format!(
        "/runtimes/{}/invocations/.well-known/agent-card.json",
        a2a_lambda_core::percent::encode_component(ARN)
    );
    let stop = format!(
        "/runtimes/{}/stopruntimesession",
        a2a_lambda_core::percent::encode_component(ARN)
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
