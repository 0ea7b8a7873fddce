//! What an agent process's `GET /ping` says, read as AWS reads it for a session's idle
//! clock.
//!
//! The container answers `{"status": "Healthy" | "HealthyBusy", "time_of_last_update":
//! <Unix seconds>}`. AWS's sources disagree on the second member, and the emulator follows
//! what AWS has been observed to do:
//!
//! - AWS's page "Handle asynchronous and long running agents"
//!   (<https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/runtime-long-run.html>)
//!   says to set `time_of_last_update` only when the status changes, and in its earlier
//!   versions showed `{"status": "HealthyBusy"}` alone, as if the platform tracked changes
//!   itself;
//! - field reports (aws/bedrock-agentcore-sdk-python issue 471 and PR 542, fastagent PR
//!   314) show that a `HealthyBusy` without `time_of_last_update` is ended at the idle
//!   timeout while it works, and that a container re-stamping the time on every ping never
//!   idles out.
//!
//! So, as the session's reaper reads it ([`Activity`]): `HealthyBusy` with a time keeps the
//! session in use; `HealthyBusy` without one counts for nothing (the idle clock runs from
//! the last invocation); `Healthy` with a time means idle since then (or since the last
//! invocation, whichever is later); `Healthy` without one counts for nothing. The two wrong
//! ways get a warning naming what AWS would do, once per session.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// Consecutive pings with the same status and a later time before the container is said
/// to re-stamp the time on every ping.
const RESTAMPS_TO_WARN: u32 = 3;

/// The `status` of a `/ping` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PingStatus {
    /// `Healthy`: idle, waiting for requests.
    Healthy,
    /// `HealthyBusy`: at work on something the session must live for.
    HealthyBusy,
    /// Anything else (or none): AWS names no other status, so it says nothing about work.
    Other(String),
}

/// One `/ping` answer that came back 200.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PingReport {
    /// Its `status`.
    pub(crate) status: PingStatus,
    /// Its `time_of_last_update`, when it is a number of Unix seconds.
    pub(crate) time_of_last_update: Option<u64>,
}

impl PingReport {
    /// Reads a `/ping` body; one that is not JSON is a ping without a status.
    pub(crate) fn parse(body: &[u8]) -> Self {
        let json = serde_json::from_slice::<Value>(body).unwrap_or(Value::Null);
        let status = match json.get("status").and_then(Value::as_str) {
            Some("Healthy") => PingStatus::Healthy,
            Some("HealthyBusy") => PingStatus::HealthyBusy,
            other => PingStatus::Other(other.unwrap_or_default().to_owned()),
        };
        Self {
            status,
            time_of_last_update: json.get("time_of_last_update").and_then(Value::as_u64),
        }
    }
}

/// What the pings so far mean for the session's idle clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Activity {
    /// In use (`HealthyBusy` with a time): its idle time has not started.
    Busy,
    /// Idle since this time (`Healthy` with a time).
    IdleSince(SystemTime),
    /// Nothing the idle clock counts: it runs from the session's last invocation.
    Unreported,
    /// `HealthyBusy` without a time, which AWS does not count as busy: the idle clock runs
    /// from the last invocation, and the session's end says why.
    BusyUnstamped,
}

impl Activity {
    /// Why a session whose pings read so ended at its idle timeout.
    pub(crate) fn idle_end_reason(self) -> &'static str {
        match self {
            Self::BusyUnstamped => {
                "idle timeout: its /ping said HealthyBusy without time_of_last_update, which AWS does not count as busy"
            }
            Self::Busy | Self::IdleSince(_) | Self::Unreported => "idle timeout",
        }
    }
}

/// Every `/ping` answer of one agent process, as its session's reaper reads them.
#[derive(Debug)]
pub(crate) struct PingLedger {
    /// The session, for the warnings.
    label: String,
    state: Mutex<Ledger>,
}

#[derive(Debug, Default)]
struct Ledger {
    last: Option<PingReport>,
    /// Pings in a row with the status unchanged and a later time.
    restamps: u32,
    warned_restamp: bool,
    warned_unstamped: bool,
}

impl PingLedger {
    /// No ping yet, for the session `label`.
    pub(crate) fn new(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            state: Mutex::new(Ledger::default()),
        }
    }

    /// Records a ping that answered 200 (`None`: one that did not, which leaves what the
    /// last one said).
    pub(crate) fn record(&self, report: Option<PingReport>) {
        let Some(report) = report else {
            return;
        };
        let mut ledger = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let restamped = ledger.last.as_ref().is_some_and(|last| {
            last.status == report.status
                && matches!(
                    (last.time_of_last_update, report.time_of_last_update),
                    (Some(before), Some(now)) if now > before
                )
        });
        ledger.restamps = if restamped { ledger.restamps + 1 } else { 0 };
        if ledger.restamps >= RESTAMPS_TO_WARN && !ledger.warned_restamp {
            ledger.warned_restamp = true;
            tracing::warn!(
                session_id = self.label,
                "the agent's /ping moves time_of_last_update on every ping although its status \
                 stays the same: on AWS such a session never idles out and runs, billed, until \
                 its max lifetime; set the time only when the status changes"
            );
        }
        if report.status == PingStatus::HealthyBusy
            && report.time_of_last_update.is_none()
            && !ledger.warned_unstamped
        {
            ledger.warned_unstamped = true;
            tracing::warn!(
                session_id = self.label,
                "the agent's /ping says HealthyBusy without time_of_last_update: AWS ends such \
                 a session at its idle timeout even while it works, and so does the emulator; \
                 add time_of_last_update (Unix seconds of the last status change)"
            );
        }
        ledger.last = Some(report);
    }

    /// What the pings so far mean for the idle clock.
    pub(crate) fn activity(&self) -> Activity {
        let ledger = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(last) = &ledger.last else {
            return Activity::Unreported;
        };
        match (&last.status, last.time_of_last_update) {
            (PingStatus::HealthyBusy, Some(_)) => Activity::Busy,
            (PingStatus::HealthyBusy, None) => Activity::BusyUnstamped,
            (PingStatus::Healthy, Some(seconds)) => {
                Activity::IdleSince(UNIX_EPOCH + Duration::from_secs(seconds))
            }
            (PingStatus::Healthy | PingStatus::Other(_), _) => Activity::Unreported,
        }
    }

    /// Forgets the pings: the process is gone.
    pub(crate) fn clear(&self) {
        let mut ledger = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        ledger.last = None;
        ledger.restamps = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ping(body: &str) -> Option<PingReport> {
        Some(PingReport::parse(body.as_bytes()))
    }

    #[test]
    fn bodies_read_as_aws_names_them() {
        assert_eq!(
            PingReport::parse(br#"{"status":"HealthyBusy","time_of_last_update":1715000000}"#),
            PingReport {
                status: PingStatus::HealthyBusy,
                time_of_last_update: Some(1_715_000_000),
            }
        );
        assert_eq!(
            PingReport::parse(br#"{"status":"Healthy","time_of_last_update":"soon"}"#),
            PingReport {
                status: PingStatus::Healthy,
                time_of_last_update: None,
            }
        );
        assert_eq!(
            PingReport::parse(b"ok"),
            PingReport {
                status: PingStatus::Other(String::new()),
                time_of_last_update: None,
            }
        );
    }

    #[test]
    fn busy_counts_only_with_a_time_and_healthy_with_a_time_is_idle_since_then() {
        let ledger = PingLedger::new("s");
        assert_eq!(ledger.activity(), Activity::Unreported);
        ledger.record(ping(
            r#"{"status":"HealthyBusy","time_of_last_update":100}"#,
        ));
        assert_eq!(ledger.activity(), Activity::Busy);
        // A ping that did not answer leaves what the last one said.
        ledger.record(None);
        assert_eq!(ledger.activity(), Activity::Busy);
        ledger.record(ping(r#"{"status":"HealthyBusy"}"#));
        assert_eq!(ledger.activity(), Activity::BusyUnstamped);
        assert_eq!(
            Activity::BusyUnstamped.idle_end_reason(),
            "idle timeout: its /ping said HealthyBusy without time_of_last_update, which AWS does not count as busy"
        );
        ledger.record(ping(r#"{"status":"Healthy","time_of_last_update":200}"#));
        assert_eq!(
            ledger.activity(),
            Activity::IdleSince(UNIX_EPOCH + Duration::from_secs(200))
        );
        ledger.record(ping(r#"{"status":"Healthy"}"#));
        assert_eq!(ledger.activity(), Activity::Unreported);
        ledger.record(ping(r#"{"status":"Starting","time_of_last_update":300}"#));
        assert_eq!(ledger.activity(), Activity::Unreported);
        ledger.clear();
        assert_eq!(ledger.activity(), Activity::Unreported);
    }

    #[test]
    fn restamps_are_counted_only_while_the_status_stays() {
        let ledger = PingLedger::new("s");
        for time in [10, 11, 12] {
            ledger.record(ping(&format!(
                r#"{{"status":"Healthy","time_of_last_update":{time}}}"#
            )));
        }
        assert_eq!(ledger.state.lock().unwrap().restamps, 2);
        assert!(!ledger.state.lock().unwrap().warned_restamp);
        // A status change moves the time rightly: the count starts again.
        ledger.record(ping(r#"{"status":"HealthyBusy","time_of_last_update":13}"#));
        assert_eq!(ledger.state.lock().unwrap().restamps, 0);
        for time in [14, 15, 16] {
            ledger.record(ping(&format!(
                r#"{{"status":"HealthyBusy","time_of_last_update":{time}}}"#
            )));
        }
        assert!(ledger.state.lock().unwrap().warned_restamp);
        // The same time again is no re-stamp.
        ledger.record(ping(r#"{"status":"HealthyBusy","time_of_last_update":16}"#));
        assert_eq!(ledger.state.lock().unwrap().restamps, 0);
    }
}
