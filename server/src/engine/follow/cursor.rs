//! Where a stream stands in its task's history: the SSE `id:` of every event, and the
//! `Last-Event-ID` a client sends to resume a stream that was cut.
//!
//! Every write of a task makes a version; a write applies some events, in order. An
//! event's id is `{taskId}:{version}.{n}` (the write's `n`-th event, from 1); the task
//! snapshot that opens a stream is `{taskId}:{version}` (everything up to that version)
//! or, when it shows the task before that write's events, `{taskId}:{version}.0`.

use a2a_lambda_core::model::StreamEvent;

/// A position in a task's history: the events of every version before `version`, and the
/// first `seen` events of `version`, have been delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cursor {
    pub version: u64,
    pub seen: u32,
}

impl Cursor {
    /// Everything up to and including `version`.
    pub(crate) fn after(version: u64) -> Self {
        Self {
            version,
            seen: u32::MAX,
        }
    }

    /// The `n`-th event (from 1) of `version`.
    pub(crate) fn at(version: u64, n: usize) -> Self {
        Self {
            version,
            seen: u32::try_from(n).unwrap_or(u32::MAX),
        }
    }

    /// The cursor a `Last-Event-ID` names for `task_id`; `None` when it names another
    /// task or is not one of ours.
    pub(crate) fn parse(text: &str, task_id: &str) -> Option<Self> {
        let rest = text.trim().strip_prefix(task_id)?.strip_prefix(':')?;
        match rest.split_once('.') {
            None => rest.parse().ok().map(Self::after),
            Some((version, seen)) => Some(Self {
                version: version.parse().ok()?,
                seen: seen.parse().ok()?,
            }),
        }
    }

    /// The SSE id of this position.
    pub(crate) fn sse_id(self, task_id: &str) -> String {
        if self.seen == u32::MAX {
            format!("{task_id}:{}", self.version)
        } else {
            format!("{task_id}:{}.{}", self.version, self.seen)
        }
    }
}

/// An event and where it stands in its task's history (`None`: it was not stored, as
/// when the store failed, so it has no position to resume from).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sequenced {
    pub event: StreamEvent,
    pub at: Option<Cursor>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_order() {
        for cursor in [Cursor::after(3), Cursor::at(3, 0), Cursor::at(12, 7)] {
            assert_eq!(Cursor::parse(&cursor.sse_id("t-1"), "t-1"), Some(cursor));
        }
        assert_eq!(Cursor::after(3).sse_id("t"), "t:3");
        assert_eq!(Cursor::at(3, 2).sse_id("t"), "t:3.2");
        assert!(Cursor::at(3, 0) < Cursor::at(3, 1));
        assert!(Cursor::at(3, 9) < Cursor::after(3));
        assert!(Cursor::after(3) < Cursor::at(4, 1));
    }

    #[test]
    fn other_ids_name_nothing() {
        for text in [
            "", "t", "t:", "t:x", "t:1.x", "t:-1", "u:1", "t:1.2.3", "tt:1",
        ] {
            assert_eq!(Cursor::parse(text, "t"), None, "{text}");
        }
    }
}
