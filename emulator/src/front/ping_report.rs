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
//!
//! A third wrong way is a container that says `Healthy` while a task it started is still
//! at work (its background work not reported as `HealthyBusy`): AWS counts that session
//! idle and ends it at its idle timeout, the task unfinished (the page above: `Healthy`
//! is "Ready for new work, no background tasks running", `HealthyBusy` "Currently
//! processing background tasks", and "A session in idle state for 15 minutes gets
//! automatically terminated"). The tasks a session's answers
//! showed at work are kept ([`PingLedger::task_at_work`]); after a `Healthy` ping, the
//! supervisor asks the container after them (`tasks/get`, [`PingLedger::tasks_to_check`])
//! and a task still at work gets the warning, once per session.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// Consecutive pings with the same status and a later time before the container is said
/// to re-stamp the time on every ping.
const RESTAMPS_TO_WARN: u32 = 3;

/// Tasks seen at work kept per session for the `Healthy` check (the newest).
const TASKS_KEPT: usize = 32;

/// A task a session's answers showed at work, and the wire to ask after it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskAtWork {
    /// Its id.
    pub(crate) id: String,
    /// It was made through A2A v1.0 (`GetTask`, `A2A-Version: 1.0`); else v0.3
    /// (`tasks/get`).
    pub(crate) v1_0: bool,
}

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

/// Whether a JSON-RPC `result` (a task, a send's answer or a stream event, of either A2A
/// version) shows its task submitted or working.
pub(crate) fn shows_at_work(result: &Value) -> bool {
    [
        &result["status"]["state"],
        &result["task"]["status"]["state"],
        &result["statusUpdate"]["status"]["state"],
    ]
    .into_iter()
    .filter_map(Value::as_str)
    .any(|state| {
        matches!(
            state,
            "submitted" | "working" | "TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING"
        )
    })
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
    /// Tasks the session's answers showed at work, not yet seen done.
    at_work: Vec<TaskAtWork>,
    warned_healthy_at_work: bool,
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

    /// Notes that an answer in the session showed `task` submitted or working.
    pub(crate) fn task_at_work(&self, task: TaskAtWork) {
        let mut ledger = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if ledger.warned_healthy_at_work || ledger.at_work.contains(&task) {
            return;
        }
        if ledger.at_work.len() == TASKS_KEPT {
            ledger.at_work.remove(0);
        }
        ledger.at_work.push(task);
    }

    /// The tasks to ask the container after: those seen at work, when its last ping said
    /// `Healthy` (none once the session was warned).
    pub(crate) fn tasks_to_check(&self) -> Vec<TaskAtWork> {
        let ledger = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let healthy = ledger
            .last
            .as_ref()
            .is_some_and(|last| last.status == PingStatus::Healthy);
        if !healthy || ledger.warned_healthy_at_work {
            return Vec::new();
        }
        ledger.at_work.clone()
    }

    /// What the container said of `task_id` after a `Healthy` ping: still at work (a
    /// warning, once per session), or not (done, or unknown to it: forgotten).
    pub(crate) fn checked(&self, task_id: &str, still_at_work: bool) {
        let mut ledger = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if !still_at_work {
            ledger.at_work.retain(|task| task.id != task_id);
            return;
        }
        if !ledger.warned_healthy_at_work {
            ledger.warned_healthy_at_work = true;
            ledger.at_work.clear();
            tracing::warn!(
                session_id = self.label,
                task_id,
                "the agent's /ping says Healthy while a task of its session is still working \
                 (its tasks/get says so): AWS counts such a session idle and ends it at its \
                 idle timeout, the task unfinished; say HealthyBusy (with time_of_last_update) \
                 until the task is done"
            );
        }
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

    #[test]
    fn a_result_at_work_is_read_in_either_version() {
        use serde_json::json;
        for at_work in [
            json!({"kind": "task", "id": "t", "status": {"state": "working"}}),
            json!({"kind": "task", "id": "t", "status": {"state": "submitted"}}),
            json!({"task": {"id": "t", "status": {"state": "TASK_STATE_WORKING"}}}),
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
            json!({"id": "t", "status": {"state": "TASK_STATE_WORKING"}}),
        ] {
            assert!(shows_at_work(&at_work), "{at_work}");
        }
        for done in [
            json!({"kind": "task", "id": "t", "status": {"state": "completed"}}),
            json!({"task": {"id": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}}),
            json!({"kind": "message", "parts": []}),
            serde_json::Value::Null,
        ] {
            assert!(!shows_at_work(&done), "{done}");
        }
    }

    #[test]
    fn tasks_at_work_are_checked_only_after_a_healthy_ping_until_one_is_found_working() {
        let ledger = PingLedger::new("s");
        let task = |id: &str| TaskAtWork {
            id: id.to_owned(),
            v1_0: false,
        };
        ledger.task_at_work(task("t-1"));
        ledger.task_at_work(task("t-1"));
        ledger.task_at_work(task("t-2"));
        // No ping yet, then a busy one: nothing to ask.
        assert_eq!(ledger.tasks_to_check(), Vec::new());
        ledger.record(ping(
            r#"{"status":"HealthyBusy","time_of_last_update":100}"#,
        ));
        assert_eq!(ledger.tasks_to_check(), Vec::new());
        ledger.record(ping(r#"{"status":"Healthy","time_of_last_update":101}"#));
        assert_eq!(ledger.tasks_to_check(), vec![task("t-1"), task("t-2")]);
        // A task done is forgotten; one still at work is the warning, and then nothing
        // more is asked.
        ledger.checked("t-1", false);
        assert_eq!(ledger.tasks_to_check(), vec![task("t-2")]);
        ledger.checked("t-2", true);
        assert!(ledger.state.lock().unwrap().warned_healthy_at_work);
        assert_eq!(ledger.tasks_to_check(), Vec::new());
        ledger.task_at_work(task("t-3"));
        assert_eq!(ledger.tasks_to_check(), Vec::new());
    }

    #[test]
    fn at_most_the_newest_tasks_are_kept() {
        let ledger = PingLedger::new("s");
        for i in 0..=TASKS_KEPT {
            ledger.task_at_work(TaskAtWork {
                id: format!("t-{i}"),
                v1_0: true,
            });
        }
        ledger.record(ping(r#"{"status":"Healthy"}"#));
        let kept = ledger.tasks_to_check();
        assert_eq!(kept.len(), TASKS_KEPT);
        assert_eq!(kept[0].id, "t-1");
    }
}
