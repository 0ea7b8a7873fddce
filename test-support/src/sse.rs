//! One reader of server-sent events for every test: the bytes of a `text/event-stream`
//! body, however they are cut into chunks, become its events ([`SseEvent`]: the `id`,
//! `event` and `data` fields, and the lines as sent).
//!
//! - [`SseParser`] reads a body chunk by chunk and hands back each event it completes (or
//!   only the data of those with data: [`SseParser::push_data`]).
//! - [`events`] reads a whole body; an unfinished event at its end is left out.
//! - [`json`] is the JSON of every event with data; [`read_json`] reads an
//!   [`http_body::Body`] to its end first (bounded).
//!
//! Lines end with `\n` (a `\r` before it is dropped); a blank line ends an event; the
//! `data` lines of one event are joined with `\n`; a `:` line is a comment (a keep-alive).
//! A block of lines without data is an event too (its `data` is `None`): a test can see a
//! keep-alive, which the SSE spec would not dispatch.

use std::time::Duration;

use http_body_util::BodyExt as _;
use serde_json::Value;

/// How long [`read_json`] waits for a whole body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// One event: the lines between two blank lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `id` field (the last one, when several).
    pub id: Option<String>,
    /// The `event` field (the event's name).
    pub event: Option<String>,
    /// The `data` lines joined with `\n`; `None` when the event has no `data` line.
    pub data: Option<String>,
    /// The event's lines as sent (comments included), without their line ends.
    pub lines: Vec<String>,
}

impl SseEvent {
    /// The data as JSON.
    ///
    /// # Panics
    /// When the event has no data, or its data is not JSON.
    pub fn json(&self) -> Value {
        let Some(data) = &self.data else {
            panic!("an SSE event without data: {:?}", self.lines)
        };
        serde_json::from_str(data)
            .unwrap_or_else(|error| panic!("SSE data is not JSON ({error}): {data}"))
    }
}

/// Splits the bytes of an SSE body into its events, however they are chunked.
#[derive(Debug, Default)]
pub struct SseParser {
    line: Vec<u8>,
    event: SseEvent,
}

impl SseParser {
    /// Feeds bytes; returns every event they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.is_empty() {
                if !self.event.lines.is_empty() {
                    events.push(std::mem::take(&mut self.event));
                }
                continue;
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "data" => match &mut self.event.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.event.data = Some(value.to_owned()),
                },
                "id" => self.event.id = Some(value.to_owned()),
                "event" => self.event.event = Some(value.to_owned()),
                _ => {}
            }
            self.event.lines.push(line);
        }
        events
    }

    /// Feeds bytes; returns the data of every event they complete that has data
    /// (keep-alives and other events without data are skipped).
    pub fn push_data(&mut self, bytes: &[u8]) -> Vec<String> {
        self.push(bytes)
            .into_iter()
            .filter_map(|event| event.data)
            .collect()
    }

    /// Whether the bytes so far end exactly where an event did (nothing is held back).
    pub fn is_between_events(&self) -> bool {
        self.line.is_empty() && self.event.lines.is_empty()
    }
}

/// The complete events of a body (an unfinished one at its end is left out).
pub fn events(body: impl AsRef<[u8]>) -> Vec<SseEvent> {
    SseParser::default().push(body.as_ref())
}

/// The JSON data of every event of a body that has data, in order.
///
/// # Panics
/// When some data is not JSON.
pub fn json(body: impl AsRef<[u8]>) -> Vec<Value> {
    events(body)
        .iter()
        .filter(|event| event.data.is_some())
        .map(SseEvent::json)
        .collect()
}

/// Reads `body` to its end (within [`BODY_TIMEOUT`]) and returns [`json`] of it.
///
/// # Panics
/// When the body fails or does not end in time, or some data is not JSON.
pub async fn read_json<B>(body: B) -> Vec<Value>
where
    B: http_body::Body,
    B::Error: std::fmt::Debug,
{
    let collected = tokio::time::timeout(BODY_TIMEOUT, body.collect())
        .await
        .unwrap_or_else(|_| panic!("the SSE body did not end within {BODY_TIMEOUT:?}"))
        .unwrap_or_else(|error| panic!("reading the SSE body failed: {error:?}"));
    json(collected.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "data: {\"a\":1}\n\n: keep-alive\n\ndata: one\ndata: two\n\n\
                        event: x\r\nid: 7\r\ndata:three\r\n\r\n";

    fn data(events: &[SseEvent]) -> Vec<Option<&str>> {
        events.iter().map(|event| event.data.as_deref()).collect()
    }

    #[test]
    fn events_are_read_whatever_the_chunking() {
        let bytes = BODY.as_bytes();
        let whole = events(bytes);
        assert_eq!(
            data(&whole),
            [Some("{\"a\":1}"), None, Some("one\ntwo"), Some("three")]
        );
        assert_eq!(whole[1].lines, [": keep-alive"]);
        assert_eq!(whole[3].event.as_deref(), Some("x"));
        assert_eq!(whole[3].id.as_deref(), Some("7"));
        assert_eq!(whole[3].lines, ["event: x", "id: 7", "data:three"]);
        for size in 1..bytes.len() {
            let mut parser = SseParser::default();
            let chunked: Vec<SseEvent> = bytes.chunks(size).flat_map(|c| parser.push(c)).collect();
            assert_eq!(chunked, whole, "chunks of {size}");
            assert!(parser.is_between_events());
        }
    }

    #[test]
    fn an_unfinished_event_is_held_back() {
        let mut parser = SseParser::default();
        assert!(parser.push(b"data: par").is_empty());
        assert!(parser.push(b"tial\n").is_empty());
        assert!(!parser.is_between_events());
        let events = parser.push(b"\n");
        assert_eq!(data(&events), [Some("partial")]);
        assert!(parser.is_between_events());
        assert_eq!(json("data: 1\n\ndata: 2\n"), [serde_json::json!(1)]);
    }

    #[test]
    fn empty_data_lines_count() {
        let events = events("data\ndata: x\n\ndata:\n\n");
        assert_eq!(data(&events), [Some("\nx"), Some("")]);
    }
}

/// Reads an SSE body as it arrives, one event at a time: what a test of a stream that
/// must end (or must not stay silent) reads with.
#[derive(Debug)]
pub struct SseReader<S> {
    body: S,
    parser: SseParser,
    ready: std::collections::VecDeque<SseEvent>,
    step: Duration,
}

impl<S, D, E> SseReader<S>
where
    S: futures_util::Stream<Item = Result<D, E>> + Unpin,
    D: AsRef<[u8]>,
    E: std::fmt::Debug,
{
    /// Reads `body`, waiting at most `step` for each event.
    pub fn new(body: S, step: Duration) -> Self {
        Self {
            body,
            parser: SseParser::default(),
            ready: std::collections::VecDeque::new(),
            step,
        }
    }

    /// The JSON of the next event with data; `None` when the body ends between events.
    ///
    /// # Panics
    /// When nothing arrives within the step (the stream stayed open, silent), the body
    /// fails, it ends inside an event, or the data is not JSON.
    pub async fn next_json(&mut self) -> Option<Value> {
        use futures_util::StreamExt as _;
        loop {
            if let Some(event) = self.ready.pop_front() {
                if event.data.is_some() {
                    return Some(event.json());
                }
                continue;
            }
            let chunk = tokio::time::timeout(self.step, self.body.next())
                .await
                .unwrap_or_else(|_| panic!("the stream stayed open, silent, for {:?}", self.step));
            match chunk {
                Some(bytes) => {
                    let bytes = bytes.unwrap_or_else(|error| panic!("body chunk: {error:?}"));
                    self.ready.extend(self.parser.push(bytes.as_ref()));
                }
                None => {
                    assert!(
                        self.parser.is_between_events(),
                        "the body ended inside an event"
                    );
                    return None;
                }
            }
        }
    }
}
