//! The checks of an answer: JSON-RPC 2.0 with the request's id, each event of a stream
//! too, and the task state due.

use serde_json::Value;

use super::caller::Reply;

/// A JSON-RPC response with `id`: its result, or its error code.
pub(super) fn answer(reply: &Reply, id: &Value) -> Result<Result<Value, i64>, String> {
    let value: Value = serde_json::from_str(&reply.body)
        .map_err(|_| format!("HTTP {} not JSON: {}", reply.status, preview(&reply.body)))?;
    one(&value, id)
}

fn one(value: &Value, id: &Value) -> Result<Result<Value, i64>, String> {
    if value["jsonrpc"] != "2.0" || value["id"] != *id {
        return Err(format!(
            "not JSON-RPC 2.0 with id {id}: {}",
            preview(&value.to_string())
        ));
    }
    match (value.get("result"), value["error"]["code"].as_i64()) {
        (Some(result), None) => Ok(Ok(result.clone())),
        (None, Some(code)) => Ok(Err(code)),
        _ => Err(format!("neither result nor error: {value}")),
    }
}

/// The events of an SSE body, each checked to be a JSON-RPC result with `id`.
pub(super) fn stream_results(reply: &Reply, id: &Value) -> Result<Vec<Value>, String> {
    if !reply.sse {
        return match answer(reply, id)? {
            Ok(result) => Ok(vec![result]),
            Err(code) => Err(format!("stream refused with {code}")),
        };
    }
    let mut results = Vec::new();
    for block in reply.body.split("\n\n") {
        let data: String = block
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim_start)
            .collect();
        if data.is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(&data).map_err(|_| format!("event not JSON: {data}"))?;
        match one(&value, id)? {
            Ok(result) => results.push(result),
            Err(code) => return Err(format!("stream event error {code}")),
        }
    }
    Ok(results)
}

pub(super) fn preview(text: &str) -> String {
    text.chars().take(200).collect()
}

pub(super) fn state_of(result: &Value) -> &str {
    let task = result.get("task").unwrap_or(result);
    let update = result.get("statusUpdate").unwrap_or(task);
    update["status"]["state"].as_str().unwrap_or_default()
}

pub(super) fn a2a_id(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|value| value.get("id").cloned())
        .unwrap_or(Value::Null)
}

pub(super) fn expect_state(result: &Value, state: &str) -> Result<(), String> {
    if state_of(result) == state {
        Ok(())
    } else {
        Err(format!(
            "state {:?} where {state:?} is due: {}",
            state_of(result),
            preview(&result.to_string())
        ))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sse(body: &str) -> Reply {
        Reply {
            status: 200,
            sse: true,
            body: body.to_owned(),
        }
    }

    #[test]
    fn a_stream_is_read_event_by_event_each_with_the_id() {
        let body = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"kind\":\"task\"}}\n\n\
                    data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"final\":true}}\n\n";
        let results = stream_results(&sse(body), &json!(3)).unwrap();
        assert_eq!(results, [json!({"kind": "task"}), json!({"final": true})]);
        // Another id, or an error event, is not what the stream is due.
        assert!(stream_results(&sse(body), &json!(4)).is_err());
        let error = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"x\"}}\n\n";
        assert_eq!(
            stream_results(&sse(error), &json!(3)),
            Err("stream event error -32603".to_owned())
        );
    }

    #[test]
    fn the_state_is_read_from_a_task_a_v1_wrapper_or_a_status_update() {
        assert_eq!(
            state_of(&json!({"status": {"state": "completed"}})),
            "completed"
        );
        assert_eq!(
            state_of(&json!({"task": {"status": {"state": "TASK_STATE_WORKING"}}})),
            "TASK_STATE_WORKING"
        );
        assert_eq!(
            state_of(&json!({"statusUpdate": {"status": {"state": "TASK_STATE_CANCELED"}}})),
            "TASK_STATE_CANCELED"
        );
    }
}
