//! A Server-Sent Events decoder, as the WHATWG HTML standard defines the format, fed bytes
//! in whatever chunks the network delivers.
//!
//! A2A reads `data` (each event's data is one JSON-RPC response, or over HTTP+JSON one
//! bare `StreamResponse`), `id` (where a cut stream resumes, sent back as `Last-Event-ID`)
//! and `event` (HTTP+JSON names a refusal mid-stream `event: error`); `retry` and
//! comments are read and ignored. Lines end with LF, CRLF or CR; an event ends
//! at a blank line; several `data` lines are joined with LF. A partial event still buffered
//! when the body ends is dropped, as the standard says.

/// One event: its data, and the id its own `id` field gave it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `data` lines, joined with LF.
    pub data: String,
    /// The `id` field of this event (an id without NUL, as the standard keeps).
    pub id: Option<String>,
    /// The `event` field of this event (the event type), if any.
    pub event: Option<String>,
}

/// Incremental SSE decoder.
#[derive(Debug, Default)]
pub struct Decoder {
    /// `id` of the event being read.
    id: Option<String>,
    /// `event` of the event being read.
    event: Option<String>,
    /// Bytes of the line being read (not yet ended).
    line: Vec<u8>,
    /// `data` of the event being read.
    data: Option<String>,
    /// The previous chunk ended with CR: a LF at the start of the next one is part of it.
    after_cr: bool,
    /// Bytes of a leading UTF-8 byte order mark matched so far (it is skipped however the
    /// reads cut it), until the first byte that is not part of one.
    bom_matched: usize,
    /// Past the place a byte order mark could be.
    started: bool,
}

const BOM: &[u8; 3] = b"\xEF\xBB\xBF";

impl Decoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds a chunk; returns every event it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in chunk {
            if !self.started {
                if BOM.get(self.bom_matched) == Some(&byte) {
                    self.bom_matched += 1;
                    self.started = self.bom_matched == BOM.len();
                    continue;
                }
                // Not a byte order mark after all: what looked like one is content.
                self.started = true;
                self.line.extend_from_slice(&BOM[..self.bom_matched]);
            }
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// True when part of an event is buffered (the stream stopped mid-event).
    pub fn has_partial_event(&self) -> bool {
        !self.line.is_empty() || self.data.is_some() || self.id.is_some() || self.event.is_some()
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            let id = self.id.take();
            let event = self.event.take();
            if let Some(data) = self.data.take() {
                events.push(SseEvent { data, id, event });
            }
            return;
        }
        let line = String::from_utf8_lossy(&line);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        if field == "id" && !value.contains('\0') {
            self.id = Some(value.to_owned());
        }
        if field == "event" {
            self.event = Some(value.to_owned());
        }
        if field == "data" {
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_EVENTS: &[u8] =
        b": keep-alive\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\nid: 7\ndata:{\"b\":\ndata: 2}\n\n";

    /// The data of the events completed by `chunk`.
    fn data(decoder: &mut Decoder, chunk: &[u8]) -> Vec<String> {
        decoder
            .push(chunk)
            .into_iter()
            .map(|event| event.data)
            .collect()
    }

    #[test]
    fn any_chunking_gives_the_same_events() {
        let expected = vec![
            SseEvent {
                data: "{\"a\":1}".to_owned(),
                id: None,
                event: Some("message".to_owned()),
            },
            SseEvent {
                data: "{\"b\":\n2}".to_owned(),
                id: Some("7".to_owned()),
                event: None,
            },
        ];
        for size in 1..=TWO_EVENTS.len() {
            let mut decoder = Decoder::new();
            let events: Vec<SseEvent> = TWO_EVENTS
                .chunks(size)
                .flat_map(|chunk| decoder.push(chunk))
                .collect();
            assert_eq!(events, expected, "chunks of {size}");
            assert!(!decoder.has_partial_event());
        }
    }

    #[test]
    fn cr_alone_ends_lines_and_bom_is_skipped() {
        let mut decoder = Decoder::new();
        assert_eq!(
            data(&mut decoder, b"\xEF\xBB\xBFdata: x\r\rdata: y\r"),
            ["x"]
        );
        assert_eq!(data(&mut decoder, b"\n"), Vec::<String>::new());
        assert_eq!(data(&mut decoder, b"\r"), ["y"]);
    }

    #[test]
    fn a_bom_cut_by_reads_is_skipped_and_a_lookalike_is_kept() {
        let mut decoder = Decoder::new();
        assert!(decoder.push(b"\xEF").is_empty());
        assert!(decoder.push(b"\xBB").is_empty());
        assert_eq!(data(&mut decoder, b"\xBFdata: a\n\n"), ["a"]);
        assert!(decoder.push(b"\xEF\xBB\xBFdata: b\n\n").is_empty());
        let mut lookalike = Decoder::new();
        assert_eq!(
            data(&mut lookalike, b"\xEFdata: c\n\n"),
            Vec::<String>::new()
        );
        assert!(!lookalike.has_partial_event());
    }

    #[test]
    fn an_unfinished_event_is_held_not_emitted() {
        let mut decoder = Decoder::new();
        assert!(decoder.push(b"data: {\"half\"").is_empty());
        assert!(decoder.has_partial_event());
        assert!(decoder.push(b":1}\n").is_empty());
        assert!(decoder.has_partial_event());
        assert_eq!(data(&mut decoder, b"\n"), ["{\"half\":1}"]);
    }

    #[test]
    fn events_without_data_are_not_events() {
        let mut decoder = Decoder::new();
        assert!(
            decoder
                .push(b"event: ping\n\n: comment\n\nretry: 10\n\n")
                .is_empty()
        );
        assert_eq!(data(&mut decoder, b"data\n\n"), [""]);
    }
}
