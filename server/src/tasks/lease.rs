//! Leases: how a store shared by several processes tells a task whose runner is alive from
//! one whose runner died with its process.
//!
//! A task at work (`submitted`, `working`) in a shared store carries a [`Lease`]: the id of
//! the engine instance running it and when that claim runs out. The runner renews it while
//! it lives (its own writes carry it; a quiet runner renews it alone, at most once per
//! [`LeaseTerms::renew_after`]). A reader that finds a task at work whose lease ran out
//! more than [`LeaseTerms::grace`] ago knows nobody runs it any more, and fails it.
//!
//! Tasks that wait for input, and tasks that are over, carry no lease: nothing runs them.
//! A store whose tasks die with the process that runs them (the in-memory store) needs no
//! leases at all ([`super::TaskStore::lease_terms`] is `None`).

use std::sync::Arc;
use std::time::Duration;

/// An engine instance's claim on a task it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The id of the engine instance running the task (random, not secret: it may appear in
    /// logs).
    pub holder: Arc<str>,
    /// When the claim runs out unless renewed: milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
}

impl Lease {
    /// A lease held by `holder` for `duration` from now.
    pub fn from_now(holder: &Arc<str>, duration: Duration) -> Self {
        let duration_ms = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        Self {
            holder: Arc::clone(holder),
            expires_at_ms: unix_millis().saturating_add(duration_ms),
        }
    }

    /// Whether the lease ran out more than `grace` before `now_ms` (Unix milliseconds): the
    /// grace allows for the holder's clock running behind the reader's.
    pub fn is_expired_at(&self, now_ms: u64, grace: Duration) -> bool {
        let grace_ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
        now_ms > self.expires_at_ms.saturating_add(grace_ms)
    }
}

/// How long leases last in a store, and what follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseTerms {
    /// How long a lease lasts from its last write.
    pub duration: Duration,
}

impl LeaseTerms {
    /// A runner that wrote nothing for this long renews its lease: a third of the
    /// duration, so two renewals may be late or lost before the lease runs out.
    pub fn renew_after(&self) -> Duration {
        self.duration / 3
    }

    /// How long past its expiry a reader still honours a lease (clock skew between
    /// instances, a renewal on its way): a sixth of the duration.
    pub fn grace(&self) -> Duration {
        self.duration / 6
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_expires_only_after_its_grace() {
        let holder: Arc<str> = Arc::from("instance-a");
        let lease = Lease {
            holder,
            expires_at_ms: 10_000,
        };
        let grace = Duration::from_secs(5);
        assert!(!lease.is_expired_at(9_999, grace));
        assert!(!lease.is_expired_at(15_000, grace));
        assert!(lease.is_expired_at(15_001, grace));
    }

    #[test]
    fn terms_renew_at_a_third_and_allow_a_sixth() {
        let terms = LeaseTerms {
            duration: Duration::from_secs(30),
        };
        assert_eq!(terms.renew_after(), Duration::from_secs(10));
        assert_eq!(terms.grace(), Duration::from_secs(5));
    }

    #[test]
    fn a_new_lease_runs_from_now() {
        let holder: Arc<str> = Arc::from("instance-a");
        let before = unix_millis();
        let lease = Lease::from_now(&holder, Duration::from_secs(2));
        assert!(lease.expires_at_ms >= before + 2_000);
        assert!(!lease.is_expired_at(unix_millis(), Duration::ZERO));
    }
}
