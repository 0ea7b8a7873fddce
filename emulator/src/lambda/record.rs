//! What an execution environment tells the inspector's journal: its state changes (a
//! session per environment: starting, ready, busy, idle, frozen, stopped) and how each
//! invocation ended (see `inspector::lambda`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::Journal;
use crate::inspector::SessionState;
use crate::inspector::lambda as journal;

/// One environment's link to the journal (nothing without one).
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorder {
    journal: Option<Journal>,
    /// The environment's session id in the journal.
    environment: String,
    /// Lambda request id → the front's journal entry.
    entries: Arc<Mutex<HashMap<String, u64>>>,
}

impl Recorder {
    /// Recording environment `environment` in `journal`.
    pub fn new(journal: Option<Journal>, environment: String) -> Self {
        Self {
            journal,
            environment,
            entries: Arc::default(),
        }
    }

    /// The environment entered `state`.
    pub fn state(&self, state: SessionState, why: Option<&str>) {
        if let Some(journal) = &self.journal {
            journal::environment(journal, &self.environment, state, why);
        }
    }

    /// The front's entry `seq` is invocation `request_id`.
    pub fn link(&self, request_id: &str, seq: u64, thawed: bool) {
        if let Some(journal) = &self.journal {
            self.entries
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(request_id.to_owned(), seq);
            journal::note(journal, seq, |note| {
                note.request_id = Some(request_id.to_owned());
                note.thawed = thawed;
            });
            journal::in_environment(journal, seq, &self.environment);
        }
    }

    /// An invocation was handed out (after thawing the environment, or not).
    pub fn started(&self, thawed: bool) {
        self.state(
            SessionState::Busy,
            thawed.then_some("SIGCONT: thawed for an invocation"),
        );
    }

    /// An invocation is over, after `took`, failed with `error` or not.
    pub fn over(&self, request_id: &str, took: Duration, error: Option<String>) {
        let Some(journal) = &self.journal else {
            return;
        };
        let seq = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(request_id);
        if let Some(seq) = seq {
            journal::note(journal, seq, |note| {
                note.duration = Some(took);
                note.error = error;
            });
        }
        self.state(SessionState::Idle, None);
    }

    /// The environment was frozen (`SIGSTOP`).
    pub fn frozen(&self) {
        self.state(
            SessionState::Frozen,
            Some("SIGSTOP: the runtime and every extension asked for their next event"),
        );
    }

    /// An invocation timed out.
    pub fn timed_out(&self, _request_id: &str) {
        self.state(SessionState::Idle, Some("Task timed out"));
    }
}
