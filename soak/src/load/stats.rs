//! What the load did: the [`Action`]s a worker chooses from, and the [`Stats`] of them
//! (latencies, unexpected answers, expected refusals).

use std::collections::BTreeMap;

/// What a worker does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// v0.3 `message/send`, completes.
    SendV03,
    /// v1.0 `SendMessage`, completes.
    SendV10,
    /// v0.3 `message/stream`, to completion.
    StreamV03,
    /// v1.0 `SendStreamingMessage`, to completion.
    StreamV10,
    /// `tasks/get` of a task of this worker's.
    Get,
    /// A working task: resubscribe to it, cancel it, the stream ends canceled.
    CancelResubscribe,
    /// A refused input: bad JSON, unknown method, a v1.0 method without its header.
    Bad,
}

impl Action {
    pub(super) const WEIGHTED: [Action; 12] = [
        Action::SendV03,
        Action::SendV03,
        Action::SendV10,
        Action::SendV10,
        Action::StreamV03,
        Action::StreamV10,
        Action::Get,
        Action::Get,
        Action::CancelResubscribe,
        Action::Bad,
        Action::Bad,
        Action::SendV10,
    ];

    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::SendV03 => "send v0.3",
            Self::SendV10 => "send v1.0",
            Self::StreamV03 => "stream v0.3",
            Self::StreamV10 => "stream v1.0",
            Self::Get => "get",
            Self::CancelResubscribe => "cancel+resubscribe",
            Self::Bad => "bad input",
        }
    }

    /// Whether it is one request answered at once (its latency is "normal traffic").
    pub fn unary(self) -> bool {
        matches!(self, Self::SendV03 | Self::SendV10 | Self::Get | Self::Bad)
    }
}

/// What the load did.
#[derive(Debug, Default)]
pub struct Stats {
    /// Completed actions and their latencies (µs), by action.
    pub latencies: BTreeMap<Action, Vec<u32>>,
    /// Unexpected answers or failures, counted; the first few kept.
    pub unexpected: u64,
    /// The first unexpected ones.
    pub samples: Vec<String>,
    /// Failures of requests begun after the server was told to stop (expected then:
    /// new connections are refused).
    pub refused_after_stop: u64,
    /// Actions begun before the stop whose request the server never took once it was
    /// stopping (no response began: sent on a connection it was closing).
    pub not_taken_at_stop: u64,
    /// Resubscribes that found the task already canceled (the cancel won the race).
    pub raced: u64,
    /// Gets answered -32001 (task not found): the task was evicted, the in-memory store
    /// keeping its newest 1,000 finished tasks (all sessions together on the front).
    pub evicted: u64,
}

impl Stats {
    /// Requests (actions) done.
    pub fn total(&self) -> usize {
        self.latencies.values().map(Vec::len).sum()
    }

    /// p50 and p99 (ms) of the unary actions.
    pub fn unary_percentiles(&self) -> (f64, f64) {
        let mut all: Vec<u32> = self
            .latencies
            .iter()
            .filter(|(action, _)| action.unary())
            .flat_map(|(_, latencies)| latencies.iter().copied())
            .collect();
        percentiles(&mut all)
    }

    pub(super) fn fail(&mut self, what: String) {
        self.unexpected += 1;
        if self.samples.len() < 20 {
            self.samples.push(what);
        }
    }
}

/// p50 and p99 (ms) of `latencies` (µs).
pub fn percentiles(latencies: &mut [u32]) -> (f64, f64) {
    if latencies.is_empty() {
        return (0.0, 0.0);
    }
    latencies.sort_unstable();
    let at = |q: f64| {
        let index = ((latencies.len() as f64 * q) as usize).min(latencies.len() - 1);
        f64::from(latencies[index]) / 1000.0
    };
    (at(0.50), at(0.99))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_the_50th_and_99th_in_milliseconds() {
        let mut latencies: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        assert_eq!(percentiles(&mut latencies), (51.0, 100.0));
        assert_eq!(percentiles(&mut []), (0.0, 0.0));
    }
}
