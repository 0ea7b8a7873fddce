//! Sessions: one container per session id, started, kept while used, ended when idle or
//! too old — AgentCore's session lifecycle.
//!
//! A session is *starting* for `--session-startup-ms` after its first invocation (that
//! invocation waits; others get the retryable 409), and *stopping* for as long again after
//! it ends. With `--exclusive-sessions`, a second invocation while one is in flight gets
//! the retryable 409 too.
//!
//! With an agent command (`--agent-cmd`) a session is also starting until its process's
//! `/ping` first answers 200, and stopping until its process has exited; a session whose
//! process exited or never listened is over (the next invocation starts a new one). Its
//! `/ping` sets the idle clock as AWS reads it (`front/ping_report.rs`): `HealthyBusy` with
//! a `time_of_last_update` is in use; `Healthy` with one is idle since that time (or the
//! last invocation, if later); without the time the clock runs from the last invocation,
//! even while it says `HealthyBusy`. A session kept past its idle timeout, or ended while
//! its agent says `HealthyBusy`, is logged with why.
//!
//! A session also ends when it is stopped ([`Sessions::stop`]: StopRuntimeSession, or the
//! `session-lost` fault): its open streams are cut, its container stopped, and it is
//! stopping for `--session-startup-ms` like any ended session; its tasks went with its
//! container. At most `--max-sessions` sessions are live at once; a new session past that
//! is refused ([`Unavailable::Quota`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use a2a_lambda_core::card::CardError;
use tokio::sync::watch;

use super::container::{Backend, Container};
use super::ping_report::Activity;
use crate::inspector::SessionWatch;

/// Session lifecycle settings.
#[derive(Debug, Clone, Copy)]
pub struct SessionPolicy {
    /// End a session unused for this long.
    pub idle_timeout: Duration,
    /// End a session this old, used or not.
    pub max_lifetime: Duration,
    /// Time a session takes to start (and to stop).
    pub startup: Duration,
    /// Refuse a second concurrent invocation on one session.
    pub exclusive: bool,
    /// Live sessions at most; a new one past that is refused.
    pub max_sessions: usize,
}

/// One session and its container.
pub struct Session {
    /// Its container.
    pub container: Container,
    created: Instant,
    ready_at: Instant,
    /// When the session was last in use (an invocation ended, or its agent said it was
    /// busy), in nanoseconds after `created`.
    last_used: AtomicU64,
    /// When its last invocation ended, in nanoseconds after `created`.
    last_invoked: AtomicU64,
    in_flight: AtomicUsize,
    /// Set once the session has ended: its open streams end with it.
    ended: watch::Sender<bool>,
    /// The inspector's journal and the session's id, when the inspector is on.
    watch: Option<(SessionWatch, Box<str>)>,
    /// The journal has been told the session is ready.
    ready_noted: std::sync::atomic::AtomicBool,
    /// Why the session was last said to be kept past its idle timeout (0: not said).
    kept_noted: std::sync::atomic::AtomicU8,
}

/// Why an invocation cannot use its session now.
#[derive(Debug, thiserror::Error)]
pub enum Unavailable {
    /// Starting, stopping or busy: AgentCore's retryable conflict.
    #[error("session {0} is {1}")]
    Busy(String, &'static str),
    /// A new container could not be made.
    #[error("{0}")]
    Container(#[from] CardError),
    /// A new session would pass `--max-sessions`.
    #[error("{0} sessions are active, the most this endpoint allows")]
    Quota(usize),
}

/// [`Sessions::stop`] found no live session of that id.
#[derive(Debug, thiserror::Error)]
#[error("no active session {0}")]
pub struct NoSuchSession(pub String);

/// Marks an invocation in flight on a session; dropping it ends the invocation.
pub struct InFlight {
    session: Arc<Session>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let session = &self.session;
        let before = session.in_flight.fetch_sub(1, Ordering::AcqRel);
        session.touch();
        session
            .last_invoked
            .store(session.last_used.load(Ordering::Acquire), Ordering::Release);
        if before == 1
            && let Some((watch, id)) = &session.watch
        {
            watch.idle(id);
        }
    }
}

impl Session {
    /// Marks the session used now.
    fn touch(&self) {
        let used = u64::try_from(self.created.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.last_used.store(used, Ordering::Release);
    }

    /// When it was last in use (when it was made, before any use).
    fn last_used(&self) -> Instant {
        self.created + Duration::from_nanos(self.last_used.load(Ordering::Acquire))
    }

    /// When its last invocation ended (when it was made, before any).
    fn last_invoked(&self) -> Instant {
        self.created + Duration::from_nanos(self.last_invoked.load(Ordering::Acquire))
    }

    /// Whether it takes invocations: its startup time has passed and its container is no
    /// longer starting.
    pub(crate) fn is_ready(&self) -> bool {
        Instant::now() >= self.ready_at && !self.container.starting()
    }

    /// Tells the journal (once, when the inspector is on) that the session is ready, if
    /// it is.
    pub(crate) fn note_ready(&self) {
        if let Some((watch, id)) = &self.watch
            && !self.ready_noted.load(Ordering::Acquire)
            && self.is_ready()
            && !self.ready_noted.swap(true, Ordering::AcqRel)
        {
            watch.ready(id);
        }
    }

    /// Logs, once for each reason, that the session outlives its idle timeout counted from
    /// its last invocation, and why: what its agent's `/ping` says.
    fn note_kept(&self, id: &str, activity: Activity) {
        let (code, why) = match activity {
            Activity::Busy => (1, "its /ping says HealthyBusy with a time_of_last_update"),
            Activity::IdleSince(_) => (
                2,
                "its /ping's time_of_last_update is recent: a container that moves it on every ping keeps its session (and its bill) until max lifetime, on AWS too",
            ),
            Activity::Unreported | Activity::BusyUnstamped => return,
        };
        if self.kept_noted.swap(code, Ordering::AcqRel) != code {
            tracing::info!(session_id = id, why, "session kept past its idle timeout");
        }
    }

    /// Whether it has ended.
    pub(crate) fn has_ended(&self) -> bool {
        *self.ended.borrow()
    }

    /// Resolves once the session has ended (at once if it has).
    pub fn ended(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut ended = self.ended.subscribe();
        async move {
            // An error means the session is gone altogether: ended too.
            let _ = ended.wait_for(|ended| *ended).await;
        }
    }
}

enum Slot {
    Live(Arc<Session>),
    /// Ended: stopping until `until` and until its container has stopped.
    Stopping {
        until: Instant,
        container: Container,
    },
}

impl Slot {
    /// Ends a live session: its container is stopped, the slot stops for `startup`.
    fn end(&mut self, now: Instant, startup: Duration) {
        if let Self::Live(session) = self {
            session.ended.send_replace(true);
            session.container.stop();
            *self = Self::Stopping {
                until: now + startup,
                container: session.container.clone(),
            };
        }
    }
}

/// Every session of the emulator.
pub struct Sessions {
    backend: Backend,
    policy: SessionPolicy,
    slots: Mutex<HashMap<String, Slot>>,
    /// The inspector's journal, told of every session's lifecycle (`None`: off).
    watch: Option<SessionWatch>,
    /// When these sessions' emulator started, in Unix seconds.
    started_unix: u64,
}

impl Sessions {
    /// No sessions yet.
    pub fn new(backend: Backend, policy: SessionPolicy) -> Self {
        Self {
            backend,
            policy,
            slots: Mutex::new(HashMap::new()),
            watch: None,
            started_unix: SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs()),
        }
    }

    /// Tells `watch` of every session's lifecycle.
    pub(crate) fn watched(mut self, watch: Option<SessionWatch>) -> Self {
        self.watch = watch;
        self
    }

    /// How many sessions are live, and `--max-sessions`.
    pub(crate) fn live_and_max(&self) -> (usize, usize) {
        let live = self
            .lock()
            .values()
            .filter(|slot| matches!(slot, Slot::Live(_)))
            .count();
        (live, self.policy.max_sessions)
    }

    /// Whether session `id` is live (started, not ended), without starting it.
    pub(crate) fn is_live(&self, id: &str) -> bool {
        matches!(self.lock().get(id), Some(Slot::Live(_)))
    }

    /// When the emulator these sessions belong to started, in Unix seconds.
    pub(crate) fn started_unix(&self) -> u64 {
        self.started_unix
    }

    /// Ends the live session in `slot`, telling the journal why.
    fn end(&self, id: &str, slot: &mut Slot, now: Instant, why: &str) {
        slot.end(now, self.policy.startup);
        if let Some(watch) = &self.watch {
            watch.stopped(id, why);
        }
    }

    /// Enters session `id`, making it if needed. Returns the session, the in-flight mark,
    /// and how long to wait for a session this call started.
    ///
    /// # Errors
    /// [`Unavailable`] when the session is starting, stopping or (exclusive) busy.
    pub fn enter(&self, id: &str) -> Result<(Arc<Session>, InFlight, Duration), Unavailable> {
        let (session, wait) = self.session(id, true)?;
        if session.in_flight.fetch_add(1, Ordering::AcqRel) == 0
            && let Some((watch, id)) = &session.watch
        {
            watch.busy(id);
        }
        let mark = InFlight {
            session: Arc::clone(&session),
        };
        Ok((session, mark, wait))
    }

    /// Session `id` for a health check: a starting or busy session answers too (a ping is
    /// not an invocation and does not count as one).
    ///
    /// # Errors
    /// [`Unavailable`] when the session is stopping or cannot be made.
    pub fn enter_for_health(&self, id: &str) -> Result<Arc<Session>, Unavailable> {
        self.session(id, false).map(|(session, _)| session)
    }

    /// The live session `id`, made if needed, with how long a session made now takes to
    /// start. An invocation is refused while the session starts or (exclusive) is busy.
    fn session(&self, id: &str, invocation: bool) -> Result<(Arc<Session>, Duration), Unavailable> {
        let startup = self.policy.startup;
        let mut slots = self.lock();
        // Read the clock under the lock: a time read before another call made the session
        // would fall before its `ready_at` and refuse a ready session as "starting".
        let now = Instant::now();
        if let Some(slot) = slots.get_mut(id) {
            if let Slot::Live(session) = slot {
                if now.duration_since(session.created) >= self.policy.max_lifetime {
                    // At its lifetime the session stops, for as long as a start takes (no
                    // time at all with the default --session-startup-ms 0) and until its
                    // process is gone.
                    tracing::info!(session_id = id, "session ended (lifetime)");
                    self.end(id, slot, now, "max lifetime");
                } else if session.container.ended() {
                    tracing::info!(session_id = id, "session ended (its agent process ended)");
                    self.end(id, slot, now, "agent process ended");
                }
            }
            match slot {
                Slot::Stopping { until, container } if now < *until || !container.stopped() => {
                    return Err(Unavailable::Busy(id.to_owned(), "stopping"));
                }
                Slot::Live(session) => {
                    if invocation && (now < session.ready_at || session.container.starting()) {
                        return Err(Unavailable::Busy(id.to_owned(), "starting"));
                    }
                    if invocation
                        && self.policy.exclusive
                        && session.in_flight.load(Ordering::Acquire) > 0
                    {
                        return Err(Unavailable::Busy(
                            id.to_owned(),
                            "busy with another invocation",
                        ));
                    }
                    return Ok((Arc::clone(session), Duration::ZERO));
                }
                // Stopped: a new session starts in its place.
                Slot::Stopping { .. } => {}
            }
        }
        let live = slots
            .values()
            .filter(|slot| matches!(slot, Slot::Live(_)))
            .count();
        if live >= self.policy.max_sessions {
            return Err(Unavailable::Quota(live));
        }
        let session = Arc::new(Session {
            container: self.backend.new_container(id)?,
            created: now,
            ready_at: now + startup,
            last_used: AtomicU64::new(0),
            last_invoked: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            ended: watch::Sender::new(false),
            watch: self.watch.clone().map(|watch| (watch, id.into())),
            ready_noted: std::sync::atomic::AtomicBool::new(false),
            kept_noted: std::sync::atomic::AtomicU8::new(0),
        });
        slots.insert(id.to_owned(), Slot::Live(Arc::clone(&session)));
        tracing::info!(session_id = id, "session started");
        if let Some(watch) = &self.watch {
            watch.started(id, &session);
        }
        Ok((session, startup))
    }

    /// Ends the live session `id` now, as StopRuntimeSession does: its open streams are
    /// cut, its container (or agent process) is stopped and its tasks go with it; the next
    /// invocation with that id starts a new session once it has stopped. `why` is logged.
    ///
    /// # Errors
    /// [`NoSuchSession`] when no live session has that id (never started, already ended).
    pub fn stop(&self, id: &str, why: &'static str) -> Result<(), NoSuchSession> {
        let mut slots = self.lock();
        match slots.get_mut(id) {
            Some(slot @ Slot::Live(_)) => {
                tracing::info!(session_id = id, why, "session ended (stopped)");
                self.end(id, slot, Instant::now(), why);
                Ok(())
            }
            _ => Err(NoSuchSession(id.to_owned())),
        }
    }

    /// Ends idle and expired sessions; returns how many ended.
    pub fn reap(&self) -> usize {
        let now = Instant::now();
        let mut slots = self.lock();
        let mut ended = 0;
        slots.retain(|id, slot| match slot {
            Slot::Stopping { until, container } => now < *until || !container.stopped(),
            Slot::Live(session) => {
                let activity = session.container.activity();
                if activity == Activity::Busy {
                    // An agent at work is in use: its idle time starts when it is done.
                    session.touch();
                }
                let last_used = session.last_used();
                // A `Healthy` ping's time is the end of the agent's last work: idle since
                // then, or since the last invocation if that came later.
                let idle_since = match activity {
                    Activity::IdleSince(time) => last_used.max(instant_of(time, now)),
                    Activity::Busy | Activity::Unreported | Activity::BusyUnstamped => last_used,
                };
                let unused = session.in_flight.load(Ordering::Acquire) == 0;
                let timeout = self.policy.idle_timeout;
                let idle = unused
                    && activity != Activity::Busy
                    && now.saturating_duration_since(idle_since) >= timeout;
                if unused
                    && !idle
                    && now.saturating_duration_since(session.last_invoked()) >= timeout
                {
                    session.note_kept(id, activity);
                }
                let expired = now.duration_since(session.created) >= self.policy.max_lifetime;
                let failed = session.container.ended();
                if idle || expired || failed {
                    let why = if failed {
                        "agent process ended"
                    } else if expired {
                        "max lifetime"
                    } else {
                        activity.idle_end_reason()
                    };
                    if activity == Activity::BusyUnstamped && !failed && !expired {
                        tracing::warn!(
                            session_id = id,
                            why,
                            "session ended while its agent said HealthyBusy"
                        );
                    } else {
                        tracing::info!(
                            session_id = id,
                            idle,
                            expired,
                            failed,
                            why,
                            "session ended"
                        );
                    }
                    ended += 1;
                    slot.end(now, self.policy.startup);
                    if let Some(watch) = &self.watch {
                        watch.stopped(id, why);
                    }
                }
                true
            }
        });
        ended
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The instant of wall-clock `time`, as read at `now` (a time to come is now).
fn instant_of(time: SystemTime, now: Instant) -> Instant {
    let age = SystemTime::now()
        .duration_since(time)
        .unwrap_or(Duration::ZERO);
    now.checked_sub(age).unwrap_or(now)
}

/// Reaps sessions every second while the emulator that made them lives.
pub fn spawn_reaper(sessions: &Arc<Sessions>) {
    let sessions = Arc::downgrade(sessions);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            // The emulator that made the sessions is gone: so is the reaper.
            let Some(sessions) = sessions.upgrade() else {
                break;
            };
            sessions.reap();
        }
    });
}

#[cfg(test)]
pub(crate) mod testing {
    //! Sessions of the echo agent, in-process, for the steps' tests.

    use std::sync::Arc;
    use std::time::Duration;

    use a2a_lambda_core::error::ErrorProfile;
    use a2a_lambda_server::agents::EchoAgent;
    use a2a_lambda_server::tasks::{
        DEFAULT_IN_MEMORY_BYTES, DEFAULT_IN_MEMORY_CAPACITY, TaskBudget,
    };

    use super::{SessionPolicy, Sessions};
    use crate::front::container::Backend;

    /// The echo agent in-process.
    pub(crate) fn backend() -> Backend {
        Backend::InProcess {
            agent: Arc::new(|| a2a_lambda_server::SharedAgent::new(EchoAgent)),
            profile: ErrorProfile::AgentCore,
            max_body_bytes: 1 << 20,
            public_url: "http://127.0.0.1:9000/".to_owned(),
            owners: Arc::default(),
            push: None,
            budget: TaskBudget::new(DEFAULT_IN_MEMORY_CAPACITY, DEFAULT_IN_MEMORY_BYTES),
        }
    }

    /// Sessions of the echo agent that start at once; at most `max_sessions` of them.
    pub(crate) fn sessions_of(startup: Duration, max_sessions: usize) -> Sessions {
        let policy = SessionPolicy {
            idle_timeout: Duration::from_secs(900),
            max_lifetime: Duration::from_secs(28_800),
            startup,
            exclusive: false,
            max_sessions,
        };
        Sessions::new(backend(), policy)
    }

    /// Sessions of the echo agent that start at once.
    pub(crate) fn sessions() -> Sessions {
        sessions_of(Duration::ZERO, 100)
    }
}
