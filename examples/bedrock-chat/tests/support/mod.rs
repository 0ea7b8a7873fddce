//! A stand-in for Bedrock Runtime's ConverseStream on a local wiremock server: answers in
//! AWS's event-stream encoding (`application/vnd.amazon.eventstream`: binary frames with
//! `:message-type`, `:event-type` / `:exception-type` and `:content-type` headers and a JSON
//! payload, <https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html>), framed by
//! `aws-smithy-eventstream`, the crate the SDK decodes them with; and errors as the
//! restJson1 protocol sends them (status, `x-amzn-errortype`, `{"message"}` body).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use aws_sdk_bedrockruntime::primitives::event_stream::{Header, HeaderValue, Message};
use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The media type of an event stream.
pub const EVENT_STREAM: &str = "application/vnd.amazon.eventstream";

fn frame(headers: [(&'static str, &'static str); 3], payload: &Value) -> Vec<u8> {
    let headers = headers
        .into_iter()
        .map(|(name, value)| Header::new(name, HeaderValue::String(value.into())))
        .collect();
    let message = Message::new_from_parts(headers, payload.to_string().into_bytes());
    let mut bytes = Vec::new();
    aws_smithy_eventstream::frame::write_message_to(&message, &mut bytes).unwrap();
    bytes
}

/// One event frame of the answer stream.
pub fn event(event_type: &'static str, payload: &Value) -> Vec<u8> {
    frame(
        [
            (":message-type", "event"),
            (":event-type", event_type),
            (":content-type", "application/json"),
        ],
        payload,
    )
}

/// One exception frame of the answer stream (`throttlingException`, …).
pub fn exception(exception_type: &'static str, message: &str) -> Vec<u8> {
    frame(
        [
            (":message-type", "exception"),
            (":exception-type", exception_type),
            (":content-type", "application/json"),
        ],
        &json!({ "message": message }),
    )
}

/// A whole answer: message start, the text deltas, stop, usage.
pub fn answer(deltas: &[&str], input_tokens: u64, output_tokens: u64) -> Vec<u8> {
    let mut body = event("messageStart", &json!({"role": "assistant"}));
    for delta in deltas {
        body.extend(event(
            "contentBlockDelta",
            &json!({"contentBlockIndex": 0, "delta": {"text": delta}}),
        ));
    }
    body.extend(event("contentBlockStop", &json!({"contentBlockIndex": 0})));
    body.extend(event("messageStop", &json!({"stopReason": "end_turn"})));
    body.extend(event(
        "metadata",
        &json!({
            "usage": {
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
                "totalTokens": input_tokens + output_tokens,
            },
            "metrics": {"latencyMs": 120},
        }),
    ));
    body
}

/// A 200 answer whose body is `frames`.
pub fn streaming(frames: Vec<u8>) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", EVENT_STREAM)
        .set_body_raw(frames, EVENT_STREAM)
}

/// An error answer of the call itself, as Bedrock sends `error_type`.
pub fn error(status: u16, error_type: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("x-amzn-errortype", error_type)
        .set_body_json(json!({ "message": message }))
}

/// Every ConverseStream call answered by `response`, once each in order when mounted
/// several times with `up_to_n_times`.
pub async fn mount(server: &MockServer, response: ResponseTemplate, times: Option<u64>) {
    let mock = Mock::given(method("POST"))
        .and(path_regex(r"^/model/[^/]+/converse-stream$"))
        .respond_with(response);
    match times {
        Some(times) => mock.up_to_n_times(times).mount(server).await,
        None => mock.mount(server).await,
    }
}
