//! [`SessionWatch`]: how the front's sessions tell the journal their lifecycle — started,
//! ready (its startup time passed and, for an agent process, its first `/ping` answered),
//! busy and idle (an invocation in flight, none), stopped and why.

use std::sync::{Arc, Weak};
use std::time::Duration;

use super::journal::Journal;
use super::records::SessionState;
use crate::front::sessions::Session;

/// How often a starting session is looked at until it is ready.
const READY_POLL: Duration = Duration::from_millis(25);

/// The journal, as the sessions see it.
#[derive(Debug, Clone)]
pub(crate) struct SessionWatch(Journal);

impl SessionWatch {
    /// Reports to `journal`.
    pub(crate) fn new(journal: Journal) -> Self {
        Self(journal)
    }

    /// Session `id` was made; its readiness is watched from now on.
    pub(crate) fn started(&self, id: &str, session: &Arc<Session>) {
        self.0.session_event(id, SessionState::Starting, None);
        session.note_ready();
        if session.is_ready() {
            return;
        }
        let session: Weak<Session> = Arc::downgrade(session);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(READY_POLL).await;
                // A session gone or ended before it was ready is reported by its stop.
                let Some(session) = session.upgrade() else {
                    return;
                };
                if session.has_ended() {
                    return;
                }
                if session.is_ready() {
                    session.note_ready();
                    return;
                }
            }
        });
    }

    /// Session `id` is ready.
    pub(crate) fn ready(&self, id: &str) {
        self.0.session_event(id, SessionState::Ready, None);
    }

    /// An invocation entered idle session `id`.
    pub(crate) fn busy(&self, id: &str) {
        self.0.session_event(id, SessionState::Busy, None);
    }

    /// The last invocation in flight on session `id` ended.
    pub(crate) fn idle(&self, id: &str) {
        self.0.session_event(id, SessionState::Idle, None);
    }

    /// Session `id` ended, for `why`.
    pub(crate) fn stopped(&self, id: &str, why: &str) {
        self.0.session_event(id, SessionState::Stopped, Some(why));
    }
}
